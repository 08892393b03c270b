// SPDX-License-Identifier: GPL-2.0
/*
 * A module that declares a GPL-incompatible licence and uses only the
 * queue-start inlines that nearly every driver calls. It must link against
 * the patched kernel as it links against 6.12: the series may add
 * GPL-only exports for drivers that opt in, never to those inlines.
 * Built by harness/nongpl.sh, never loaded.
 */
#include <linux/module.h>
#include <linux/netdevice.h>

/* never called: only the references the inlines emit matter */
void nongpl_start_queues(struct net_device *dev)
{
	netif_tx_start_queue(netdev_get_tx_queue(dev, 0));
	netif_start_queue(dev);
	netif_tx_start_all_queues(dev);
}
EXPORT_SYMBOL(nongpl_start_queues);

MODULE_DESCRIPTION("non-GPL user of the netif_*start_queue() inlines");
MODULE_LICENSE("Proprietary");
