// SPDX-License-Identifier: GPL-2.0

#include <linux/etherdevice.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/unaligned.h>

#include "i82574.h"

#define I82574_SERVICE_PERIOD	(2 * HZ)

static const struct pci_device_id i82574_pci_tbl[] = {
	{ PCI_VDEVICE(INTEL, 0x10d3) },
	{ }
};
MODULE_DEVICE_TABLE(pci, i82574_pci_tbl);

static int i82574_eerd_read(struct i82574_dev *priv, u32 word, u16 *val)
{
	u32 v;
	int err;

	wr32(priv, I82574_EERD,
	     FIELD_PREP(I82574_EERD_ADDR, word) | I82574_EERD_START);
	err = readl_poll_timeout(priv->hw + I82574_EERD, v,
				 v & I82574_EERD_DONE, 5, 10000);
	if (err)
		return err;
	*val = FIELD_GET(I82574_EERD_DATA, v);
	return 0;
}

static int i82574_mdic(struct i82574_dev *priv, u32 op, u32 reg, u16 *val)
{
	u32 v;
	int err;

	wr32(priv, I82574_MDIC, FIELD_PREP(I82574_MDIC_DATA, *val) |
	     FIELD_PREP(I82574_MDIC_REG, reg) |
	     FIELD_PREP(I82574_MDIC_PHY, I82574_PHY_ADDR) |
	     FIELD_PREP(I82574_MDIC_OP, op));
	err = readl_poll_timeout(priv->hw + I82574_MDIC, v,
				 v & I82574_MDIC_READY, 10, 10000);
	if (err)
		return err;
	if (v & I82574_MDIC_ERROR)
		return -EIO;
	*val = FIELD_GET(I82574_MDIC_DATA, v);
	return 0;
}

int i82574_mdic_read(struct i82574_dev *priv, u32 reg, u16 *val)
{
	*val = 0;
	return i82574_mdic(priv, I82574_MDIC_OP_READ, reg, val);
}

int i82574_mdic_write(struct i82574_dev *priv, u32 reg, u16 val)
{
	return i82574_mdic(priv, I82574_MDIC_OP_WRITE, reg, &val);
}

void i82574_write_rar(struct i82574_dev *priv, int idx, const u8 *addr)
{
	wr32(priv, I82574_RAL(idx), i82574_rar_low(addr));
	wr32(priv, I82574_RAH(idx), i82574_rar_high(addr));
}

void i82574_write_rss(struct i82574_dev *priv)
{
	unsigned int i;

	for (i = 0; i < I82574_RSS_KEY_SIZE / 4; i++)
		wr32(priv, I82574_RSSRK(i),
		     get_unaligned_le32(priv->rss_key + 4 * i));
	for (i = 0; i < I82574_RETA_ENTRIES / 4; i++)
		wr32(priv, I82574_RETA(i),
		     i82574_reta_dword(priv->reta, i, priv->cfg.num_qp));
	/* RSS also needs RXCSUM.PCSD and RFCTL.EXTEN, set in init_rx */
	wr32(priv, I82574_MRQC, I82574_MRQC_RSS_EN | I82574_MRQC_TCP_IPV4 |
	     I82574_MRQC_IPV4 | I82574_MRQC_TCP_IPV6 | I82574_MRQC_IPV6);
}

void i82574_write_rctl(struct i82574_dev *priv)
{
	/* 2 KiB buffers (BSIZE 0), CRC stripped, broadcast accepted */
	u32 rctl = I82574_RCTL_BAM | I82574_RCTL_SECRC | priv->rx_mode;

	if (priv->netdev->mtu > ETH_DATA_LEN)
		rctl |= I82574_RCTL_LPE;
	if (priv->up)
		rctl |= I82574_RCTL_EN;
	wr32(priv, I82574_RCTL, rctl);
}

/* Stop DMA and mask everything; the model's CTRL.RST does little more. */
static void i82574_hw_quiesce(struct i82574_dev *priv)
{
	wr32(priv, I82574_IMC, ~0u);
	wr32(priv, I82574_EIAC, 0);
	wr32(priv, I82574_RCTL, 0);
	wr32(priv, I82574_TCTL, I82574_TCTL_PSP);
	wrfl(priv);
	usleep_range(10000, 12000);
	rd32(priv, I82574_ICR);
	wr32(priv, I82574_ICR, ~0u);
}

static void i82574_hw_reset(struct i82574_dev *priv)
{
	i82574_hw_quiesce(priv);
	rmw32(priv, I82574_CTRL, 0, I82574_CTRL_RST);
	usleep_range(20000, 25000);
	wr32(priv, I82574_IMC, ~0u);
	rd32(priv, I82574_ICR);
}

static void i82574_init_mac(struct i82574_dev *priv)
{
	unsigned int i;

	rmw32(priv, I82574_CTRL, I82574_CTRL_RST,
	      I82574_CTRL_SLU | I82574_CTRL_ASDE);
	rmw32(priv, I82574_CTRL_EXT,
	      I82574_CTRL_EXT_EIAME | I82574_CTRL_EXT_PBA_CLR,
	      priv->msix ? I82574_CTRL_EXT_EIAME | I82574_CTRL_EXT_PBA_CLR : 0);
	i82574_write_rar(priv, 0, priv->netdev->dev_addr);
	for (i = 0; i < I82574_VFTA_NUM; i++)
		wr32(priv, I82574_VFTA(i), 0);
}

static void i82574_init_tx(struct i82574_dev *priv)
{
	unsigned int q;

	for (q = 0; q < I82574_MAX_QP; q++) {
		struct i82574_ring *tx = priv->nv[q] ? &priv->nv[q]->tx : NULL;

		wr32(priv, I82574_TDBAL(q), tx ? lower_32_bits(tx->dma) : 0);
		wr32(priv, I82574_TDBAH(q), tx ? upper_32_bits(tx->dma) : 0);
		wr32(priv, I82574_TDLEN(q), tx ? tx->size_bytes : 0);
		wr32(priv, I82574_TDH(q), 0);
		wr32(priv, I82574_TDT(q), 0);
		wr32(priv, I82574_TXDCTL(q), I82574_TXDCTL_GRAN |
		     I82574_TXDCTL_COUNT_DESC |
		     FIELD_PREP(I82574_TXDCTL_WTHRESH, 1));
		/* without TARC bit 10 the queue silently never transmits */
		rmw32(priv, I82574_TARC(q), 0, I82574_TARC_ENABLE);
	}
	wr32(priv, I82574_TIDV, 1);
	wr32(priv, I82574_TADV, 0);
	wr32(priv, I82574_TIPG, FIELD_PREP(I82574_TIPG_IPGT, 8) |
	     FIELD_PREP(I82574_TIPG_IPGR1, 8) |
	     FIELD_PREP(I82574_TIPG_IPGR2, 6));
	wr32(priv, I82574_TCTL, I82574_TCTL_EN | I82574_TCTL_PSP |
	     FIELD_PREP(I82574_TCTL_CT, 0x0f) |
	     FIELD_PREP(I82574_TCTL_COLD, 0x3f) | I82574_TCTL_RTLC);
}

static void i82574_init_rx(struct i82574_dev *priv)
{
	unsigned int q;

	wr32(priv, I82574_RCTL, 0);
	/* extended descriptors (also needed by RSS), no ACK interrupts */
	wr32(priv, I82574_RFCTL, I82574_RFCTL_EXTEN | I82574_RFCTL_ACK_DIS |
	     I82574_RFCTL_IPV6_EX_DIS | I82574_RFCTL_NEW_IPV6_EXT_DIS);
	wr32(priv, I82574_RXCSUM, I82574_RXCSUM_IPOFL | I82574_RXCSUM_TUOFL |
	     I82574_RXCSUM_PCSD);
	wr32(priv, I82574_RDTR, 0);
	wr32(priv, I82574_RADV, 0);
	wr32(priv, I82574_RAID, 0);
	for (q = 0; q < I82574_MAX_QP; q++) {
		struct i82574_ring *rx = priv->nv[q] ? &priv->nv[q]->rx : NULL;

		wr32(priv, I82574_RDBAL(q), rx ? lower_32_bits(rx->dma) : 0);
		wr32(priv, I82574_RDBAH(q), rx ? upper_32_bits(rx->dma) : 0);
		wr32(priv, I82574_RDLEN(q), rx ? rx->size_bytes : 0);
		wr32(priv, I82574_RDH(q), 0);
		wr32(priv, I82574_RDT(q), 0);
		if (rx)
			rx->hw_off = priv->netdev->mtu > ETH_DATA_LEN ?
				     0 : I82574_RX_HEADROOM;
	}
	i82574_write_rss(priv);
}

static u32 i82574_ivar(unsigned int field, u32 vector)
{
	return (I82574_IVAR_VALID | vector) << (I82574_IVAR_FIELD_BITS * field);
}

static u32 i82574_queue_causes(struct i82574_dev *priv)
{
	u32 causes = 0;
	unsigned int v;

	for (v = 0; v < priv->cfg.num_qp; v++)
		causes |= I82574_INT_RXQ(v) | I82574_INT_TXQ(v);
	return causes;
}

static void i82574_init_irq(struct i82574_dev *priv)
{
	u32 ivar = i82574_ivar(I82574_IVAR_OTHER, I82574_VEC_OTHER);
	unsigned int v;

	if (!priv->msix) {
		wr32(priv, I82574_IVAR, 0);
		wr32(priv, I82574_EIAC, 0);
		i82574_set_vector_itr(priv->nv[0]);
		return;
	}
	for (v = 0; v < priv->cfg.num_qp; v++) {
		ivar |= i82574_ivar(I82574_IVAR_RXQ0 + v, v + 1);
		ivar |= i82574_ivar(I82574_IVAR_TXQ0 + v, v + 1);
		i82574_set_vector_itr(priv->nv[v]);
	}
	wr32(priv, I82574_IVAR, ivar);
	wr32(priv, I82574_EITR(I82574_VEC_OTHER), 0);
	/* queue causes auto-clear (and auto-mask) when their message is sent */
	wr32(priv, I82574_EIAC, i82574_queue_causes(priv));
}

static void i82574_irq_enable_all(struct i82574_dev *priv)
{
	if (priv->msix)
		wr32(priv, I82574_IMS, I82574_INT_OTHER | I82574_INT_LSC |
		     i82574_queue_causes(priv));
	else
		wr32(priv, I82574_IMS, I82574_INT_LSC | I82574_INT_RXT0 |
		     I82574_INT_TXDW);
}

void i82574_update_link(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	u32 status = rd32(priv, I82574_STATUS);
	bool link = status & I82574_STATUS_LU;

	if (link == netif_carrier_ok(netdev))
		return;
	if (link) {
		netdev_info(netdev, "link up, %u Mbps, %s duplex\n",
			    i82574_link_speed(status),
			    status & I82574_STATUS_FD ? "full" : "half");
		netif_carrier_on(netdev);
	} else {
		netdev_info(netdev, "link down\n");
		netif_carrier_off(netdev);
	}
}

void i82574_up(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	unsigned int v;

	i82574_init_mac(priv);
	i82574_init_tx(priv);
	i82574_init_rx(priv);
	i82574_init_irq(priv);
	for (v = 0; v < priv->cfg.num_qp; v++) {
		struct i82574_napi_vector *nv = priv->nv[v];

		i82574_fill_rx(&nv->rx);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_RX, &nv->napi);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_TX, &nv->napi);
		napi_enable(&nv->napi);
	}

	/* rx mode and RCTL.EN last: the model latches RX settings here */
	netif_addr_lock_bh(netdev);
	priv->up = true;
	i82574_set_rx_mode(netdev);
	netif_addr_unlock_bh(netdev);

	i82574_irq_enable_all(priv);
	/* pick up anything that arrived while interrupts were masked */
	local_bh_disable();
	for (v = 0; v < priv->cfg.num_qp; v++)
		napi_schedule(&priv->nv[v]->napi);
	local_bh_enable();

	i82574_update_link(priv);
	netif_tx_start_all_queues(netdev);
}

void i82574_down(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	unsigned int v;

	/* NAPI first: a completion polled after netif_tx_disable() would wake
	 * the queue again, and the stack would post into rings about to be
	 * cleaned or freed (their mappings and skbs then leak)
	 */
	for (v = 0; v < priv->cfg.num_qp; v++)
		napi_disable(&priv->nv[v]->napi);
	netif_tx_disable(netdev);

	netif_addr_lock_bh(netdev);
	priv->up = false;
	netif_addr_unlock_bh(netdev);
	i82574_hw_quiesce(priv);
	for (v = 0; v < (priv->msix ? I82574_NUM_MSIX : 1); v++)
		synchronize_irq(pci_irq_vector(priv->pdev, v));

	for (v = 0; v < priv->cfg.num_qp; v++) {
		struct i82574_napi_vector *nv = priv->nv[v];

		cancel_work_sync(&nv->rx_dim.work);
		cancel_work_sync(&nv->tx_dim.work);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_RX, NULL);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_TX, NULL);
		i82574_clean_rings(nv);
	}
}

/* Publish @nv as the live vector set; @nv receives the old set, whose
 * counters are folded into the base under the lock ndo_get_stats64 takes.
 */
static void i82574_swap_vectors(struct i82574_dev *priv,
				struct i82574_napi_vector **nv)
{
	struct i82574_napi_vector *old;
	unsigned int v;

	spin_lock_bh(&priv->stats_lock);
	for (v = 0; v < I82574_MAX_QP; v++) {
		old = priv->nv[v];
		if (old) {
			i82574_fold_ring_stats(&priv->tx_base, &old->tx);
			i82574_fold_ring_stats(&priv->rx_base, &old->rx);
		}
		WRITE_ONCE(priv->nv[v], nv[v]);
		nv[v] = old;
	}
	spin_unlock_bh(&priv->stats_lock);
}

static void i82574_default_reta(struct i82574_dev *priv)
{
	unsigned int i;

	if (netif_is_rxfh_configured(priv->netdev))
		return;
	for (i = 0; i < I82574_RETA_ENTRIES; i++)
		priv->reta[i] = ethtool_rxfh_indir_default(i, priv->cfg.num_qp);
}

int i82574_open_vectors(struct i82574_dev *priv)
{
	struct i82574_napi_vector *nv[I82574_MAX_QP] = {};
	const struct i82574_cfg *cfg = &priv->cfg;
	int err;

	err = netif_set_real_num_queues(priv->netdev, cfg->num_qp,
					cfg->num_qp);
	if (err)
		return err;
	err = i82574_alloc_vectors(priv, nv, cfg->num_qp, cfg->tx_size,
				   cfg->rx_size);
	if (err)
		return err;
	i82574_swap_vectors(priv, nv);
	return 0;
}

void i82574_close_vectors(struct i82574_dev *priv)
{
	struct i82574_napi_vector *nv[I82574_MAX_QP] = {};

	i82574_swap_vectors(priv, nv);
	i82574_free_vectors(nv, priv->cfg.num_qp);
}

/* Apply new queue or ring counts; on failure the old rings keep running. */
int i82574_reconfig(struct i82574_dev *priv, const struct i82574_cfg *cfg)
{
	struct i82574_napi_vector *nv[I82574_MAX_QP] = {};
	struct i82574_cfg old = priv->cfg;
	int err;

	if (!netif_running(priv->netdev)) {
		priv->cfg = *cfg;
		i82574_default_reta(priv);
		return 0;
	}
	err = i82574_alloc_vectors(priv, nv, cfg->num_qp, cfg->tx_size,
				   cfg->rx_size);
	if (err)
		return err;

	/* the queue count changes only while no queue can transmit: a packet
	 * steered to a queue whose ring is not there yet would find no ring
	 */
	i82574_down(priv);
	err = netif_set_real_num_queues(priv->netdev, cfg->num_qp,
					cfg->num_qp);
	if (err) {
		i82574_up(priv);
		i82574_free_vectors(nv, cfg->num_qp);
		return err;
	}
	i82574_swap_vectors(priv, nv);
	priv->cfg = *cfg;
	i82574_default_reta(priv);
	i82574_up(priv);
	i82574_free_vectors(nv, old.num_qp);
	return 0;
}

#define I82574_STAT(reg, field) \
	{ reg, offsetof(struct i82574_hw_stats, field) }

static const struct {
	u16 reg;
	u16 off;
} i82574_stat_regs[] = {
	I82574_STAT(I82574_CRCERRS, crcerrs),
	I82574_STAT(I82574_ALGNERRC, algnerrc),
	I82574_STAT(I82574_MPC, mpc),
	I82574_STAT(I82574_SCC, scc),
	I82574_STAT(I82574_ECOL, ecol),
	I82574_STAT(I82574_MCC, mcc),
	I82574_STAT(I82574_LATECOL, latecol),
	I82574_STAT(I82574_DC, dc),
	I82574_STAT(I82574_RLEC, rlec),
	I82574_STAT(I82574_XONRXC, xonrxc),
	I82574_STAT(I82574_XONTXC, xontxc),
	I82574_STAT(I82574_XOFFRXC, xoffrxc),
	I82574_STAT(I82574_XOFFTXC, xofftxc),
	I82574_STAT(I82574_GPRC, gprc),
	I82574_STAT(I82574_BPRC, bprc),
	I82574_STAT(I82574_MPRC, mprc),
	I82574_STAT(I82574_GPTC, gptc),
	I82574_STAT(I82574_MPTC, mptc),
	I82574_STAT(I82574_BPTC, bptc),
	I82574_STAT(I82574_RNBC, rnbc),
	I82574_STAT(I82574_RUC, ruc),
	I82574_STAT(I82574_RFC, rfc),
	I82574_STAT(I82574_ROC, roc),
	I82574_STAT(I82574_RJC, rjc),
};

static u64 i82574_rd64_clr(struct i82574_dev *priv, u32 reg)
{
	u32 lo = rd32(priv, reg);

	/* reading the high half clears both halves */
	return lo | (u64)rd32(priv, reg + 4) << 32;
}

void i82574_update_hw_stats(struct i82574_dev *priv)
{
	struct i82574_hw_stats *hs = &priv->hw_stats;
	unsigned int i;

	mutex_lock(&priv->hw_stats_lock);
	for (i = 0; i < ARRAY_SIZE(i82574_stat_regs); i++)
		*(u64 *)((u8 *)hs + i82574_stat_regs[i].off) +=
			rd32(priv, i82574_stat_regs[i].reg);
	for (i = 0; i < ARRAY_SIZE(hs->prc); i++) {
		hs->prc[i] += rd32(priv, I82574_PRC64 + 4 * i);
		hs->ptc[i] += rd32(priv, I82574_PTC64 + 4 * i);
	}
	hs->gorc += i82574_rd64_clr(priv, I82574_GORCL);
	hs->gotc += i82574_rd64_clr(priv, I82574_GOTCL);
	mutex_unlock(&priv->hw_stats_lock);
}

static void i82574_reset(struct i82574_dev *priv)
{
	rtnl_lock();
	if (netif_running(priv->netdev)) {
		netdev_warn(priv->netdev, "resetting after TX timeout\n");
		i82574_down(priv);
		i82574_up(priv);
		priv->resets++;
	}
	rtnl_unlock();
}

static void i82574_service_task(struct work_struct *work)
{
	struct i82574_dev *priv = container_of(to_delayed_work(work),
					       struct i82574_dev, service_task);

	if (test_and_clear_bit(I82574_STATE_RESET_REQ, &priv->state))
		i82574_reset(priv);
	if (netif_running(priv->netdev))
		i82574_update_link(priv);
	i82574_update_hw_stats(priv);
	schedule_delayed_work(&priv->service_task, I82574_SERVICE_PERIOD);
}

static irqreturn_t i82574_msix_queue(int irq, void *data)
{
	struct i82574_napi_vector *nv = READ_ONCE(*(struct i82574_napi_vector **)data);

	if (nv) {
		nv->events++;
		napi_schedule_irqoff(&nv->napi);
	}
	return IRQ_HANDLED;
}

static irqreturn_t i82574_msix_other(int irq, void *data)
{
	struct i82574_dev *priv = data;
	u32 icr = rd32(priv, I82574_ICR);

	/* ICR is not cleared by reading it in MSI-X mode */
	wr32(priv, I82574_ICR, icr & (I82574_INT_OTHER | I82574_INT_LSC |
				      I82574_INT_RXO));
	if (icr & I82574_INT_LSC)
		mod_delayed_work(system_wq, &priv->service_task, 0);
	return IRQ_HANDLED;
}

static irqreturn_t i82574_intr(int irq, void *data)
{
	struct i82574_dev *priv = data;
	struct i82574_napi_vector *nv;
	u32 icr = rd32(priv, I82574_ICR);

	if (!icr)
		return IRQ_NONE;
	if (icr & I82574_INT_LSC)
		mod_delayed_work(system_wq, &priv->service_task, 0);
	nv = READ_ONCE(priv->nv[0]);
	if (nv && (icr & (I82574_INT_RXT0 | I82574_INT_TXDW))) {
		wr32(priv, I82574_IMC, I82574_INT_RXT0 | I82574_INT_TXDW);
		nv->events++;
		napi_schedule_irqoff(&nv->napi);
	}
	return IRQ_HANDLED;
}

static int i82574_request_msix(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	unsigned int v;
	int err;

	snprintf(priv->irq_name[0], sizeof(priv->irq_name[0]), "%s-%s-other",
		 I82574_DRV_NAME, pci_name(pdev));
	err = request_irq(pci_irq_vector(pdev, I82574_VEC_OTHER),
			  i82574_msix_other, 0, priv->irq_name[0], priv);
	if (err)
		return err;
	for (v = 0; v < I82574_MAX_QP; v++) {
		snprintf(priv->irq_name[v + 1], sizeof(priv->irq_name[0]),
			 "%s-%s-q%u", I82574_DRV_NAME, pci_name(pdev), v);
		err = request_irq(pci_irq_vector(pdev, v + 1),
				  i82574_msix_queue, 0, priv->irq_name[v + 1],
				  &priv->nv[v]);
		if (err)
			goto free_irqs;
	}
	return 0;

free_irqs:
	while (v--)
		free_irq(pci_irq_vector(pdev, v + 1), &priv->nv[v]);
	free_irq(pci_irq_vector(pdev, I82574_VEC_OTHER), priv);
	return err;
}

static int i82574_request_irqs(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	int err;

	if (pci_alloc_irq_vectors(pdev, I82574_NUM_MSIX, I82574_NUM_MSIX,
				  PCI_IRQ_MSIX) > 0) {
		priv->msix = true;
		err = i82574_request_msix(priv);
		if (!err)
			return 0;
		pci_free_irq_vectors(pdev);
		priv->msix = false;
	}

	/* one queue pair on a single MSI or INTx interrupt */
	err = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (err < 0)
		return err;
	snprintf(priv->irq_name[0], sizeof(priv->irq_name[0]), "%s-%s",
		 I82574_DRV_NAME, pci_name(pdev));
	err = request_irq(pci_irq_vector(pdev, 0), i82574_intr, IRQF_SHARED,
			  priv->irq_name[0], priv);
	if (err)
		pci_free_irq_vectors(pdev);
	return err;
}

static void i82574_free_irqs(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	unsigned int v;

	free_irq(pci_irq_vector(pdev, 0), priv);
	for (v = 0; priv->msix && v < I82574_MAX_QP; v++)
		free_irq(pci_irq_vector(pdev, v + 1), &priv->nv[v]);
	pci_free_irq_vectors(pdev);
}

static void i82574_read_mac(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	u8 addr[ETH_ALEN];
	unsigned int i;
	u16 word;

	for (i = 0; i < ETH_ALEN / 2; i++) {
		if (i82574_eerd_read(priv, i, &word))
			break;
		addr[2 * i] = word & 0xff;
		addr[2 * i + 1] = word >> 8;
	}
	if (i == ETH_ALEN / 2 && is_valid_ether_addr(addr)) {
		eth_hw_addr_set(netdev, addr);
		return;
	}
	eth_hw_addr_random(netdev);
	dev_warn(&priv->pdev->dev, "invalid EEPROM MAC address, using %pM\n",
		 netdev->dev_addr);
}

static void i82574_init_priv(struct i82574_dev *priv)
{
	priv->cfg.num_qp = priv->msix ? I82574_MAX_QP : 1;
	priv->cfg.tx_size = I82574_RING_DEFAULT;
	priv->cfg.rx_size = I82574_RING_DEFAULT;
	priv->rx_usecs = I82574_ITR_DEFAULT_US;
	priv->tx_usecs = I82574_ITR_DEFAULT_US;
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	i82574_default_reta(priv);
	spin_lock_init(&priv->stats_lock);
	mutex_init(&priv->hw_stats_lock);
	INIT_DELAYED_WORK(&priv->service_task, i82574_service_task);
}

static int i82574_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct net_device *netdev;
	struct i82574_dev *priv;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto disable_device;
	err = pci_request_mem_regions(pdev, I82574_DRV_NAME);
	if (err)
		goto disable_device;
	pci_set_master(pdev);

	err = -ENOMEM;
	netdev = alloc_etherdev_mqs(sizeof(*priv), I82574_MAX_QP,
				    I82574_MAX_QP);
	if (!netdev)
		goto release_regions;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	priv = netdev_priv(netdev);
	priv->netdev = netdev;
	priv->pdev = pdev;
	pci_set_drvdata(pdev, priv);
	priv->hw = pci_ioremap_bar(pdev, 0);
	if (!priv->hw)
		goto free_netdev;

	i82574_hw_reset(priv);
	i82574_netdev_setup(netdev);
	i82574_read_mac(priv);
	err = i82574_request_irqs(priv);
	if (err)
		goto iounmap;
	i82574_init_priv(priv);
	netif_set_real_num_queues(netdev, priv->cfg.num_qp, priv->cfg.num_qp);
	netif_carrier_off(netdev);

	err = register_netdev(netdev);
	if (err)
		goto free_irqs;
	schedule_delayed_work(&priv->service_task, I82574_SERVICE_PERIOD);
	i82574_debugfs_add(priv);
	netdev_info(netdev, "%pM, %s, %u queue pairs\n", netdev->dev_addr,
		    priv->msix ? "MSI-X" : "single interrupt",
		    priv->cfg.num_qp);
	return 0;

free_irqs:
	i82574_free_irqs(priv);
iounmap:
	iounmap(priv->hw);
free_netdev:
	free_netdev(netdev);
release_regions:
	pci_release_mem_regions(pdev);
disable_device:
	pci_disable_device(pdev);
	return err;
}

static void i82574_remove(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);

	i82574_debugfs_del(priv);
	unregister_netdev(priv->netdev);
	cancel_delayed_work_sync(&priv->service_task);
	i82574_hw_quiesce(priv);
	i82574_free_irqs(priv);
	iounmap(priv->hw);
	mutex_destroy(&priv->hw_stats_lock);
	free_netdev(priv->netdev);
	pci_release_mem_regions(pdev);
	pci_disable_device(pdev);
}

static void i82574_shutdown(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);

	rtnl_lock();
	netif_device_detach(priv->netdev);
	if (netif_running(priv->netdev))
		i82574_down(priv);
	rtnl_unlock();
	i82574_hw_quiesce(priv);
	pci_clear_master(pdev);
}

static struct pci_driver i82574_driver = {
	.name		= I82574_DRV_NAME,
	.id_table	= i82574_pci_tbl,
	.probe		= i82574_probe,
	.remove		= i82574_remove,
	.shutdown	= i82574_shutdown,
};

static int __init i82574_init_module(void)
{
	int err;

	i82574_debugfs_init();
	err = pci_register_driver(&i82574_driver);
	if (err)
		i82574_debugfs_exit();
	return err;
}
module_init(i82574_init_module);

static void __exit i82574_exit_module(void)
{
	pci_unregister_driver(&i82574_driver);
	i82574_debugfs_exit();
}
module_exit(i82574_exit_module);

MODULE_DESCRIPTION("Intel 82574L multi-queue Ethernet driver");
MODULE_LICENSE("GPL");
