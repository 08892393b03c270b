// SPDX-License-Identifier: GPL-2.0
/*
 * ASPM L0s and L1 stay off on the 82574's link. e1000e_82574_info carries
 * FLAG2_DISABLE_ASPM_L0S and _L1, and e1000e's GCR2 erratum comment names
 * unreliable PCIe completions, "particularly with ASPM enabled", as a cause
 * of this part's TX hangs ("Detected Hardware Unit Hang").
 *
 * At probe the PCI core is asked, so that no later policy change turns the
 * states on. It cannot act where firmware kept ASPM control (as after
 * pcie_aspm=off) or without CONFIG_PCIEASPM, and its view goes stale when
 * firmware turns ASPM on again behind it (at S3 resume). So at probe, at
 * every resume and after a slot reset both ends' Link Control registers are
 * written with L0s and L1 clear, downstream first, as e1000e does when it
 * finds them set. They are written even when they read clear: one config
 * write per end, which QEMU's config trace shows where its model keeps no
 * ASPM enable to read back.
 */

#include <linux/pci.h>

#include "i82574.h"

#define I82574_LNKCTL_ASPM	(PCI_EXP_LNKCTL_ASPM_L0S | PCI_EXP_LNKCTL_ASPM_L1)

/* Link Control's ASPM L0s/L1 enables of @pdev (0 without a PCIe cap) */
static u16 i82574_aspm_enabled(struct pci_dev *pdev)
{
	u16 lnkctl = 0;

	if (!pdev || pcie_capability_read_word(pdev, PCI_EXP_LNKCTL, &lnkctl))
		return 0;
	return lnkctl & I82574_LNKCTL_ASPM;
}

/**
 * i82574_clear_aspm - clear ASPM L0s and L1 in both ends' Link Control
 * @pdev: the 82574
 *
 * For resume and slot reset; takes no lock of the PCI core.
 */
void i82574_clear_aspm(struct pci_dev *pdev)
{
	struct pci_dev *parent = pci_upstream_bridge(pdev);

	if (i82574_aspm_enabled(pdev) || i82574_aspm_enabled(parent))
		pci_info(pdev, "ASPM L0s/L1 found on, turning them off\n");
	pcie_capability_clear_word(pdev, PCI_EXP_LNKCTL, I82574_LNKCTL_ASPM);
	if (parent)
		pcie_capability_clear_word(parent, PCI_EXP_LNKCTL,
					   I82574_LNKCTL_ASPM);
}

/**
 * i82574_disable_aspm - keep ASPM L0s and L1 off on the link, at probe
 * @pdev: the 82574
 */
void i82574_disable_aspm(struct pci_dev *pdev)
{
	/* the core logs it when the OS lacks ASPM control (-EPERM) */
	pci_disable_link_state(pdev, PCIE_LINK_STATE_L0S | PCIE_LINK_STATE_L1);
	i82574_clear_aspm(pdev);
}
