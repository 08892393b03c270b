// SPDX-License-Identifier: GPL-2.0

#include <linux/bpf.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
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
	i82574_read_hw_errors(priv, stats);
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

/* Forget the heads i82574_check_tx_without_link() compares against */
static void i82574_tx_nolink_forget(struct i82574_dev *priv)
{
	memset(priv->tx_nolink_head, 0xff, sizeof(priv->tx_nolink_head));
}

/**
 * i82574_up - start the hardware on the rings in priv->nv[]
 * @priv: device, under RTNL, its PHY already set up
 *
 * Programs the MAC, fills the RX rings, enables NAPI, RX and interrupts,
 * then starts the TX queues. The MAC has been reset since it last ran
 * (i82574_down(), probe, resume); a new MTU that moves the packet buffer
 * split takes one reset more.
 */
void i82574_up(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	unsigned int v;
	int err;

	/* fresh rings: a head seen before is no sign of a stall */
	i82574_tx_nolink_forget(priv);
	if (i82574_pba_stale(priv)) {
		err = i82574_hw_reset_keep_stats(priv);
		if (err)
			netdev_err(netdev, "MAC reset for the new MTU failed: %pe\n",
				   ERR_PTR(err));
	}
	i82574_configure_hw(priv);
	for (v = 0; v < priv->cfg.num_qp; v++) {
		struct i82574_napi_vector *nv = priv->nv[v];

		i82574_fill_rx(&nv->rx);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_RX, &nv->napi);
		netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_TX, &nv->napi);
		napi_enable(&nv->napi);
	}

	/* rx mode and RCTL.EN last: the model latches RX settings here */
	netif_addr_lock_bh(netdev);
	WRITE_ONCE(priv->up, true);
	i82574_set_rx_mode(netdev);
	netif_addr_unlock_bh(netdev);

	i82574_irq_enable_all(priv);
	/* pick up anything that arrived while interrupts were masked */
	local_bh_disable();
	for (v = 0; v < priv->cfg.num_qp; v++)
		napi_schedule(&priv->nv[v]->napi);
	local_bh_enable();

	i82574_update_link(priv, true);
	netif_tx_start_all_queues(netdev);
}

/**
 * i82574_down - stop the hardware and empty the rings
 * @priv: device, under RTNL
 *
 * Stops NAPI and the TX queues, then resets the MAC (counters kept), as
 * e1000e_down() does on this part: a receive unit merely disabled may keep
 * descriptors cached and DMA into buffers about to be freed, and the rings
 * are programmed again only on a MAC reset. Then frees every buffer still
 * in the rings. Leaves the PHY and the vectors alone. Sleeps.
 */
void i82574_down(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	unsigned int v;
	int err;

	/* Already down: a PCIe error's error_detected stopped the rings and
	 * no resume followed (recovery failed). NAPI is disabled then, and a
	 * second napi_disable() would wait for ever, holding RTNL.
	 */
	if (!priv->up)
		return;
	/* NAPI first: a completion polled after netif_tx_disable() would wake
	 * the queue again, and the stack would post into rings about to be
	 * cleaned or freed (their mappings and skbs then leak)
	 */
	for (v = 0; v < priv->cfg.num_qp; v++)
		napi_disable(&priv->nv[v]->napi);
	netif_tx_disable(netdev);

	netif_addr_lock_bh(netdev);
	WRITE_ONCE(priv->up, false);
	netif_addr_unlock_bh(netdev);
	/* ndo_xdp_xmit, which another device's NAPI calls, is out of the rings */
	synchronize_net();
	/* a device cut off by a PCIe error takes no reset: quiesce, in case */
	if (pci_channel_offline(priv->pdev)) {
		i82574_hw_quiesce(priv);
	} else {
		err = i82574_hw_reset_keep_stats(priv);
		if (err)
			netdev_err(netdev, "MAC reset failed: %pe\n",
				   ERR_PTR(err));
	}
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

/**
 * i82574_default_reta - spread the RSS table over the queue pairs
 * @priv: device
 *
 * Leaves a table the user configured alone.
 */
void i82574_default_reta(struct i82574_dev *priv)
{
	unsigned int i;

	if (netif_is_rxfh_configured(priv->netdev))
		return;
	for (i = 0; i < I82574_RETA_ENTRIES; i++)
		priv->reta[i] = ethtool_rxfh_indir_default(i, priv->cfg.num_qp);
}

/**
 * i82574_open_vectors - allocate the rings and vectors of priv->cfg
 * @priv: device, under RTNL
 *
 * Return: 0 or a negative errno; nothing is allocated on failure.
 */
int i82574_open_vectors(struct i82574_dev *priv)
{
	struct i82574_napi_vector *nv[I82574_MAX_QP] = {};
	const struct i82574_cfg *cfg = &priv->cfg;
	int err;

	err = netif_set_real_num_queues(priv->netdev, cfg->num_qp,
					cfg->num_qp);
	if (err)
		return err;
	err = i82574_alloc_vectors(priv, nv, cfg);
	if (err)
		return err;
	i82574_swap_vectors(priv, nv);
	return 0;
}

/**
 * i82574_close_vectors - free the rings and vectors, keeping their counters
 * @priv: device, under RTNL, after i82574_down()
 */
void i82574_close_vectors(struct i82574_dev *priv)
{
	struct i82574_napi_vector *nv[I82574_MAX_QP] = {};

	i82574_swap_vectors(priv, nv);
	i82574_free_vectors(nv, priv->cfg.num_qp);
}

/**
 * i82574_reconfig - apply new queue or ring counts
 * @priv: device, under RTNL
 * @cfg: the new configuration
 *
 * On a running device, new rings are allocated before the old ones go.
 *
 * Return: 0, or a negative errno with the old rings still running.
 */
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
	err = i82574_alloc_vectors(priv, nv, cfg);
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

/* The PHY set up and started again as after probe (i82574_down() reset
 * the MAC)
 */
static int i82574_restart_phy(struct i82574_dev *priv)
{
	int err;

	err = i82574_phy_setup(priv);
	if (err)
		return err;
	return i82574_phy_start(priv);
}

/* Whoever asked for the reset logged why. A failed MAC reset or PHY setup
 * is logged and the rings are restarted all the same.
 */
static void i82574_reset(struct i82574_dev *priv)
{
	int err;

	rtnl_lock();
	/* not while suspend has the device detached */
	if (netif_running(priv->netdev) && netif_device_present(priv->netdev)) {
		netdev_warn(priv->netdev, "resetting the device\n");
		i82574_down(priv);
		err = i82574_restart_phy(priv);
		if (err)
			netdev_err(priv->netdev, "PHY restart failed: %pe\n",
				   ERR_PTR(err));
		i82574_up(priv);
		priv->resets++;
	}
	rtnl_unlock();
}

/* FLAG2_CHECK_PHY_HANG of e1000e, every period the interface is up, with
 * or without a link: a hung PHY may be why there is none
 */
static bool i82574_check_phy_hang(struct i82574_dev *priv)
{
	if (!netif_running(priv->netdev))
		return false;
	if (!i82574_phy_hung(priv))
		return false;
	netdev_warn(priv->netdev,
		    "PHY error counters saturated twice in a row: PHY hung\n");
	return true;
}

/* Did a TX ring hold work for a whole service period without the link
 * and complete none of it? RTNL keeps the rings in place.
 */
static bool i82574_tx_stuck_without_link(struct i82574_dev *priv)
{
	bool stuck = false;
	unsigned int q;

	for (q = 0; q < I82574_MAX_QP; q++) {
		u32 was = priv->tx_nolink_head[q];
		struct i82574_ring *tx;

		priv->tx_nolink_head[q] = U32_MAX;
		if (!priv->up || q >= priv->cfg.num_qp)
			continue;
		tx = &priv->nv[q]->tx;
		if (READ_ONCE(tx->head) == READ_ONCE(tx->tail))
			continue;
		priv->tx_nolink_head[q] = READ_ONCE(tx->head);
		stuck |= was == priv->tx_nolink_head[q];
	}
	return stuck;
}

/* e1000e resets when the link is gone with TX work queued: the controller
 * stops its DMA without a link, so the work would wait for the next link
 * up, where the stack's watchdog would find the queue stalled and reset
 * the device (and renegotiate the link) once more. A ring counts as stuck
 * only after a period without progress: a device that still completes
 * after the link went (QEMU's model does) needs no reset.
 */
static bool i82574_check_tx_without_link(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	bool stuck;

	if (!netif_running(netdev) || netif_carrier_ok(netdev)) {
		i82574_tx_nolink_forget(priv);
		return false;
	}
	rtnl_lock();
	stuck = i82574_tx_stuck_without_link(priv);
	rtnl_unlock();
	if (stuck)
		netdev_warn(netdev, "link down with TX work pending\n");
	return stuck;
}

/* The work's register accesses; the device is powered */
static void i82574_service_hw(struct i82574_dev *priv)
{
	/* ethtool -t has the rings stopped and writes test patterns */
	if (test_bit(I82574_STATE_TESTING, &priv->state))
		return;
	if (i82574_check_phy_hang(priv) || i82574_check_tx_without_link(priv))
		set_bit(I82574_STATE_RESET_REQ, &priv->state);
	if (test_and_clear_bit(I82574_STATE_RESET_REQ, &priv->state))
		i82574_reset(priv);
	if (netif_running(priv->netdev)) {
		i82574_flush_descriptors(priv);
		i82574_kick_queue_vectors(priv);
		i82574_update_link(priv,
				   test_and_clear_bit(I82574_STATE_LINK_CHANGE,
						      &priv->state));
	}
	i82574_update_hw_stats(priv);
}

/**
 * i82574_service_task - periodic and on-demand housekeeping
 * @work: priv->service_task
 *
 * Runs every I82574_SERVICE_PERIOD, and at once for link changes and TX
 * timeouts: the PHY hang check, resets, descriptor flushes, link state
 * and the MAC counters. Skips the hardware while the device is runtime
 * suspended (its interface is down then, with nothing to reset), and
 * stops while system sleep has the device detached.
 */
void i82574_service_task(struct work_struct *work)
{
	struct i82574_dev *priv = container_of(to_delayed_work(work),
					       struct i82574_dev, service_task);
	struct device *dev = &priv->pdev->dev;
	int active;

	if (!netif_device_present(priv->netdev))
		return;
	/* -EINVAL: no runtime PM (or disabled), the device is powered */
	active = pm_runtime_get_if_active(dev);
	if (active)
		i82574_service_hw(priv);
	if (active > 0)
		pm_runtime_put_autosuspend(dev);
	schedule_delayed_work(&priv->service_task, I82574_SERVICE_PERIOD);
}

/**
 * i82574_pm_get - keep the device powered, resuming it if needed
 * @priv: device
 *
 * For ndo_open: the interface holds the reference while it is up. Called
 * with RTNL held, which the runtime callbacks never take.
 *
 * Return: 0, or a negative errno if the device could not be resumed.
 */
static int i82574_pm_get(struct i82574_dev *priv)
{
	return pm_runtime_resume_and_get(&priv->pdev->dev);
}

/**
 * i82574_pm_put - drop i82574_pm_get()'s reference; suspend once idle
 * @priv: device
 */
static void i82574_pm_put(struct i82574_dev *priv)
{
	struct device *dev = &priv->pdev->dev;

	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
}

static int i82574_open(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	int err;

	err = i82574_pm_get(priv);
	if (err)
		return err;
	/* a reset asked for before the last close has nothing left to do */
	clear_bit(I82574_STATE_RESET_REQ, &priv->state);
	cpu_latency_qos_add_request(&priv->pm_qos_req, PM_QOS_DEFAULT_VALUE);
	err = i82574_open_vectors(priv);
	if (err)
		goto remove_qos;
	/* tell the (AMT) firmware the interface is in use */
	i82574_set_drv_load(priv, true);
	err = i82574_phy_start(priv);
	if (err)
		goto release_hw;
	i82574_up(priv);
	return 0;

release_hw:
	i82574_set_drv_load(priv, false);
	i82574_close_vectors(priv);
remove_qos:
	cpu_latency_qos_remove_request(&priv->pm_qos_req);
	i82574_pm_put(priv);
	return err;
}

/* Detached here means a PCIe error that recovery did not clear: the rings
 * are stopped already and the device may not answer, so only the memory
 * goes (as e1000e_close() skips the hardware of a device not present).
 */
static int i82574_stop(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	bool present = netif_device_present(netdev);

	i82574_down(priv);
	i82574_close_vectors(priv);
	cpu_latency_qos_remove_request(&priv->pm_qos_req);
	netif_carrier_off(netdev);
	if (present) {
		i82574_phy_power_down(priv);
		i82574_set_drv_load(priv, false);
	}
	i82574_pm_put(priv);
	return 0;
}

static int i82574_set_mac_address(struct net_device *netdev, void *p)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	struct sockaddr *addr = p;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	eth_hw_addr_set(netdev, addr->sa_data);
	/* a device that is down may be in D3; i82574_up() writes RAR 0 */
	if (netif_running(netdev))
		i82574_write_rar(priv, 0, netdev->dev_addr);
	return 0;
}

static int i82574_change_mtu(struct net_device *netdev, int mtu)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	/* an XDP buffer holds one whole frame: no LPE */
	if (mtu > ETH_DATA_LEN && priv->xdp_prog) {
		netdev_err(netdev, "MTU %d too large with an XDP program attached: at most %d\n",
			   mtu, ETH_DATA_LEN);
		return -EINVAL;
	}
	/* the buffer layout and RCTL.LPE depend on the MTU: restart rings */
	if (netif_running(netdev))
		i82574_down(priv);
	WRITE_ONCE(netdev->mtu, mtu);
	if (netif_running(netdev))
		i82574_up(priv);
	return 0;
}

/* Attach, swap or detach: the RX buffers' layout changes with the first
 * program and after the last, on new rings built before the old go
 */
static int i82574_xdp_setup(struct i82574_dev *priv, struct bpf_prog *prog,
			    struct netlink_ext_ack *extack)
{
	struct net_device *netdev = priv->netdev;
	struct i82574_cfg cfg = priv->cfg;
	struct bpf_prog *old;
	int err;

	if (prog && netdev->mtu > ETH_DATA_LEN) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "MTU %u too large for XDP: at most %u (no multi-buffer XDP)",
				       netdev->mtu, ETH_DATA_LEN);
		return -EINVAL;
	}
	old = xchg(&priv->xdp_prog, prog);
	cfg.xdp = !!prog;
	if (cfg.xdp != priv->cfg.xdp) {
		err = i82574_reconfig(priv, &cfg);
		if (err) {
			xchg(&priv->xdp_prog, old);
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the rings of the new RX buffer layout");
			return err;
		}
	}
	if (old)
		bpf_prog_put(old);
	return 0;
}

static int i82574_bpf(struct net_device *netdev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return i82574_xdp_setup(netdev_priv(netdev), bpf->prog,
					bpf->extack);
	default:
		return -EOPNOTSUPP;
	}
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
	.ndo_features_check	= i82574_features_check,
	.ndo_xmit_flush		= i82574_xmit_flush,
	.ndo_get_stats64	= i82574_get_stats64,
	.ndo_set_rx_mode	= i82574_set_rx_mode,
	.ndo_set_mac_address	= i82574_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= i82574_change_mtu,
	.ndo_tx_timeout		= i82574_tx_timeout,
	.ndo_set_features	= i82574_set_features,
	.ndo_vlan_rx_add_vid	= i82574_vlan_rx_add_vid,
	.ndo_vlan_rx_kill_vid	= i82574_vlan_rx_kill_vid,
	.ndo_bpf		= i82574_bpf,
	.ndo_xdp_xmit		= i82574_xdp_xmit,
};

void i82574_netdev_setup(struct net_device *netdev)
{
	netdev->netdev_ops = &i82574_netdev_ops;
	netdev->stat_ops = &i82574_stat_ops;
	netdev->watchdog_timeo = 5 * HZ;
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_RXCSUM | NETIF_F_RXHASH;
	netdev->features = netdev->hw_features | NETIF_F_HIGHDMA;
	i82574_vlan_setup(netdev);
	netdev->vlan_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
				NETIF_F_HIGHDMA;
	i82574_tso_setup(netdev);
	netdev->priv_flags |= IFF_UNICAST_FLT;
	/* no multi-buffer frames; the TX rings are the stack's, so frames
	 * can be redirected here with no program attached
	 */
	netdev->xdp_features = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
			       NETDEV_XDP_ACT_NDO_XMIT;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = I82574_MAX_MTU;
}
