// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks. Per device, in /sys/kernel/debug/i82574/<pci name>/:
 *
 *  fail_slot_reset	a bool: while Y, PCIe error recovery fails in this
 *			driver's slot_reset, as if the function could not be
 *			enabled again (the failure path of i82574_err.c)
 *  tx_state		read: for each TX queue, what a stuck report needs
 *			to tell where a packet waits: the queue's state bits
 *			and dispatch_limit counts, BQL, the ring's indexes
 *			and the device's, and the queue's qdisc (its state
 *			bits, whether it runs, its backlog and requeues)
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
#include <linux/seq_file.h>
#include <net/sch_generic.h>

#include "i82574.h"

static struct dentry *i82574_dbg_root;

static void i82574_tx_state_qdisc(struct seq_file *s, unsigned int q,
				  struct netdev_queue *txq)
{
	struct Qdisc *qd;
	unsigned long st;

	rcu_read_lock();
	qd = rcu_dereference(txq->qdisc);
	st = READ_ONCE(qd->state);
	seq_printf(s, "tx%u qdisc %s state %#lx sched %d deactivated %d missed %d draining %d\n",
		   q, qd->ops->id, st, !!(st & BIT(__QDISC_STATE_SCHED)),
		   !!(st & BIT(__QDISC_STATE_DEACTIVATED)),
		   !!(st & QDISC_STATE_MISSED), !!(st & QDISC_STATE_DRAINING));
	seq_printf(s, "tx%u qdisc running %d qlen %d gso_skb %u bad_txq %u\n",
		   q, qdisc_is_running(qd), qdisc_qlen_sum(qd),
		   skb_queue_len_lockless(&qd->gso_skb),
		   skb_queue_len_lockless(&qd->skb_bad_txq));
	rcu_read_unlock();
}

/* tx_state: lockless reads of state that moves, for a queue found stuck */
static int i82574_tx_state_show(struct seq_file *s, void *unused)
{
	struct i82574_dev *priv = s->private;
	struct net_device *netdev = priv->netdev;
	unsigned int q;

	rtnl_lock();
	for (q = 0; q < netdev->real_num_tx_queues; q++) {
		struct netdev_queue *txq = netdev_get_tx_queue(netdev, q);
		unsigned long st = READ_ONCE(txq->state);

		seq_printf(s, "tx%u state %#lx drv_xoff %d stack_xoff %d frozen %d dispatch_kick %d\n",
			   q, st, !!(st & BIT(__QUEUE_STATE_DRV_XOFF)),
			   !!(st & BIT(__QUEUE_STATE_STACK_XOFF)),
			   !!(st & BIT(__QUEUE_STATE_FROZEN)),
			   !!(st & BIT(__QUEUE_STATE_DISPATCH_KICK)));
		/* dispatch_cpu is 1 + the CPU whose flush list holds the queue */
		seq_printf(s, "tx%u dispatch limit %u pending %u cpu+1 %u\n",
			   q, READ_ONCE(txq->dispatch_limit),
			   READ_ONCE(txq->dispatch_pending),
			   READ_ONCE(txq->dispatch_cpu));
#ifdef CONFIG_BQL
		seq_printf(s, "tx%u bql queued %u completed %u limit %u adj_limit %u\n",
			   q, READ_ONCE(txq->dql.num_queued),
			   READ_ONCE(txq->dql.num_completed),
			   READ_ONCE(txq->dql.limit),
			   READ_ONCE(txq->dql.adj_limit));
#endif
		/* the rings exist and the device is powered while up */
		if (priv->up && priv->nv[q]) {
			struct i82574_ring *tx = &priv->nv[q]->tx;

			seq_printf(s, "tx%u ring head %u tail %u fill %u doorbell %u TDH %u TDT %u\n",
				   q, READ_ONCE(tx->head), READ_ONCE(tx->tail),
				   READ_ONCE(tx->fill), READ_ONCE(tx->doorbell),
				   rd32(priv, I82574_TDH(q)),
				   rd32(priv, I82574_TDT(q)));
		}
		i82574_tx_state_qdisc(s, q, txq);
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(i82574_tx_state);

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
	debugfs_create_file("tx_state", 0400, priv->dbg_dir, priv,
			    &i82574_tx_state_fops);
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
