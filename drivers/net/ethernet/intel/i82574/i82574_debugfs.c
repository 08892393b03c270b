// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks. Per device, in /sys/kernel/debug/i82574/<pci name>/:
 *
 *  fail_slot_reset	a bool: while Y, PCIe error recovery fails in this
 *			driver's slot_reset, as if the function could not be
 *			enabled again (the failure path of i82574_err.c)
 *
 * and fault injection for the robustness tests, with
 * CONFIG_FAULT_INJECTION_DEBUG_FS only:
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

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS

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

static void i82574_debugfs_add_faults(struct i82574_dev *priv)
{
	priv->fail_tx_map = (struct fault_attr)FAULT_ATTR_INITIALIZER;
	fault_create_debugfs_attr("fail_tx_dma_map", priv->dbg_dir,
				  &priv->fail_tx_map);
	debugfs_create_file("tx_stop", 0200, priv->dbg_dir, priv,
			    &i82574_tx_stop_fops);
}
#else
static void i82574_debugfs_add_faults(struct i82574_dev *priv) {}
#endif

/**
 * i82574_debugfs_add - create the device's debugfs directory and hooks
 * @priv: device
 */
void i82574_debugfs_add(struct i82574_dev *priv)
{
	priv->dbg_dir = debugfs_create_dir(pci_name(priv->pdev),
					   i82574_dbg_root);
	debugfs_create_bool("fail_slot_reset", 0600, priv->dbg_dir,
			    &priv->fail_slot_reset);
	i82574_debugfs_add_faults(priv);
}

/**
 * i82574_debugfs_del - remove what i82574_debugfs_add() created
 * @priv: device
 */
void i82574_debugfs_del(struct i82574_dev *priv)
{
	debugfs_remove(priv->dbg_dir);
	priv->dbg_dir = NULL;
}

/**
 * i82574_debugfs_init - create the driver's debugfs root
 */
void i82574_debugfs_init(void)
{
	i82574_dbg_root = debugfs_create_dir(I82574_DRV_NAME, NULL);
}

/**
 * i82574_debugfs_exit - remove the driver's debugfs root
 */
void i82574_debugfs_exit(void)
{
	debugfs_remove(i82574_dbg_root);
}
