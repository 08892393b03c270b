/* SPDX-License-Identifier: GPL-2.0 */

#ifndef _I82574_TXRX_H_
#define _I82574_TXRX_H_

#include <linux/dim.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/u64_stats_sync.h>
#include <linux/types.h>
#include <net/xdp.h>

#include "i82574_csr.h"

struct i82574_cfg;
struct i82574_dev;

#define I82574_MAX_QP			2
#define I82574_RING_MIN			64
#define I82574_RING_MAX			4096
#define I82574_RING_DEFAULT		256
/* The model drops packets with more than 64 descriptors */
#define I82574_TX_MAX_DESC_PER_PKT	64
/* The packet buffer RX and TX share (PBA.RXA gives RX its part; TX gets
 * the rest, PBA.TXA), and the RX part e1000e gives this chip
 */
#define I82574_PB_KB			40
#define I82574_PBA_RX_KB		32
/* What of the TX FIFO one buffer (one descriptor) may use: the FIFO less
 * 96 bytes, as e1000e's tx_fifo_limit for this part (its 82574/82583 TX
 * hang workaround); a larger buffer can stall the transmitter on silicon.
 * i82574_pba_rx_kb() never gives RX more than I82574_PBA_RX_KB, so TX
 * never has less than 8 KB, and 8096 bytes fit every split it makes.
 */
#define I82574_TX_FIFO_RESERVE		96
#define I82574_TX_MAX_PER_DESC \
	((I82574_PB_KB - I82574_PBA_RX_KB) * SZ_1K - I82574_TX_FIFO_RESERVE)
/* Worst case for one packet: a context descriptor plus split buffers */
#define I82574_TX_DESC_NEEDED		(MAX_SKB_FRAGS + 12)
/* TSO: the IPv4 total length has 16 bits (no BIG TCP), and QEMU's model
 * drops a datagram over 65,535 bytes; the context's PAYLEN has 20
 */
#define I82574_TSO_MAX_SIZE		SZ_64K
/* The chip counts no segments; at TCP's smallest MSS (48) a 64 KiB
 * payload makes 1,366, the most one context can be asked for
 */
#define I82574_TSO_MAX_SEGS		DIV_ROUND_UP(I82574_TSO_MAX_SIZE, 48)
/* The context descriptor's header fields (HDRLEN, TUCSS, IPCSS) have 8 bits */
#define I82574_TSO_MAX_HDR		255
#define I82574_TX_WAKE_THRESH		(2 * I82574_TX_DESC_NEEDED)

#define I82574_RX_BUF_SIZE		2048
#define I82574_RX_HEADROOM		NET_SKB_PAD
#define I82574_RX_HDR_MAX		256
#define I82574_RX_REFILL_BATCH		16
/* XDP_TX frames one poll may queue: its whole budget */
#define I82574_XDP_TX_BULK		NAPI_POLL_WEIGHT

/* What a TX slot's first buffer carries, and how it is given back */
enum i82574_tx_type {
	I82574_TX_SKB,
	I82574_TX_XDP_TX,	/* page_pool page of this vector's RX ring */
	I82574_TX_XDP_XMIT,	/* frame from ndo_xdp_xmit, mapped here */
};

/**
 * struct i82574_tx_buf - shadow of one TX descriptor slot
 * @skb: packet, set on the first slot of a packet (@type I82574_TX_SKB)
 * @xdpf: XDP frame, on the first slot instead of @skb (other types)
 * @dma: DMA address of a mapping that starts at this slot
 * @len: length of that mapping, 0 if the slot maps nothing
 * @eop: index of the packet's last slot (first slot only)
 * @bytes: bytes reported to BQL and stats (first slot only)
 * @segs: packets counted for stats (first slot only)
 * @is_page: the mapping was made with skb_frag_dma_map()
 */
struct i82574_tx_buf {
	union {
		struct sk_buff *skb;
		struct xdp_frame *xdpf;
	};
	dma_addr_t dma;
	u32 len;
	u16 eop;
	u16 segs;
	u32 bytes;
	bool is_page;
	u8 type;
};

/**
 * struct i82574_rx_buf - shadow of one RX descriptor slot
 * @page: page_pool page the buffer lives in
 * @offset: start of the buffer within @page
 */
struct i82574_rx_buf {
	struct page *page;
	u32 offset;
};

/* Per-ring counters; a TX ring has one set per writer (xmit, NAPI) */
struct i82574_queue_stats {
	u64 packets;
	u64 bytes;
	u64 dropped;
	u64 busy;
	u64 stop;
	u64 map_err;
	u64 doorbells;
	u64 flushes;		/* doorbells rung by ndo_xmit_flush */
	u64 alloc_fail;
	u64 csum_ok;
	u64 csum_bad;
	u64 frame_err;
	u64 vlan_tx;		/* tags the device inserted */
	u64 vlan_rx;		/* tags the device stripped */
	u64 tso;		/* TSO packets handed to the device */
	u64 xdp_pass;		/* RX: the program's verdicts */
	u64 xdp_drop;
	u64 xdp_aborted;	/* XDP_ABORTED and invalid actions */
	u64 xdp_redirect;
	u64 xdp_redirect_err;
	u64 xdp_tx;		/* TX: XDP_TX frames posted */
	u64 xdp_tx_err;		/* TX: XDP_TX frames with no room */
	u64 xdp_xmit;		/* TX: ndo_xdp_xmit frames posted */
	u64 xdp_xmit_err;
	struct u64_stats_sync syncp;
};

struct i82574_ring {
	void *desc;			/* descriptor ring, DMA coherent */
	union {
		struct i82574_tx_buf *tx_buf;
		struct i82574_rx_buf *rx_buf;
	};
	u8 __iomem *tail_reg;
	u32 size_mask;
	u32 head;			/* next slot to complete */
	u32 tail;			/* end of the published packets */
	u32 fill;			/* TX: next slot to fill */
	u32 doorbell;			/* last value written to the tail */
	u32 pkt_cmd;			/* TX: VLE for the packet being built */
	u16 q_idx;
	u16 hw_off;			/* RX: data offset inside a buffer */
	u16 buf_size;			/* RX: buffer (and truesize) */
	bool xdp;			/* RX: XDP layout, one buffer a page */
	struct page_pool *pp;		/* RX only */
	struct page *frag_page;		/* RX: page with buffers left */
	u32 frag_off;			/* RX: next buffer in frag_page */
	struct sk_buff *skb;		/* RX: packet spanning descriptors */
	struct netdev_queue *txq;	/* TX only */
	bool discard;			/* RX: drop until end of packet */
	struct xdp_rxq_info xdp_rxq;	/* RX only */
	struct i82574_queue_stats stats;
	struct i82574_queue_stats xstats;	/* TX: written by xmit */

	/* slow path */
	struct device *dev;
	dma_addr_t dma;
	u32 size_bytes;
};

/**
 * struct i82574_napi_vector - one interrupt vector and the queues it serves
 * @napi: NAPI context polling @tx and @rx
 * @priv: owning device
 * @tx: TX ring of this queue pair
 * @rx: RX ring of this queue pair
 * @rx_dim: adaptive moderation state for @rx
 * @tx_dim: adaptive moderation state for @tx
 * @v_idx: index of the queue pair (and of its MSI-X vector minus one)
 * @events: interrupts seen, fed to lib/dim
 * @rx_usecs: current RX moderation
 * @tx_usecs: current TX moderation
 * @xdp_redirected: a frame of this poll went to xdp_do_redirect()
 * @xdp_tx_n: frames in @xdp_tx
 * @xdp_tx: XDP_TX frames of this poll, posted to @tx once at its end
 */
struct i82574_napi_vector {
	struct napi_struct napi;
	struct i82574_dev *priv;
	struct i82574_ring tx;
	struct i82574_ring rx;
	struct dim rx_dim;
	struct dim tx_dim;
	u16 v_idx;
	u16 events;
	u16 rx_usecs;
	u16 tx_usecs;
	bool xdp_redirected;
	u16 xdp_tx_n;
	struct xdp_frame *xdp_tx[I82574_XDP_TX_BULK];
};

static inline u32 i82574_ring_unused(u32 head, u32 tail, u32 mask)
{
	return (head - tail - 1) & mask;
}

/* slots in [from, to) */
static inline u32 i82574_ring_used(u32 from, u32 to, u32 mask)
{
	return (to - from) & mask;
}

u32 i82574_tx_data_lower(u32 len, bool eop);
u32 i82574_tx_ctx_tucss(u32 css, u32 cso);
int i82574_tx_tso(struct i82574_ring *tx, struct sk_buff *skb, u32 *popts);
int i82574_tx_offload(struct i82574_ring *tx, struct sk_buff *skb, u32 *popts);
u32 i82574_tx_wire_bytes(const struct sk_buff *skb, u16 *segs);
netdev_features_t i82574_features_check(struct sk_buff *skb,
					struct net_device *netdev,
					netdev_features_t features);
void i82574_tso_setup(struct net_device *netdev);
unsigned int i82574_tx_descs_for_len(unsigned int len);

netdev_tx_t i82574_xmit_frame(struct sk_buff *skb, struct net_device *dev);
void i82574_xmit_flush(struct net_device *dev, struct netdev_queue *txq);
int i82574_poll(struct napi_struct *napi, int budget);
int i82574_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		    u32 flags);
int i82574_alloc_vectors(struct i82574_dev *priv, struct i82574_napi_vector **nv,
			 const struct i82574_cfg *cfg);
void i82574_free_vectors(struct i82574_napi_vector **nv, unsigned int num);
void i82574_fold_ring_stats(struct i82574_queue_stats *base,
			    struct i82574_ring *ring);
void i82574_clean_rings(struct i82574_napi_vector *nv);
void i82574_fill_rx(struct i82574_ring *rx);
void i82574_add_stats(struct i82574_queue_stats *acc,
		      const struct i82574_queue_stats *s);

#endif /* _I82574_TXRX_H_ */
