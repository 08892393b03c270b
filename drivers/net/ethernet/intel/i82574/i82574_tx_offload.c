// SPDX-License-Identifier: GPL-2.0
/*
 * TX offloads, all set up here: the checksum and TCP segmentation (TSO,
 * TSO6) context descriptor, and VLAN tag insertion in the data
 * descriptors. The packet's context descriptor comes first on the ring.
 *
 * TSO uses the 82574's TCP/IP context descriptor: TSE, the MSS, the
 * header length and the TCP payload length (PAYLEN), where the IP header
 * starts (IPCSS) and, for IPv4, where its checksum is (IPCSO, IPCSE),
 * where the TCP checksum is (TUCSS, TUCSO).
 * The data descriptors carry TSE and TXSM, and IXSM for IPv4 only.
 *
 * The chip repeats the headers in front of each segment and fills in the
 * IPv4 total length and identification, the IPv6 payload length, the TCP
 * sequence number and flags and both checksums; it adds each segment's
 * length to the sum it finds in the TCP checksum field. So before the
 * context is written the driver leaves there the pseudo-header sum without
 * a length, and zeroes the IPv4 total length and header checksum (as
 * e1000e does for this part).
 *
 * QEMU's model takes only TSE and MSS from the context and parses the
 * headers itself; with a tap backend that has a vnet header it hands the
 * whole packet to the host, which segments it (on a hub it would send IPv4
 * fragments instead, see the test's notes).
 */

#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <kunit/visibility.h>

#include "i82574.h"

u32 i82574_tx_ctx_tucss(u32 css, u32 cso)
{
	return FIELD_PREP(I82574_TXC_TUCSS, css) |
	       FIELD_PREP(I82574_TXC_TUCSO, cso);
}
EXPORT_SYMBOL_IF_KUNIT(i82574_tx_ctx_tucss);

/**
 * i82574_tx_ctx - write a context descriptor at tx->fill
 * @tx: TX ring
 * @ip: IPCSS, IPCSO, IPCSE
 * @tu: TUCSS, TUCSO (TUCSE 0: to the end)
 * @cmd: the command bits and PAYLEN (DEXT added here)
 * @seg: HDRLEN and MSS
 */
static void i82574_tx_ctx(struct i82574_ring *tx, u32 ip, u32 tu, u32 cmd,
			  u32 seg)
{
	struct i82574_tx_desc *desc = (struct i82574_tx_desc *)tx->desc + tx->fill;

	desc->addr = cpu_to_le64((u64)tu << 32 | ip);
	desc->lower = cpu_to_le32(cmd | I82574_TXD_CMD_DEXT);
	desc->upper = cpu_to_le32(seg);
	tx->fill = (tx->fill + 1) & tx->size_mask;
}

/* the headers the stack left for the hardware, as the chip expects them */
static void i82574_tso_prep_v4(struct sk_buff *skb)
{
	struct iphdr *iph = ip_hdr(skb);

	iph->tot_len = 0;
	iph->check = 0;
	tcp_hdr(skb)->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr, 0,
						 IPPROTO_TCP, 0);
}

/**
 * i82574_tx_tso - write the TSO context descriptor of a GSO packet
 * @tx: TX ring, at the packet's first slot (tx->fill)
 * @skb: TCP GSO packet that i82574_features_check() let through
 * @popts: the data descriptors' options (TXSM, IXSM)
 *
 * Also sets TSE in tx->pkt_cmd, which every data descriptor carries.
 *
 * Return: 0 or a negative errno (the header could not be made writable).
 */
int i82574_tx_tso(struct i82574_ring *tx, struct sk_buff *skb, u32 *popts)
{
	u32 l3 = skb_network_offset(skb), l4 = skb_transport_offset(skb);
	u32 hdr_len = skb_tcp_all_headers(skb), ip, cmd;
	int err;

	/* the headers change: a clone's must become the skb's own */
	err = skb_cow_head(skb, 0);
	if (err)
		return err;
	cmd = I82574_TXC_CMD_TSE | I82574_TXC_CMD_TCP |
	      FIELD_PREP(I82574_TXC_PAYLEN, skb->len - hdr_len);
	ip = FIELD_PREP(I82574_TXC_IPCSS, l3);
	*popts = I82574_TXD_POPTS_TXSM;
	if (skb_shinfo(skb)->gso_type & SKB_GSO_TCPV4) {
		i82574_tso_prep_v4(skb);
		cmd |= I82574_TXC_CMD_IP;
		ip |= FIELD_PREP(I82574_TXC_IPCSO,
				 l3 + offsetof(struct iphdr, check)) |
		      FIELD_PREP(I82574_TXC_IPCSE, l4 - 1);
		*popts |= I82574_TXD_POPTS_IXSM;
	} else {
		tcp_v6_gso_csum_prep(skb);
	}
	i82574_tx_ctx(tx, ip,
		      i82574_tx_ctx_tucss(l4, l4 + offsetof(struct tcphdr, check)),
		      cmd, FIELD_PREP(I82574_TXC_HDRLEN, hdr_len) |
		      FIELD_PREP(I82574_TXC_MSS, skb_shinfo(skb)->gso_size));
	tx->pkt_cmd |= I82574_TXD_CMD_TSE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_tx_tso);

/* Returns the TXSM option for the data descriptors, or a negative errno. */
static int i82574_tx_csum(struct i82574_ring *tx, struct sk_buff *skb)
{
	u32 css = skb_checksum_start_offset(skb), cso = css + skb->csum_offset;
	u32 cmd = 0;

	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	if (cso > 255 || (skb->csum_offset != offsetof(struct tcphdr, check) &&
			  skb->csum_offset != offsetof(struct udphdr, check)))
		return skb_checksum_help(skb);

	if (skb->csum_offset == offsetof(struct tcphdr, check))
		cmd |= I82574_TXC_CMD_TCP;
	if (vlan_get_protocol(skb) == htons(ETH_P_IP))
		cmd |= I82574_TXC_CMD_IP;

	/* IXSM is not used here: the stack fills the IPv4 header checksum
	 * and the model corrupts IPv6 headers with it (TSO sets it for IPv4)
	 */
	i82574_tx_ctx(tx, 0, i82574_tx_ctx_tucss(css, cso), cmd, 0);
	return I82574_TXD_POPTS_TXSM;
}

/**
 * i82574_tx_offload - set up a packet's checksum, TSO and VLAN insertion
 * @tx: TX ring, at the packet's first slot (tx->fill)
 * @skb: packet
 * @popts: the data descriptors' options (TXSM, IXSM, the VLAN tag)
 *
 * Writes the packet's context descriptor, if it needs one, and leaves its
 * data descriptors' command bits (TSE, VLE) in tx->pkt_cmd.
 *
 * Return: 0 or a negative errno (the packet cannot be sent).
 */
int i82574_tx_offload(struct i82574_ring *tx, struct sk_buff *skb, u32 *popts)
{
	int ret;

	tx->pkt_cmd = 0;
	if (skb_is_gso(skb)) {
		ret = i82574_tx_tso(tx, skb, popts);
	} else {
		ret = i82574_tx_csum(tx, skb);
		*popts = max(ret, 0);
	}
	if (ret < 0)
		return ret;
	if (skb_vlan_tag_present(skb)) {
		tx->pkt_cmd |= I82574_TXD_CMD_VLE;
		*popts |= FIELD_PREP(I82574_TXD_VLAN, skb_vlan_tag_get(skb));
	}
	return 0;
}

/**
 * i82574_tx_wire_bytes - what a packet becomes on the wire
 * @skb: packet
 * @segs: frames it becomes (gso_segs for TSO, else 1)
 *
 * BQL and the ring counters count frames and bytes sent: a TSO packet's
 * headers go out once per segment.
 *
 * Return: bytes on the wire (no FCS, no tag the device inserts).
 */
u32 i82574_tx_wire_bytes(const struct sk_buff *skb, u16 *segs)
{
	*segs = 1;
	if (!skb_is_gso(skb))
		return skb->len;
	*segs = max_t(u16, skb_shinfo(skb)->gso_segs, 1);
	return skb->len + (*segs - 1) * skb_tcp_all_headers(skb);
}
EXPORT_SYMBOL_IF_KUNIT(i82574_tx_wire_bytes);

/* The context descriptor can describe this GSO packet's headers */
static bool i82574_tso_fits(const struct sk_buff *skb)
{
	unsigned int gso = skb_shinfo(skb)->gso_type;

	if (skb->encapsulation || !(gso & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		return false;
	return skb_tcp_all_headers(skb) <= I82574_TSO_MAX_HDR;
}

/**
 * i82574_features_check - ndo_features_check
 * @skb: packet about to be sent
 * @netdev: device
 * @features: what the core would offload
 *
 * GSO packets the context descriptor cannot describe (headers over 255
 * bytes, tunnels, not TCP) go back to software GSO; the segments it makes
 * then take the checksum path.
 *
 * Return: @features, less what this packet cannot have.
 */
netdev_features_t i82574_features_check(struct sk_buff *skb,
					struct net_device *netdev,
					netdev_features_t features)
{
	features = vlan_features_check(skb, features);
	if (skb_is_gso(skb) && !i82574_tso_fits(skb))
		features &= ~NETIF_F_GSO_MASK;
	return features;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_features_check);

/**
 * i82574_tso_setup - TSO features and limits of a new netdev
 * @netdev: the netdev, not registered yet
 */
void i82574_tso_setup(struct net_device *netdev)
{
	netdev->hw_features |= NETIF_F_TSO | NETIF_F_TSO6;
	netdev->features |= NETIF_F_TSO | NETIF_F_TSO6;
	netdev->vlan_features |= NETIF_F_TSO | NETIF_F_TSO6;
	netif_set_tso_max_size(netdev, I82574_TSO_MAX_SIZE);
	netif_set_tso_max_segs(netdev, I82574_TSO_MAX_SEGS);
}

/* No packet is linearized, and none waits on a ring that has
 * I82574_TX_DESC_NEEDED slots free: the largest the stack sends, a TSO
 * packet of 64 KiB in MAX_SKB_FRAGS + 1 buffers, split at 8096 bytes, plus
 * the context descriptor (28 of 29 at 17 fragments) stays within both that
 * and the model's 64 per packet. (pktgen can make a frame larger than
 * the MTU, which the device cannot send whole, linearized or not.)
 */
static_assert(2 + MAX_SKB_FRAGS +
	      DIV_ROUND_UP(I82574_TSO_MAX_SIZE, I82574_TX_MAX_PER_DESC) <=
	      I82574_TX_DESC_NEEDED);
static_assert(I82574_TX_DESC_NEEDED <= I82574_TX_MAX_DESC_PER_PKT);
