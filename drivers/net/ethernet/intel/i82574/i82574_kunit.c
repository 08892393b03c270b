// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for the pure helpers of the i82574 driver. */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/checksum.h>

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
	/* the smallest TX FIFO (8 KB) less 96 bytes per buffer */
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(8096), 1);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(8097), 2);
	KUNIT_EXPECT_EQ(test, i82574_tx_descs_for_len(65536), 9);
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

/* A TCP/IPv4 GSO skb: Ethernet, IPv4 and TCP headers without options,
 * then @payload bytes in segments of 1000; the TCP header at @l4
 */
static struct sk_buff *i82574_test_gso_skb(struct kunit *test, u32 l4,
					   u32 payload)
{
	struct sk_buff *skb = alloc_skb(l4 + sizeof(struct tcphdr) + payload,
					GFP_KERNEL);
	struct iphdr *iph;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, l4 + sizeof(struct tcphdr) + payload);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb_set_transport_header(skb, l4);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(skb->len - ETH_HLEN);
	iph->check = (__force __sum16)htons(0x1234);
	iph->saddr = htonl(0xc6120001);
	iph->daddr = htonl(0xc6120002);
	tcp_hdr(skb)->doff = 5;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	skb_shinfo(skb)->gso_size = 1000;
	skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(payload, 1000);
	return skb;
}

static void i82574_test_tso_ctx(struct kunit *test)
{
	struct sk_buff *skb = i82574_test_gso_skb(test, 34, 3000);
	struct i82574_ring tx = { .size_mask = 3, .fill = 3 };
	/* the pseudo-header sum without a length, as the chip wants it */
	__sum16 pseudo = ~csum_tcpudp_magic(htonl(0xc6120001),
					    htonl(0xc6120002), 0, IPPROTO_TCP, 0);
	struct i82574_tx_desc *d;
	u32 popts = 0;
	u16 segs;

	tx.desc = kunit_kzalloc(test, 4 * sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tx.desc);
	KUNIT_ASSERT_EQ(test, i82574_tx_tso(&tx, skb, &popts), 0);
	d = (struct i82574_tx_desc *)tx.desc + 3;
	/* IPCSS 14, IPCSO 24, IPCSE 33; TUCSS 34, TUCSO 50, TUCSE 0 */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d->addr), 0x3222ULL << 32 | 0x0021180e);
	/* DEXT TSE IP TCP, PAYLEN 3000 */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->lower), 0x27000bb8);
	/* HDRLEN 54, MSS 1000 */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->upper), 1000 << 16 | 54 << 8);
	KUNIT_EXPECT_EQ(test, tx.fill, 0);
	KUNIT_EXPECT_EQ(test, tx.pkt_cmd, I82574_TXD_CMD_TSE);
	KUNIT_EXPECT_EQ(test, popts, I82574_TXD_POPTS_TXSM | I82574_TXD_POPTS_IXSM);
	/* what the chip completes per segment */
	KUNIT_EXPECT_EQ(test, (__force u16)ip_hdr(skb)->tot_len, 0);
	KUNIT_EXPECT_EQ(test, (__force u16)ip_hdr(skb)->check, 0);
	KUNIT_EXPECT_EQ(test, (__force u16)tcp_hdr(skb)->check,
			(__force u16)pseudo);
	/* 3 segments, headers 3 times */
	KUNIT_EXPECT_EQ(test, i82574_tx_wire_bytes(skb, &segs), 3054 + 2 * 54);
	KUNIT_EXPECT_EQ(test, segs, 3);
	kfree_skb(skb);
}

static void i82574_test_features_check(struct kunit *test)
{
	netdev_features_t all = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_TSO |
				NETIF_F_TSO6;
	struct sk_buff *skb = i82574_test_gso_skb(test, 34, 3000);

	KUNIT_EXPECT_EQ(test, i82574_features_check(skb, NULL, all), all);
	skb->encapsulation = 1;
	KUNIT_EXPECT_EQ(test, i82574_features_check(skb, NULL, all),
			all & ~NETIF_F_GSO_MASK);
	kfree_skb(skb);
	/* headers of 256 bytes do not fit HDRLEN; 255 do */
	skb = i82574_test_gso_skb(test, 236, 3000);
	KUNIT_EXPECT_EQ(test, i82574_features_check(skb, NULL, all),
			all & ~NETIF_F_GSO_MASK);
	kfree_skb(skb);
	skb = i82574_test_gso_skb(test, 235, 3000);
	KUNIT_EXPECT_EQ(test, i82574_features_check(skb, NULL, all), all);
	kfree_skb(skb);
}

static void i82574_test_pba(struct kunit *test)
{
	/* e1000e's 32 KB of 40 for RX up to the MTU whose two frames (with
	 * 16 bytes each, less the FCS) outgrow TX's 8 KB
	 */
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(ETH_MIN_MTU), 32);
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(ETH_DATA_LEN), 32);
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(4062), 32);
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(4063), 31);
	/* 9022-byte frames: TX 18 KB, as e1000e_reset() rebalances */
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(9000), 22);
	/* never below one whole frame */
	KUNIT_EXPECT_EQ(test, i82574_pba_rx_kb(16000), 16);
}

/* Whatever the MTU, the TX FIFO the split leaves holds a buffer of the
 * largest size the driver posts, with e1000e's 96 bytes to spare.
 */
static void i82574_test_tx_fifo_fits(struct kunit *test)
{
	unsigned int mtu, tx;

	/* up to the driver's max_mtu */
	for (mtu = ETH_MIN_MTU; mtu <= 9000; mtu++) {
		tx = (I82574_PB_KB - i82574_pba_rx_kb(mtu)) * SZ_1K;
		if (tx < I82574_TX_MAX_PER_DESC + I82574_TX_FIFO_RESERVE) {
			KUNIT_FAIL(test, "MTU %u: TX FIFO %u bytes", mtu, tx);
			return;
		}
	}
}

static struct kunit_case i82574_test_cases[] = {
	KUNIT_CASE(i82574_test_tx_data_lower),
	KUNIT_CASE(i82574_test_tx_ctx),
	KUNIT_CASE(i82574_test_tx_descs),
	KUNIT_CASE(i82574_test_ring_unused),
	KUNIT_CASE(i82574_test_addr),
	KUNIT_CASE(i82574_test_reta),
	KUNIT_CASE(i82574_test_itr),
	KUNIT_CASE(i82574_test_tso_ctx),
	KUNIT_CASE(i82574_test_features_check),
	KUNIT_CASE(i82574_test_pba),
	KUNIT_CASE(i82574_test_tx_fifo_fits),
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
