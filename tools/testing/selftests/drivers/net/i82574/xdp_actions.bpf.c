// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs for xdp.sh, one per action. Each acts only on the test
 * frames: IPv4 UDP to port XDP_TEST_PORT (pktgen's udp_dst_min/max), which
 * it counts in xdp_cnt at the index of the action it returns (5 for the
 * invalid one), and lets everything else pass, so that
 * ARP and IPv6 neighbour discovery keep working. xdp_cnt is pinned by
 * name, so that every program loaded from this object shares it and the
 * test reads it from user space.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XDP_TEST_PORT	7357
#define XDP_INVALID	99

enum {
	CNT_INVALID = XDP_REDIRECT + 1,
	CNT_MAX,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdp_cnt SEC(".maps");

/*
 * xdp_redirect's target: the ifindex at key 0, written by the test through
 * the program's map IDs. Not pinned: the kernel adds BPF_F_RDONLY_PROG to
 * every devmap, which libbpf 1.1 (Debian 12) then finds differing from the
 * object's flags and refuses to reuse the pinned map at the next load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xdp_port SEC(".maps");

static __always_inline bool test_frame(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);
	struct udphdr *udph;

	if ((void *)(iph + 1) > data_end)
		return false;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_UDP)
		return false;
	udph = (void *)iph + iph->ihl * 4;
	if ((void *)(udph + 1) > data_end)
		return false;
	return udph->dest == bpf_htons(XDP_TEST_PORT);
}

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&xdp_cnt, &idx);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* act ACTION on the test frames, counted at CNT; pass everything else */
static __always_inline int act(struct xdp_md *ctx, int action, __u32 cnt)
{
	if (!test_frame(ctx))
		return XDP_PASS;
	count(cnt);
	return action;
}

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return act(ctx, XDP_PASS, XDP_PASS);
}

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return act(ctx, XDP_DROP, XDP_DROP);
}

SEC("xdp")
int xdp_aborted(struct xdp_md *ctx)
{
	return act(ctx, XDP_ABORTED, XDP_ABORTED);
}

SEC("xdp")
int xdp_invalid(struct xdp_md *ctx)
{
	return act(ctx, XDP_INVALID, CNT_INVALID);
}

/* send the test frames back where they came from */
SEC("xdp")
int xdp_tx(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	__u8 mac[ETH_ALEN];

	if (!test_frame(ctx))
		return XDP_PASS;
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	count(XDP_TX);
	return XDP_TX;
}

/* send the test frames, unchanged, out of xdp_port's device */
SEC("xdp")
int xdp_redirect(struct xdp_md *ctx)
{
	if (!test_frame(ctx))
		return XDP_PASS;
	count(XDP_REDIRECT);
	return bpf_redirect_map(&xdp_port, 0, XDP_ABORTED);
}

char _license[] SEC("license") = "GPL";
