// SPDX-License-Identifier: GPL-2.0
/*
 * VLAN offloads of the 82574L and the features ethtool -K switches at run
 * time, without a reset (so without a link drop):
 *
 * - CTRL.VME strips the tag of received 802.1Q frames into the
 *   descriptor (status VP) and enables tag insertion (TX CMD.VLE). The chip
 *   has one bit for both, so it follows rx-vlan-offload; with that off, a
 *   tag the stack leaves to the hardware is pushed into the frame in
 *   software before it is mapped (i82574_xmit_frame()).
 * - RCTL.VFE drops tagged frames whose VID has no bit in the VFTA (untagged
 *   frames pass). It follows rx-vlan-filter and is off in promiscuous mode,
 *   where the stack expects every VLAN. VID 0 (priority tags) always passes.
 * - RXCSUM's IP and TCP/UDP offload bits follow rxcsum; PCSD stays, for RSS.
 *
 * The register values themselves are i82574_mac.c's, which programs them
 * after every reset.
 */

#include <linux/if_vlan.h>

#include "i82574.h"

static void i82574_vfta_update(struct i82574_dev *priv, u16 vid, bool on)
{
	u32 *word = &priv->vfta[vid / 32];

	if (on)
		*word |= BIT(vid % 32);
	else
		*word &= ~BIT(vid % 32);
	/* a device that is down may be asleep: i82574_up() writes it all */
	if (priv->up)
		wr32(priv, I82574_VFTA(vid / 32), *word);
}

int i82574_vlan_rx_add_vid(struct net_device *netdev, __be16 proto, u16 vid)
{
	i82574_vfta_update(netdev_priv(netdev), vid, true);
	return 0;
}

int i82574_vlan_rx_kill_vid(struct net_device *netdev, __be16 proto, u16 vid)
{
	if (vid)
		i82574_vfta_update(netdev_priv(netdev), vid, false);
	return 0;
}

int i82574_set_features(struct net_device *netdev, netdev_features_t features)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	netdev_features_t changed = netdev->features ^ features;

	/* the core updates netdev->features after this, then pushes the
	 * VIDs of the VLAN devices when the filter comes on, so that one
	 * added meanwhile is in the VFTA too
	 */
	netif_addr_lock_bh(netdev);
	priv->vlan_filter = features & NETIF_F_HW_VLAN_CTAG_FILTER;
	if (priv->up && (changed & NETIF_F_HW_VLAN_CTAG_FILTER))
		i82574_write_rctl(priv);
	netif_addr_unlock_bh(netdev);
	if (!priv->up)
		return 0;
	if (changed & NETIF_F_HW_VLAN_CTAG_RX)
		i82574_write_vme(priv, features);
	if (changed & NETIF_F_RXCSUM)
		wr32(priv, I82574_RXCSUM, i82574_rxcsum(features));
	return 0;
}

/**
 * i82574_vlan_setup - VLAN features of a new netdev, VID 0 in the filter
 * @netdev: the netdev, not registered yet
 */
void i82574_vlan_setup(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	netdev->hw_features |= NETIF_F_HW_VLAN_CTAG_RX |
			       NETIF_F_HW_VLAN_CTAG_TX |
			       NETIF_F_HW_VLAN_CTAG_FILTER;
	netdev->features |= netdev->hw_features;
	priv->vlan_filter = true;
	priv->vfta[0] = BIT(0);
}
