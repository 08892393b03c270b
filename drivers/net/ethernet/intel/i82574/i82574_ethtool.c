// SPDX-License-Identifier: GPL-2.0

#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/mii.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

#include "i82574.h"

static void i82574_get_drvinfo(struct net_device *netdev,
			       struct ethtool_drvinfo *info)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	strscpy(info->driver, I82574_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(priv->pdev), sizeof(info->bus_info));
}

static const u32 i82574_dump_regs[] = {
	I82574_CTRL, I82574_STATUS, I82574_CTRL_EXT, I82574_ITR, I82574_IMS,
	I82574_EIAC, I82574_IVAR, I82574_EITR(0), I82574_EITR(1),
	I82574_EITR(2), I82574_RCTL, I82574_TCTL, I82574_TIPG, I82574_RXCSUM,
	I82574_RFCTL, I82574_MRQC,
	I82574_RDBAL(0), I82574_RDBAH(0), I82574_RDLEN(0), I82574_RDH(0),
	I82574_RDT(0), I82574_RDBAL(1), I82574_RDBAH(1), I82574_RDLEN(1),
	I82574_RDH(1), I82574_RDT(1),
	I82574_TDBAL(0), I82574_TDBAH(0), I82574_TDLEN(0), I82574_TDH(0),
	I82574_TDT(0), I82574_TXDCTL(0), I82574_TARC(0),
	I82574_TDBAL(1), I82574_TDBAH(1), I82574_TDLEN(1), I82574_TDH(1),
	I82574_TDT(1), I82574_TXDCTL(1), I82574_TARC(1),
};

/* Register arrays dumped after i82574_dump_regs[], in this order: RAL and
 * RAH of the device's own address, the RSS table and key, the multicast
 * table
 */
static const struct {
	u32 base;
	u32 words;
} i82574_dump_arrays[] = {
	{ I82574_RAL(0), 2 },
	{ I82574_RETA(0), I82574_RETA_ENTRIES / 4 },
	{ I82574_RSSRK(0), I82574_RSS_KEY_SIZE / 4 },
	{ I82574_MTA(0), I82574_MTA_NUM },
};

static int i82574_get_regs_len(struct net_device *netdev)
{
	unsigned int i, words = ARRAY_SIZE(i82574_dump_regs);

	for (i = 0; i < ARRAY_SIZE(i82574_dump_arrays); i++)
		words += i82574_dump_arrays[i].words;
	return words * sizeof(u32);
}

/* Version 2: version 1's registers, then i82574_dump_arrays[] */
static void i82574_get_regs(struct net_device *netdev,
			    struct ethtool_regs *regs, void *p)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	unsigned int i, w;
	u32 *buf = p;

	regs->version = 2;
	for (i = 0; i < ARRAY_SIZE(i82574_dump_regs); i++)
		*buf++ = rd32(priv, i82574_dump_regs[i]);
	for (i = 0; i < ARRAY_SIZE(i82574_dump_arrays); i++)
		for (w = 0; w < i82574_dump_arrays[i].words; w++)
			*buf++ = rd32(priv, i82574_dump_arrays[i].base + 4 * w);
}

/* The speeds this MAC and PHY offer: all but 1000BASE-T half duplex */
static const int i82574_speed_modes[] = {
	ETHTOOL_LINK_MODE_10baseT_Half_BIT,
	ETHTOOL_LINK_MODE_10baseT_Full_BIT,
	ETHTOOL_LINK_MODE_100baseT_Half_BIT,
	ETHTOOL_LINK_MODE_100baseT_Full_BIT,
	ETHTOOL_LINK_MODE_1000baseT_Full_BIT,
};

/* Supported modes that are no speed; ethtool -s ignores them in advertise */
static const int i82574_other_modes[] = {
	ETHTOOL_LINK_MODE_Autoneg_BIT,
	ETHTOOL_LINK_MODE_TP_BIT,
	ETHTOOL_LINK_MODE_Pause_BIT,
	ETHTOOL_LINK_MODE_Asym_Pause_BIT,
};

/**
 * i82574_link_defaults - autonegotiate every speed, pause both ways
 * @priv: device, before its PHY is first set up
 */
void i82574_link_defaults(struct i82574_dev *priv)
{
	struct i82574_link_cfg *link = &priv->link;

	linkmode_zero(link->advertising);
	linkmode_set_bit_array(i82574_speed_modes,
			       ARRAY_SIZE(i82574_speed_modes),
			       link->advertising);
	link->autoneg = true;
	link->speed = SPEED_UNKNOWN;
	link->duplex = DUPLEX_UNKNOWN;
	link->fc_autoneg = true;
	link->fc_rx = true;
	link->fc_tx = true;
}

/* The partner's abilities, once it acknowledged our page */
static void i82574_get_lp_modes(struct i82574_dev *priv, unsigned long *lp)
{
	u16 adv, lpa, stat1000;

	if (i82574_phy_read_aneg(priv, &adv, &lpa, &stat1000) ||
	    !(lpa & LPA_LPACK))
		return;
	mii_lpa_mod_linkmode_lpa_t(lp, lpa);
	mii_stat1000_mod_linkmode_lpa_t(lp, stat1000);
}

/* The request: speeds offered (also kept while forced), and pause as
 * IEEE 802.3 Annex 28B encodes rx and tx in PAUSE and ASM_DIR
 */
static void i82574_get_advertising(const struct i82574_link_cfg *link,
				   unsigned long *adv)
{
	linkmode_copy(adv, link->advertising);
	linkmode_set_bit(ETHTOOL_LINK_MODE_TP_BIT, adv);
	linkmode_mod_bit(ETHTOOL_LINK_MODE_Autoneg_BIT, adv, link->autoneg);
	linkmode_mod_bit(ETHTOOL_LINK_MODE_Pause_BIT, adv, link->fc_rx);
	linkmode_mod_bit(ETHTOOL_LINK_MODE_Asym_Pause_BIT, adv,
			 link->fc_rx != link->fc_tx);
}

static int i82574_get_link_ksettings(struct net_device *netdev,
				     struct ethtool_link_ksettings *ks)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	u32 status = rd32(priv, I82574_STATUS);
	bool link = status & I82574_STATUS_LU;

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, lp_advertising);
	linkmode_set_bit_array(i82574_speed_modes,
			       ARRAY_SIZE(i82574_speed_modes),
			       ks->link_modes.supported);
	linkmode_set_bit_array(i82574_other_modes,
			       ARRAY_SIZE(i82574_other_modes),
			       ks->link_modes.supported);
	i82574_get_advertising(&priv->link, ks->link_modes.advertising);
	if (link && priv->link.autoneg)
		i82574_get_lp_modes(priv, ks->link_modes.lp_advertising);
	ks->base.port = PORT_TP;
	ks->base.phy_address = I82574_PHY_ADDR;
	ks->base.autoneg = priv->link.autoneg ? AUTONEG_ENABLE :
						AUTONEG_DISABLE;
	ks->base.speed = link ? i82574_link_speed(status) : SPEED_UNKNOWN;
	ks->base.duplex = !link ? DUPLEX_UNKNOWN :
			  status & I82574_STATUS_FD ? DUPLEX_FULL : DUPLEX_HALF;
	return 0;
}

/* Autonegotiation offers a non-empty set of supported speeds; a forced
 * link is 10 or 100 Mb/s (802.3 forbids forcing 1000BASE-T), half or full
 */
static int i82574_check_ksettings(const struct ethtool_link_ksettings *ks,
				  unsigned long *speeds)
{
	__ETHTOOL_DECLARE_LINK_MODE_MASK(mask) = {};

	if (ks->base.port != PORT_TP)
		return -EOPNOTSUPP;
	if (ks->base.autoneg == AUTONEG_DISABLE)
		return (ks->base.speed == SPEED_10 ||
			ks->base.speed == SPEED_100) &&
		       (ks->base.duplex == DUPLEX_HALF ||
			ks->base.duplex == DUPLEX_FULL) ? 0 : -EINVAL;
	if (ks->base.autoneg != AUTONEG_ENABLE)
		return -EINVAL;
	linkmode_set_bit_array(i82574_other_modes,
			       ARRAY_SIZE(i82574_other_modes), mask);
	linkmode_andnot(speeds, ks->link_modes.advertising, mask);
	linkmode_zero(mask);
	linkmode_set_bit_array(i82574_speed_modes,
			       ARRAY_SIZE(i82574_speed_modes), mask);
	if (linkmode_empty(speeds) || !linkmode_subset(speeds, mask))
		return -EINVAL;
	return 0;
}

/* Program a running device for priv->link: the PHY if @phy, the MAC, then
 * pause (a forced link may stay up through the change, with no link event
 * to follow)
 */
static int i82574_apply_link(struct i82574_dev *priv, bool phy)
{
	int err;

	if (!netif_running(priv->netdev))
		return 0;
	err = phy ? i82574_phy_config_link(priv) : 0;
	if (err)
		return err;
	i82574_mac_config_link(priv);
	i82574_fc_update(priv);
	return 0;
}

/* A SOL or IDE-R session owns the link: no renegotiation, no new
 * settings (e1000e refuses them too)
 */
static int i82574_link_owned_by_mng(struct i82574_dev *priv)
{
	if (!i82574_phy_reset_blocked(priv))
		return 0;
	netdev_err(priv->netdev,
		   "link settings cannot change during a manageability (SOL/IDE-R) session\n");
	return -EBUSY;
}

/* Make @link the settings and apply them; on failure the old ones come
 * back, as far as the PHY takes them
 */
static int i82574_set_link_cfg(struct i82574_dev *priv,
			       const struct i82574_link_cfg *link, bool phy)
{
	struct i82574_link_cfg old = priv->link;
	int err;

	err = phy ? i82574_link_owned_by_mng(priv) : 0;
	if (err)
		return err;

	mutex_lock(&priv->link_lock);
	priv->link = *link;
	mutex_unlock(&priv->link_lock);
	err = i82574_apply_link(priv, phy);
	if (!err)
		return 0;
	netdev_err(priv->netdev, "link settings not applied: %pe\n",
		   ERR_PTR(err));
	mutex_lock(&priv->link_lock);
	priv->link = old;
	mutex_unlock(&priv->link_lock);
	i82574_apply_link(priv, phy);
	return err;
}

static int i82574_set_link_ksettings(struct net_device *netdev,
				     const struct ethtool_link_ksettings *ks)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_link_cfg link = priv->link;
	__ETHTOOL_DECLARE_LINK_MODE_MASK(speeds) = {};
	int err;

	err = i82574_check_ksettings(ks, speeds);
	if (err)
		return err;
	link.autoneg = ks->base.autoneg == AUTONEG_ENABLE;
	if (link.autoneg) {
		linkmode_copy(link.advertising, speeds);
	} else {
		link.speed = ks->base.speed;
		link.duplex = ks->base.duplex;
	}
	return i82574_set_link_cfg(priv, &link, true);
}

static int i82574_nway_reset(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	int err;

	if (!priv->link.autoneg)
		return -EINVAL;
	err = i82574_link_owned_by_mng(priv);
	if (err)
		return err;
	return i82574_phy_restart_aneg(priv);
}

static void i82574_get_ringparam(struct net_device *netdev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	ring->rx_max_pending = I82574_RING_MAX;
	ring->tx_max_pending = I82574_RING_MAX;
	ring->rx_pending = priv->cfg.rx_size;
	ring->tx_pending = priv->cfg.tx_size;
}

static int i82574_set_ringparam(struct net_device *netdev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_cfg cfg = priv->cfg;

	if (ring->rx_pending < I82574_RING_MIN ||
	    ring->tx_pending < I82574_RING_MIN ||
	    !is_power_of_2(ring->rx_pending) ||
	    !is_power_of_2(ring->tx_pending)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "ring sizes must be powers of two, 64 to 4096");
		return -EINVAL;
	}
	cfg.rx_size = ring->rx_pending;
	cfg.tx_size = ring->tx_pending;
	return i82574_reconfig(priv, &cfg);
}

static void i82574_get_channels(struct net_device *netdev,
				struct ethtool_channels *ch)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	ch->max_combined = priv->msix ? I82574_MAX_QP : 1;
	ch->combined_count = priv->cfg.num_qp;
}

static int i82574_set_channels(struct net_device *netdev,
			       struct ethtool_channels *ch)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_cfg cfg = priv->cfg;

	if (!ch->combined_count || ch->rx_count || ch->tx_count ||
	    ch->combined_count > (priv->msix ? I82574_MAX_QP : 1))
		return -EINVAL;
	cfg.num_qp = ch->combined_count;
	return i82574_reconfig(priv, &cfg);
}

static int i82574_get_coalesce(struct net_device *netdev,
			       struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	ec->rx_coalesce_usecs = priv->rx_usecs;
	ec->tx_coalesce_usecs = priv->tx_usecs;
	ec->use_adaptive_rx_coalesce = priv->adaptive_rx;
	ec->use_adaptive_tx_coalesce = priv->adaptive_tx;
	return 0;
}

static int i82574_set_coalesce(struct net_device *netdev,
			       struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_napi_vector *nv;
	unsigned int v;

	if (ec->rx_coalesce_usecs > I82574_ITR_MAX_US ||
	    ec->tx_coalesce_usecs > I82574_ITR_MAX_US)
		return -ERANGE;
	priv->rx_usecs = ec->rx_coalesce_usecs;
	priv->tx_usecs = ec->tx_coalesce_usecs;
	WRITE_ONCE(priv->adaptive_rx, ec->use_adaptive_rx_coalesce);
	WRITE_ONCE(priv->adaptive_tx, ec->use_adaptive_tx_coalesce);

	for (v = 0; v < I82574_MAX_QP; v++) {
		nv = priv->nv[v];
		if (!nv)
			continue;
		if (!priv->adaptive_rx)
			WRITE_ONCE(nv->rx_usecs, priv->rx_usecs);
		if (!priv->adaptive_tx)
			WRITE_ONCE(nv->tx_usecs, priv->tx_usecs);
		if (priv->up)
			i82574_set_vector_itr(nv);
	}
	return 0;
}

static u32 i82574_get_rxfh_key_size(struct net_device *netdev)
{
	return I82574_RSS_KEY_SIZE;
}

static u32 i82574_get_rxfh_indir_size(struct net_device *netdev)
{
	return I82574_RETA_ENTRIES;
}

static int i82574_get_rxfh(struct net_device *netdev,
			   struct ethtool_rxfh_param *rxfh)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	rxfh->hfunc = ETH_RSS_HASH_TOP;
	if (rxfh->indir)
		memcpy(rxfh->indir, priv->reta, sizeof(priv->reta));
	if (rxfh->key)
		memcpy(rxfh->key, priv->rss_key, sizeof(priv->rss_key));
	return 0;
}

static int i82574_set_rxfh(struct net_device *netdev,
			   struct ethtool_rxfh_param *rxfh,
			   struct netlink_ext_ack *extack)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	if (rxfh->indir)
		memcpy(priv->reta, rxfh->indir, sizeof(priv->reta));
	if (rxfh->key)
		memcpy(priv->rss_key, rxfh->key, sizeof(priv->rss_key));
	if (priv->up)
		i82574_write_rss(priv);
	return 0;
}

static int i82574_get_rxnfc(struct net_device *netdev,
			    struct ethtool_rxnfc *cmd, u32 *rule_locs)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	if (cmd->cmd != ETHTOOL_GRXRINGS)
		return -EOPNOTSUPP;
	cmd->data = priv->cfg.num_qp;
	return 0;
}

static void i82574_get_eth_mac_stats(struct net_device *netdev,
				     struct ethtool_eth_mac_stats *s)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_hw_stats *hs = &priv->hw_stats;

	i82574_update_hw_stats(priv);
	mutex_lock(&priv->hw_stats_lock);
	s->FramesTransmittedOK = hs->gptc;
	s->SingleCollisionFrames = hs->scc;
	s->MultipleCollisionFrames = hs->mcc;
	s->FramesReceivedOK = hs->gprc;
	s->FrameCheckSequenceErrors = hs->crcerrs;
	s->AlignmentErrors = hs->algnerrc;
	s->OctetsTransmittedOK = hs->gotc;
	s->FramesWithDeferredXmissions = hs->dc;
	s->LateCollisions = hs->latecol;
	s->FramesAbortedDueToXSColls = hs->ecol;
	s->OctetsReceivedOK = hs->gorc;
	/* not RNBC: those frames wait in the FIFO, most are delivered */
	s->FramesLostDueToIntMACRcvError = hs->mpc;
	s->MulticastFramesXmittedOK = hs->mptc;
	s->BroadcastFramesXmittedOK = hs->bptc;
	s->MulticastFramesReceivedOK = hs->mprc;
	s->BroadcastFramesReceivedOK = hs->bprc;
	s->InRangeLengthErrors = hs->rlec;
	s->FrameTooLongErrors = hs->roc;
	mutex_unlock(&priv->hw_stats_lock);
}

static const struct ethtool_rmon_hist_range i82574_rmon_ranges[] = {
	{    0,   64 },
	{   65,  127 },
	{  128,  255 },
	{  256,  511 },
	{  512, 1023 },
	{ 1024, 1522 },
	{ }
};

static void i82574_get_rmon_stats(struct net_device *netdev,
				  struct ethtool_rmon_stats *s,
				  const struct ethtool_rmon_hist_range **ranges)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_hw_stats *hs = &priv->hw_stats;
	unsigned int i;

	i82574_update_hw_stats(priv);
	mutex_lock(&priv->hw_stats_lock);
	s->undersize_pkts = hs->ruc;
	s->oversize_pkts = hs->roc;
	s->fragments = hs->rfc;
	s->jabbers = hs->rjc;
	for (i = 0; i < ARRAY_SIZE(hs->prc); i++) {
		s->hist[i] = hs->prc[i];
		s->hist_tx[i] = hs->ptc[i];
	}
	mutex_unlock(&priv->hw_stats_lock);
	*ranges = i82574_rmon_ranges;
}

/* The request, as set; what the link resolved to is in the debug log */
static void i82574_get_pauseparam(struct net_device *netdev,
				  struct ethtool_pauseparam *pause)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	pause->autoneg = priv->link.fc_autoneg;
	pause->rx_pause = priv->link.fc_rx;
	pause->tx_pause = priv->link.fc_tx;
}

/* Every combination is valid. With link autonegotiation, a new rx/tx
 * request is advertised and renegotiated (pause autonegotiation off or
 * not); a forced link takes it at the next autonegotiation. Without pause
 * or link autonegotiation, CTRL takes the request as it is.
 */
static int i82574_set_pauseparam(struct net_device *netdev,
				 struct ethtool_pauseparam *pause)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_link_cfg link = priv->link;

	bool readvertise;

	link.fc_autoneg = pause->autoneg;
	link.fc_rx = pause->rx_pause;
	link.fc_tx = pause->tx_pause;
	readvertise = link.autoneg && (link.fc_rx != priv->link.fc_rx ||
				       link.fc_tx != priv->link.fc_tx);
	return i82574_set_link_cfg(priv, &link, readvertise);
}

static void i82574_get_pause_stats(struct net_device *netdev,
				   struct ethtool_pause_stats *s)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_hw_stats *hs = &priv->hw_stats;

	i82574_update_hw_stats(priv);
	mutex_lock(&priv->hw_stats_lock);
	s->tx_pause_frames = hs->xontxc + hs->xofftxc;
	s->rx_pause_frames = hs->xonrxc + hs->xoffrxc;
	mutex_unlock(&priv->hw_stats_lock);
}

/* Driver-only counters, in struct i82574_queue_stats order */
static const char i82574_qstat_names[][ETH_GSTRING_LEN] = {
	"", "", "", "tx_busy", "tx_stopped", "tx_dma_map_errors",
	"tx_doorbells", "tx_flush_doorbells", "rx_alloc_fail", "rx_csum_ok",
	"rx_csum_bad", "rx_frame_errors", "tx_vlan_inserted", "rx_vlan_stripped",
	"tx_tso_packets", "xdp_pass", "xdp_drop", "xdp_aborted", "xdp_redirect",
	"xdp_redirect_err", "xdp_tx", "xdp_tx_err", "xdp_xmit", "xdp_xmit_err",
};

/* then tx_tso_contexts: the MAC's TSCTC, TSO contexts the device sent */
static const char i82574_dev_stat_names[][ETH_GSTRING_LEN] = {
	"tx_timeouts", "resets", "tx_tso_contexts",
};

#define I82574_FIRST_DRV_QSTAT	3
#define I82574_NUM_DRV_STATS	(ARRAY_SIZE(i82574_qstat_names) - \
				 I82574_FIRST_DRV_QSTAT + \
				 ARRAY_SIZE(i82574_dev_stat_names))

static int i82574_get_sset_count(struct net_device *netdev, int sset)
{
	switch (sset) {
	case ETH_SS_STATS:
		return I82574_NUM_DRV_STATS;
	case ETH_SS_TEST:
		return i82574_test_count();
	default:
		return -EOPNOTSUPP;
	}
}

static void i82574_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset == ETH_SS_TEST)
		i82574_test_strings(data);
	if (sset != ETH_SS_STATS)
		return;
	for (i = I82574_FIRST_DRV_QSTAT; i < ARRAY_SIZE(i82574_qstat_names); i++)
		ethtool_puts(&data, i82574_qstat_names[i]);
	for (i = 0; i < ARRAY_SIZE(i82574_dev_stat_names); i++)
		ethtool_puts(&data, i82574_dev_stat_names[i]);
}

static void i82574_get_ethtool_stats(struct net_device *netdev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_queue_stats tx = {}, rx = {};
	u64 *t = (u64 *)&tx, *r = (u64 *)&rx;
	unsigned int i;

	static_assert(ARRAY_SIZE(i82574_qstat_names) == I82574_NUM_QSTATS);
	i82574_sum_stats(priv, &tx, &rx);
	/* the TX and the RX rings' counters of one kind add up */
	for (i = I82574_FIRST_DRV_QSTAT; i < I82574_NUM_QSTATS; i++)
		*data++ = t[i] + r[i];
	*data++ = READ_ONCE(priv->tx_timeouts);
	*data++ = priv->resets;
	i82574_update_hw_stats(priv);
	mutex_lock(&priv->hw_stats_lock);
	*data++ = priv->hw_stats.tsctc;
	mutex_unlock(&priv->hw_stats_lock);
}

/* ethtool's Wake-on-LAN modes and the wake-up filters that match them */
static const struct {
	u32 wake;
	u32 wufc;
} i82574_wol_map[] = {
	{ WAKE_MAGIC, I82574_WUFC_MAG },
	{ WAKE_UCAST, I82574_WUFC_EX },
	{ WAKE_MCAST, I82574_WUFC_MC },
	{ WAKE_BCAST, I82574_WUFC_BC },
};

#define I82574_WOL_MODES	(WAKE_MAGIC | WAKE_UCAST | WAKE_MCAST | WAKE_BCAST)

static void i82574_get_wol(struct net_device *netdev,
			   struct ethtool_wolinfo *wol)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	unsigned int i;

	wol->supported = I82574_WOL_MODES;
	wol->wolopts = 0;
	for (i = 0; i < ARRAY_SIZE(i82574_wol_map); i++)
		if (priv->wol & i82574_wol_map[i].wufc)
			wol->wolopts |= i82574_wol_map[i].wake;
}

/* Stored only: the filters are programmed at suspend and shutdown */
static int i82574_set_wol(struct net_device *netdev,
			  struct ethtool_wolinfo *wol)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	unsigned int i;
	u32 wufc = 0;

	if (wol->wolopts & ~I82574_WOL_MODES)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(i82574_wol_map); i++)
		if (wol->wolopts & i82574_wol_map[i].wake)
			wufc |= i82574_wol_map[i].wufc;
	priv->wol = wufc;
	device_set_wakeup_enable(&priv->pdev->dev, wufc);
	return 0;
}

static const struct ethtool_ops i82574_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_USE_ADAPTIVE,
	.get_drvinfo		= i82574_get_drvinfo,
	.get_regs_len		= i82574_get_regs_len,
	.get_regs		= i82574_get_regs,
	.get_link		= ethtool_op_get_link,
	.get_wol		= i82574_get_wol,
	.set_wol		= i82574_set_wol,
	.get_link_ksettings	= i82574_get_link_ksettings,
	.set_link_ksettings	= i82574_set_link_ksettings,
	.nway_reset		= i82574_nway_reset,
	.get_ringparam		= i82574_get_ringparam,
	.set_ringparam		= i82574_set_ringparam,
	.get_channels		= i82574_get_channels,
	.set_channels		= i82574_set_channels,
	.get_coalesce		= i82574_get_coalesce,
	.set_coalesce		= i82574_set_coalesce,
	.get_rxfh_key_size	= i82574_get_rxfh_key_size,
	.get_rxfh_indir_size	= i82574_get_rxfh_indir_size,
	.get_rxfh		= i82574_get_rxfh,
	.set_rxfh		= i82574_set_rxfh,
	.get_rxnfc		= i82574_get_rxnfc,
	.get_eth_mac_stats	= i82574_get_eth_mac_stats,
	.get_rmon_stats		= i82574_get_rmon_stats,
	.get_pauseparam		= i82574_get_pauseparam,
	.set_pauseparam		= i82574_set_pauseparam,
	.get_pause_stats	= i82574_get_pause_stats,
	.get_sset_count		= i82574_get_sset_count,
	.get_strings		= i82574_get_strings,
	.get_ethtool_stats	= i82574_get_ethtool_stats,
	.get_eeprom_len		= i82574_get_eeprom_len,
	.get_eeprom		= i82574_get_eeprom,
	.set_eeprom		= i82574_set_eeprom,
	.self_test		= i82574_self_test,
	.set_phys_id		= i82574_set_phys_id,
};

void i82574_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &i82574_ethtool_ops;
}
