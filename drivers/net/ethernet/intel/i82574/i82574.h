/* SPDX-License-Identifier: GPL-2.0 */

#ifndef _I82574_H_
#define _I82574_H_

#include <linux/bitfield.h>
#include <linux/ethtool.h>
#include <linux/fault-inject.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/pm_qos.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "i82574_csr.h"
#include "i82574_txrx.h"

#define I82574_DRV_NAME		"i82574"
#define I82574_VEC_OTHER	0	/* MSI-X vector for link changes */
#define I82574_NUM_MSIX		(1 + I82574_MAX_QP)
#define I82574_ITR_DEFAULT_US	50
#define I82574_ITR_MAX_US	(I82574_ITR_INTERVAL / 4)
#define I82574_SERVICE_PERIOD	(2 * HZ)

enum {
	I82574_STATE_RESET_REQ,
	I82574_STATE_LINK_CHANGE,	/* an LSC since the last link check */
	I82574_STATE_TESTING,		/* ethtool -t owns the hardware */
};

/* What ethtool -s and -A asked for; applied at open, reset and link up */
struct i82574_link_cfg {
	/* speeds offered in autonegotiation (no Autoneg, TP or pause bits) */
	__ETHTOOL_DECLARE_LINK_MODE_MASK(advertising);
	u32 speed;			/* forced speed, 10 or 100 */
	u8 duplex;			/* forced duplex */
	bool autoneg;
	bool fc_autoneg;		/* resolve pause from both ends' ANAR */
	bool fc_rx;
	bool fc_tx;
};

/* MAC counters accumulated from the clear-on-read registers */
struct i82574_hw_stats {
	u64 crcerrs, algnerrc, rxerrc, mpc, scc, ecol, mcc, latecol, colc, dc;
	u64 cexterr, rlec;
	u64 xonrxc, xontxc, xoffrxc, xofftxc;
	u64 prc[6], ptc[6];
	u64 gprc, bprc, mprc, gptc, mptc, bptc, gorc, gotc;
	u64 rnbc, ruc, rfc, roc, rjc;
	u64 tsctc;		/* TSO contexts the device sent */
};

/**
 * struct i82574_cfg - what the rings are built for
 * @num_qp: queue pairs
 * @tx_size: TX descriptors a ring
 * @rx_size: RX descriptors a ring
 * @xdp: RX buffers laid out for an XDP program (a page each, XDP headroom)
 */
struct i82574_cfg {
	u32 num_qp;
	u32 tx_size;
	u32 rx_size;
	bool xdp;
};

struct i82574_dev {
	struct net_device *netdev;
	struct pci_dev *pdev;
	u8 __iomem *hw;

	struct i82574_napi_vector *nv[I82574_MAX_QP];
	struct i82574_cfg cfg;
	struct bpf_prog *xdp_prog;	/* RCU: read by NAPI, set under RTNL */
	bool msix;
	bool up;

	u32 reta[I82574_RETA_ENTRIES];
	u8 rss_key[I82574_RSS_KEY_SIZE];
	u32 mta[I82574_MTA_NUM];
	u32 rx_mode;			/* RCTL UPE/MPE */
	u32 vfta[I82574_VFTA_NUM];	/* VLAN filter table, VID 0 always */
	bool vlan_filter;		/* rx-vlan-filter, for RCTL.VFE */
	u16 rx_usecs;
	u16 tx_usecs;
	bool adaptive_rx;
	bool adaptive_tx;
	u32 wol;			/* WUFC filters for Wake-on-LAN */

	/* counters of rings that no longer exist, and the live ring set */
	spinlock_t stats_lock;
	struct i82574_queue_stats tx_base;
	struct i82574_queue_stats rx_base;
	u64 tx_timeouts;
	u64 resets;

	struct mutex hw_stats_lock;	/* serializes hw_stats updates */
	struct u64_stats_sync hw_syncp;	/* for ndo_get_stats64's reads */
	struct i82574_hw_stats hw_stats;

	/* serializes the driver's users of the MDIO/NVM hardware semaphore */
	struct mutex hw_sem_lock;
	u32 phy_id;
	bool mng_enabled;		/* NVM enables manageability firmware */
	bool mng_pt;			/* ... in pass-through mode */
	u8 phy_hang_count;		/* service work only */
	/* service work only: each TX ring's head while it held work with
	 * no link, U32_MAX when it held none (or the link was up)
	 */
	u32 tx_nolink_head[I82574_MAX_QP];
	u16 nvm_words;
	bool nvm_flash;			/* flash NVM: EEWR needs a commit */
	u32 ledctl_saved;		/* LEDCTL before ethtool -p */
	atomic_t test_icr;		/* causes seen during ethtool -t */

	/* link settings: written under RTNL and link_lock; link_lock also
	 * serializes CTRL's link and flow control bits with the service work
	 */
	struct mutex link_lock;
	struct i82574_link_cfg link;

	/* CPU wake-up latency for jumbo frames, while the interface is open */
	struct pm_qos_request pm_qos_req;

	struct delayed_work service_task;
	unsigned long state;
	char irq_name[I82574_NUM_MSIX][32];
#ifdef CONFIG_DEBUG_FS
	struct dentry *dbg_dir;
	bool fail_slot_reset;		/* debugfs: slot_reset fails */
#endif
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	struct fault_attr fail_tx_map;
#endif
};

static inline u32 rd32(struct i82574_dev *priv, u32 reg)
{
	return readl(priv->hw + reg);
}

static inline void wr32(struct i82574_dev *priv, u32 reg, u32 val)
{
	writel(val, priv->hw + reg);
}

static inline void rmw32(struct i82574_dev *priv, u32 reg, u32 clear, u32 set)
{
	wr32(priv, reg, (rd32(priv, reg) & ~clear) | set);
}

static inline void wrfl(struct i82574_dev *priv)
{
	rd32(priv, I82574_STATUS);
}

static inline u16 i82574_usecs_to_itr(u32 usecs)
{
	return min_t(u32, usecs, I82574_ITR_MAX_US) * 4;
}

static inline u32 i82574_link_speed(u32 status)
{
	switch (FIELD_GET(I82574_STATUS_SPEED, status)) {
	case I82574_STATUS_SPEED_10:
		return SPEED_10;
	case I82574_STATUS_SPEED_100:
		return SPEED_100;
	default:
		return SPEED_1000;
	}
}

/* i82574_mac.c */
int i82574_hw_reset(struct i82574_dev *priv);
int i82574_hw_reset_keep_stats(struct i82574_dev *priv);
unsigned int i82574_pba_rx_kb(unsigned int mtu);
bool i82574_pba_stale(struct i82574_dev *priv);
void i82574_hw_quiesce(struct i82574_dev *priv);
void i82574_set_drv_load(struct i82574_dev *priv, bool loaded);
void i82574_mng_configure(struct i82574_dev *priv);
void i82574_configure_hw(struct i82574_dev *priv);
void i82574_irq_enable_all(struct i82574_dev *priv);
void i82574_route_other_irq(struct i82574_dev *priv);
void i82574_flush_descriptors(struct i82574_dev *priv);
void i82574_kick_queue_vectors(struct i82574_dev *priv);
void i82574_write_rctl(struct i82574_dev *priv);
u32 i82574_rar_low(const u8 *addr);
u32 i82574_rar_high(const u8 *addr);
u32 i82574_reta_dword(const u32 *reta, unsigned int i, u32 num_qp);
u32 i82574_rxcsum(netdev_features_t features);
u32 i82574_vlan_rctl(struct i82574_dev *priv);
void i82574_write_vme(struct i82574_dev *priv, netdev_features_t features);
void i82574_vlan_configure(struct i82574_dev *priv);
void i82574_set_vector_itr(struct i82574_napi_vector *nv);
void i82574_write_rss(struct i82574_dev *priv);
void i82574_write_rar(struct i82574_dev *priv, int idx, const u8 *addr);
void i82574_update_link(struct i82574_dev *priv, bool recheck);
void i82574_mac_config_link(struct i82574_dev *priv);
void i82574_update_hw_stats(struct i82574_dev *priv);
void i82574_read_hw_errors(struct i82574_dev *priv,
			   struct rtnl_link_stats64 *stats);

/* i82574_nvm.c */
void i82574_nvm_detect(struct i82574_dev *priv);
int i82574_read_nvm_config(struct i82574_dev *priv);
int i82574_nvm_checksum_valid(struct i82574_dev *priv);
int i82574_get_eeprom_len(struct net_device *netdev);
int i82574_get_eeprom(struct net_device *netdev, struct ethtool_eeprom *ee,
		      u8 *bytes);
int i82574_set_eeprom(struct net_device *netdev, struct ethtool_eeprom *ee,
		      u8 *bytes);

/* i82574_diag.c */
int i82574_test_count(void);
void i82574_test_strings(u8 *data);
void i82574_self_test(struct net_device *netdev, struct ethtool_test *et,
		      u64 *data);
int i82574_set_phys_id(struct net_device *netdev,
		       enum ethtool_phys_id_state state);

/* i82574_phy.c */
int i82574_wait_mdio_ownership(struct i82574_dev *priv);
void i82574_drop_mdio_ownership(struct i82574_dev *priv);
int i82574_hw_sem_take(struct i82574_dev *priv);
void i82574_hw_sem_release(struct i82574_dev *priv);
bool i82574_phy_reset_blocked(struct i82574_dev *priv);
int i82574_phy_init(struct i82574_dev *priv);
int i82574_phy_setup(struct i82574_dev *priv);
int i82574_phy_start(struct i82574_dev *priv);
void i82574_phy_power_down(struct i82574_dev *priv);
int i82574_phy_restart_aneg(struct i82574_dev *priv);
int i82574_phy_config_link(struct i82574_dev *priv);
int i82574_phy_read_aneg(struct i82574_dev *priv, u16 *adv, u16 *lpa,
			 u16 *stat1000);
bool i82574_phy_hung(struct i82574_dev *priv);

/* i82574_fc.c */
void i82574_fc_configure(struct i82574_dev *priv);
void i82574_rx_latency_update(struct i82574_dev *priv);
void i82574_fc_update(struct i82574_dev *priv);

/* i82574_netdev.c */
#define I82574_NUM_QSTATS \
	(offsetof(struct i82574_queue_stats, syncp) / sizeof(u64))
void i82574_netdev_setup(struct net_device *netdev);
void i82574_up(struct i82574_dev *priv);
void i82574_down(struct i82574_dev *priv);
int i82574_open_vectors(struct i82574_dev *priv);
void i82574_close_vectors(struct i82574_dev *priv);
int i82574_reconfig(struct i82574_dev *priv, const struct i82574_cfg *cfg);
void i82574_default_reta(struct i82574_dev *priv);
void i82574_service_task(struct work_struct *work);
void i82574_sum_stats(struct i82574_dev *priv, struct i82574_queue_stats *tx,
		      struct i82574_queue_stats *rx);
void i82574_set_rx_mode(struct net_device *netdev);
u32 i82574_mta_hash(const u8 *addr);

/* i82574_vlan.c */
int i82574_vlan_rx_add_vid(struct net_device *netdev, __be16 proto, u16 vid);
int i82574_vlan_rx_kill_vid(struct net_device *netdev, __be16 proto, u16 vid);
int i82574_set_features(struct net_device *netdev, netdev_features_t features);
void i82574_vlan_setup(struct net_device *netdev);

/* i82574_debugfs.c: test hooks; fault injection on debug kernels only */
#ifdef CONFIG_DEBUG_FS
void i82574_debugfs_add(struct i82574_dev *priv);
void i82574_debugfs_del(struct i82574_dev *priv);
void i82574_debugfs_init(void);
void i82574_debugfs_exit(void);

static inline bool i82574_debugfs_fail_slot_reset(struct i82574_dev *priv)
{
	return READ_ONCE(priv->fail_slot_reset);
}
#else
static inline void i82574_debugfs_add(struct i82574_dev *priv) {}
static inline void i82574_debugfs_del(struct i82574_dev *priv) {}
static inline void i82574_debugfs_init(void) {}
static inline void i82574_debugfs_exit(void) {}
static inline bool i82574_debugfs_fail_slot_reset(struct i82574_dev *priv)
{
	return false;
}
#endif
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static inline bool i82574_fail_tx_map(struct device *dev)
{
	struct i82574_dev *priv = dev_get_drvdata(dev);

	return should_fail(&priv->fail_tx_map, 1);
}
#else
static inline bool i82574_fail_tx_map(struct device *dev) { return false; }
#endif

/* i82574_aspm.c */
void i82574_clear_aspm(struct pci_dev *pdev);
void i82574_disable_aspm(struct pci_dev *pdev);

/* i82574_pm.c */
extern const struct dev_pm_ops i82574_pm_ops;
void i82574_shutdown(struct pci_dev *pdev);
void i82574_pm_init(struct i82574_dev *priv);
void i82574_pm_exit(struct i82574_dev *priv);
void i82574_pm_stop(struct i82574_dev *priv);
void i82574_pm_restart(struct i82574_dev *priv);

/* i82574_ethtool.c */
void i82574_set_ethtool_ops(struct net_device *dev);
void i82574_link_defaults(struct i82574_dev *priv);

/* i82574_err.c */
extern const struct pci_error_handlers i82574_err_handler;

#endif /* _I82574_H_ */
