// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the TX doorbell decision behind dispatch_limit
 * (Documentation/networking/dispatch-limit.rst).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>

#include "dev.h"

/* limit 0 is the legacy decision, whatever else is true */
static void dispatch_limit_zero_is_legacy(struct kunit *test)
{
	unsigned int v;

	for (v = 0; v < 32; v++) {
		bool ring = v & 1, more = v & 2, stopped = v & 4;
		bool may_wait = v & 8;
		unsigned int pending = (v & 16) ? 7 : 0;

		KUNIT_EXPECT_EQ(test, netdev_dispatch_ring(0, pending, ring, more,
							   stopped, may_wait),
				ring);
	}
}

static void dispatch_limit_stopped_rings(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(8, 0, false, true, true, true));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(8, 3, true, false, true, true));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(1, 0, false, true, true, false));
}

static void dispatch_limit_caps_pending(struct kunit *test)
{
	/* xmit_more defers while fewer than limit packets are pending */
	KUNIT_EXPECT_FALSE(test, netdev_dispatch_ring(4, 0, false, true, false, false));
	KUNIT_EXPECT_FALSE(test, netdev_dispatch_ring(4, 3, false, true, false, false));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(4, 4, false, true, false, false));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(4, 4, true, false, false, true));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(1, 1, false, true, false, true));
}

static void dispatch_limit_last_packet_needs_scope(struct kunit *test)
{
	/* the last packet of a batch waits only for a scope that rings */
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(64, 0, true, false, false, false));
	KUNIT_EXPECT_TRUE(test, netdev_dispatch_ring(64, 5, true, false, false, false));
	KUNIT_EXPECT_FALSE(test, netdev_dispatch_ring(64, 5, true, false, false, true));
}

/* Drive the decision like a driver would and check the invariant: never
 * more than limit packets posted without a doorbell, and a batch that
 * ends outside a scope always ends with a doorbell.
 */
static void dispatch_limit_sequence(struct kunit *test)
{
	unsigned int limit, n, seed = 1;

	for (limit = 1; limit <= 64; limit *= 2) {
		unsigned int pending = 0;

		for (n = 0; n < 10000; n++) {
			bool more, may_wait, ring;

			seed = seed * 1103515245 + 12345;
			more = (seed >> 16) & 1;
			may_wait = (seed >> 17) & 1;
			ring = netdev_dispatch_ring(limit, pending, !more, more,
						    false, may_wait);
			pending = ring ? 0 : pending + 1;
			KUNIT_ASSERT_LE(test, pending, limit);
			if (!more && !may_wait)
				KUNIT_ASSERT_EQ(test, pending, 0);
		}
	}
}

/* The exported helper outside any scope: no cross-call deferral at all */
static void dispatch_limit_helper_outside_scope(struct kunit *test)
{
	struct netdev_queue *txq;
	unsigned int i;

	txq = kunit_kzalloc(test, sizeof(*txq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, txq);
	txq->dispatch_limit = 4;

	local_bh_disable();
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 3);
	KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	KUNIT_EXPECT_TRUE(test, __netdev_tx_dispatch(txq, 60, true, false));
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
	KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	/* last packet, no scope open: ring */
	KUNIT_EXPECT_TRUE(test, __netdev_tx_dispatch(txq, 60, false, true));
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
	/* stopped by the driver: ring even with more */
	set_bit(__QUEUE_STATE_DRV_XOFF, &txq->state);
	KUNIT_EXPECT_TRUE(test, __netdev_tx_dispatch(txq, 60, true, true));
	clear_bit(__QUEUE_STATE_DRV_XOFF, &txq->state);
	/* limit 0: the legacy answer, and nothing counted as pending */
	txq->dispatch_limit = 0;
	KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
	KUNIT_EXPECT_TRUE(test, __netdev_tx_dispatch(txq, 60, false, true));
	/* a driver that rang on its own clears the count */
	txq->dispatch_limit = 4;
	KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	netdev_tx_dispatch_rang(txq);
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, txq->dispatch_cpu, 0);
	KUNIT_EXPECT_NULL(test, txq->dispatch_next);
}

/* A device that is never registered: two TX queues, a flush that counts. */
struct dl_test_dev {
	unsigned int flushes[2];
};

static void dl_test_flush(struct net_device *dev, struct netdev_queue *txq)
{
	struct dl_test_dev *priv = netdev_priv(dev);

	priv->flushes[txq - netdev_get_tx_queue(dev, 0)]++;
}

static const struct net_device_ops dl_test_ops = {
	.ndo_xmit_flush = dl_test_flush,
};

static void dl_test_free(void *dev)
{
	/* net_tx_action() drops its reference after the flush we waited for */
	synchronize_net();
	free_netdev(dev);
}

static void dl_test_key_off(void *unused)
{
	static_branch_dec(&netdev_dispatch_key.key);
}

/* The key on for the test, a running device with limit 8 on both queues */
static struct net_device *dl_test_dev(struct kunit *test)
{
	struct net_device *dev = alloc_etherdev_mq(sizeof(struct dl_test_dev), 2);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dl_test_free, dev), 0);
	dev->netdev_ops = &dl_test_ops;
	netif_set_real_num_tx_queues(dev, 2);
	set_bit(__LINK_STATE_START, &dev->state);
	for (i = 0; i < 2; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, i);

		txq->dispatch_limit = 8;
#ifdef CONFIG_BQL
		/* BQL counts (idle or busy) but never stops the queue here;
		 * a completion of nothing makes the new floor the limit
		 */
		txq->dql.min_limit = SZ_1M;
		netdev_tx_reset_queue(txq);
		dql_completed(&txq->dql, 0);
#endif
	}
	static_branch_inc(&netdev_dispatch_key.key);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dl_test_key_off, NULL), 0);
	return dev;
}

/* Up to a second for net_tx_action() to ring queue q after a restart */
static void dl_test_wait_flush(struct dl_test_dev *priv, unsigned int q)
{
	unsigned int i;

	for (i = 0; i < 50 && !READ_ONCE(priv->flushes[q]); i++)
		msleep(20);
}

/* A driver's lone packet under the TX lock; true if it rang. */
static bool dl_test_send(struct netdev_queue *txq)
{
	bool ring;

	__netif_tx_lock(txq, smp_processor_id());
	ring = netdev_tx_sent_dispatch(txq, 60, false);
	__netif_tx_unlock(txq);
	return ring;
}

/* Three lone packets on each queue in one NAPI-like scope: the first finds
 * the queue idle and rings, the others wait, and the end of the scope
 * flushes each queue exactly once.
 */
static void dispatch_limit_scope_flushes_once(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct dl_test_dev *priv = netdev_priv(dev);
	unsigned int cookie, i, q, early;
	bool rang[2][3];

	/* (expectations only once BHs are on again: a failed one allocates) */
	local_bh_disable();
	cookie = netdev_dispatch_begin(NETDEV_DISPATCH_SCOPE | NETDEV_DISPATCH_DEFER);
	for (q = 0; q < 2; q++)
		for (i = 0; i < 3; i++)
			rang[q][i] = dl_test_send(netdev_get_tx_queue(dev, q));
	early = priv->flushes[0] + priv->flushes[1];
	netdev_dispatch_end(cookie);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, early, 0);
	for (q = 0; q < 2; q++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, q);

		for (i = 0; i < 3; i++)
			KUNIT_EXPECT_EQ(test, rang[q][i], i == 0);
		KUNIT_EXPECT_EQ(test, priv->flushes[q], 1);
		KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
		KUNIT_EXPECT_EQ(test, txq->dispatch_cpu, 0);
	}
}

/* A queue on another CPU's flush list: this CPU rings instead of waiting. */
static void dispatch_limit_other_cpu_rings(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	unsigned int cookie, pending;
	bool first, second;

	local_bh_disable();
	cookie = netdev_dispatch_begin(NETDEV_DISPATCH_SCOPE | NETDEV_DISPATCH_DEFER);
	first = dl_test_send(txq);
	txq->dispatch_cpu = smp_processor_id() + 2;
	second = dl_test_send(txq);
	pending = txq->dispatch_pending;
	txq->dispatch_cpu = 0;
	netdev_dispatch_end(cookie);
	local_bh_enable();
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_EXPECT_TRUE(test, second);
	KUNIT_EXPECT_EQ(test, pending, 0);
}

/* A flush that finds the queue frozen keeps the count; unfreezing it rings
 * (through net_tx_action() on this CPU) without any further packet.
 */
static void dispatch_limit_frozen_recovered(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct dl_test_dev *priv = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	unsigned int cookie, flushed, pending;
	bool rang;

	local_bh_disable();
	cookie = netdev_dispatch_begin(NETDEV_DISPATCH_SCOPE | NETDEV_DISPATCH_DEFER);
	dl_test_send(txq);
	rang = dl_test_send(txq);
	set_bit(__QUEUE_STATE_FROZEN, &txq->state);
	netdev_dispatch_end(cookie);
	flushed = priv->flushes[0];
	pending = txq->dispatch_pending;
	clear_bit(__QUEUE_STATE_FROZEN, &txq->state);
	netdev_dispatch_restarted(txq);
	local_bh_enable();
	KUNIT_EXPECT_FALSE(test, rang);
	KUNIT_EXPECT_EQ(test, flushed, 0);
	KUNIT_EXPECT_EQ(test, pending, 1);
	dl_test_wait_flush(priv, 0);
	KUNIT_EXPECT_EQ(test, priv->flushes[0], 1);
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
	KUNIT_EXPECT_FALSE(test, test_bit(__QUEUE_STATE_DISPATCH_KICK, &txq->state));
}

/* Neither a stopped nor a closing device is flushed; starting the queue
 * rings once the device runs.
 */
static void dispatch_limit_stopped_or_down_skipped(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct dl_test_dev *priv = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 1);
	unsigned int flushed, pending;
	bool rang;

	local_bh_disable();
	dl_test_send(txq);
	__netif_tx_lock(txq, smp_processor_id());
	rang = netdev_tx_sent_dispatch(txq, 60, true);
	netif_tx_stop_queue(txq);
	netdev_xmit_flush_locked(dev, txq);
	clear_bit(__LINK_STATE_START, &dev->state);
	clear_bit(__QUEUE_STATE_DRV_XOFF, &txq->state);
	netdev_xmit_flush_locked(dev, txq);
	__netif_tx_unlock(txq);
	flushed = priv->flushes[1];
	pending = txq->dispatch_pending;
	set_bit(__LINK_STATE_START, &dev->state);
	netif_tx_stop_queue(txq);
	netif_tx_start_queue(txq);
	local_bh_enable();
	KUNIT_EXPECT_FALSE(test, rang);
	KUNIT_EXPECT_EQ(test, flushed, 0);
	KUNIT_EXPECT_EQ(test, pending, 1);
	dl_test_wait_flush(priv, 1);
	KUNIT_EXPECT_EQ(test, priv->flushes[1], 1);
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
}

/* A driver that holds a spin_lock_irqsave() lock around its doorbell
 * decision defers like any other: three lone packets, one doorbell at
 * once and one flush at the scope's end.
 */
static void dispatch_limit_irqs_off_defers(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct dl_test_dev *priv = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	unsigned int cookie, i;
	unsigned long flags;
	bool rang[3];

	local_bh_disable();
	cookie = netdev_dispatch_begin(NETDEV_DISPATCH_SCOPE | NETDEV_DISPATCH_DEFER);
	for (i = 0; i < 3; i++) {
		local_irq_save(flags);
		rang[i] = dl_test_send(txq);
		local_irq_restore(flags);
	}
	netdev_dispatch_end(cookie);
	local_bh_enable();
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, rang[i], i == 0);
	KUNIT_EXPECT_EQ(test, priv->flushes[0], 1);
	KUNIT_EXPECT_EQ(test, txq->dispatch_pending, 0);
}

/* netpoll inside a scope (a printk from the stack): its packet rings at
 * once, and with it the one deferred before, so the scope's end has
 * nothing left to flush.
 */
static void dispatch_limit_netpoll_rings(struct kunit *test)
{
	struct net_device *dev = dl_test_dev(test);
	struct dl_test_dev *priv = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 1);
	bool first, deferred, netpoll;
	unsigned int cookie, pending;
	unsigned long flags;

	local_bh_disable();
	cookie = netdev_dispatch_begin(NETDEV_DISPATCH_SCOPE | NETDEV_DISPATCH_DEFER);
	first = dl_test_send(txq);
	deferred = !dl_test_send(txq);
	local_irq_save(flags);
	netdev_dispatch_netpoll_enter();
	netpoll = dl_test_send(txq);
	netdev_dispatch_netpoll_exit();
	local_irq_restore(flags);
	pending = txq->dispatch_pending;
	netdev_dispatch_end(cookie);
	local_bh_enable();
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_EXPECT_TRUE(test, deferred);
	KUNIT_EXPECT_TRUE(test, netpoll);
	KUNIT_EXPECT_EQ(test, pending, 0);
	KUNIT_EXPECT_EQ(test, priv->flushes[1], 0);
}

static struct kunit_case dispatch_limit_cases[] = {
	KUNIT_CASE(dispatch_limit_zero_is_legacy),
	KUNIT_CASE(dispatch_limit_stopped_rings),
	KUNIT_CASE(dispatch_limit_caps_pending),
	KUNIT_CASE(dispatch_limit_last_packet_needs_scope),
	KUNIT_CASE(dispatch_limit_sequence),
	KUNIT_CASE(dispatch_limit_helper_outside_scope),
	KUNIT_CASE(dispatch_limit_scope_flushes_once),
	KUNIT_CASE(dispatch_limit_other_cpu_rings),
	KUNIT_CASE(dispatch_limit_frozen_recovered),
	KUNIT_CASE(dispatch_limit_stopped_or_down_skipped),
	KUNIT_CASE(dispatch_limit_irqs_off_defers),
	KUNIT_CASE(dispatch_limit_netpoll_rings),
	{}
};

static struct kunit_suite dispatch_limit_suite = {
	.name = "net-dispatch-limit",
	.test_cases = dispatch_limit_cases,
};

kunit_test_suite(dispatch_limit_suite);

MODULE_DESCRIPTION("KUnit tests for TX dispatch_limit");
MODULE_LICENSE("GPL");
