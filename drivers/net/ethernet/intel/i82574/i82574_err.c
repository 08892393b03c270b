// SPDX-License-Identifier: GPL-2.0
/*
 * i82574: PCIe error recovery (AER, and DPC or EEH where the platform has
 * them). The PCI core calls these in turn: error_detected when an
 * uncorrectable error was reported, slot_reset once the link below the
 * port was reset (fatal errors) or right away (non-fatal ones), then resume
 * when every device below the port has recovered.
 */

#include <linux/pci.h>
#include <linux/rtnetlink.h>

#include "i82574.h"

/* Stop using the device: it may answer no MMIO at all (a fatal error
 * freezes the channel until the link is reset). The rings are emptied as
 * for a reset; the vectors and the interface's settings stay.
 */
static pci_ers_result_t i82574_error_detected(struct pci_dev *pdev,
					      pci_channel_state_t state)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);
	struct net_device *netdev = priv->netdev;

	netdev_warn(netdev, "PCIe error, channel %s\n",
		    state == pci_channel_io_normal ? "working" :
		    state == pci_channel_io_frozen ? "frozen" : "failed");
	rtnl_lock();
	netif_device_detach(netdev);
	if (netif_running(netdev))
		i82574_down(priv);
	rtnl_unlock();
	/* the service work reads the MAC counters: none until resume */
	cancel_delayed_work_sync(&priv->service_task);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

/* The function was reset (or may have been): bring its PCI state back,
 * then reset and set up the MAC and the PHY as probe did.
 */
static pci_ers_result_t i82574_slot_reset(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);
	int err;

	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot re-enable after reset: %pe\n",
			ERR_PTR(err));
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_set_master(pdev);
	pci_restore_state(pdev);
	/* restoring consumed the saved state: keep it for the next error */
	pci_save_state(pdev);
	err = i82574_init_hw(priv);
	if (err) {
		dev_err(&pdev->dev, "reset after the error failed: %pe\n",
			ERR_PTR(err));
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_RECOVERED;
}

/* Traffic may flow again: restart what error_detected stopped. */
static void i82574_error_resume(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);
	struct net_device *netdev = priv->netdev;
	int err = 0;

	rtnl_lock();
	if (netif_running(netdev)) {
		i82574_set_drv_load(priv, true);
		err = i82574_phy_start(priv);
		i82574_up(priv);
	}
	netif_device_attach(netdev);
	rtnl_unlock();
	if (err)
		netdev_err(netdev, "PHY start after the error failed: %pe\n",
			   ERR_PTR(err));
	schedule_delayed_work(&priv->service_task, 0);
	netdev_info(netdev, "recovered from the PCIe error\n");
}

const struct pci_error_handlers i82574_err_handler = {
	.error_detected	= i82574_error_detected,
	.slot_reset	= i82574_slot_reset,
	.resume		= i82574_error_resume,
};
