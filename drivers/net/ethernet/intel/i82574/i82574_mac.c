// SPDX-License-Identifier: GPL-2.0
/*
 * MAC programming of the 82574L: MAC reset, the driver-loaded handshake,
 * manageability pass-through, the receive address, filter, VLAN, checksum
 * and RSS registers, ring and interrupt registers (EITR included), link
 * status and the MAC counters.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/iopoll.h>
#include <linux/sizes.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "i82574.h"

/* e1000e polls for MDIO ownership ten times, 2-4 ms apart */
#define I82574_MASTER_DISABLE_US	80000
#define I82574_AUTO_RD_TIMEOUT_US	10000
/* TX interrupt delay (TIDV) in 1.024 us units; RDTR stays 0 */
#define I82574_TIDV_DELAY		1
/* what the TX FIFO keeps of a frame beside its data: one descriptor */
#define I82574_TX_FIFO_DESC_BYTES	16

/**
 * i82574_flush_descriptors - write back descriptors the device holds
 * @priv: device
 *
 * e1000e's FLAG2_DMA_BURST for the 82574: with the burst thresholds in
 * TXDCTL/RXDCTL, completed descriptors can wait in the device; the
 * flush-partial-descriptor bits of TIDV and RDTR write them back. e1000e
 * writes both twice, for "rare timing issues"; so does this.
 */
void i82574_flush_descriptors(struct i82574_dev *priv)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		wr32(priv, I82574_TIDV, I82574_TIDV_DELAY | I82574_TIDV_FPD);
		wr32(priv, I82574_RDTR, I82574_RDTR_FPD);
		wrfl(priv);
	}
}

/**
 * i82574_kick_queue_vectors - raise every queue vector's interrupt once
 * @priv: device, interface up
 *
 * e1000e's watchdog does this each period for the 82574: a queue interrupt
 * that never arrives leaves completed TX descriptors, and the skbs and BQL
 * bytes behind them, waiting for the next interrupt on that vector, which
 * an idle queue never gets (a pktgen run waits for its last skb forever).
 * A cause set while its vector is masked stays in ICR and fires when the
 * NAPI poll unmasks it.
 */
void i82574_kick_queue_vectors(struct i82574_dev *priv)
{
	u32 causes = 0;
	unsigned int v;

	if (!priv->msix) {
		wr32(priv, I82574_ICS, I82574_INT_RXT0);
		return;
	}
	for (v = 0; v < priv->cfg.num_qp; v++)
		causes |= I82574_INT_RXQ(v);
	wr32(priv, I82574_ICS, causes);
}

/**
 * i82574_hw_quiesce - stop DMA and mask every interrupt
 * @priv: device
 *
 * Sleeps. QEMU's model of CTRL.RST does little more than this.
 */
void i82574_hw_quiesce(struct i82574_dev *priv)
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

/* Let outstanding PCIe requests finish before the reset, so that none is
 * cut off mid-transaction (e1000e_disable_pcie_master()).
 */
static void i82574_disable_bus_master(struct i82574_dev *priv)
{
	u32 status;

	rmw32(priv, I82574_CTRL, 0, I82574_CTRL_GIO_MASTER_DISABLE);
	if (readl_poll_timeout(priv->hw + I82574_STATUS, status,
			       !(status & I82574_STATUS_GIO_MASTER_ENABLE),
			       100, I82574_MASTER_DISABLE_US))
		dev_warn(&priv->pdev->dev,
			 "PCIe requests still pending before reset\n");
}

/* After a reset the MAC reloads its configuration from the NVM (a flash
 * NVM only on CTRL_EXT.EE_RST), then the PHY loads its own: e1000e waits
 * for EECD.AUTO_RD and 25 ms more before touching either.
 */
static int i82574_wait_nvm_autoload(struct i82574_dev *priv)
{
	u32 eecd = rd32(priv, I82574_EECD);
	int err;

	if ((eecd & I82574_EECD_FLASH) == I82574_EECD_FLASH) {
		rmw32(priv, I82574_CTRL_EXT, 0, I82574_CTRL_EXT_EE_RST);
		wrfl(priv);
	}
	err = readl_poll_timeout(priv->hw + I82574_EECD, eecd,
				 eecd & I82574_EECD_AUTO_RD, 1000,
				 I82574_AUTO_RD_TIMEOUT_US);
	if (err) {
		dev_err(&priv->pdev->dev, "NVM auto-read did not complete\n");
		return err;
	}
	msleep(25);
	return 0;
}

/**
 * i82574_pba_rx_kb - the packet buffer's RX part for an MTU
 * @mtu: the MTU
 *
 * 32 KB, as e1000e gives this part. With jumbo frames TX gets room for two
 * whole frames (each with a descriptor's worth of state, without the FCS
 * the MAC appends) taken from RX, as long as RX keeps room for one frame:
 * the rebalancing of e1000e_reset().
 *
 * Return: PBA.RXA, in KB.
 */
unsigned int i82574_pba_rx_kb(unsigned int mtu)
{
	unsigned int frame = mtu + VLAN_ETH_HLEN + ETH_FCS_LEN;
	unsigned int tx_kb, rx_kb;

	tx_kb = DIV_ROUND_UP(2 * (frame + I82574_TX_FIFO_DESC_BYTES - ETH_FCS_LEN),
			     SZ_1K);
	rx_kb = DIV_ROUND_UP(frame, SZ_1K);
	if (mtu <= ETH_DATA_LEN || tx_kb <= I82574_PB_KB - I82574_PBA_RX_KB)
		return I82574_PBA_RX_KB;
	if (tx_kb + rx_kb > I82574_PB_KB)
		return rx_kb;
	return I82574_PB_KB - tx_kb;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_pba_rx_kb);

/**
 * i82574_pba_stale - does the packet buffer split lag behind the MTU?
 * @priv: device
 *
 * Return: true if PBA.RXA is not what i82574_pba_rx_kb() gives for the
 * MTU; only a MAC reset applies a new one (i82574_hw_reset()).
 */
bool i82574_pba_stale(struct i82574_dev *priv)
{
	return FIELD_GET(I82574_PBA_RXA, rd32(priv, I82574_PBA)) !=
	       i82574_pba_rx_kb(READ_ONCE(priv->netdev->mtu));
}

/* A MAC reset hands MDIO ownership to the firmware: hold the semaphore
 * across it, as e1000e does, and keep the driver's own PHY users out until
 * the PHY has loaded its configuration. The reset goes ahead even if the
 * firmware keeps the semaphore.
 */
static int i82574_mac_reset(struct i82574_dev *priv)
{
	bool owned;
	int err;

	mutex_lock(&priv->hw_sem_lock);
	owned = !i82574_wait_mdio_ownership(priv);
	rmw32(priv, I82574_CTRL, 0, I82574_CTRL_RST);
	usleep_range(10, 20);
	if (owned)
		i82574_drop_mdio_ownership(priv);
	err = i82574_wait_nvm_autoload(priv);
	mutex_unlock(&priv->hw_sem_lock);
	return err;
}

/* The 82574 settings of e1000e's e1000_initialize_hw_bits_82571() and
 * e1000_init_hw_82571(); the datasheet gives most of these bits no name.
 * GCR2 bit 0 is e1000e's erratum workaround for unreliable PCIe
 * completions, "particularly with ASPM enabled", that cause TX timeouts.
 */
static void i82574_init_hw_bits(struct i82574_dev *priv)
{
	rmw32(priv, I82574_TARC(0), GENMASK(30, 27), BIT(26));
	rmw32(priv, I82574_CTRL, BIT(29), 0);
	rmw32(priv, I82574_CTRL_EXT, BIT(23), BIT(22));
	rmw32(priv, I82574_GCR, 0, BIT(22) | I82574_GCR_L1_ACT_WITHOUT_L0S_RX);
	rmw32(priv, I82574_GCR2, 0, BIT(0));
}

/**
 * i82574_hw_reset - reset the MAC into a known state
 * @priv: device
 *
 * Quiesces DMA, splits the packet buffer for the MTU (PBA), resets the MAC
 * with CTRL.RST and waits for the NVM and PHY configuration to load, masks
 * interrupts, applies the 82574 setup bits and
 * sets CTRL_EXT.DRV_LOAD, as e1000e_reset() does for this AMT part. The PHY
 * is left as it was. Sleeps.
 *
 * Return: 0, or -ETIMEDOUT if the NVM auto-read did not complete.
 */
int i82574_hw_reset(struct i82574_dev *priv)
{
	unsigned int rx_kb;
	int err;

	i82574_hw_quiesce(priv);
	i82574_disable_bus_master(priv);
	/* the packet buffer is split anew only at the reset */
	rx_kb = i82574_pba_rx_kb(READ_ONCE(priv->netdev->mtu));
	wr32(priv, I82574_PBA, FIELD_PREP(I82574_PBA_RXA, rx_kb));
	err = i82574_mac_reset(priv);
	/* the reset clears it on silicon; QEMU's model keeps CTRL as written */
	rmw32(priv, I82574_CTRL, I82574_CTRL_GIO_MASTER_DISABLE, 0);
	if (err)
		return err;
	/* the reset loads WUC.APME from the NVM: no wake-up unless armed */
	wr32(priv, I82574_WUC, 0);
	wr32(priv, I82574_IMC, ~0u);
	rd32(priv, I82574_ICR);
	i82574_init_hw_bits(priv);
	i82574_set_drv_load(priv, true);
	return 0;
}

/**
 * i82574_set_drv_load - tell the manageability firmware who drives the port
 * @priv: device
 * @loaded: true while the driver controls the device
 *
 * CTRL_EXT.DRV_LOAD. For an AMT part like this one e1000e sets it while the
 * interface is open and in every reset (probe included), and clears it at
 * close, remove, suspend and shutdown.
 */
void i82574_set_drv_load(struct i82574_dev *priv, bool loaded)
{
	rmw32(priv, I82574_CTRL_EXT, I82574_CTRL_EXT_DRV_LOAD,
	      loaded ? I82574_CTRL_EXT_DRV_LOAD : 0);
}

/* e1000e_enable_mng_pass_thru() for this part: the NVM selects
 * pass-through mode, and the firmware runs (its clock is not gated) and
 * takes TCO frames
 */
static bool i82574_mng_pass_through(struct i82574_dev *priv)
{
	return priv->mng_pt &&
	       (rd32(priv, I82574_MANC) & I82574_MANC_RCV_TCO_EN) &&
	       !(rd32(priv, I82574_FACTPS) & I82574_FACTPS_MNGCG);
}

/* The decision filter that passes the IPMI ports (RMCP, 623 and 664) and
 * nothing else: one the firmware set up, else a free one, written here.
 * Return: its index, or -ENOSPC.
 */
static int i82574_mng_ipmi_filter(struct i82574_dev *priv)
{
	const u32 ipmi = I82574_MDEF_PORT_623 | I82574_MDEF_PORT_664;
	int i, free = -ENOSPC;
	u32 mdef;

	for (i = 0; i < I82574_MDEF_NUM; i++) {
		mdef = rd32(priv, I82574_MDEF(i));
		if (mdef == ipmi)
			return i;
		if (!mdef && free < 0)
			free = i;
	}
	if (free >= 0)
		wr32(priv, I82574_MDEF(free), ipmi);
	return free;
}

/**
 * i82574_mng_configure - pass the BMC's IPMI traffic to the host too
 * @priv: device
 *
 * In pass-through mode the firmware (a BMC over SMBus) takes the frames
 * its filters match; as e1000e_configure() does through
 * e1000_init_manageability_pt(), the IPMI ports' filter is also enabled
 * towards the host (MANC2H, MANC.EN_MNG2HOST), so that the host's stack
 * sees what the BMC is sent. e1000e sets MANC2H bit 1 for a filter it
 * creates, whichever it is; this sets the filter's own bit.
 */
void i82574_mng_configure(struct i82574_dev *priv)
{
	int f;

	if (!i82574_mng_pass_through(priv))
		return;
	f = i82574_mng_ipmi_filter(priv);
	if (f < 0) {
		netdev_warn(priv->netdev,
			    "no free manageability filter for IPMI pass-through\n");
		return;
	}
	rmw32(priv, I82574_MANC2H, 0, BIT(f));
	rmw32(priv, I82574_MANC, 0, I82574_MANC_EN_MNG2HOST);
}

u32 i82574_rar_low(const u8 *addr)
{
	return get_unaligned_le32(addr);
}
EXPORT_SYMBOL_IF_KUNIT(i82574_rar_low);

u32 i82574_rar_high(const u8 *addr)
{
	return get_unaligned_le16(addr + 4) | I82574_RAH_AV;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_rar_high);

/* Four one-byte RETA entries per register; the queue is bit 7. */
u32 i82574_reta_dword(const u32 *reta, unsigned int i, u32 num_qp)
{
	u32 val = 0;
	unsigned int b;

	for (b = 0; b < 4; b++) {
		u32 q = reta[4 * i + b] < num_qp ? reta[4 * i + b] : 0;

		val |= (q ? I82574_RETA_QUEUE : 0) << (8 * b);
	}
	return val;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_reta_dword);

/**
 * i82574_write_vme - set CTRL.VME, which tag stripping and insertion need
 * @priv: device
 * @features: the netdev's features (NETIF_F_HW_VLAN_CTAG_RX turns it on)
 */
void i82574_write_vme(struct i82574_dev *priv, netdev_features_t features)
{
	bool on = features & NETIF_F_HW_VLAN_CTAG_RX;

	/* link_lock serializes CTRL's read-modify-writes */
	mutex_lock(&priv->link_lock);
	rmw32(priv, I82574_CTRL, I82574_CTRL_VME, on ? I82574_CTRL_VME : 0);
	mutex_unlock(&priv->link_lock);
}

/**
 * i82574_rxcsum - the RXCSUM value for a feature set
 * @features: the netdev's features
 */
u32 i82574_rxcsum(netdev_features_t features)
{
	u32 val = I82574_RXCSUM_PCSD;

	if (features & NETIF_F_RXCSUM)
		val |= I82574_RXCSUM_IPOFL | I82574_RXCSUM_TUOFL;
	return val;
}

/**
 * i82574_vlan_rctl - RCTL's VLAN filter bit for the current features and flags
 * @priv: device
 */
u32 i82574_vlan_rctl(struct i82574_dev *priv)
{
	if (priv->vlan_filter && !(priv->netdev->flags & IFF_PROMISC))
		return I82574_RCTL_VFE;
	return 0;
}

/**
 * i82574_vlan_configure - program VET, the VFTA and CTRL.VME after a reset
 * @priv: device, under RTNL (RCTL.VFE comes with the RX mode)
 *
 * VET is the TPID the MAC matches to strip and filter a tag and writes
 * when it inserts one. The datasheet gives 0x8100 as its reset value, but
 * e1000e writes it after every reset all the same, and a VET left at 0
 * (QEMU 10.0's model) sends inserted tags with TPID 0, which no receiver
 * with its stripping off takes for a VLAN.
 */
void i82574_vlan_configure(struct i82574_dev *priv)
{
	unsigned int i;

	wr32(priv, I82574_VET, ETH_P_8021Q);
	for (i = 0; i < I82574_VFTA_NUM; i++)
		wr32(priv, I82574_VFTA(i), priv->vfta[i]);
	i82574_write_vme(priv, priv->netdev->features);
}

/**
 * i82574_write_rar - program a receive address register pair
 * @priv: device
 * @idx: RAR index, 0 for the device's own address
 * @addr: the address, marked valid
 */
void i82574_write_rar(struct i82574_dev *priv, int idx, const u8 *addr)
{
	wr32(priv, I82574_RAL(idx), i82574_rar_low(addr));
	wr32(priv, I82574_RAH(idx), i82574_rar_high(addr));
}

/**
 * i82574_write_rss - program the RSS key, the redirection table and MRQC
 * @priv: device
 */
void i82574_write_rss(struct i82574_dev *priv)
{
	unsigned int i;

	for (i = 0; i < I82574_RSS_KEY_SIZE / 4; i++)
		wr32(priv, I82574_RSSRK(i),
		     get_unaligned_le32(priv->rss_key + 4 * i));
	for (i = 0; i < I82574_RETA_ENTRIES / 4; i++)
		wr32(priv, I82574_RETA(i),
		     i82574_reta_dword(priv->reta, i, priv->cfg.num_qp));
	/* RSS also needs RXCSUM.PCSD and RFCTL.EXTEN, set in init_rx; the
	 * hash fields are e1000e_setup_rss_hash()'s (no IPv6Ex, bit 19)
	 */
	wr32(priv, I82574_MRQC, I82574_MRQC_RSS_EN | I82574_MRQC_TCP_IPV4 |
	     I82574_MRQC_IPV4 | I82574_MRQC_TCP_IPV6_EX | I82574_MRQC_IPV6 |
	     I82574_MRQC_TCP_IPV6);
}

/**
 * i82574_write_rctl - program RCTL from the MTU, the RX mode and priv->up
 * @priv: device
 */
void i82574_write_rctl(struct i82574_dev *priv)
{
	/* 2 KiB buffers (BSIZE 0), CRC stripped, broadcast accepted */
	u32 rctl = I82574_RCTL_BAM | I82574_RCTL_SECRC | priv->rx_mode |
		   i82574_vlan_rctl(priv);

	if (priv->netdev->mtu > ETH_DATA_LEN)
		rctl |= I82574_RCTL_LPE;
	if (priv->up)
		rctl |= I82574_RCTL_EN;
	wr32(priv, I82574_RCTL, rctl);
}

/* CTRL for priv->link: with autonegotiation the MAC takes speed and
 * duplex from the PHY; a forced link forces them in the MAC as well
 * (FRCSPD/FRCDPX with SPEED and FD), speed detection off. SLU always.
 */
static void __i82574_mac_config_link(struct i82574_dev *priv)
{
	const struct i82574_link_cfg *link = &priv->link;
	u32 set = I82574_CTRL_SLU;

	lockdep_assert_held(&priv->link_lock);
	if (link->autoneg) {
		set |= I82574_CTRL_ASDE;
	} else {
		set |= I82574_CTRL_FRCSPD | I82574_CTRL_FRCDPX |
		       FIELD_PREP(I82574_CTRL_SPEED, link->speed == SPEED_100 ?
				  I82574_STATUS_SPEED_100 :
				  I82574_STATUS_SPEED_10);
		if (link->duplex == DUPLEX_FULL)
			set |= I82574_CTRL_FD;
	}
	rmw32(priv, I82574_CTRL, I82574_CTRL_RST | I82574_CTRL_FRCSPD |
	      I82574_CTRL_FRCDPX | I82574_CTRL_ASDE | I82574_CTRL_SPEED |
	      I82574_CTRL_FD, set);
}

/**
 * i82574_mac_config_link - program CTRL's speed and duplex for priv->link
 * @priv: device
 *
 * Takes link_lock.
 */
void i82574_mac_config_link(struct i82574_dev *priv)
{
	mutex_lock(&priv->link_lock);
	__i82574_mac_config_link(priv);
	mutex_unlock(&priv->link_lock);
}

static void i82574_init_mac(struct i82574_dev *priv)
{
	i82574_mac_config_link(priv);
	rmw32(priv, I82574_CTRL_EXT,
	      I82574_CTRL_EXT_EIAME | I82574_CTRL_EXT_PBA_CLR,
	      priv->msix ? I82574_CTRL_EXT_EIAME | I82574_CTRL_EXT_PBA_CLR : 0);
	i82574_write_rar(priv, 0, priv->netdev->dev_addr);
	i82574_vlan_configure(priv);
}

/* FLAG2_DMA_BURST thresholds of e1000e for TX: prefetch when 31 or fewer
 * descriptors are cached and at least 1 is available; WTHRESH stays 1 (with
 * GRAN, one descriptor) so every RS descriptor is written back at once,
 * which the per-queue completion in NAPI relies on.
 */
#define I82574_TXDCTL_VAL	(I82574_TXDCTL_GRAN | I82574_TXDCTL_COUNT_DESC | \
				 FIELD_PREP(I82574_TXDCTL_WTHRESH, 1) | \
				 FIELD_PREP(I82574_TXDCTL_HTHRESH, 1) | \
				 FIELD_PREP(I82574_TXDCTL_PTHRESH, 0x1f))
/* ... and for RX; its WTHRESH of 4 acts only with a non-zero RDTR, which
 * this driver leaves at 0 (e1000e's comment and default agree).
 */
#define I82574_RXDCTL_VAL	(I82574_RXDCTL_GRAN | \
				 FIELD_PREP(I82574_RXDCTL_WTHRESH, 4) | \
				 FIELD_PREP(I82574_RXDCTL_HTHRESH, 4) | \
				 FIELD_PREP(I82574_RXDCTL_PTHRESH, 0x20))

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
		/* both queues alike, as e1000e's erratum note asks */
		wr32(priv, I82574_TXDCTL(q), I82574_TXDCTL_VAL);
		/* without TARC bit 10 the queue silently never transmits */
		rmw32(priv, I82574_TARC(q), 0, I82574_TARC_ENABLE);
	}
	wr32(priv, I82574_TIDV, I82574_TIDV_DELAY);
	wr32(priv, I82574_TADV, 0);
	wr32(priv, I82574_TIPG, FIELD_PREP(I82574_TIPG_IPGT, 8) |
	     FIELD_PREP(I82574_TIPG_IPGR1, 8) |
	     FIELD_PREP(I82574_TIPG_IPGR2, 6));
	wr32(priv, I82574_TCTL, I82574_TCTL_EN | I82574_TCTL_PSP |
	     FIELD_PREP(I82574_TCTL_CT, 0x0f) |
	     FIELD_PREP(I82574_TCTL_COLD, 0x3f) | I82574_TCTL_RTLC);
}

static void i82574_init_rx_ring(struct i82574_dev *priv, unsigned int q)
{
	struct i82574_ring *rx = priv->nv[q] ? &priv->nv[q]->rx : NULL;

	wr32(priv, I82574_RDBAL(q), rx ? lower_32_bits(rx->dma) : 0);
	wr32(priv, I82574_RDBAH(q), rx ? upper_32_bits(rx->dma) : 0);
	wr32(priv, I82574_RDLEN(q), rx ? rx->size_bytes : 0);
	wr32(priv, I82574_RDH(q), 0);
	wr32(priv, I82574_RDT(q), 0);
	wr32(priv, I82574_RXDCTL(q), I82574_RXDCTL_VAL);
	if (rx && rx->xdp)
		rx->hw_off = XDP_PACKET_HEADROOM;
	else if (rx)
		rx->hw_off = priv->netdev->mtu > ETH_DATA_LEN ?
			     0 : I82574_RX_HEADROOM;
}

static void i82574_init_rx(struct i82574_dev *priv)
{
	unsigned int q;

	/* extended descriptors (also needed by RSS), no ACK interrupts */
	wr32(priv, I82574_RFCTL, I82574_RFCTL_EXTEN | I82574_RFCTL_ACK_DIS |
	     I82574_RFCTL_IPV6_EX_DIS | I82574_RFCTL_NEW_IPV6_EXT_DIS);
	wr32(priv, I82574_RXCSUM, i82574_rxcsum(priv->netdev->features));
	wr32(priv, I82574_RDTR, 0);
	wr32(priv, I82574_RADV, 0);
	wr32(priv, I82574_RAID, 0);
	for (q = 0; q < I82574_MAX_QP; q++)
		i82574_init_rx_ring(priv, q);
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

/**
 * i82574_route_other_irq - route the link and other causes to their vector
 * @priv: device
 *
 * What the interrupt self-test needs on a MAC reset since it last ran;
 * i82574_configure_hw() routes every cause.
 */
void i82574_route_other_irq(struct i82574_dev *priv)
{
	if (priv->msix)
		wr32(priv, I82574_IVAR,
		     i82574_ivar(I82574_IVAR_OTHER, I82574_VEC_OTHER));
}

static void i82574_init_irq(struct i82574_dev *priv)
{
	u32 ivar = i82574_ivar(I82574_IVAR_OTHER, I82574_VEC_OTHER);
	unsigned int v;

	if (!priv->msix) {
		wr32(priv, I82574_IVAR, 0);
		wr32(priv, I82574_EIAC, 0);
		wr32(priv, I82574_IAM, 0);
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
	/* A queue cause clears itself in ICR (EIAC) and, CTRL_EXT.EIAME being
	 * set, its IMS bit (IAM) when its message is sent; i82574_poll()
	 * unmasks it again.
	 */
	wr32(priv, I82574_EIAC, i82574_queue_causes(priv));
	wr32(priv, I82574_IAM, i82574_queue_causes(priv));
}

/**
 * i82574_configure_hw - program the MAC for the current rings and vectors
 * @priv: device, with priv->nv[] holding the rings to use
 *
 * MAC control, manageability pass-through, flow control (and the CPU
 * latency it needs), TX and RX rings, RSS and interrupt routing, on a MAC
 * reset since it last received
 * (RCTL.EN): on this part the rings are never reprogrammed under a live
 * receive unit, whose descriptor caches may survive RCTL.EN cleared (e1000e
 * never clears it here, FLAG2_NO_DISABLE_RX). CTRL's pause bits wait for
 * the link (i82574_fc_update()). Receive stays off (RCTL.EN is written
 * last, by i82574_write_rctl()) and interrupts masked.
 */
void i82574_configure_hw(struct i82574_dev *priv)
{
	i82574_init_mac(priv);
	i82574_mng_configure(priv);
	i82574_fc_configure(priv);
	i82574_rx_latency_update(priv);
	i82574_init_tx(priv);
	i82574_init_rx(priv);
	i82574_init_irq(priv);
}

/**
 * i82574_irq_enable_all - unmask the link and the queue interrupt causes
 * @priv: device
 */
void i82574_irq_enable_all(struct i82574_dev *priv)
{
	if (priv->msix)
		wr32(priv, I82574_IMS, I82574_INT_OTHER | I82574_INT_LSC |
		     i82574_queue_causes(priv));
	else
		wr32(priv, I82574_IMS, I82574_INT_LSC | I82574_INT_RXT0 |
		     I82574_INT_TXDW);
}

/**
 * i82574_update_link - report STATUS.LU to the stack, set up pause at link up
 * @priv: device
 * @recheck: the link may have been renegotiated even if it reads up as
 *	before (an LSC came, or the MAC was just programmed)
 *
 * Sleeps.
 */
void i82574_update_link(struct i82574_dev *priv, bool recheck)
{
	struct net_device *netdev = priv->netdev;
	u32 status = rd32(priv, I82574_STATUS);
	bool link = status & I82574_STATUS_LU;

	if (link != netif_carrier_ok(netdev)) {
		recheck = true;
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
	if (link && recheck)
		i82574_fc_update(priv);
}

#define I82574_STAT(reg, field) \
	{ reg, offsetof(struct i82574_hw_stats, field) }

static const struct {
	u16 reg;
	u16 off;
} i82574_stat_regs[] = {
	I82574_STAT(I82574_CRCERRS, crcerrs),
	I82574_STAT(I82574_ALGNERRC, algnerrc),
	I82574_STAT(I82574_RXERRC, rxerrc),
	I82574_STAT(I82574_MPC, mpc),
	I82574_STAT(I82574_SCC, scc),
	I82574_STAT(I82574_ECOL, ecol),
	I82574_STAT(I82574_MCC, mcc),
	I82574_STAT(I82574_LATECOL, latecol),
	I82574_STAT(I82574_COLC, colc),
	I82574_STAT(I82574_DC, dc),
	I82574_STAT(I82574_CEXTERR, cexterr),
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
	I82574_STAT(I82574_TSCTC, tsctc),
};

static u64 i82574_rd64_clr(struct i82574_dev *priv, u32 reg)
{
	u32 lo = rd32(priv, reg);

	/* reading the high half clears both halves */
	return lo | (u64)rd32(priv, reg + 4) << 32;
}

/* The counts since the last read, into @d (zeroed) */
static void i82574_read_stat_regs(struct i82574_dev *priv,
				  struct i82574_hw_stats *d)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(i82574_stat_regs); i++)
		*(u64 *)((u8 *)d + i82574_stat_regs[i].off) =
			rd32(priv, i82574_stat_regs[i].reg);
	for (i = 0; i < ARRAY_SIZE(d->prc); i++) {
		d->prc[i] = rd32(priv, I82574_PRC64 + 4 * i);
		d->ptc[i] = rd32(priv, I82574_PTC64 + 4 * i);
	}
	d->gorc = i82574_rd64_clr(priv, I82574_GORCL);
	d->gotc = i82574_rd64_clr(priv, I82574_GOTCL);
}

/* i82574_update_hw_stats() with hw_stats_lock held */
static void __i82574_update_hw_stats(struct i82574_dev *priv)
{
	struct i82574_hw_stats d = {};
	u64 *sum = (u64 *)&priv->hw_stats, *add = (u64 *)&d;
	unsigned long flags;
	unsigned int i;

	lockdep_assert_held(&priv->hw_stats_lock);
	i82574_read_stat_regs(priv, &d);
	flags = u64_stats_update_begin_irqsave(&priv->hw_syncp);
	for (i = 0; i < sizeof(d) / sizeof(u64); i++)
		sum[i] += add[i];
	u64_stats_update_end_irqrestore(&priv->hw_syncp, flags);
}

/**
 * i82574_update_hw_stats - fold the clear-on-read MAC counters into hw_stats
 * @priv: device
 *
 * The one reader of these registers: the service work, the ethtool
 * standard statistics for fresh values, and i82574_hw_reset_keep_stats()
 * before a reset clears them. Takes hw_stats_lock, so it sleeps;
 * the sums change with interrupts off where ndo_get_stats64 (which may run
 * in softirq) needs the sequence count (32-bit).
 */
void i82574_update_hw_stats(struct i82574_dev *priv)
{
	mutex_lock(&priv->hw_stats_lock);
	__i82574_update_hw_stats(priv);
	mutex_unlock(&priv->hw_stats_lock);
}

/**
 * i82574_hw_reset_keep_stats - i82574_hw_reset(), the MAC counters kept
 * @priv: device
 *
 * The reset clears the counters: what they hold is folded into hw_stats
 * first, and no reader sees them in between. Sleeps.
 *
 * Return: as i82574_hw_reset().
 */
int i82574_hw_reset_keep_stats(struct i82574_dev *priv)
{
	int err;

	mutex_lock(&priv->hw_stats_lock);
	__i82574_update_hw_stats(priv);
	err = i82574_hw_reset(priv);
	mutex_unlock(&priv->hw_stats_lock);
	return err;
}

/**
 * i82574_read_hw_errors - add the MAC's error counters to rtnl stats
 * @priv: device
 * @stats: software counters already filled in
 *
 * From the counts i82574_update_hw_stats() accumulated: no MMIO, no sleep.
 * Length errors are RUC + ROC, as e1000e counts them (RLEC holds the same
 * frames). RNBC counts frames the MAC held in its FIFO for want of a
 * descriptor and may still deliver: FIFO events, not drops, and not part
 * of rx_errors; MPC counts the frames it dropped.
 */
void i82574_read_hw_errors(struct i82574_dev *priv,
			   struct rtnl_link_stats64 *stats)
{
	const struct i82574_hw_stats *hs = &priv->hw_stats;
	u64 crc, algn, len, other, mpc, rnbc, ecol, latecol, colc;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&priv->hw_syncp);
		crc = hs->crcerrs;
		algn = hs->algnerrc;
		len = hs->ruc + hs->roc;
		other = hs->rxerrc + hs->cexterr;
		mpc = hs->mpc;
		rnbc = hs->rnbc;
		ecol = hs->ecol;
		latecol = hs->latecol;
		colc = hs->colc;
	} while (u64_stats_fetch_retry(&priv->hw_syncp, start));
	stats->rx_crc_errors = crc;
	stats->rx_frame_errors += algn;
	stats->rx_length_errors = len;
	stats->rx_errors += crc + algn + len + other;
	stats->rx_missed_errors = mpc;
	stats->rx_fifo_errors = rnbc;
	stats->tx_aborted_errors = ecol;
	stats->tx_window_errors = latecol;
	stats->tx_errors += ecol + latecol;
	stats->collisions = colc;
}

void i82574_set_vector_itr(struct i82574_napi_vector *nv)
{
	struct i82574_dev *priv = nv->priv;
	u32 usecs = READ_ONCE(nv->rx_usecs);
	u32 tx_usecs = READ_ONCE(nv->tx_usecs);

	/* the vector serves both rings: the shorter interval wins */
	if (tx_usecs && (!usecs || tx_usecs < usecs))
		usecs = tx_usecs;
	if (priv->msix)
		wr32(priv, I82574_EITR(nv->v_idx + 1), i82574_usecs_to_itr(usecs));
	else
		wr32(priv, I82574_ITR, i82574_usecs_to_itr(usecs));
}
