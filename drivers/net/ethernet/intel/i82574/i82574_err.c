// SPDX-License-Identifier: GPL-2.0
/*
 * i82574: PCIe error recovery (AER, and DPC or EEH where the platform has
 * them). The PCI core calls these in turn: error_detected when an
 * uncorrectable error was reported, slot_reset once the link below the
 * port was reset (fatal errors) or right away (non-fatal ones), then resume
 * when every device below the port has recovered. If recovery fails, resume
 * never comes: the interface stays detached with its rings stopped until it
 * is closed or the driver unbound (i82574_down() and remove allow for it).
 */

#include <linux/pci.h>
#include <linux/netdevice.h>

#include "i82574.h"

/* Stop using the device: it may answer no MMIO at all (a fatal error
 * freezes the channel until the link is reset), and the service work's
 * reads would see all-ones.
 */
static pci_ers_result_t i82574_error_detected(struct pci_dev *pdev,
					      pci_channel_state_t state)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);

	netdev_warn(priv->netdev, "PCIe error, channel %s\n",
		    state == pci_channel_io_normal ? "working" :
		    state == pci_channel_io_frozen ? "frozen" : "failed");
	i82574_pm_stop(priv);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	/* still disabled if the last recovery failed in slot_reset */
	if (pci_is_enabled(pdev))
		pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

/* The function was reset (or may have been): bring its PCI state back.
 * The MAC and the PHY are reset in resume, as after a suspend.
 */
static pci_ers_result_t i82574_slot_reset(struct pci_dev *pdev)
{
	int err;

	if (i82574_debugfs_fail_slot_reset(pci_get_drvdata(pdev))) {
		dev_err(&pdev->dev, "debugfs: failing the slot reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot re-enable after reset: %pe\n",
			ERR_PTR(err));
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_set_master(pdev);
	pci_restore_state(pdev);
	/* the reset may have brought ASPM back */
	i82574_clear_aspm(pdev);
	/* restoring consumed the saved state: keep it for the next error */
	pci_save_state(pdev);
	return PCI_ERS_RESULT_RECOVERED;
}

/* Traffic may flow again: reset the device, restart what error_detected
 * stopped, keeping every setting (the MAC address the stack holds too).
 */
static void i82574_error_resume(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);

	i82574_pm_restart(priv);
	netdev_info(priv->netdev, "recovered from the PCIe error\n");
}

const struct pci_error_handlers i82574_err_handler = {
	.error_detected	= i82574_error_detected,
	.slot_reset	= i82574_slot_reset,
	.resume		= i82574_error_resume,
};
