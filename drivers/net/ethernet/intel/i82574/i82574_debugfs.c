// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection for the robustness tests, built only with
 * CONFIG_FAULT_INJECTION_DEBUG_FS. Per device, in
 * /sys/kernel/debug/i82574/<pci name>/:
 *
 *  fail_tx_dma_map/	a fault_attr (Documentation/fault-injection/):
 *			TX buffer mappings that fail as if dma_map_*() had
 *  tx_stop		write a queue index: clear that ring's TARC enable
 *			bit, so the device stops fetching its descriptors
 *			until the next reset (what ndo_tx_timeout does)
 */

#include <linux/debugfs.h>
#include <linux/rtnetlink.h>

#include "i82574.h"

static struct dentry *i82574_dbg_root;

static ssize_t i82574_tx_stop_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	struct i82574_dev *priv = file->private_data;
	unsigned int q;
	int err;

	err = kstrtouint_from_user(buf, count, 0, &q);
	if (err)
		return err;
	rtnl_lock();
	if (q >= priv->cfg.num_qp)
		err = -EINVAL;
	else if (!netif_running(priv->netdev))
		err = -ENETDOWN;
	else
		rmw32(priv, I82574_TARC(q), I82574_TARC_ENABLE, 0);
	rtnl_unlock();
	if (err)
		return err;
	netdev_info(priv->netdev, "debugfs: TX queue %u stopped\n", q);
	return count;
}

static const struct file_operations i82574_tx_stop_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= i82574_tx_stop_write,
	.llseek	= noop_llseek,
};

void i82574_debugfs_add(struct i82574_dev *priv)
{
	struct dentry *dir;

	priv->fail_tx_map = (struct fault_attr)FAULT_ATTR_INITIALIZER;
	dir = debugfs_create_dir(pci_name(priv->pdev), i82574_dbg_root);
	priv->dbg_dir = dir;
	fault_create_debugfs_attr("fail_tx_dma_map", dir, &priv->fail_tx_map);
	debugfs_create_file("tx_stop", 0200, dir, priv, &i82574_tx_stop_fops);
}

void i82574_debugfs_del(struct i82574_dev *priv)
{
	debugfs_remove(priv->dbg_dir);
	priv->dbg_dir = NULL;
}

void i82574_debugfs_init(void)
{
	i82574_dbg_root = debugfs_create_dir(I82574_DRV_NAME, NULL);
}

void i82574_debugfs_exit(void)
{
	debugfs_remove(i82574_dbg_root);
}
