// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP test program for xsk.sh: IPv4 UDP frames to XSK_TEST_PORT go to
 * the AF_XDP socket that xsk_copy.py put into xsks at the index of the
 * receive queue they arrived on; every other frame, and a test frame on a
 * queue without a socket, passes to the stack. xsk_cnt counts the test
 * frames seen and those redirected. The maps are pinned by name, so that
 * user space finds them after the program is attached.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XSK_TEST_PORT	7358
#define XSK_MAX_QUEUES	8

enum {
	XSK_CNT_SEEN,
	XSK_CNT_REDIRECTED,
	XSK_CNT_MAX,
};

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XSK_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XSK_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xsk_cnt SEC(".maps");

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
	return udph->dest == bpf_htons(XSK_TEST_PORT);
}

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&xsk_cnt, &idx);

	if (c)
		__sync_fetch_and_add(c, 1);
}

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx)
{
	int act;

	if (!test_frame(ctx))
		return XDP_PASS;
	count(XSK_CNT_SEEN);
	act = bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
	if (act == XDP_REDIRECT)
		count(XSK_CNT_REDIRECTED);
	return act;
}

char _license[] SEC("license") = "GPL";
