// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the TX doorbell decision behind dispatch_limit
 * (Documentation/networking/dispatch-limit.rst).
 */

#include <kunit/test.h>
#include <linux/netdevice.h>

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
	/* limit 0: the legacy answer */
	txq->dispatch_limit = 0;
	KUNIT_EXPECT_FALSE(test, __netdev_tx_dispatch(txq, 60, true, false));
	KUNIT_EXPECT_TRUE(test, __netdev_tx_dispatch(txq, 60, false, true));
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, txq->dispatch_cpu, 0);
	KUNIT_EXPECT_NULL(test, txq->dispatch_next);
}

static struct kunit_case dispatch_limit_cases[] = {
	KUNIT_CASE(dispatch_limit_zero_is_legacy),
	KUNIT_CASE(dispatch_limit_stopped_rings),
	KUNIT_CASE(dispatch_limit_caps_pending),
	KUNIT_CASE(dispatch_limit_last_packet_needs_scope),
	KUNIT_CASE(dispatch_limit_sequence),
	KUNIT_CASE(dispatch_limit_helper_outside_scope),
	{}
};

static struct kunit_suite dispatch_limit_suite = {
	.name = "net-dispatch-limit",
	.test_cases = dispatch_limit_cases,
};

kunit_test_suite(dispatch_limit_suite);

MODULE_DESCRIPTION("KUnit tests for TX dispatch_limit");
MODULE_LICENSE("GPL");
