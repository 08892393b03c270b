// SPDX-License-Identifier: GPL-2.0
/*
 * IEEE 802.3x flow control of the 82574L (datasheet "Flow Control"): how
 * received PAUSE frames are recognized, when XOFF and XON are sent, and
 * CTRL.RFCE/TFCE, set from the request or from autonegotiation at link up.
 */

#include <linux/if_vlan.h>
#include <linux/mii.h>
#include <linux/pm_qos.h>
#include <linux/sizes.h>
#include <linux/string_choices.h>
#include <linux/unaligned.h>

#include "i82574.h"

/* The reserved multicast address of MAC Control frames (802.3 Annex 31B) */
static const u8 i82574_pause_addr[ETH_ALEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

/* Pause time sent in XOFF frames, in quanta of 512 bit times: 2048 quanta
 * is 1 Mbit time, about four times what draining a 32 KB receive buffer
 * takes at line rate, to cover the host's latency. XON (FCRTL.XONE) ends
 * the pause early once the buffer has drained.
 */
#define I82574_FC_PAUSE_TIME	0x0800
/* While the buffer stays above the low mark, XOFF is sent again after
 * half the pause time, before the partner's pause runs out.
 */
#define I82574_FC_REFRESH_TIME	(I82574_FC_PAUSE_TIME / 2)

static u32 i82574_max_frame(struct i82574_dev *priv)
{
	return priv->netdev->mtu + VLAN_ETH_HLEN + ETH_FCS_LEN;
}

/* The receive packet buffer levels, in bytes, for XOFF (@high) and XON
 * (@low), from the RX share of the packet buffer that PBA gives (the
 * driver keeps the split the reset left: changing it takes a MAC reset).
 * XOFF leaves room above it for a tenth of the buffer and at least a whole
 * frame, which the partner may be sending when XOFF reaches it; XON waits
 * until one more whole frame has drained, so the two do not alternate on
 * every frame. A buffer too small for two frames gets 0 and 0: no XOFF.
 */
static void i82574_fc_thresholds(struct i82574_dev *priv, u32 *high,
				 u32 *low)
{
	u32 rx = FIELD_GET(I82574_PBA_RXA, rd32(priv, I82574_PBA)) * SZ_1K;
	u32 frame = i82574_max_frame(priv);

	*high = 0;
	*low = 0;
	if (rx < 2 * frame)
		return;
	*high = min(rx / 10 * 9, rx - frame) & I82574_FCRTH_RTH;
	*low = (*high - frame) & I82574_FCRTL_RTL;
}

/**
 * i82574_rx_latency_update - bound the CPUs' wake-up latency for jumbo frames
 * @priv: device, its interface open
 *
 * e1000e's rule for this part: with an MTU over 1500, a CPU slow to leave
 * a deep C-state lets the receive packet buffer overflow (e1000e's
 * "dropped transactions"), so the CPU latency request is held at the time
 * the rest of the RX buffer, above one frame, takes to fill at 1 Gb/s
 * (8 ns a byte). Without jumbo frames the request asks for nothing.
 */
void i82574_rx_latency_update(struct i82574_dev *priv)
{
	u32 rx = FIELD_GET(I82574_PBA_RXA, rd32(priv, I82574_PBA)) * SZ_1K;
	u32 frame = i82574_max_frame(priv);
	s32 lat = PM_QOS_DEFAULT_VALUE;

	if (!cpu_latency_qos_request_active(&priv->pm_qos_req))
		return;
	if (priv->netdev->mtu > ETH_DATA_LEN)
		lat = rx > frame ? (rx - frame) * 8 / NSEC_PER_USEC : 0;
	if (lat != PM_QOS_DEFAULT_VALUE)
		netdev_info(priv->netdev,
			    "jumbo frames: CPU wake-up latency held at %d us\n",
			    lat);
	cpu_latency_qos_update_request(&priv->pm_qos_req, lat);
}

/**
 * i82574_fc_configure - program the flow control registers
 * @priv: device
 *
 * PAUSE frame address and type, pause and refresh times, and the receive
 * thresholds for the current MTU. Whether pause is used at all is CTRL's
 * RFCE/TFCE, set by i82574_fc_update() once the link is up.
 */
void i82574_fc_configure(struct i82574_dev *priv)
{
	u32 high, low;

	wr32(priv, I82574_FCAL, get_unaligned_le32(i82574_pause_addr));
	wr32(priv, I82574_FCAH, get_unaligned_le16(i82574_pause_addr + 4));
	wr32(priv, I82574_FCT, ETH_P_PAUSE);
	wr32(priv, I82574_FCTTV, I82574_FC_PAUSE_TIME);
	wr32(priv, I82574_FCRTV, I82574_FC_REFRESH_TIME);
	i82574_fc_thresholds(priv, &high, &low);
	/* low first: XON must not be armed above a stale high mark */
	wr32(priv, I82574_FCRTL, low | (high ? I82574_FCRTL_XONE : 0));
	wr32(priv, I82574_FCRTH, high);
}

/* FLOW_CTRL_RX/TX of the request */
static u8 i82574_fc_request(const struct i82574_link_cfg *link)
{
	return (link->fc_rx ? FLOW_CTRL_RX : 0) |
	       (link->fc_tx ? FLOW_CTRL_TX : 0);
}

/* Both ends' pause bits resolved as IEEE 802.3 Annex 28B says. A receive
 * only request advertises PAUSE and ASM_DIR, which a symmetric partner
 * resolves to pause both ways: the partner may then send PAUSE frames,
 * but this end still sends none, so the result is limited to the request.
 */
static u8 i82574_fc_negotiated(struct i82574_dev *priv)
{
	u16 adv, lpa, stat1000;

	if (i82574_phy_read_aneg(priv, &adv, &lpa, &stat1000))
		return 0;
	return mii_resolve_flowctrl_fdx(adv, lpa) &
	       i82574_fc_request(&priv->link);
}

/* What the link in @status uses: no pause at half duplex or without link;
 * the negotiated result with autonegotiation of the link and of pause;
 * the request otherwise.
 */
static u8 i82574_fc_resolve(struct i82574_dev *priv, u32 status)
{
	const struct i82574_link_cfg *link = &priv->link;

	if (!(status & I82574_STATUS_LU) || !(status & I82574_STATUS_FD))
		return 0;
	if (link->autoneg && link->fc_autoneg)
		return i82574_fc_negotiated(priv);
	return i82574_fc_request(link);
}

/**
 * i82574_fc_update - set CTRL.RFCE/TFCE for the link as it is now
 * @priv: device
 *
 * Call at link up, and when the request or the link settings change.
 * Takes link_lock; sleeps (PHY access).
 */
void i82574_fc_update(struct i82574_dev *priv)
{
	u32 status = rd32(priv, I82574_STATUS);
	u8 fc;

	mutex_lock(&priv->link_lock);
	fc = i82574_fc_resolve(priv, status);
	rmw32(priv, I82574_CTRL, I82574_CTRL_RFCE | I82574_CTRL_TFCE,
	      (fc & FLOW_CTRL_RX ? I82574_CTRL_RFCE : 0) |
	      (fc & FLOW_CTRL_TX ? I82574_CTRL_TFCE : 0));
	mutex_unlock(&priv->link_lock);
	netdev_dbg(priv->netdev, "flow control: rx %s, tx %s\n",
		   str_on_off(fc & FLOW_CTRL_RX), str_on_off(fc & FLOW_CTRL_TX));
}
