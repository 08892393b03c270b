// SPDX-License-Identifier: GPL-2.0
/*
 * Power management of the 82574L: system sleep, runtime PM with the
 * interface down, shutdown, and the MAC's wake-up unit (Wake-on-LAN).
 *
 * The interface holds a runtime PM reference while it is up, so runtime
 * suspend only ever finds the rings stopped. Neither runtime callback takes
 * RTNL: the ethtool core resumes the device with RTNL held.
 */

#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>

#include "i82574.h"

#define I82574_AUTOSUSPEND_MS	500

/**
 * i82574_pm_stop - stop the interface for sleep, power-off or a PCIe error
 * @priv: device
 *
 * Detached first, so that neither the stack nor the service work touches
 * the hardware again until i82574_pm_restart(); the rings are emptied as
 * for a reset, the vectors and the interface's settings stay.
 */
void i82574_pm_stop(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;

	rtnl_lock();
	netif_device_detach(netdev);
	if (netif_running(netdev)) {
		i82574_down(priv);
		netif_carrier_off(netdev);
	}
	rtnl_unlock();
	/* the work stops rescheduling itself once the device is detached */
	cancel_delayed_work_sync(&priv->service_task);
}

/* The receive side of the wake-up unit: the filters it matches against
 * (RAR, MTA, RCTL), with no descriptor ring the MAC could write to.
 */
static void i82574_wake_rx_filters(struct i82574_dev *priv, u32 wufc)
{
	struct net_device *netdev = priv->netdev;
	u32 rctl;
	int q;

	for (q = 0; q < I82574_MAX_QP; q++) {
		wr32(priv, I82574_RDLEN(q), 0);
		wr32(priv, I82574_RDH(q), 0);
		wr32(priv, I82574_RDT(q), 0);
	}
	i82574_write_rar(priv, 0, netdev->dev_addr);
	netif_addr_lock_bh(netdev);
	i82574_set_rx_mode(netdev);
	netif_addr_unlock_bh(netdev);
	/* "m" wakes on any multicast frame, as e1000e does it */
	rctl = rd32(priv, I82574_RCTL) | I82574_RCTL_EN;
	if (wufc & I82574_WUFC_MC)
		rctl |= I82574_RCTL_MPE;
	wr32(priv, I82574_RCTL, rctl);
}

/* A wake-up needs a link: the PHY was powered down if the interface was
 * (e1000e powers it up when arming too)
 */
static void i82574_wake_phy_up(struct i82574_dev *priv)
{
	int err;

	rtnl_lock();
	err = i82574_phy_start(priv);
	rtnl_unlock();
	if (err)
		netdev_err(priv->netdev, "PHY power-up for wake-up failed: %pe\n",
			   ERR_PTR(err));
}

/* Program the wake-up unit with the filters @wufc, or turn it off (0).
 * PME through the PCI PM capability where the function has one; APM
 * wake-up (the WAKE# pin) otherwise.
 */
static void i82574_arm_wake(struct i82574_dev *priv, u32 wufc)
{
	u32 wuc = I82574_WUC_PME_EN;

	if (!wufc) {
		wr32(priv, I82574_WUFC, 0);
		wr32(priv, I82574_WUC, 0);
		return;
	}
	i82574_wake_rx_filters(priv, wufc);
	/* the MAC's side of the link, which the MAC reset of close cleared */
	i82574_mac_config_link(priv);
	rmw32(priv, I82574_CTRL, 0,
	      I82574_CTRL_ADVD3WUC | I82574_CTRL_EN_PHY_PWR_MGMT);
	i82574_wake_phy_up(priv);
	if (!priv->pdev->pme_support)
		wuc |= I82574_WUC_APME;
	wr32(priv, I82574_WUFC, wufc);
	wr32(priv, I82574_WUC, wuc);
}

/* Quiesced, wake-up armed if WoL is on and allowed, PHY powered down
 * unless the wake-up needs it, firmware told the driver let go.
 * Return: whether a wake-up is armed.
 */
static bool i82574_pm_quiesce(struct i82574_dev *priv)
{
	struct device *dev = &priv->pdev->dev;
	u32 wufc = device_may_wakeup(dev) ? priv->wol : 0;

	i82574_pm_stop(priv);
	i82574_hw_quiesce(priv);
	i82574_arm_wake(priv, wufc);
	i82574_phy_power_down(priv);
	i82574_set_drv_load(priv, false);
	pci_clear_master(priv->pdev);
	return wufc;
}

/* After D3 the MAC and PHY may have lost their settings: reset both as
 * probe does, keeping the MAC address the stack holds. The wake-up unit
 * is turned off and its status cleared first.
 */
static int i82574_pm_reinit(struct i82574_dev *priv)
{
	int err;

	i82574_arm_wake(priv, 0);
	wr32(priv, I82574_WUS, ~0u);
	err = i82574_hw_reset(priv);
	if (!err)
		err = i82574_phy_init(priv);
	i82574_phy_power_down(priv);
	i82574_set_drv_load(priv, false);
	return err;
}

/**
 * i82574_pm_restart - reset the device and restart the interface
 * @priv: device, detached (after a suspend or a PCIe error), its PCI state
 *	  restored
 *
 * Brings back what i82574_pm_quiesce() or the error handler stopped:
 * MAC and PHY reset as at probe, the rings and the PHY up again if the
 * interface is running, then the interface attached and the service work
 * started. A failed reset is logged and the interface restarted all the
 * same, as a TX timeout reset does.
 */
void i82574_pm_restart(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	int err;

	pci_set_master(priv->pdev);
	err = i82574_pm_reinit(priv);
	if (err)
		netdev_err(netdev, "reset at resume failed: %pe\n",
			   ERR_PTR(err));
	rtnl_lock();
	if (netif_running(netdev)) {
		i82574_set_drv_load(priv, true);
		err = i82574_phy_start(priv);
		if (err)
			netdev_err(netdev, "PHY start at resume failed: %pe\n",
				   ERR_PTR(err));
		i82574_up(priv);
	}
	netif_device_attach(netdev);
	rtnl_unlock();
	schedule_delayed_work(&priv->service_task, I82574_SERVICE_PERIOD);
}

static int i82574_pm_suspend(struct device *dev)
{
	struct i82574_dev *priv = dev_get_drvdata(dev);
	bool wake = i82574_pm_quiesce(priv);

	netdev_dbg(priv->netdev, "suspended, wake-up %s\n",
		   wake ? "armed" : "off");
	return 0;
}

static int i82574_pm_resume(struct device *dev)
{
	/* firmware may have turned ASPM on again at S3 resume */
	i82574_clear_aspm(to_pci_dev(dev));
	i82574_pm_restart(dev_get_drvdata(dev));
	return 0;
}

/* Only reached with the interface down: ndo_open holds a reference. No
 * wake-up: nothing waits for a frame or a link.
 */
static int i82574_pm_runtime_suspend(struct device *dev)
{
	struct i82574_dev *priv = dev_get_drvdata(dev);

	i82574_hw_quiesce(priv);
	i82574_arm_wake(priv, 0);
	i82574_phy_power_down(priv);
	i82574_set_drv_load(priv, false);
	return 0;
}

static int i82574_pm_runtime_resume(struct device *dev)
{
	struct i82574_dev *priv = dev_get_drvdata(dev);
	int err;

	i82574_clear_aspm(priv->pdev);
	err = i82574_pm_reinit(priv);
	if (err)
		dev_err(dev, "reset at runtime resume failed: %pe\n",
			ERR_PTR(err));
	return err;
}

_DEFINE_DEV_PM_OPS(i82574_pm_ops, i82574_pm_suspend, i82574_pm_resume,
		   i82574_pm_runtime_suspend, i82574_pm_runtime_resume, NULL);

/**
 * i82574_shutdown - stop the device at reboot or power-off
 * @pdev: PCI device
 *
 * Arms Wake-on-LAN as system suspend does and, at power-off, puts the
 * device in D3hot with PME enabled if a wake-up is armed.
 */
void i82574_shutdown(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);
	bool wake = i82574_pm_quiesce(priv);

	if (system_state == SYSTEM_POWER_OFF) {
		pci_wake_from_d3(pdev, wake);
		pci_set_power_state(pdev, PCI_D3hot);
	}
}

/**
 * i82574_pm_init - runtime PM and wake-up setup at the end of probe
 * @priv: device, registered
 *
 * The wake-up unit can wake the system through PME or the WAKE# pin, so
 * the device is wake-up capable even where the PCI function lacks PME.
 * Drops the reference the PCI core holds across probe: from here the
 * device may runtime suspend while its interface is down (if user space
 * allows it through power/control). Callbacks always run at system sleep,
 * even for a runtime-suspended device, to arm the wake-up.
 */
void i82574_pm_init(struct i82574_dev *priv)
{
	struct device *dev = &priv->pdev->dev;

	device_set_wakeup_capable(dev, true);
	/* on if the NVM enables APM wake-up, as e1000e has it */
	device_set_wakeup_enable(dev, priv->wol);
	dev_pm_set_driver_flags(dev, DPM_FLAG_NO_DIRECT_COMPLETE);
	pm_runtime_set_autosuspend_delay(dev, I82574_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(dev);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
}

/**
 * i82574_pm_exit - undo i82574_pm_init() at remove
 * @priv: device, still registered; the PCI core keeps it active
 *
 * The wake-up capability goes back to what the PCI core found (PME), so
 * that the next driver (e1000e) does not take it for a PME it lacks.
 */
void i82574_pm_exit(struct i82574_dev *priv)
{
	struct device *dev = &priv->pdev->dev;

	pm_runtime_get_noresume(dev);
	pm_runtime_dont_use_autosuspend(dev);
	device_set_wakeup_enable(dev, false);
	device_set_wakeup_capable(dev, priv->pdev->pme_support);
}
