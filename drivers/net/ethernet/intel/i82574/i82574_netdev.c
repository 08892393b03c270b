// SPDX-License-Identifier: GPL-2.0

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/netdev_queues.h>
#include <kunit/visibility.h>

#include "i82574.h"

#define I82574_MAX_MTU		9000

u32 i82574_mta_hash(const u8 *addr)
{
	/* RCTL.MO = 0: bits 47:36 of the address */
	return ((addr[4] >> 4) | ((u32)addr[5] << 4)) & 0xfff;
}
EXPORT_SYMBOL_IF_KUNIT(i82574_mta_hash);

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

/* Base plus live rings; caller holds stats_lock or RTNL. */
static void __i82574_sum_stats(struct i82574_dev *priv,
			       struct i82574_queue_stats *tx,
			       struct i82574_queue_stats *rx)
{
	struct i82574_napi_vector *nv;
	unsigned int v;

	i82574_add_stats(tx, &priv->tx_base);
	i82574_add_stats(rx, &priv->rx_base);
	for (v = 0; v < I82574_MAX_QP; v++) {
		nv = READ_ONCE(priv->nv[v]);
		if (!nv)
			continue;
		i82574_fold_ring_stats(tx, &nv->tx);
		i82574_fold_ring_stats(rx, &nv->rx);
	}
}

void i82574_sum_stats(struct i82574_dev *priv, struct i82574_queue_stats *tx,
		      struct i82574_queue_stats *rx)
{
	spin_lock_bh(&priv->stats_lock);
	__i82574_sum_stats(priv, tx, rx);
	spin_unlock_bh(&priv->stats_lock);
}

static void i82574_get_stats64(struct net_device *netdev,
			       struct rtnl_link_stats64 *stats)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_queue_stats tx = {}, rx = {};

	i82574_sum_stats(priv, &tx, &rx);
	stats->tx_packets = tx.packets;
	stats->tx_bytes = tx.bytes;
	stats->tx_dropped = tx.dropped;
	stats->tx_errors = tx.map_err;
	stats->rx_packets = rx.packets;
	stats->rx_bytes = rx.bytes;
	stats->rx_dropped = rx.dropped;
	stats->rx_errors = rx.frame_err;
	stats->rx_frame_errors = rx.frame_err;
}

static void i82574_get_queue_stats_rx(struct net_device *netdev, int idx,
				      struct netdev_queue_stats_rx *rx)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_queue_stats s = {};

	if (!priv->nv[idx])
		return;
	i82574_add_stats(&s, &priv->nv[idx]->rx.stats);
	rx->packets = s.packets;
	rx->bytes = s.bytes;
	rx->alloc_fail = s.alloc_fail;
	rx->csum_unnecessary = s.csum_ok;
	rx->csum_bad = s.csum_bad;
}

static void i82574_get_queue_stats_tx(struct net_device *netdev, int idx,
				      struct netdev_queue_stats_tx *tx)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct i82574_queue_stats s = {};

	if (!priv->nv[idx])
		return;
	i82574_fold_ring_stats(&s, &priv->nv[idx]->tx);
	tx->packets = s.packets;
	tx->bytes = s.bytes;
	tx->stop = s.stop;
	tx->doorbells = s.doorbells;
	tx->doorbell_flushes = s.flushes;
}

static void i82574_get_base_stats(struct net_device *netdev,
				  struct netdev_queue_stats_rx *rx,
				  struct netdev_queue_stats_tx *tx)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	rx->packets = priv->rx_base.packets;
	rx->bytes = priv->rx_base.bytes;
	rx->alloc_fail = priv->rx_base.alloc_fail;
	rx->csum_unnecessary = priv->rx_base.csum_ok;
	rx->csum_bad = priv->rx_base.csum_bad;
	tx->packets = priv->tx_base.packets;
	tx->bytes = priv->tx_base.bytes;
	tx->stop = priv->tx_base.stop;
	tx->doorbells = priv->tx_base.doorbells;
	tx->doorbell_flushes = priv->tx_base.flushes;
}

static const struct netdev_stat_ops i82574_stat_ops = {
	.get_queue_stats_rx	= i82574_get_queue_stats_rx,
	.get_queue_stats_tx	= i82574_get_queue_stats_tx,
	.get_base_stats		= i82574_get_base_stats,
};

static void i82574_write_uc(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	struct netdev_hw_addr *ha;
	int i = 1;

	if (netdev_uc_count(netdev) >= I82574_RAR_NUM) {
		priv->rx_mode |= I82574_RCTL_UPE;
	} else {
		netdev_for_each_uc_addr(ha, netdev)
			i82574_write_rar(priv, i++, ha->addr);
	}
	for (; i < I82574_RAR_NUM; i++) {
		wr32(priv, I82574_RAH(i), 0);
		wr32(priv, I82574_RAL(i), 0);
	}
}

void i82574_set_rx_mode(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct netdev_hw_addr *ha;
	unsigned int i;
	u32 hash;

	priv->rx_mode = 0;
	if (netdev->flags & IFF_PROMISC)
		priv->rx_mode = I82574_RCTL_UPE | I82574_RCTL_MPE;
	else if (netdev->flags & IFF_ALLMULTI)
		priv->rx_mode = I82574_RCTL_MPE;

	i82574_write_uc(priv);
	memset(priv->mta, 0, sizeof(priv->mta));
	netdev_for_each_mc_addr(ha, netdev) {
		hash = i82574_mta_hash(ha->addr);
		priv->mta[hash / 32] |= BIT(hash % 32);
	}
	for (i = 0; i < I82574_MTA_NUM; i++)
		wr32(priv, I82574_MTA(i), priv->mta[i]);
	i82574_write_rctl(priv);
}

static int i82574_open(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	int err;

	err = i82574_open_vectors(priv);
	if (err)
		return err;
	i82574_up(priv);
	return 0;
}

static int i82574_stop(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	i82574_down(priv);
	i82574_close_vectors(priv);
	netif_carrier_off(netdev);
	return 0;
}

static int i82574_set_mac_address(struct net_device *netdev, void *p)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct sockaddr *addr = p;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	eth_hw_addr_set(netdev, addr->sa_data);
	i82574_write_rar(priv, 0, netdev->dev_addr);
	return 0;
}

static int i82574_change_mtu(struct net_device *netdev, int mtu)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	/* the buffer layout and RCTL.LPE depend on the MTU: restart rings */
	if (netif_running(netdev))
		i82574_down(priv);
	WRITE_ONCE(netdev->mtu, mtu);
	if (netif_running(netdev))
		i82574_up(priv);
	return 0;
}

static void i82574_tx_timeout(struct net_device *netdev, unsigned int txq)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	netdev_warn(netdev, "TX queue %u timed out\n", txq);
	WRITE_ONCE(priv->tx_timeouts, priv->tx_timeouts + 1);
	set_bit(I82574_STATE_RESET_REQ, &priv->state);
	mod_delayed_work(system_wq, &priv->service_task, 0);
}

static const struct net_device_ops i82574_netdev_ops = {
	.ndo_open		= i82574_open,
	.ndo_stop		= i82574_stop,
	.ndo_start_xmit		= i82574_xmit_frame,
	.ndo_xmit_flush		= i82574_xmit_flush,
	.ndo_get_stats64	= i82574_get_stats64,
	.ndo_set_rx_mode	= i82574_set_rx_mode,
	.ndo_set_mac_address	= i82574_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= i82574_change_mtu,
	.ndo_tx_timeout		= i82574_tx_timeout,
};

void i82574_netdev_setup(struct net_device *netdev)
{
	netdev->netdev_ops = &i82574_netdev_ops;
	netdev->stat_ops = &i82574_stat_ops;
	i82574_set_ethtool_ops(netdev);
	netdev->watchdog_timeo = 5 * HZ;
	/* no TSO: the QEMU model fragments instead of segmenting (see docs) */
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_RXCSUM | NETIF_F_RXHASH;
	netdev->features = netdev->hw_features | NETIF_F_HIGHDMA;
	netdev->vlan_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
				NETIF_F_HIGHDMA;
	netdev->priv_flags |= IFF_UNICAST_FLT;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = I82574_MAX_MTU;
}
