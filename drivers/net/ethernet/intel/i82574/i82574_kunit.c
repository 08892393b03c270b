// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for the pure helpers of the i82574 driver. */

#include <kunit/test.h>
#include <linux/etherdevice.h>

#include "i82574.h"

static void i82574_test_tx_data_lower(struct kunit *test)
{
	u32 mid = i82574_tx_data_lower(1514, false);
	u32 last = i82574_tx_data_lower(60, true);

	KUNIT_EXPECT_EQ(test, mid & I82574_TXD_LEN, 1514);
	KUNIT_EXPECT_TRUE(test, mid & I82574_TXD_DTYP_DATA);
	KUNIT_EXPECT_TRUE(test, mid & I82574_TXD_CMD_DEXT);
	KUNIT_EXPECT_TRUE(test, mid & I82574_TXD_CMD_IFCS);
	KUNIT_EXPECT_FALSE(test, mid & (I82574_TXD_CMD_EOP | I82574_TXD_CMD_RS));
	KUNIT_EXPECT_EQ(test, last & I82574_TXD_LEN, 60);
	KUNIT_EXPECT_TRUE(test, last & I82574_TXD_CMD_EOP);
	KUNIT_EXPECT_TRUE(test, last & I82574_TXD_CMD_RS);
	/* legacy field layout: 0x2b10_05ea for a 1514 byte last buffer */
	KUNIT_EXPECT_EQ(test, i82574_tx_data_lower(1514, true), 0x2b1005ea);
}

static void i82574_test_tx_ctx(struct kunit *test)
{
	/* TCP over IPv4 without options: css 34, cso 50 */
	KUNIT_EXPECT_EQ(test, i82574_tx_ctx_tucss(34, 50), 0x3222);
	KUNIT_EXPECT_EQ(test, i82574_tx_ctx_tucss(54, 60), 0x3c36);
}

static void i82574_test_tx_descs(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(0), 0);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(1), 1);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(8192), 1);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(8193), 2);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(65536), 8);
	KUNIT_EXPECT_LE(test, I82574_TX_DESC_NEEDED,
			I82574_TX_MAX_DESC_PER_PKT);
}

static void i82574_test_ring_unused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, i82574_ring_unused(0, 0, 63), 63);
	KUNIT_EXPECT_EQ(test, i82574_ring_unused(10, 9, 63), 0);
	KUNIT_EXPECT_EQ(test, i82574_ring_unused(0, 63, 63), 0);
	KUNIT_EXPECT_EQ(test, i82574_ring_unused(5, 60, 63), 8);
	KUNIT_EXPECT_EQ(test, i82574_ring_unused(4095, 0, 4095), 4094);
	KUNIT_EXPECT_EQ(test, i82574_ring_used(0, 0, 63), 0);
	KUNIT_EXPECT_EQ(test, i82574_ring_used(60, 5, 63), 9);
	KUNIT_EXPECT_EQ(test, i82574_ring_used(5, 60, 63), 55);
	/* what is not used is unused, but for the one slot kept empty */
	KUNIT_EXPECT_EQ(test, i82574_ring_used(17, 3, 255) +
			i82574_ring_unused(17, 3, 255), 255);
}

static void i82574_test_addr(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	static const u8 mc[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };

	KUNIT_EXPECT_EQ(test, i82574_rar_low(mac), 0x12005452);
	KUNIT_EXPECT_EQ(test, i82574_rar_high(mac), 0x80005634);
	/* bits 47:36 of 01:00:5e:00:00:fb */
	KUNIT_EXPECT_EQ(test, i82574_mta_hash(mc), 0xfb0);
}

static void i82574_test_reta(struct kunit *test)
{
	u32 reta[I82574_RETA_ENTRIES];
	unsigned int i;

	for (i = 0; i < I82574_RETA_ENTRIES; i++)
		reta[i] = i % 2;
	KUNIT_EXPECT_EQ(test, i82574_reta_dword(reta, 0, 2), 0x80008000);
	/* a single queue pair sends everything to queue 0 */
	KUNIT_EXPECT_EQ(test, i82574_reta_dword(reta, 5, 1), 0);
	reta[124] = 1;
	reta[126] = 1;
	KUNIT_EXPECT_EQ(test, i82574_reta_dword(reta, 31, 2), 0x80808080);
}

static void i82574_test_itr(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, i82574_usecs_to_itr(0), 0);
	KUNIT_EXPECT_EQ(test, i82574_usecs_to_itr(50), 200);
	KUNIT_EXPECT_EQ(test, i82574_usecs_to_itr(1000000), 0xfffc);
}

static struct kunit_case i82574_test_cases[] = {
	KUNIT_CASE(i82574_test_tx_data_lower),
	KUNIT_CASE(i82574_test_tx_ctx),
	KUNIT_CASE(i82574_test_tx_descs),
	KUNIT_CASE(i82574_test_ring_unused),
	KUNIT_CASE(i82574_test_addr),
	KUNIT_CASE(i82574_test_reta),
	KUNIT_CASE(i82574_test_itr),
	{}
};

static struct kunit_suite i82574_test_suite = {
	.name = "i82574",
	.test_cases = i82574_test_cases,
};

kunit_test_suite(i82574_test_suite);

MODULE_DESCRIPTION("KUnit tests for the i82574 driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
