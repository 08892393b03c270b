// SPDX-License-Identifier: GPL-2.0
/* netdevsim TX rings with a doorbell, for dispatch_limit.
 *
 * ndo_start_xmit() posts each packet to its queue's ring; the peer sees
 * nothing of it until the doorbell, which is rung when
 * netdev_tx_sent_dispatch() says so or by ndo_xmit_flush(). A packet the
 * core leaves without a doorbell stays on the ring for good, whatever the
 * timing, and debugfs shows it: ports/N/dispatch lists, per TX queue,
 * packets posted, pending (on the ring), doorbells and flushes rung, and
 * BQL's bytes in flight. As on hardware, the doorbell's packets complete
 * later, in the NAPI poll of the RX queue with the same index, so a busy
 * queue is not idle between two doorbells.
 * ports/N/dispatch_ctl takes "stop Q", "start Q" and "wake Q" to stop and
 * restart a queue as a driver does, "stop_next Q" to stop queue Q, as
 * another context of a driver could, right after its next packet that
 * waits for a doorbell, and "stop_all 0" and "wake_all 0" to stop and wake
 * every queue, hidden ones included, as drivers do on a link change.
 * "napi_lock 1" makes the port complete its NAPI polls with a driver lock
 * held and IRQs off, a lock its (simulated) interrupt handler takes too,
 * as 8139too does: lockdep then knows the lock as HARDIRQ-safe, and
 * anything the core does inside napi_complete_done() nests under it.
 * "napi_lock 0" ends that. Without lockdep, "under_lock" in ports/N/dispatch
 * counts the core's flushes of a queue that came while some port held
 * that lock on the same CPU.
 * "drop_batch_end 1" makes the port drop the last packet of every
 * xmit_more batch and forget its doorbell, the classic bug of a driver's
 * drop path: the packets before it stay posted unless the core flushes
 * them. "drop_batch_end 0" ends that.
 * "busy N" makes every Nth packet that finds packets on its queue's ring
 * waiting for a doorbell find no room, as a driver that checks for room
 * at the top of ndo_start_xmit() does (e1000e): the port stops the queue
 * and returns NETDEV_TX_BUSY without a doorbell, and wakes the queue when
 * a later doorbell's packets complete, as hardware would. If nothing
 * rings for the waiting packets the queue stays stopped for good. "busy 0"
 * ends that. "busy" in ports/N/dispatch counts the refusals, "purged" the
 * packets that closing the port dropped from the ring, never rung.
 */

#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <net/netdev_queues.h>

#include "netdevsim.h"

/* BQL counts the bytes in flight (the core tells a busy queue from an idle
 * one by them) but must not stop the queue: the default qdisc is noqueue
 * (IFF_NO_QUEUE), which drops what a stopped queue is handed.
 */
#define NSIM_TX_BQL_MIN		SZ_64M

/* this CPU is inside napi_complete_done() under a port's napi_lock */
static DEFINE_PER_CPU(bool, nsim_napi_locked);

/* Hand everything posted on queue qid to the peer; _xmit_lock held. */
static void nsim_tx_doorbell(struct netdevsim *ns, unsigned int qid)
{
	struct nsim_txq *tq = &ns->txq[qid];
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;
	unsigned long flags;

	tq->doorbells++;
	while ((skb = __skb_dequeue(&tq->ring))) {
		pkts++;
		bytes += skb->len;
		nsim_tx_deliver(ns, skb);
	}
	/* netpoll rings with interrupts off, from a hard IRQ's printk too */
	spin_lock_irqsave(&tq->done_lock, flags);
	tq->done_pkts += pkts;
	tq->done_bytes += bytes;
	tq->wake_on_done |= tq->busy_stopped;
	spin_unlock_irqrestore(&tq->done_lock, flags);
	tq->busy_stopped = false;
	napi_schedule(&ns->rq[qid].napi);
}

/* From the NAPI poll of RX queue qid: complete what queue qid rang for. */
void nsim_tx_complete(struct netdevsim *ns, unsigned int qid)
{
	struct nsim_txq *tq = &ns->txq[qid];
	struct netdev_queue *txq = netdev_get_tx_queue(ns->netdev, qid);
	unsigned int pkts, bytes;
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&tq->done_lock, flags);
	pkts = tq->done_pkts;
	bytes = tq->done_bytes;
	wake = tq->wake_on_done;
	tq->done_pkts = 0;
	tq->done_bytes = 0;
	tq->wake_on_done = false;
	spin_unlock_irqrestore(&tq->done_lock, flags);
	netdev_tx_completed_queue(txq, pkts, bytes);
	if (wake)
		netif_tx_wake_queue(txq);
}

/* "busy N": no room for this packet, with earlier ones waiting for their
 * doorbell. Stop the queue, to be woken by a later doorbell's completion.
 */
static bool nsim_tx_busy(struct netdevsim *ns, struct nsim_txq *tq,
			 struct netdev_queue *txq)
{
	unsigned int every = READ_ONCE(ns->busy_every);

	if (likely(!every) || skb_queue_empty(&tq->ring) ||
	    ++tq->busy_count < every)
		return false;
	tq->busy_count = 0;
	tq->busy++;
	tq->busy_stopped = true;
	netif_tx_stop_queue(txq);
	return true;
}

netdev_tx_t nsim_tx_post(struct netdevsim *ns, struct sk_buff *skb)
{
	unsigned int qid = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(ns->netdev, qid);
	struct nsim_txq *tq = &ns->txq[qid];
	bool more = netdev_xmit_more();
	bool batch_end = tq->in_batch && !more;
	unsigned int len = skb->len;

	if (unlikely(nsim_tx_busy(ns, tq, txq)))
		return NETDEV_TX_BUSY;
	tq->in_batch = more;
	if (unlikely(batch_end && READ_ONCE(ns->drop_batch_end))) {
		/* a drop path that forgets the batch's doorbell */
		nsim_tx_dropped(ns);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}

	/* pktgen hands the same skb over again (IFF_TX_SKB_SHARING); the
	 * ring links skbs, and the peer changes what it receives
	 */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb)) {
		nsim_tx_dropped(ns);
		/* earlier packets of the batch may wait for this doorbell */
		if (!skb_queue_empty(&tq->ring))
			nsim_tx_doorbell(ns, qid);
		netdev_tx_dispatch_rang(txq);
		return NETDEV_TX_OK;
	}
	__skb_queue_tail(&tq->ring, skb);
	tq->posted++;
	if (netdev_tx_sent_dispatch(txq, len, more)) {
		nsim_tx_doorbell(ns, qid);
		return NETDEV_TX_OK;
	}
	if (tq->stop_next) {
		tq->stop_next = false;
		netif_tx_stop_queue(txq);
	}
	return NETDEV_TX_OK;
}

void nsim_xmit_flush(struct net_device *dev, struct netdev_queue *txq)
{
	struct netdevsim *ns = netdev_priv(dev);
	unsigned int qid = txq - netdev_get_tx_queue(dev, 0);

	if (this_cpu_read(nsim_napi_locked))
		ns->txq[qid].under_lock++;
	if (skb_queue_empty(&ns->txq[qid].ring))
		return;
	ns->txq[qid].flushes++;
	nsim_tx_doorbell(ns, qid);
}

/* BQL from scratch, with the floor that keeps it from stopping the queue:
 * dql_reset() leaves the limit the stack checks against as it was (0 on a
 * new queue) until a completion, and a completion of nothing sets it.
 */
static void nsim_tx_bql_reset(struct netdev_queue *txq)
{
	netdev_tx_reset_queue(txq);
#ifdef CONFIG_BQL
	dql_completed(&txq->dql, 0);
#endif
}

/* Device closed (no transmit, NAPI disabled): drop what was never rung,
 * forget completions not yet reported.
 */
void nsim_tx_rings_reset(struct netdevsim *ns)
{
	struct net_device *dev = ns->netdev;
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, i);
		struct nsim_txq *tq = &ns->txq[i];
		unsigned int n;

		/* a transmit to a noqueue device may still be running */
		__netif_tx_lock_bh(txq);
		tq->done_pkts = 0;
		tq->done_bytes = 0;
		tq->wake_on_done = false;
		tq->busy_stopped = false;
		n = skb_queue_len(&tq->ring);
		tq->purged += n;
		u64_stats_update_begin(&ns->syncp);
		ns->tx_dropped += n;
		u64_stats_update_end(&ns->syncp);
		__skb_queue_purge(&tq->ring);
		nsim_tx_bql_reset(txq);
		__netif_tx_unlock_bh(txq);
	}
}

int nsim_tx_rings_init(struct netdevsim *ns)
{
	unsigned int i, n = ns->netdev->num_tx_queues;

	ns->txq = kvcalloc(n, sizeof(*ns->txq), GFP_KERNEL_ACCOUNT);
	if (!ns->txq)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(ns->netdev, i);

		__skb_queue_head_init(&ns->txq[i].ring);
		spin_lock_init(&ns->txq[i].done_lock);
#ifdef CONFIG_BQL
		txq->dql.min_limit = NSIM_TX_BQL_MIN;
#endif
		nsim_tx_bql_reset(txq);
	}
	return 0;
}

void nsim_tx_rings_free(struct netdevsim *ns)
{
	unsigned int i;

	for (i = 0; i < ns->netdev->num_tx_queues; i++)
		__skb_queue_purge(&ns->txq[i].ring);
	kvfree(ns->txq);
	ns->txq = NULL;
}

/* qstats: queue qid's doorbells, read under the lock they are counted under */
static void nsim_tx_add_doorbells(struct netdevsim *ns, unsigned int qid,
				  struct netdev_queue_stats_tx *stats)
{
	struct netdev_queue *txq = netdev_get_tx_queue(ns->netdev, qid);

	__netif_tx_lock_bh(txq);
	stats->doorbells += ns->txq[qid].doorbells;
	stats->doorbell_flushes += ns->txq[qid].flushes;
	__netif_tx_unlock_bh(txq);
}

void nsim_tx_queue_stats(struct netdevsim *ns, unsigned int qid,
			 struct netdev_queue_stats_tx *stats)
{
	stats->doorbells = 0;
	stats->doorbell_flushes = 0;
	nsim_tx_add_doorbells(ns, qid, stats);
}

/* The base holds the queues that ethtool -L hid, so that the device's
 * totals never go back.
 */
void nsim_tx_base_stats(struct netdevsim *ns,
			struct netdev_queue_stats_tx *stats)
{
	struct net_device *dev = ns->netdev;
	unsigned int i;

	stats->doorbells = 0;
	stats->doorbell_flushes = 0;
	for (i = dev->real_num_tx_queues; i < dev->num_tx_queues; i++)
		nsim_tx_add_doorbells(ns, i, stats);
}

static unsigned int nsim_tx_inflight(struct netdev_queue *txq)
{
#ifdef CONFIG_BQL
	return txq->dql.num_queued - READ_ONCE(txq->dql.num_completed);
#else
	return 0;
#endif
}

static int nsim_dispatch_show(struct seq_file *file, void *data)
{
	struct netdevsim *ns = file->private;
	struct net_device *dev = ns->netdev;
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, i);
		struct nsim_txq *tq = &ns->txq[i];

		__netif_tx_lock_bh(txq);
		seq_printf(file,
			   "tx-%u posted %llu pending %u doorbells %llu flushes %llu inflight %u under_lock %llu busy %llu purged %llu\n",
			   i, tq->posted, skb_queue_len(&tq->ring),
			   tq->doorbells, tq->flushes, nsim_tx_inflight(txq),
			   tq->under_lock, tq->busy, tq->purged);
		__netif_tx_unlock_bh(txq);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsim_dispatch);

/* Complete a NAPI poll, in "napi_lock" mode under the driver lock that
 * the port's interrupt handler takes, IRQs off.
 */
void nsim_napi_complete(struct netdevsim *ns, struct napi_struct *napi,
			int done)
{
	unsigned long flags;

	if (!ns->txq || !READ_ONCE(ns->napi_lock.on)) {
		napi_complete_done(napi, done);
		return;
	}
	spin_lock_irqsave(&ns->napi_lock.lock, flags);
	this_cpu_write(nsim_napi_locked, true);
	napi_complete_done(napi, done);
	this_cpu_write(nsim_napi_locked, false);
	spin_unlock_irqrestore(&ns->napi_lock.lock, flags);
}

/* The port's "interrupt handler": hard IRQ context, takes the driver lock */
static enum hrtimer_restart nsim_napi_lock_irq(struct hrtimer *timer)
{
	struct nsim_napi_lock *nl = container_of(timer, struct nsim_napi_lock,
						 irq);

	spin_lock(&nl->lock);
	nl->irqs++;
	spin_unlock(&nl->lock);
	return HRTIMER_NORESTART;
}

static int nsim_napi_lock_set(struct netdevsim *ns, unsigned int on)
{
	if (on > 1)
		return -EINVAL;
	WRITE_ONCE(ns->napi_lock.on, on);
	if (on)
		hrtimer_start(&ns->napi_lock.irq, ms_to_ktime(1),
			      HRTIMER_MODE_REL_HARD);
	return 0;
}

static void nsim_all_queues(struct net_device *dev, bool wake)
{
	if (wake)
		netif_tx_wake_all_queues(dev);
	else
		netif_tx_stop_all_queues(dev);
}

static int nsim_dispatch_ctl_do(struct netdevsim *ns, const char *op,
				unsigned int qid)
{
	struct net_device *dev = ns->netdev;
	struct netdev_queue *txq;

	if (!strcmp(op, "napi_lock"))
		return nsim_napi_lock_set(ns, qid);
	if (!strcmp(op, "drop_batch_end")) {
		if (qid > 1)
			return -EINVAL;
		WRITE_ONCE(ns->drop_batch_end, qid);
		return 0;
	}
	if (!strcmp(op, "busy")) {
		WRITE_ONCE(ns->busy_every, qid);
		return 0;
	}
	if (qid >= dev->real_num_tx_queues)
		return -ERANGE;
	if (!strcmp(op, "stop_all") || !strcmp(op, "wake_all")) {
		nsim_all_queues(dev, op[0] == 'w');
		return 0;
	}
	txq = netdev_get_tx_queue(dev, qid);
	if (!strcmp(op, "stop")) {
		netif_tx_stop_queue(txq);
	} else if (!strcmp(op, "start")) {
		netif_tx_start_queue(txq);
	} else if (!strcmp(op, "wake")) {
		netif_tx_wake_queue(txq);
	} else if (!strcmp(op, "stop_next")) {
		__netif_tx_lock_bh(txq);
		ns->txq[qid].stop_next = true;
		__netif_tx_unlock_bh(txq);
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t nsim_dispatch_ctl_write(struct file *file,
				       const char __user *data, size_t count,
				       loff_t *ppos)
{
	struct netdevsim *ns = file->private_data;
	unsigned int qid;
	char buf[32];
	char op[16];
	ssize_t len;
	int err;

	len = simple_write_to_buffer(buf, sizeof(buf) - 1, ppos, data, count);
	if (len < 0)
		return len;
	buf[len] = '\0';
	if (sscanf(buf, "%15s %u", op, &qid) != 2)
		return -EINVAL;
	rtnl_lock();
	err = nsim_dispatch_ctl_do(ns, op, qid);
	rtnl_unlock();
	return err ?: len;
}

static const struct file_operations nsim_dispatch_ctl_fops = {
	.open = simple_open,
	.write = nsim_dispatch_ctl_write,
	.llseek = generic_file_llseek,
	.owner = THIS_MODULE,
};

void nsim_dispatch_debugfs_init(struct netdevsim *ns)
{
	struct dentry *ddir = ns->nsim_dev_port->ddir;

	spin_lock_init(&ns->napi_lock.lock);
	hrtimer_init(&ns->napi_lock.irq, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ns->napi_lock.irq.function = nsim_napi_lock_irq;
	ns->dispatch_dfs = debugfs_create_file("dispatch", 0400, ddir, ns,
					       &nsim_dispatch_fops);
	ns->dispatch_ctl_dfs = debugfs_create_file("dispatch_ctl", 0200, ddir,
						   ns, &nsim_dispatch_ctl_fops);
}

void nsim_dispatch_debugfs_exit(struct netdevsim *ns)
{
	debugfs_remove(ns->dispatch_ctl_dfs);
	debugfs_remove(ns->dispatch_dfs);
	hrtimer_cancel(&ns->napi_lock.irq);
}
