// SPDX-License-Identifier: GPL-2.0

#include <linux/bitfield.h>
#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_vlan.h>
#include <linux/pci.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>
#include <kunit/visibility.h>

#include "i82574.h"

static u32 i82574_tx_unused(const struct i82574_ring *tx)
{
	return i82574_ring_unused(READ_ONCE(tx->head), tx->tail, tx->size_mask);
}

u32 i82574_tx_data_lower(u32 len, bool eop)
{
	u32 lower = FIELD_PREP(I82574_TXD_LEN, len) | I82574_TXD_DTYP_DATA |
		    I82574_TXD_CMD_DEXT | I82574_TXD_CMD_IFCS;

	if (eop)
		lower |= I82574_TXD_CMD_EOP | I82574_TXD_CMD_RS;
	return lower;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_tx_data_lower);

unsigned int i82574_tx_descs_for_len(unsigned int len)
{
	return DIV_ROUND_UP(len, I82574_TX_MAX_PER_DESC);
}
EXPORT_SYMBOL_IF_KUNIT(i82574_tx_descs_for_len);

static unsigned int i82574_tx_descs(const struct sk_buff *skb)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int i, n;

	/* one context descriptor, then the head and every fragment */
	n = 1 + i82574_tx_descs_for_len(skb_headlen(skb));
	for (i = 0; i < shinfo->nr_frags; i++)
		n += i82574_tx_descs_for_len(skb_frag_size(&shinfo->frags[i]));
	return n;
}

static void i82574_tx_doorbell(struct i82574_ring *tx)
{
	tx->doorbell = tx->tail;
	/* writel() orders the descriptor writes before the MMIO write */
	writel(tx->tail, tx->tail_reg);
	tx->xstats.doorbells++;
}

static void i82574_tx_unmap(struct i82574_ring *tx, struct i82574_tx_buf *buf)
{
	if (!buf->len)
		return;
	if (buf->is_page)
		dma_unmap_page(tx->dev, buf->dma, buf->len, DMA_TO_DEVICE);
	else
		dma_unmap_single(tx->dev, buf->dma, buf->len, DMA_TO_DEVICE);
	buf->len = 0;
}

/* Write descriptors for one mapping, split at I82574_TX_MAX_PER_DESC. */
static void i82574_tx_post(struct i82574_ring *tx, dma_addr_t dma, u32 len,
			   u32 popts, u32 *last_len)
{
	struct i82574_tx_desc *desc;
	u32 chunk;

	do {
		chunk = min_t(u32, len, I82574_TX_MAX_PER_DESC);
		desc = (struct i82574_tx_desc *)tx->desc + tx->fill;
		desc->addr = cpu_to_le64(dma);
		desc->lower = cpu_to_le32(i82574_tx_data_lower(chunk, false) |
					  tx->pkt_cmd);
		desc->upper = cpu_to_le32(popts);
		tx->fill = (tx->fill + 1) & tx->size_mask;
		dma += chunk;
		len -= chunk;
	} while (len);
	*last_len = chunk;
}

static int i82574_tx_map_one(struct i82574_ring *tx, dma_addr_t dma, u32 len,
			     bool is_page, u32 popts, u32 *last_len)
{
	struct i82574_tx_buf *buf = &tx->tx_buf[tx->fill];

	if (dma_mapping_error(tx->dev, dma))
		return -ENOMEM;
	buf->dma = dma;
	buf->len = len;
	buf->is_page = is_page;
	if (i82574_fail_tx_map(tx->dev)) {
		i82574_tx_unmap(tx, buf);
		return -ENOMEM;
	}
	i82574_tx_post(tx, dma, len, popts, last_len);
	return 0;
}

/* Close the packet that starts at @first (EOP and RS on its last
 * descriptor), then publish it in tx->tail for the completion side.
 * Inlined: the stack's xmit ran it inline before XDP_TX shared it
 * (about 1% of pktgen's instructions per packet).
 */
static __always_inline void
i82574_tx_close(struct i82574_ring *tx, u32 first, u32 last_len, u32 bytes,
		u16 segs)
{
	u32 last = (tx->fill - 1) & tx->size_mask;
	struct i82574_tx_desc *desc = (struct i82574_tx_desc *)tx->desc + last;

	desc->lower = cpu_to_le32(i82574_tx_data_lower(last_len, true) |
				  tx->pkt_cmd);
	tx->tx_buf[first].eop = last;
	tx->tx_buf[first].bytes = bytes;
	tx->tx_buf[first].segs = segs;
	/* shadow state before the index that makes it visible */
	smp_wmb();
	WRITE_ONCE(tx->tail, tx->fill);
}

static void i82574_tx_unwind(struct i82574_ring *tx, u32 first)
{
	u32 i;

	for (i = first; i != tx->fill; i = (i + 1) & tx->size_mask)
		i82574_tx_unmap(tx, &tx->tx_buf[i]);
	tx->fill = first;
}

/* Map the packet and write its descriptors, then publish it; tx->fill
 * tracks the packet being built.
 */
static int i82574_tx_map(struct i82574_ring *tx, struct sk_buff *skb,
			 u32 bytes, u16 segs)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u32 first = tx->tail, last_len = 0, popts;
	unsigned int i;
	int ret;

	tx->fill = first;
	ret = i82574_tx_offload(tx, skb, &popts);
	if (ret < 0)
		return ret;
	if (skb_headlen(skb) &&
	    i82574_tx_map_one(tx, dma_map_single(tx->dev, skb->data,
						 skb_headlen(skb), DMA_TO_DEVICE),
			      skb_headlen(skb), false, popts, &last_len))
		goto unwind;
	for (i = 0; i < shinfo->nr_frags; i++) {
		skb_frag_t *frag = &shinfo->frags[i];
		u32 len = skb_frag_size(frag);

		if (!len)
			continue;
		if (i82574_tx_map_one(tx, skb_frag_dma_map(tx->dev, frag, 0, len,
							   DMA_TO_DEVICE),
				      len, true, popts, &last_len))
			goto unwind;
	}

	tx->tx_buf[first].skb = skb;
	tx->tx_buf[first].type = I82574_TX_SKB;
	i82574_tx_close(tx, first, last_len, bytes, segs);
	return 0;

unwind:
	i82574_tx_unwind(tx, first);
	return -ENOMEM;
}

/* Ring for packets posted without a doorbell, if any, and tell the core,
 * which counted them as pending; xstats writer.
 */
static void i82574_tx_flush(struct i82574_ring *tx)
{
	if (tx->doorbell != tx->tail)
		i82574_tx_doorbell(tx);
	netdev_tx_dispatch_rang(tx->txq);
}

static void i82574_tx_drop(struct i82574_ring *tx, struct sk_buff *skb,
			   bool map_err)
{
	u64_stats_update_begin(&tx->xstats.syncp);
	tx->xstats.dropped++;
	tx->xstats.map_err += map_err;
	/* earlier packets of this batch may still wait for their doorbell */
	i82574_tx_flush(tx);
	u64_stats_update_end(&tx->xstats.syncp);
	dev_kfree_skb_any(skb);
}

/* ndo_xmit_flush: the core rings for packets that netdev_tx_sent_dispatch()
 * deferred. Every packet already carries RS on its last descriptor, so the
 * doorbell is only the tail write; harmless when nothing is pending.
 */
void i82574_xmit_flush(struct net_device *dev, struct netdev_queue *txq)
{
	struct i82574_dev *priv = netdev_priv(dev);
	unsigned int q = txq - netdev_get_tx_queue(dev, 0);
	struct i82574_ring *tx = &priv->nv[q]->tx;

	if (tx->doorbell == tx->tail)
		return;
	u64_stats_update_begin(&tx->xstats.syncp);
	i82574_tx_doorbell(tx);
	tx->xstats.flushes++;
	u64_stats_update_end(&tx->xstats.syncp);
}

netdev_tx_t i82574_xmit_frame(struct sk_buff *skb, struct net_device *dev)
{
	struct i82574_dev *priv = netdev_priv(dev);
	struct i82574_ring *tx = &priv->nv[skb_get_queue_mapping(skb)]->tx;
	bool more = netdev_xmit_more(), hw_vlan, tso;
	unsigned int bytes;
	u16 segs;

	/* CTRL.VME, which insertion needs, follows rx-vlan-offload */
	if (skb_vlan_tag_present(skb) &&
	    !(READ_ONCE(dev->features) & NETIF_F_HW_VLAN_CTAG_RX)) {
		skb = __vlan_hwaccel_push_inside(skb);
		if (!skb) {
			i82574_tx_drop(tx, NULL, false);
			return NETDEV_TX_OK;
		}
	}
	/* an offloaded checksum would cover the padding: finish it first */
	if (skb->len < ETH_ZLEN && skb->ip_summed == CHECKSUM_PARTIAL &&
	    skb_checksum_help(skb))
		goto drop;
	if (skb_put_padto(skb, ETH_ZLEN)) {
		i82574_tx_drop(tx, NULL, false);
		return NETDEV_TX_OK;
	}
	/* no packet needs more descriptors than one may take (the static
	 * assertions in i82574_tx_offload.c)
	 */
	if (unlikely(i82574_tx_unused(tx) < i82574_tx_descs(skb))) {
		/* queue is stopped in advance; this should not happen */
		netif_tx_stop_queue(tx->txq);
		u64_stats_update_begin(&tx->xstats.syncp);
		tx->xstats.busy++;
		/* never leave deferred packets behind a busy return */
		i82574_tx_flush(tx);
		u64_stats_update_end(&tx->xstats.syncp);
		return NETDEV_TX_BUSY;
	}
	bytes = i82574_tx_wire_bytes(skb, &segs);
	hw_vlan = skb_vlan_tag_present(skb);
	tso = skb_is_gso(skb);
	if (i82574_tx_map(tx, skb, bytes, segs)) {
		i82574_tx_drop(tx, skb, true);
		return NETDEV_TX_OK;
	}
	skb_tx_timestamp(skb);

	u64_stats_update_begin(&tx->xstats.syncp);
	if (!netif_txq_maybe_stop(tx->txq, i82574_tx_unused(tx),
				  I82574_TX_DESC_NEEDED, I82574_TX_WAKE_THRESH))
		tx->xstats.stop++;
	tx->xstats.vlan_tx += hw_vlan;
	tx->xstats.tso += tso;
	/* decides after the stop above: a stopped queue always rings */
	if (netdev_tx_sent_dispatch(tx->txq, bytes, more))
		i82574_tx_doorbell(tx);
	u64_stats_update_end(&tx->xstats.syncp);
	return NETDEV_TX_OK;

drop:
	i82574_tx_drop(tx, skb, false);
	return NETDEV_TX_OK;
}

/* Give back the XDP frame a packet's first slot holds; a zero budget
 * means no NAPI
 */
static void i82574_tx_free_xdp(struct i82574_tx_buf *first, int budget)
{
	/* XDP_TX: a page of this vector's pool, in its NAPI when budget */
	if (first->type == I82574_TX_XDP_TX && budget)
		xdp_return_frame_rx_napi(first->xdpf);
	else
		xdp_return_frame(first->xdpf);
	first->xdpf = NULL;
}

/* Post one XDP frame at @dma as a packet of its own; the queue lock held */
static void i82574_xdp_post(struct i82574_ring *tx, struct xdp_frame *xdpf,
			    dma_addr_t dma, enum i82574_tx_type type)
{
	struct i82574_tx_buf *buf = &tx->tx_buf[tx->tail];
	u32 first = tx->tail, last_len;

	tx->fill = first;
	tx->pkt_cmd = 0;
	buf->dma = dma;
	/* XDP_TX buffers stay mapped by their page_pool */
	buf->len = type == I82574_TX_XDP_XMIT ? xdpf->len : 0;
	buf->is_page = false;
	i82574_tx_post(tx, dma, xdpf->len, 0, &last_len);
	buf->xdpf = xdpf;
	buf->type = type;
	i82574_tx_close(tx, first, last_len, xdpf->len, 1);
}

static bool i82574_xdp_room(struct i82574_ring *tx, struct xdp_frame *xdpf)
{
	return !xdp_frame_has_frags(xdpf) &&
	       i82574_tx_unused(tx) >= i82574_tx_descs_for_len(xdpf->len);
}

/* An XDP_TX frame: its page is this vector's, mapped both ways */
static bool i82574_xdp_tx_one(struct i82574_ring *tx, struct xdp_frame *xdpf)
{
	struct page *page = virt_to_page(xdpf->data);
	dma_addr_t dma;

	if (!i82574_xdp_room(tx, xdpf))
		return false;
	dma = page_pool_get_dma_addr(page) +
	      (xdpf->data - page_address(page));
	dma_sync_single_for_device(tx->dev, dma, xdpf->len, DMA_BIDIRECTIONAL);
	i82574_xdp_post(tx, xdpf, dma, I82574_TX_XDP_TX);
	return true;
}

static bool i82574_xdp_xmit_one(struct i82574_ring *tx, struct xdp_frame *xdpf)
{
	dma_addr_t dma;

	if (!i82574_xdp_room(tx, xdpf))
		return false;
	dma = dma_map_single(tx->dev, xdpf->data, xdpf->len, DMA_TO_DEVICE);
	if (dma_mapping_error(tx->dev, dma))
		return false;
	i82574_xdp_post(tx, xdpf, dma, I82574_TX_XDP_XMIT);
	return true;
}

/* After XDP frames: stop the stack's queue if they took its room. The
 * queue is the stack's too: its watchdog, which sees it stopped, must
 * see that it transmits.
 */
static void i82574_xdp_tx_stop(struct i82574_ring *tx, unsigned int sent)
{
	if (sent)
		txq_trans_cond_update(tx->txq);
	if (!netif_txq_maybe_stop(tx->txq, i82574_tx_unused(tx),
				  I82574_TX_DESC_NEEDED, I82574_TX_WAKE_THRESH))
		tx->xstats.stop++;
}

/* The poll's XDP_TX frames, under the queue lock the stack's xmit takes,
 * with one doorbell for all of them
 */
static void i82574_xdp_tx_bulk(struct i82574_napi_vector *nv)
{
	struct i82574_ring *tx = &nv->tx;
	unsigned int i, sent = 0;

	__netif_tx_lock(tx->txq, smp_processor_id());
	u64_stats_update_begin(&tx->xstats.syncp);
	for (i = 0; i < nv->xdp_tx_n; i++) {
		if (i82574_xdp_tx_one(tx, nv->xdp_tx[i]))
			sent++;
		else
			xdp_return_frame_rx_napi(nv->xdp_tx[i]);
	}
	tx->xstats.xdp_tx += sent;
	tx->xstats.xdp_tx_err += nv->xdp_tx_n - sent;
	i82574_tx_flush(tx);
	i82574_xdp_tx_stop(tx, sent);
	u64_stats_update_end(&tx->xstats.syncp);
	__netif_tx_unlock(tx->txq);
	nv->xdp_tx_n = 0;
}

/**
 * i82574_xdp_xmit - ndo_xdp_xmit: frames redirected to this device
 * @dev: this device
 * @n: number of frames
 * @frames: the frames
 * @flags: XDP_XMIT_FLUSH to ring the doorbell for them
 *
 * Shares the stack's TX rings, under their queue lock; the ring is
 * chosen by CPU.
 *
 * Return: frames taken (the caller frees the rest), or a negative errno.
 */
int i82574_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		    u32 flags)
{
	struct i82574_dev *priv = netdev_priv(dev);
	unsigned int cpu = smp_processor_id();
	struct i82574_ring *tx;
	int i;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* i82574_down() clears it, then waits for callers to leave */
	if (unlikely(!READ_ONCE(priv->up)))
		return -ENETDOWN;
	tx = &priv->nv[cpu % priv->cfg.num_qp]->tx;

	__netif_tx_lock(tx->txq, cpu);
	u64_stats_update_begin(&tx->xstats.syncp);
	for (i = 0; i < n; i++)
		if (!i82574_xdp_xmit_one(tx, frames[i]))
			break;
	tx->xstats.xdp_xmit += i;
	tx->xstats.xdp_xmit_err += n - i;
	if (flags & XDP_XMIT_FLUSH)
		i82574_tx_flush(tx);
	i82574_xdp_tx_stop(tx, i);
	u64_stats_update_end(&tx->xstats.syncp);
	__netif_tx_unlock(tx->txq);
	return i;
}

static u32 i82574_tx_complete_pkt(struct i82574_ring *tx, u32 head, int budget)
{
	struct i82574_tx_buf *first = &tx->tx_buf[head];
	u32 eop = first->eop;

	if (likely(first->type == I82574_TX_SKB)) {
		napi_consume_skb(first->skb, budget);
		first->skb = NULL;
	} else {
		i82574_tx_free_xdp(first, budget);
	}
	for (;; head = (head + 1) & tx->size_mask) {
		i82574_tx_unmap(tx, &tx->tx_buf[head]);
		if (head == eop)
			break;
	}
	return (eop + 1) & tx->size_mask;
}

static void i82574_clean_tx(struct i82574_ring *tx, int budget)
{
	u32 head = tx->head, tail = READ_ONCE(tx->tail);
	unsigned int pkts = 0, bytes = 0, bql_bytes = 0;
	struct i82574_tx_desc *desc;

	/* pairs with smp_wmb() in i82574_tx_map() */
	smp_rmb();
	while (head != tail) {
		struct i82574_tx_buf *first = &tx->tx_buf[head];

		desc = (struct i82574_tx_desc *)tx->desc + first->eop;
		if (!(le32_to_cpu(READ_ONCE(desc->upper)) & I82574_TXD_STA_DD))
			break;
		dma_rmb();
		pkts += first->segs;
		bytes += first->bytes;
		/* BQL saw only the stack's packets */
		if (first->type == I82574_TX_SKB)
			bql_bytes += first->bytes;
		head = i82574_tx_complete_pkt(tx, head, budget);
	}
	if (!pkts)
		return;

	WRITE_ONCE(tx->head, head);
	u64_stats_update_begin(&tx->stats.syncp);
	tx->stats.packets += pkts;
	tx->stats.bytes += bytes;
	u64_stats_update_end(&tx->stats.syncp);
	/* The wake needs the completed packets, XDP frames included (they
	 * may have stopped the queue), and a barrier after the new head,
	 * which BQL gives only for bytes it counted
	 */
	if (!bql_bytes)
		smp_mb(); /* pairs with netif_txq_try_stop()'s */
	netif_txq_completed_wake(tx->txq, pkts, bql_bytes,
				 i82574_tx_unused(tx), I82574_TX_WAKE_THRESH);
}

/* Split whole pool pages into rx->buf_size buffers here rather than through
 * page_pool_dev_alloc_frag(): page_pool_alloc_pages() is where allocation
 * failures can be injected (fail_function), as drivers/net/hw tests do.
 */
static struct page *i82574_rx_page(struct i82574_ring *rx, u32 *offset)
{
	struct page *page = rx->frag_page;

	if (!page) {
		page = page_pool_dev_alloc_pages(rx->pp);
		if (!page)
			return NULL;
		page_pool_fragment_page(page, PAGE_SIZE / rx->buf_size);
		rx->frag_page = page;
		rx->frag_off = 0;
	}
	*offset = rx->frag_off;
	rx->frag_off += rx->buf_size;
	if (rx->frag_off == PAGE_SIZE)
		rx->frag_page = NULL;
	return page;
}

static int i82574_rx_alloc(struct i82574_ring *rx, u32 idx)
{
	union i82574_rx_desc *desc = (union i82574_rx_desc *)rx->desc + idx;
	struct i82574_rx_buf *buf = &rx->rx_buf[idx];
	struct page *page;
	u32 offset;

	page = i82574_rx_page(rx, &offset);
	if (!page)
		return -ENOMEM;
	buf->page = page;
	buf->offset = offset;
	desc->read.addr = cpu_to_le64(page_pool_get_dma_addr(page) + offset +
				      rx->hw_off);
	/* clears the write-back status, DD included */
	desc->read.reserved = 0;
	return 0;
}

void i82574_fill_rx(struct i82574_ring *rx)
{
	u32 tail = rx->tail, n;

	for (n = i82574_ring_unused(rx->head, tail, rx->size_mask); n; n--) {
		if (i82574_rx_alloc(rx, tail)) {
			u64_stats_update_begin(&rx->stats.syncp);
			rx->stats.alloc_fail++;
			u64_stats_update_end(&rx->stats.syncp);
			break;
		}
		tail = (tail + 1) & rx->size_mask;
	}
	rx->tail = tail;
	/* The hardware owns [head, doorbell). Each tail write is an MMIO exit
	 * and, on QEMU, a flush of the backend's queue: write it once per
	 * I82574_RX_REFILL_BATCH buffers, or at once when the hardware runs
	 * short.
	 */
	if (tail == rx->doorbell ||
	    (i82574_ring_used(rx->doorbell, tail, rx->size_mask) <
	     I82574_RX_REFILL_BATCH &&
	     i82574_ring_used(rx->head, rx->doorbell, rx->size_mask) >=
	     I82574_RX_REFILL_BATCH))
		return;
	rx->doorbell = tail;
	writel(tail, rx->tail_reg);
}

/* Inlined in both callers, as in the stack's path before XDP shared it */
static __always_inline struct sk_buff *
i82574_rx_build(struct i82574_ring *rx, void *va, u32 headroom, u32 len)
{
	struct sk_buff *skb;

	skb = napi_build_skb(va, rx->buf_size);
	if (!skb)
		return NULL;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, headroom);
	__skb_put(skb, len);
	return skb;
}

/* Attach one buffer to the packet being assembled; NULL drops it. */
static struct sk_buff *i82574_rx_add_buf(struct i82574_napi_vector *nv,
					 struct sk_buff *skb,
					 struct i82574_rx_buf *buf, u32 len,
					 bool eop)
{
	struct i82574_ring *rx = &nv->rx;
	u32 off = buf->offset + rx->hw_off;
	void *va = page_address(buf->page) + buf->offset;

	page_pool_dma_sync_for_cpu(rx->pp, buf->page, off, len);
	/* with headroom (no LPE) the device never writes more than 1522
	 * bytes, so a frame always fits before the skb_shared_info
	 */
	if (!skb && eop && rx->hw_off + len +
	    SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) <= rx->buf_size) {
		skb = i82574_rx_build(rx, va, rx->hw_off, len);
	} else {
		if (!skb) {
			skb = napi_alloc_skb(&nv->napi, I82574_RX_HDR_MAX);
			if (skb)
				skb_mark_for_recycle(skb);
		}
		if (skb && skb_shinfo(skb)->nr_frags < MAX_SKB_FRAGS) {
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, buf->page,
					off, len, rx->buf_size);
		} else {
			dev_kfree_skb_any(skb);
			skb = NULL;
		}
	}
	if (!skb)
		page_pool_put_full_page(rx->pp, buf->page, true);
	buf->page = NULL;
	return skb;
}

static bool i82574_xdp_tx_queue(struct i82574_napi_vector *nv,
				struct xdp_buff *xdp)
{
	struct xdp_frame *xdpf = xdp_convert_buff_to_frame(xdp);

	if (!xdpf)
		return false;
	if (nv->xdp_tx_n == I82574_XDP_TX_BULK)
		i82574_xdp_tx_bulk(nv);
	nv->xdp_tx[nv->xdp_tx_n++] = xdpf;
	return true;
}

static struct sk_buff *i82574_xdp_build_skb(struct i82574_ring *rx,
					    struct xdp_buff *xdp)
{
	u32 meta = xdp->data - xdp->data_meta;
	struct sk_buff *skb;

	skb = i82574_rx_build(rx, xdp->data_hard_start,
			      xdp->data - xdp->data_hard_start,
			      xdp->data_end - xdp->data);
	if (skb && meta)
		skb_metadata_set(skb, meta);
	return skb;
}

/* Run @prog on a whole frame in one buffer. Returns the skb for XDP_PASS,
 * else NULL: the frame was sent on, queued for XDP_TX or dropped, and the
 * buffer is no longer the ring's either way.
 */
static struct sk_buff *i82574_rx_xdp(struct i82574_napi_vector *nv,
				     struct bpf_prog *prog,
				     struct i82574_rx_buf *buf, u32 len)
{
	struct net_device *netdev = nv->priv->netdev;
	struct i82574_ring *rx = &nv->rx;
	struct sk_buff *skb = NULL;
	struct xdp_buff xdp;
	u32 act;

	page_pool_dma_sync_for_cpu(rx->pp, buf->page, buf->offset + rx->hw_off,
				   len);
	xdp_init_buff(&xdp, rx->buf_size, &rx->xdp_rxq);
	xdp_prepare_buff(&xdp, page_address(buf->page) + buf->offset,
			 rx->hw_off, len, true);
	act = bpf_prog_run_xdp(prog, &xdp);
	switch (act) {
	case XDP_PASS:
		skb = i82574_xdp_build_skb(rx, &xdp);
		rx->stats.xdp_pass++;
		rx->stats.dropped += !skb;
		goto recycle;
	case XDP_TX:
		if (i82574_xdp_tx_queue(nv, &xdp))
			goto consumed;
		rx->stats.xdp_tx_err++;
		break;
	case XDP_REDIRECT:
		if (!xdp_do_redirect(netdev, &xdp, prog)) {
			rx->stats.xdp_redirect++;
			nv->xdp_redirected = true;
			goto consumed;
		}
		rx->stats.xdp_redirect_err++;
		break;
	default:
		bpf_warn_invalid_xdp_action(netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		rx->stats.xdp_aborted++;
		break;
	case XDP_DROP:
		rx->stats.xdp_drop++;
		goto recycle;
	}
	trace_xdp_exception(netdev, prog, act);
recycle:
	if (!skb)
		page_pool_put_full_page(rx->pp, buf->page, true);
consumed:
	buf->page = NULL;
	return skb;
}

/* After the poll's frames: XDP_TX ones posted, redirected ones sent */
static void i82574_xdp_finish(struct i82574_napi_vector *nv)
{
	if (nv->xdp_tx_n)
		i82574_xdp_tx_bulk(nv);
	if (nv->xdp_redirected) {
		xdp_do_flush();
		nv->xdp_redirected = false;
	}
}

/* This and the next inlined: i82574_rx_deliver() has two copies */
static __always_inline void
i82574_rx_csum_hash(struct i82574_ring *rx, struct sk_buff *skb, u32 staterr,
		    u32 mrq, u32 hash)
{
	netdev_features_t features = skb->dev->features;
	u32 type = FIELD_GET(I82574_RXD_MRQ_RSSTYPE, mrq);

	if ((features & NETIF_F_RXHASH) && type != I82574_RSSTYPE_NONE)
		skb_set_hash(skb, hash, type == I82574_RSSTYPE_IPV4_TCP ||
			     type == I82574_RSSTYPE_IPV6_TCP ?
			     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);

	if (!(features & NETIF_F_RXCSUM) || (staterr & I82574_RXD_STA_IXSM))
		return;
	if (staterr & (I82574_RXD_ERR_TCPE | I82574_RXD_ERR_IPE)) {
		rx->stats.csum_bad++;
	} else if (staterr & (I82574_RXD_STA_TCPCS | I82574_RXD_STA_UDPCS)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		rx->stats.csum_ok++;
	}
}

static __always_inline void i82574_rx_pull_headers(struct sk_buff *skb)
{
	skb_frag_t *frag = &skb_shinfo(skb)->frags[0];
	unsigned int hlen;

	if (skb_headlen(skb))
		return;
	hlen = eth_get_headlen(skb->dev, skb_frag_address(frag),
			       min_t(u32, skb_frag_size(frag), I82574_RX_HDR_MAX));
	__pskb_pull_tail(skb, hlen);
}

/* Hand a complete packet to the stack; returns its length. Inlined in
 * both callers, as in the stack's path before XDP_PASS shared it.
 */
static __always_inline u32
i82574_rx_deliver(struct i82574_napi_vector *nv, struct sk_buff *skb,
		  const union i82574_rx_desc *desc, u32 staterr)
{
	struct i82574_ring *rx = &nv->rx;
	u32 len;

	skb->dev = nv->priv->netdev;
	i82574_rx_pull_headers(skb);
	i82574_rx_csum_hash(rx, skb, staterr, le32_to_cpu(desc->wb.mrq),
			    le32_to_cpu(desc->wb.rss));
	skb_record_rx_queue(skb, rx->q_idx);
	skb->protocol = eth_type_trans(skb, skb->dev);
	if (staterr & I82574_RXD_STA_VP) {
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       le16_to_cpu(desc->wb.vlan));
		rx->stats.vlan_rx++;
	}
	len = skb->len + ETH_HLEN;
	napi_gro_receive(&nv->napi, skb);
	return len;
}

/* A frame the program may see: whole in one buffer, without errors */
static bool i82574_rx_xdp_frame(struct i82574_ring *rx, struct sk_buff *skb,
				u32 staterr)
{
	return !skb && !rx->discard && (staterr & I82574_RXD_STA_EOP) &&
	       !(staterr & I82574_RXD_ERR_FRAME);
}

static int i82574_clean_rx(struct i82574_napi_vector *nv, int budget)
{
	struct bpf_prog *prog = nv->rx.xdp ? READ_ONCE(nv->priv->xdp_prog) :
					     NULL;
	struct i82574_ring *rx = &nv->rx;
	struct sk_buff *skb = rx->skb;
	u32 head = rx->head, staterr, len;
	union i82574_rx_desc *desc;
	struct i82574_rx_buf *buf;
	u64 bytes = 0;
	int done = 0;

	u64_stats_update_begin(&rx->stats.syncp);
	while (done < budget && head != rx->tail) {
		desc = (union i82574_rx_desc *)rx->desc + head;
		staterr = le32_to_cpu(READ_ONCE(desc->wb.staterr));
		if (!(staterr & I82574_RXD_STA_DD))
			break;
		dma_rmb();
		buf = &rx->rx_buf[head];
		len = le16_to_cpu(desc->wb.length);
		head = (head + 1) & rx->size_mask;

		if (prog && i82574_rx_xdp_frame(rx, skb, staterr)) {
			done++;
			rx->stats.packets++;
			bytes += len;
			skb = i82574_rx_xdp(nv, prog, buf, len);
			if (skb)
				i82574_rx_deliver(nv, skb, desc, staterr);
			skb = NULL;
			continue;
		}
		if (!rx->discard) {
			skb = i82574_rx_add_buf(nv, skb, buf, len,
						staterr & I82574_RXD_STA_EOP);
			/* a program sees whole frames only; others go */
			rx->discard = !skb || prog;
		} else {
			page_pool_put_full_page(rx->pp, buf->page, true);
			buf->page = NULL;
		}
		if (!(staterr & I82574_RXD_STA_EOP))
			continue;

		done++;
		if (rx->discard || (staterr & I82574_RXD_ERR_FRAME)) {
			if (staterr & I82574_RXD_ERR_FRAME)
				rx->stats.frame_err++;
			else
				rx->stats.dropped++;
			dev_kfree_skb_any(skb);
		} else {
			bytes += i82574_rx_deliver(nv, skb, desc, staterr);
			rx->stats.packets++;
		}
		skb = NULL;
		rx->discard = false;
	}
	rx->stats.bytes += bytes;
	u64_stats_update_end(&rx->stats.syncp);

	i82574_xdp_finish(nv);
	rx->skb = skb;
	rx->head = head;
	i82574_fill_rx(rx);
	return done;
}

static void i82574_update_dim(struct i82574_napi_vector *nv)
{
	struct i82574_dev *priv = nv->priv;
	struct dim_sample sample = {};

	if (READ_ONCE(priv->adaptive_rx)) {
		dim_update_sample(nv->events, nv->rx.stats.packets,
				  nv->rx.stats.bytes, &sample);
		net_dim(&nv->rx_dim, sample);
	}
	if (READ_ONCE(priv->adaptive_tx)) {
		dim_update_sample(nv->events, nv->tx.stats.packets,
				  nv->tx.stats.bytes, &sample);
		net_dim(&nv->tx_dim, sample);
	}
}

static void i82574_irq_enable(struct i82574_napi_vector *nv)
{
	struct i82574_dev *priv = nv->priv;

	if (priv->msix)
		wr32(priv, I82574_IMS, I82574_INT_RXQ(nv->v_idx) |
				       I82574_INT_TXQ(nv->v_idx));
	else
		wr32(priv, I82574_IMS, I82574_INT_RXT0 | I82574_INT_TXDW);
}

int i82574_poll(struct napi_struct *napi, int budget)
{
	struct i82574_napi_vector *nv =
		container_of(napi, struct i82574_napi_vector, napi);
	struct i82574_ring *rx = &nv->rx;
	int done = 0;

	i82574_clean_tx(&nv->tx, budget);
	if (budget)
		done = i82574_clean_rx(nv, budget);
	if (done == budget)
		return budget;
	/* nothing posted after failed allocations: keep polling to retry */
	if (rx->head == rx->tail)
		return budget;

	if (napi_complete_done(napi, done)) {
		i82574_update_dim(nv);
		i82574_irq_enable(nv);
	}
	return done;
}

static void i82574_dim_work(struct work_struct *work, bool is_tx)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct i82574_napi_vector *nv = dim->priv;
	struct dim_cq_moder m;

	if (is_tx) {
		m = net_dim_get_tx_moderation(dim->mode, dim->profile_ix);
		WRITE_ONCE(nv->tx_usecs, m.usec);
	} else {
		m = net_dim_get_rx_moderation(dim->mode, dim->profile_ix);
		WRITE_ONCE(nv->rx_usecs, m.usec);
	}
	i82574_set_vector_itr(nv);
	dim->state = DIM_START_MEASURE;
}

static void i82574_rx_dim_work(struct work_struct *work)
{
	i82574_dim_work(work, false);
}

static void i82574_tx_dim_work(struct work_struct *work)
{
	i82574_dim_work(work, true);
}

static int i82574_alloc_ring(struct device *dev, struct i82574_ring *ring,
			     u32 size, size_t buf_size)
{
	ring->size_bytes = size * sizeof(struct i82574_tx_desc);
	ring->desc = dma_alloc_coherent(dev, ring->size_bytes, &ring->dma,
					GFP_KERNEL);
	if (!ring->desc)
		return -ENOMEM;
	ring->tx_buf = kvcalloc(size, buf_size, GFP_KERNEL);
	if (!ring->tx_buf) {
		dma_free_coherent(dev, ring->size_bytes, ring->desc, ring->dma);
		return -ENOMEM;
	}
	ring->dev = dev;
	ring->size_mask = size - 1;
	u64_stats_init(&ring->stats.syncp);
	u64_stats_init(&ring->xstats.syncp);
	return 0;
}

static void i82574_free_ring(struct i82574_ring *ring)
{
	kvfree(ring->tx_buf);
	dma_free_coherent(ring->dev, ring->size_bytes, ring->desc, ring->dma);
}

/* XDP_TX sends from the pool's pages: then they are mapped both ways */
static int i82574_create_pp(struct i82574_dev *priv,
			    struct i82574_napi_vector *nv, u32 size)
{
	struct page_pool_params pp = {
		.order = 0,
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.pool_size = size,
		.nid = dev_to_node(&priv->pdev->dev),
		.dev = &priv->pdev->dev,
		.napi = &nv->napi,
		.netdev = priv->netdev,
		.queue_idx = nv->v_idx,
		.dma_dir = nv->rx.xdp ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE,
		.max_len = PAGE_SIZE,
	};
	int err;

	nv->rx.pp = page_pool_create(&pp);
	if (IS_ERR(nv->rx.pp))
		return PTR_ERR(nv->rx.pp);
	err = xdp_rxq_info_reg(&nv->rx.xdp_rxq, priv->netdev, nv->v_idx,
			       nv->napi.napi_id);
	if (err)
		goto destroy_pp;
	err = xdp_rxq_info_reg_mem_model(&nv->rx.xdp_rxq, MEM_TYPE_PAGE_POOL,
					 nv->rx.pp);
	if (err)
		goto unreg_rxq;
	return 0;

unreg_rxq:
	xdp_rxq_info_unreg(&nv->rx.xdp_rxq);
destroy_pp:
	page_pool_destroy(nv->rx.pp);
	return err;
}

/* The pool's own reference goes after the one xdp_rxq_info holds */
static void i82574_destroy_pp(struct i82574_ring *rx)
{
	xdp_rxq_info_unreg(&rx->xdp_rxq);
	page_pool_destroy(rx->pp);
}

static void i82574_init_vector(struct i82574_dev *priv,
			       struct i82574_napi_vector *nv, unsigned int v)
{
	nv->priv = priv;
	nv->v_idx = v;
	nv->tx.q_idx = v;
	nv->rx.q_idx = v;
	nv->tx.txq = netdev_get_tx_queue(priv->netdev, v);
	nv->tx.tail_reg = priv->hw + I82574_TDT(v);
	nv->rx.tail_reg = priv->hw + I82574_RDT(v);
	nv->rx_usecs = priv->rx_usecs;
	nv->tx_usecs = priv->tx_usecs;
	INIT_WORK(&nv->rx_dim.work, i82574_rx_dim_work);
	INIT_WORK(&nv->tx_dim.work, i82574_tx_dim_work);
	nv->rx_dim.priv = nv;
	nv->tx_dim.priv = nv;
	nv->rx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	nv->tx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
}

static struct i82574_napi_vector *
i82574_alloc_vector(struct i82574_dev *priv, unsigned int v,
		    const struct i82574_cfg *cfg)
{
	struct device *dev = &priv->pdev->dev;
	struct i82574_napi_vector *nv;

	nv = kzalloc(sizeof(*nv), GFP_KERNEL);
	if (!nv)
		return NULL;
	i82574_init_vector(priv, nv, v);
	netif_napi_add(priv->netdev, &nv->napi, i82574_poll);
	netif_napi_set_irq(&nv->napi,
			   pci_irq_vector(priv->pdev, priv->msix ? v + 1 : 0));

	if (i82574_alloc_ring(dev, &nv->tx, cfg->tx_size,
			      sizeof(struct i82574_tx_buf)))
		goto napi_del;
	if (i82574_alloc_ring(dev, &nv->rx, cfg->rx_size,
			      sizeof(struct i82574_rx_buf)))
		goto free_tx;
	nv->rx.xdp = cfg->xdp;
	nv->rx.buf_size = cfg->xdp ? PAGE_SIZE : I82574_RX_BUF_SIZE;
	if (i82574_create_pp(priv, nv, cfg->rx_size))
		goto free_rx;
	return nv;

free_rx:
	i82574_free_ring(&nv->rx);
free_tx:
	i82574_free_ring(&nv->tx);
napi_del:
	netif_napi_del(&nv->napi);
	kfree(nv);
	return NULL;
}

int i82574_alloc_vectors(struct i82574_dev *priv, struct i82574_napi_vector **nv,
			 const struct i82574_cfg *cfg)
{
	unsigned int v;

	for (v = 0; v < cfg->num_qp; v++) {
		nv[v] = i82574_alloc_vector(priv, v, cfg);
		if (!nv[v])
			goto free_vectors;
	}
	return 0;

free_vectors:
	i82574_free_vectors(nv, v);
	return -ENOMEM;
}

void i82574_fold_ring_stats(struct i82574_queue_stats *base,
			    struct i82574_ring *ring)
{
	i82574_add_stats(base, &ring->stats);
	i82574_add_stats(base, &ring->xstats);
}

void i82574_free_vectors(struct i82574_napi_vector **nv, unsigned int num)
{
	unsigned int v;

	for (v = 0; v < num; v++) {
		i82574_destroy_pp(&nv[v]->rx);
		i82574_free_ring(&nv[v]->rx);
		i82574_free_ring(&nv[v]->tx);
		netif_napi_del(&nv[v]->napi);
		kfree(nv[v]);
		nv[v] = NULL;
	}
}

/* Release every buffer still owned by the rings; DMA must be stopped. */
void i82574_clean_rings(struct i82574_napi_vector *nv)
{
	struct i82574_ring *tx = &nv->tx, *rx = &nv->rx;
	u32 i;

	for (i = 0; i <= tx->size_mask; i++) {
		i82574_tx_unmap(tx, &tx->tx_buf[i]);
		if (tx->tx_buf[i].type == I82574_TX_SKB)
			dev_kfree_skb_any(tx->tx_buf[i].skb);
		else if (tx->tx_buf[i].xdpf)
			i82574_tx_free_xdp(&tx->tx_buf[i], 0);
		tx->tx_buf[i].skb = NULL;
	}
	netdev_tx_reset_queue(tx->txq);
	tx->head = 0;
	tx->tail = 0;
	tx->fill = 0;
	tx->doorbell = 0;

	for (i = 0; i <= rx->size_mask; i++) {
		if (rx->rx_buf[i].page)
			page_pool_put_full_page(rx->pp, rx->rx_buf[i].page,
						false);
		rx->rx_buf[i].page = NULL;
	}
	/* the references of the buffers not handed out yet */
	for (; rx->frag_page && rx->frag_off < PAGE_SIZE;
	     rx->frag_off += rx->buf_size)
		page_pool_put_full_page(rx->pp, rx->frag_page, false);
	rx->frag_page = NULL;
	dev_kfree_skb_any(rx->skb);
	rx->skb = NULL;
	rx->discard = false;
	rx->head = 0;
	rx->tail = 0;
	rx->doorbell = 0;
}

void i82574_add_stats(struct i82574_queue_stats *acc,
		      const struct i82574_queue_stats *s)
{
	u64 snap[I82574_NUM_QSTATS], *sum = (u64 *)acc;
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		memcpy(snap, s, sizeof(snap));
	} while (u64_stats_fetch_retry(&s->syncp, start));
	for (i = 0; i < I82574_NUM_QSTATS; i++)
		sum[i] += snap[i];
}
