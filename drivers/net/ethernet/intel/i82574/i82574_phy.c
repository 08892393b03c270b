// SPDX-License-Identifier: GPL-2.0
/*
 * The 82574L's internal PHY (e1000e's "BM" PHY), reached through MDIC, and
 * the MDIO/NVM hardware semaphore shared with the manageability firmware
 * (EXTCNF_CTRL.MDIO_SW_OWNERSHIP), which the NVM code takes too. Every PHY
 * access holds it, and taking it sleeps: the PHY is used from process
 * context only (probe, ndo_open, ndo_stop, ethtool, the service work,
 * shutdown).
 */

#include <linux/delay.h>
#include <linux/error-injection.h>
#include <linux/iopoll.h>
#include <linux/mii.h>

#include "i82574.h"

#define I82574_HW_SEM_POLL_US		2000
#define I82574_HW_SEM_TIMEOUT_US	40000
/* Two saturated readings in a row mean a hung PHY */
#define I82574_PHY_HANG_READINGS	2

static bool i82574_claim_mdio_ownership(struct i82574_dev *priv)
{
	rmw32(priv, I82574_EXTCNF_CTRL, 0, I82574_EXTCNF_CTRL_MDIO_SW_OWNERSHIP);
	return rd32(priv, I82574_EXTCNF_CTRL) &
	       I82574_EXTCNF_CTRL_MDIO_SW_OWNERSHIP;
}

/**
 * i82574_drop_mdio_ownership - clear EXTCNF_CTRL.MDIO_SW_OWNERSHIP
 * @priv: device, hw_sem_lock held
 */
void i82574_drop_mdio_ownership(struct i82574_dev *priv)
{
	rmw32(priv, I82574_EXTCNF_CTRL, I82574_EXTCNF_CTRL_MDIO_SW_OWNERSHIP, 0);
}

/**
 * i82574_wait_mdio_ownership - set EXTCNF_CTRL.MDIO_SW_OWNERSHIP
 * @priv: device, hw_sem_lock held
 *
 * The bit sticks only when the firmware does not own MDIO. For the few
 * that must hold hw_sem_lock whether or not the firmware lets go (a MAC
 * reset); everyone else calls i82574_hw_sem_take().
 *
 * Return: 0 with MDIO owned, or -EBUSY with it not (and the bit clear).
 */
int i82574_wait_mdio_ownership(struct i82574_dev *priv)
{
	bool owned;
	int err;

	lockdep_assert_held(&priv->hw_sem_lock);
	err = read_poll_timeout(i82574_claim_mdio_ownership, owned, owned,
				I82574_HW_SEM_POLL_US, I82574_HW_SEM_TIMEOUT_US,
				false, priv);
	if (!err)
		return 0;
	i82574_drop_mdio_ownership(priv);
	dev_err_ratelimited(&priv->pdev->dev,
			    "firmware holds the PHY/NVM semaphore (EXTCNF_CTRL %#x)\n",
			    rd32(priv, I82574_EXTCNF_CTRL));
	return -EBUSY;
}

/**
 * i82574_hw_sem_take - take the MDIO/NVM semaphore shared with firmware
 * @priv: device
 *
 * Serializes the driver's own users with a mutex, then sets
 * EXTCNF_CTRL.MDIO_SW_OWNERSHIP until it reads back set. Sleeps: process
 * context only.
 *
 * Return: 0 with the semaphore held, or -EBUSY if the firmware kept it.
 */
int i82574_hw_sem_take(struct i82574_dev *priv)
{
	int err;

	mutex_lock(&priv->hw_sem_lock);
	err = i82574_wait_mdio_ownership(priv);
	if (err)
		mutex_unlock(&priv->hw_sem_lock);
	return err;
}

/**
 * i82574_hw_sem_release - give back what i82574_hw_sem_take() took
 * @priv: device
 */
void i82574_hw_sem_release(struct i82574_dev *priv)
{
	i82574_drop_mdio_ownership(priv);
	mutex_unlock(&priv->hw_sem_lock);
}

/**
 * i82574_phy_reset_blocked - does manageability forbid PHY resets?
 * @priv: device
 *
 * Return: true while MANC.BLK_PHY_RST_ON_IDE is set (a SOL or IDE-R
 * session owns the link).
 */
bool i82574_phy_reset_blocked(struct i82574_dev *priv)
{
	return rd32(priv, I82574_MANC) & I82574_MANC_BLK_PHY_RST_ON_IDE;
}

static int i82574_mdic(struct i82574_dev *priv, u32 op, u32 reg, u16 *val)
{
	u32 v;
	int err;

	lockdep_assert_held(&priv->hw_sem_lock);
	wr32(priv, I82574_MDIC, FIELD_PREP(I82574_MDIC_DATA, *val) |
	     FIELD_PREP(I82574_MDIC_REG, reg) |
	     FIELD_PREP(I82574_MDIC_PHY, I82574_PHY_ADDR) |
	     FIELD_PREP(I82574_MDIC_OP, op));
	err = readl_poll_timeout(priv->hw + I82574_MDIC, v,
				 v & I82574_MDIC_READY, 10, 10000);
	if (err)
		return err;
	if ((v & I82574_MDIC_ERROR) || FIELD_GET(I82574_MDIC_REG, v) != reg)
		return -EIO;
	*val = FIELD_GET(I82574_MDIC_DATA, v);
	return 0;
}

/* Registers 16-31 are paged. The driver uses page 0 only and selects it
 * every time, since the firmware may have left another page selected.
 */
static int i82574_mdic_page0(struct i82574_dev *priv, u32 op, u32 reg,
			     u16 *val)
{
	u16 page = 0;
	int err;

	if (reg > I82574_PHY_LAST_UNPAGED) {
		err = i82574_mdic(priv, I82574_MDIC_OP_WRITE,
				  I82574_PHY_PAGE_SELECT, &page);
		if (err)
			return err;
	}
	return i82574_mdic(priv, op, reg, val);
}

static int i82574_phy_read(struct i82574_dev *priv, u32 reg, u16 *val)
{
	int err;

	*val = 0;
	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = i82574_mdic_page0(priv, I82574_MDIC_OP_READ, reg, val);
	i82574_hw_sem_release(priv);
	return err;
}

static int i82574_phy_write(struct i82574_dev *priv, u32 reg, u16 val)
{
	int err;

	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = i82574_mdic_page0(priv, I82574_MDIC_OP_WRITE, reg, &val);
	i82574_hw_sem_release(priv);
	return err;
}

/* Read-modify-write under one hold of the semaphore */
static int i82574_phy_modify(struct i82574_dev *priv, u32 reg, u16 clear,
			     u16 set)
{
	u16 val = 0;
	int err;

	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = i82574_mdic_page0(priv, I82574_MDIC_OP_READ, reg, &val);
	if (!err) {
		val = (val & ~clear) | set;
		err = i82574_mdic_page0(priv, I82574_MDIC_OP_WRITE, reg, &val);
	}
	i82574_hw_sem_release(priv);
	return err;
}

/* CTRL.PHY_RST with the timing of e1000e_phy_hw_reset_generic(): 100 us
 * asserted, 150-300 us to come out of it, then 10 ms for the PHY to load
 * its configuration.
 */
static int i82574_phy_hw_reset(struct i82574_dev *priv)
{
	u32 ctrl;
	int err;

	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	ctrl = rd32(priv, I82574_CTRL);
	wr32(priv, I82574_CTRL, ctrl | I82574_CTRL_PHY_RST);
	wrfl(priv);
	usleep_range(100, 150);
	wr32(priv, I82574_CTRL, ctrl);
	wrfl(priv);
	usleep_range(150, 300);
	i82574_hw_sem_release(priv);
	usleep_range(10000, 11000);
	return 0;
}

/* BMCR.RESET makes PSCR changes take effect (e1000e's "commit") */
static int i82574_phy_soft_reset(struct i82574_dev *priv)
{
	int err = i82574_phy_modify(priv, MII_BMCR, 0, BMCR_RESET);

	udelay(1);
	return err;
}

static int i82574_phy_read_id(struct i82574_dev *priv)
{
	u16 id1, id2;
	int err;

	err = i82574_phy_read(priv, MII_PHYSID1, &id1);
	if (err)
		return err;
	/* e1000e pauses between the two halves on this part */
	usleep_range(20, 40);
	err = i82574_phy_read(priv, MII_PHYSID2, &id2);
	if (err)
		return err;
	priv->phy_id = (u32)id1 << 16 | id2;
	if (priv->phy_id != I82574_PHY_ID)
		dev_warn(&priv->pdev->dev,
			 "unexpected PHY ID %#010x, not tuning it\n",
			 priv->phy_id);
	return 0;
}

/* What e1000e_copper_link_setup_m88() adds for this PHY revision: downshift
 * cleared, a soft reset, downshift set again, and 3 then 0 written to
 * registers 29 and 30, which neither e1000e nor the datasheet names.
 */
static int i82574_phy_tune_rev2(struct i82574_dev *priv)
{
	int err;

	err = i82574_phy_soft_reset(priv);
	if (err)
		return err;
	err = i82574_phy_modify(priv, I82574_PHY_PSCR, 0,
				I82574_PSCR_DOWNSHIFT);
	if (err)
		return err;
	err = i82574_phy_write(priv, I82574_PHY_REG29, 0x0003);
	if (err)
		return err;
	return i82574_phy_write(priv, I82574_PHY_REG30, 0x0000);
}

/* Automatic MDI/MDI-X and polarity correction, then the revision tuning;
 * a final soft reset applies it all.
 */
static int i82574_phy_setup_pscr(struct i82574_dev *priv)
{
	int err;

	err = i82574_phy_modify(priv, I82574_PHY_PSCR,
				I82574_PSCR_MDIX | I82574_PSCR_POLARITY_REVERSAL |
				I82574_PSCR_DOWNSHIFT,
				FIELD_PREP(I82574_PSCR_MDIX,
					   I82574_PSCR_MDIX_AUTO));
	if (err)
		return err;
	if (priv->phy_id == I82574_PHY_ID) {
		err = i82574_phy_tune_rev2(priv);
		if (err)
			return err;
	}
	return i82574_phy_soft_reset(priv);
}

/* Low power link up in D0 off, through the MAC's POEMB register as
 * e1000e_set_d0_lplu_state_82574() does; and the PHY's smart power down
 * off, which e1000e_reset() does for this part (FLAG_HAS_SMART_POWER_DOWN)
 * to shorten the time to link.
 */
static int i82574_phy_disable_power_saving(struct i82574_dev *priv)
{
	rmw32(priv, I82574_POEMB, I82574_POEMB_D0A_LPLU, 0);
	return i82574_phy_modify(priv, I82574_PHY_POWER_MGMT,
				 I82574_PHY_POWER_MGMT_SPD, 0);
}

/* The pause bits for the flow control request (IEEE 802.3 Annex 28B):
 * PAUSE for both directions, PAUSE and ASM_DIR for receive only, ASM_DIR
 * alone for transmit only.
 */
static u16 i82574_pause_adv(const struct i82574_link_cfg *link)
{
	return mii_advertise_flowctrl((link->fc_rx ? FLOW_CTRL_RX : 0) |
				      (link->fc_tx ? FLOW_CTRL_TX : 0));
}

/* The speeds and pause bits of priv->link; 1000/half is never offered */
static int i82574_phy_advertise(struct i82574_dev *priv)
{
	const struct i82574_link_cfg *link = &priv->link;
	int err;

	err = i82574_phy_modify(priv, MII_ADVERTISE, ADVERTISE_ALL |
				ADVERTISE_PAUSE_CAP | ADVERTISE_PAUSE_ASYM,
				linkmode_adv_to_mii_adv_t(link->advertising) |
				i82574_pause_adv(link));
	if (err)
		return err;
	return i82574_phy_modify(priv, MII_CTRL1000,
				 ADVERTISE_1000HALF | ADVERTISE_1000FULL,
				 linkmode_adv_to_mii_ctrl1000_t(link->advertising) &
				 ADVERTISE_1000FULL);
}

/**
 * i82574_phy_setup - apply the PHY settings e1000e uses on the 82574
 * @priv: device
 *
 * MDI/MDI-X, polarity correction and downshift (with a PHY soft reset),
 * LPLU in D0 and smart power down off, and the autonegotiation
 * advertisement of priv->link. Neither powers the PHY up nor restarts
 * autonegotiation. Nothing while manageability blocks PHY resets: the
 * link is the BMC's (e1000e skips its link setup then). Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_setup(struct i82574_dev *priv)
{
	int err;

	if (i82574_phy_reset_blocked(priv))
		return 0;

	err = i82574_phy_setup_pscr(priv);
	if (err)
		return err;
	err = i82574_phy_disable_power_saving(priv);
	if (err)
		return err;
	return i82574_phy_advertise(priv);
}

/**
 * i82574_phy_init - reset, identify and set up the PHY at probe
 * @priv: device, its MAC just reset
 *
 * Resets the PHY through CTRL.PHY_RST unless manageability blocks PHY
 * resets, reads its ID, then calls i82574_phy_setup(). Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_init(struct i82574_dev *priv)
{
	int err;

	if (i82574_phy_reset_blocked(priv)) {
		dev_info(&priv->pdev->dev,
			 "PHY reset blocked by a manageability session\n");
	} else {
		err = i82574_phy_hw_reset(priv);
		if (err)
			return err;
	}
	err = i82574_phy_read_id(priv);
	if (err)
		return err;
	return i82574_phy_setup(priv);
}

/**
 * i82574_phy_restart_aneg - (re)start autonegotiation
 * @priv: device
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_restart_aneg(struct i82574_dev *priv)
{
	return i82574_phy_modify(priv, MII_BMCR, 0,
				 BMCR_ANENABLE | BMCR_ANRESTART);
}

/* PSCR's crossover mode; a change needs a soft reset to take effect */
static int i82574_phy_set_mdix(struct i82574_dev *priv, u16 mode)
{
	u16 pscr;
	int err;

	err = i82574_phy_read(priv, I82574_PHY_PSCR, &pscr);
	if (err || FIELD_GET(I82574_PSCR_MDIX, pscr) == mode)
		return err;
	err = i82574_phy_modify(priv, I82574_PHY_PSCR, I82574_PSCR_MDIX,
				FIELD_PREP(I82574_PSCR_MDIX, mode));
	if (err)
		return err;
	return i82574_phy_soft_reset(priv);
}

/* Autonegotiation with automatic crossover, offering priv->link */
static int i82574_phy_autoneg(struct i82574_dev *priv)
{
	int err;

	err = i82574_phy_set_mdix(priv, I82574_PSCR_MDIX_AUTO);
	if (err)
		return err;
	err = i82574_phy_advertise(priv);
	if (err)
		return err;
	return i82574_phy_modify(priv, MII_BMCR, BMCR_SPEED100 |
				 BMCR_SPEED1000 | BMCR_FULLDPLX,
				 BMCR_ANENABLE | BMCR_ANRESTART);
}

/* Forced speed and duplex. This PHY cannot resolve crossover without
 * autonegotiation, so MDI is forced too (as e1000e does for the M88
 * family), and a soft reset commits the new BMCR.
 */
static int i82574_phy_force(struct i82574_dev *priv)
{
	const struct i82574_link_cfg *link = &priv->link;
	u16 bmcr = 0;
	int err;

	if (link->speed == SPEED_100)
		bmcr |= BMCR_SPEED100;
	if (link->duplex == DUPLEX_FULL)
		bmcr |= BMCR_FULLDPLX;
	err = i82574_phy_set_mdix(priv, I82574_PSCR_MDIX_MDI);
	if (err)
		return err;
	err = i82574_phy_modify(priv, MII_BMCR, BMCR_ANENABLE |
				BMCR_ANRESTART | BMCR_SPEED100 |
				BMCR_SPEED1000 | BMCR_FULLDPLX, bmcr);
	if (err)
		return err;
	return i82574_phy_soft_reset(priv);
}

/**
 * i82574_phy_config_link - program the PHY for priv->link
 * @priv: device, under RTNL
 *
 * With autonegotiation: the advertisement (speeds and pause), then a
 * restart. Without: the forced speed and duplex in BMCR. The MAC's side of
 * a forced link is i82574_mac_config_link(). Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_config_link(struct i82574_dev *priv)
{
	if (priv->link.autoneg)
		return i82574_phy_autoneg(priv);
	return i82574_phy_force(priv);
}

/**
 * i82574_phy_read_aneg - read both ends' autonegotiation words
 * @priv: device
 * @adv: MII_ADVERTISE
 * @lpa: MII_LPA, the partner's base page
 * @stat1000: MII_STAT1000, with the partner's 1000BASE-T abilities
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_read_aneg(struct i82574_dev *priv, u16 *adv, u16 *lpa,
			 u16 *stat1000)
{
	int err;

	err = i82574_phy_read(priv, MII_ADVERTISE, adv);
	if (err)
		return err;
	err = i82574_phy_read(priv, MII_LPA, lpa);
	if (err)
		return err;
	return i82574_phy_read(priv, MII_STAT1000, stat1000);
}

/**
 * i82574_phy_start - power the PHY up and bring up its link
 * @priv: device, under RTNL
 *
 * Clears BMCR_PDOWN, which e1000e sets when it lets go of the device, so a
 * PHY handed over by e1000e links again; then i82574_phy_config_link(),
 * unless manageability blocks PHY resets: a SOL or IDE-R session keeps
 * the link it has. Sleeps.
 *
 * Return: 0 or a negative errno from the PHY access.
 */
int i82574_phy_start(struct i82574_dev *priv)
{
	int err;

	err = i82574_phy_modify(priv, MII_BMCR, BMCR_PDOWN, 0);
	if (err || i82574_phy_reset_blocked(priv))
		return err;
	return i82574_phy_config_link(priv);
}

/**
 * i82574_wake_armed - is a wake-up armed that needs the PHY?
 * @priv: device
 *
 * The driver offers no Wake-on-LAN of its own; this reports APM wake-up
 * (WUC.APME, loaded from the NVM) or PME enabled by someone else.
 *
 * Return: true if WUC.APME or WUC.PME_EN is set.
 */
static bool i82574_wake_armed(struct i82574_dev *priv)
{
	return rd32(priv, I82574_WUC) & (I82574_WUC_APME | I82574_WUC_PME_EN);
}

/**
 * i82574_phy_power_down - power the PHY down unless its link is needed
 * @priv: device
 *
 * The PHY stays powered while a wake-up is armed, the NVM enables
 * manageability, or manageability blocks PHY resets (e1000e's
 * e1000_power_down_phy_copper_82571() checks the last two). Sleeps.
 */
void i82574_phy_power_down(struct i82574_dev *priv)
{
	if (i82574_wake_armed(priv) || priv->mng_enabled ||
	    i82574_phy_reset_blocked(priv))
		return;
	if (!i82574_phy_modify(priv, MII_BMCR, 0, BMCR_PDOWN))
		usleep_range(1000, 2000);
}

/* e1000e's FLAG2_CHECK_PHY_HANG test (e1000_check_phy_82574()): a hung PHY
 * has saturated both its receive error counter and the idle error count of
 * the 1000BASE-T status register. Open to error injection (fail_function),
 * which is how a hang is tested: an emulated PHY's counters stay at 0.
 */
static noinline bool i82574_phy_counters_saturated(struct i82574_dev *priv)
{
	u16 rx_errs, stat1000;

	if (i82574_phy_read(priv, I82574_PHY_RX_ERR_CNT, &rx_errs) ||
	    rx_errs != I82574_PHY_RX_ERR_CNT_MAX)
		return false;
	if (i82574_phy_read(priv, MII_STAT1000, &stat1000))
		return false;
	return FIELD_GET(I82574_STAT1000_IDLE_ERR, stat1000) ==
	       FIELD_MAX(I82574_STAT1000_IDLE_ERR);
}
ALLOW_ERROR_INJECTION(i82574_phy_counters_saturated, TRUE);

/**
 * i82574_phy_hung - one periodic PHY hang check, for the service work
 * @priv: device, interface up
 *
 * Counts consecutive readings of saturated PHY error counters; like
 * e1000e_check_82574_phy_workaround(), reports a hang on the second one
 * in a row and starts counting again. Call from the service work only,
 * which owns the count. Sleeps.
 *
 * Return: true if the device should be reset.
 */
bool i82574_phy_hung(struct i82574_dev *priv)
{
	if (!i82574_phy_counters_saturated(priv)) {
		priv->phy_hang_count = 0;
		return false;
	}
	if (++priv->phy_hang_count < I82574_PHY_HANG_READINGS)
		return false;
	priv->phy_hang_count = 0;
	return true;
}
