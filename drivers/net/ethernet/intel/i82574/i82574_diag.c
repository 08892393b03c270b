// SPDX-License-Identifier: GPL-2.0
/*
 * Diagnostics of the 82574L: ethtool -t (register, NVM checksum, interrupt,
 * MAC loopback and link tests) and ethtool -p (the LEDs through LEDCTL).
 *
 * Each test result is 0 or a positive errno. The offline tests stop the
 * rings (i82574_down()) and start them again afterwards; on an interface
 * that is down they leave the MAC quiesced.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/unaligned.h>

#include "i82574.h"

enum {
	I82574_TEST_REGS,
	I82574_TEST_NVM,
	I82574_TEST_IRQ,
	I82574_TEST_LOOPBACK,
	I82574_TEST_LINK,
	I82574_TEST_NUM,
};

static const char i82574_test_names[][ETH_GSTRING_LEN] = {
	[I82574_TEST_REGS]	= "Register test  (offline)",
	[I82574_TEST_NVM]	= "NVM checksum   (online)",
	[I82574_TEST_IRQ]	= "Interrupt test (offline)",
	[I82574_TEST_LOOPBACK]	= "Loopback test  (offline)",
	[I82574_TEST_LINK]	= "Link test      (online)",
};

int i82574_test_count(void)
{
	return I82574_TEST_NUM;
}

void i82574_test_strings(u8 *data)
{
	unsigned int i;

	for (i = 0; i < I82574_TEST_NUM; i++)
		ethtool_puts(&data, i82574_test_names[i]);
}

/* Registers no other path writes while the rings are stopped and the
 * service work is held off, with the bits that store a value (e1000e's
 * e1000_reg_test() masks for this part)
 */
static const struct {
	u32 reg;
	u32 mask;
} i82574_test_regs[] = {
	{ I82574_FCAL,		0xffffffff },
	{ I82574_FCAH,		0x0000ffff },
	{ I82574_FCT,		0x0000ffff },
	{ I82574_VET,		0x0000ffff },
	{ I82574_FCTTV,		0x0000ffff },
	{ I82574_FCRTH,		0x0000fff8 },
	{ I82574_RDBAL(0),	0xfffffff0 },
	{ I82574_RDBAH(0),	0xffffffff },
	{ I82574_RDLEN(0),	0x000fff80 },
	{ I82574_RDH(0),	0x0000ffff },
	{ I82574_TDBAL(0),	0xfffffff0 },
	{ I82574_TDBAH(0),	0xffffffff },
	{ I82574_TDLEN(0),	0x000fff80 },
	{ I82574_TIPG,		0x3fffffff },
	{ I82574_MTA(0),	0xffffffff },
	{ I82574_MTA(I82574_MTA_NUM - 1), 0xffffffff },
};

static const u32 i82574_test_patterns[] = {
	0x5a5a5a5a, 0xa5a5a5a5, 0x00000000, 0xffffffff,
};

/* Every pattern written reads back through the mask; the value restored */
static bool i82574_test_reg(struct i82574_dev *priv, u32 reg, u32 mask)
{
	u32 saved = rd32(priv, reg), got = 0, p = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(i82574_test_patterns); i++) {
		p = i82574_test_patterns[i];
		wr32(priv, reg, p);
		got = rd32(priv, reg);
		if ((got ^ p) & mask)
			break;
	}
	wr32(priv, reg, saved);
	if (i == ARRAY_SIZE(i82574_test_patterns))
		return true;
	netdev_err(priv->netdev,
		   "register test: %#x wrote %#010x, read %#010x (mask %#x)\n",
		   reg, p, got, mask);
	return false;
}

static int i82574_run_reg_test(struct i82574_dev *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(i82574_test_regs); i++)
		if (!i82574_test_reg(priv, i82574_test_regs[i].reg,
				     i82574_test_regs[i].mask))
			return -EIO;
	return 0;
}

/* Has an interrupt handler seen LSC since the last check? */
static bool i82574_test_lsc_seen(struct i82574_dev *priv)
{
	return atomic_xchg(&priv->test_icr, 0) & I82574_INT_LSC;
}

/* An LSC set through ICS: masked, no handler sees it; unmasked (with OTHER,
 * its MSI-X cause) one does
 */
static int i82574_run_irq_test(struct i82574_dev *priv)
{
	u32 ims = I82574_INT_LSC | (priv->msix ? I82574_INT_OTHER : 0);
	unsigned int i;

	/* the MAC reset of i82574_down() unrouted it */
	i82574_route_other_irq(priv);
	wr32(priv, I82574_IMC, ~0u);
	wr32(priv, I82574_ICR, ~0u);
	rd32(priv, I82574_ICR);
	atomic_set(&priv->test_icr, 0);
	wr32(priv, I82574_ICS, I82574_INT_LSC);
	msleep(20);
	if (i82574_test_lsc_seen(priv)) {
		netdev_err(priv->netdev, "interrupt test: masked LSC delivered\n");
		return -EIO;
	}
	wr32(priv, I82574_ICR, ~0u);
	wr32(priv, I82574_IMS, ims);
	wr32(priv, I82574_ICS, I82574_INT_LSC);
	for (i = 0; i < 50 && !i82574_test_lsc_seen(priv); i++)
		usleep_range(2000, 4000);
	wr32(priv, I82574_IMC, ~0u);
	if (i < 50)
		return 0;
	netdev_err(priv->netdev, "interrupt test: LSC not delivered\n");
	return -ETIMEDOUT;
}

/* MAC loopback: I82574_LB_FRAMES frames on rings of their own (queue 0's
 * registers), in one coherent block: TX ring, RX ring, TX buffers, RX
 * buffers
 */
#define I82574_LB_DESC		8	/* the smallest ring: 128 bytes */
#define I82574_LB_FRAMES	4
#define I82574_LB_BUF		2048
#define I82574_LB_LEN		128
#define I82574_LB_RING_BYTES	(I82574_LB_DESC * 16)
#define I82574_LB_TXBUF(i)	(2 * I82574_LB_RING_BYTES + (i) * I82574_LB_BUF)
#define I82574_LB_RXBUF(i)	I82574_LB_TXBUF(I82574_LB_DESC + (i))
#define I82574_LB_SIZE		I82574_LB_RXBUF(I82574_LB_DESC)

struct i82574_lb {
	u8 *cpu;
	dma_addr_t dma;
	struct i82574_tx_desc *txd;
	union i82574_rx_desc *rxd;
};

/* A frame to ourselves, IEEE local experimental ethertype, frame @n's
 * pattern
 */
static void i82574_lb_frame(struct i82574_dev *priv, u8 *buf, unsigned int n)
{
	unsigned int i;

	ether_addr_copy(buf, priv->netdev->dev_addr);
	ether_addr_copy(buf + ETH_ALEN, priv->netdev->dev_addr);
	put_unaligned_be16(ETH_P_802_EX1, buf + 2 * ETH_ALEN);
	for (i = ETH_HLEN; i < I82574_LB_LEN; i++)
		buf[i] = (u8)(i + n);
}

static void i82574_lb_rings(struct i82574_dev *priv, struct i82574_lb *lb)
{
	dma_addr_t tx = lb->dma, rx = lb->dma + I82574_LB_RING_BYTES;
	unsigned int i;

	for (i = 0; i < I82574_LB_DESC; i++)
		lb->rxd[i].read.addr = cpu_to_le64(lb->dma + I82574_LB_RXBUF(i));
	wr32(priv, I82574_TDBAL(0), lower_32_bits(tx));
	wr32(priv, I82574_TDBAH(0), upper_32_bits(tx));
	wr32(priv, I82574_TDLEN(0), I82574_LB_RING_BYTES);
	wr32(priv, I82574_TDH(0), 0);
	wr32(priv, I82574_TDT(0), 0);
	rmw32(priv, I82574_TARC(0), 0, I82574_TARC_ENABLE);
	wr32(priv, I82574_RDBAL(0), lower_32_bits(rx));
	wr32(priv, I82574_RDBAH(0), upper_32_bits(rx));
	wr32(priv, I82574_RDLEN(0), I82574_LB_RING_BYTES);
	wr32(priv, I82574_RDH(0), 0);
	wr32(priv, I82574_RDT(0), 0);
}

/* The MAC at 1000 Mb/s full duplex whatever the PHY says, receive in MAC
 * loopback on queue 0 (no RSS) accepting every frame, transmit on
 */
static void i82574_lb_enable(struct i82574_dev *priv)
{
	rmw32(priv, I82574_CTRL, I82574_CTRL_SPEED | I82574_CTRL_ASDE,
	      I82574_CTRL_SLU | I82574_CTRL_FRCSPD | I82574_CTRL_FRCDPX |
	      I82574_CTRL_FD | FIELD_PREP(I82574_CTRL_SPEED, I82574_STATUS_SPEED_1000));
	wr32(priv, I82574_MRQC, 0);
	wr32(priv, I82574_RFCTL, I82574_RFCTL_EXTEN);
	wr32(priv, I82574_RCTL, I82574_RCTL_EN | I82574_RCTL_UPE |
	     I82574_RCTL_MPE | I82574_RCTL_BAM | I82574_RCTL_SECRC |
	     FIELD_PREP(I82574_RCTL_LBM, I82574_RCTL_LBM_MAC));
	wr32(priv, I82574_RDT(0), I82574_LB_DESC - 1);
	wr32(priv, I82574_TCTL, I82574_TCTL_EN | I82574_TCTL_PSP);
}

static void i82574_lb_send(struct i82574_dev *priv, struct i82574_lb *lb)
{
	unsigned int i;

	for (i = 0; i < I82574_LB_FRAMES; i++) {
		i82574_lb_frame(priv, lb->cpu + I82574_LB_TXBUF(i), i);
		lb->txd[i].addr = cpu_to_le64(lb->dma + I82574_LB_TXBUF(i));
		lb->txd[i].lower = cpu_to_le32(I82574_LB_LEN |
					       I82574_TXD_DTYP_DATA |
					       I82574_TXD_CMD_DEXT |
					       I82574_TXD_CMD_EOP |
					       I82574_TXD_CMD_IFCS |
					       I82574_TXD_CMD_RS);
		lb->txd[i].upper = 0;
	}
	dma_wmb();
	wr32(priv, I82574_TDT(0), I82574_LB_FRAMES);
}

/* Frame @n came back whole, as sent */
static int i82574_lb_check(struct i82574_dev *priv, struct i82574_lb *lb,
			   unsigned int n)
{
	union i82574_rx_desc *rxd = &lb->rxd[n];
	u8 want[I82574_LB_LEN];
	unsigned int i;
	u32 staterr;

	for (i = 0; i < 100; i++) {
		staterr = le32_to_cpu(READ_ONCE(rxd->wb.staterr));
		if (staterr & I82574_RXD_STA_DD)
			break;
		usleep_range(1000, 2000);
	}
	if (!(staterr & I82574_RXD_STA_DD))
		return -ETIMEDOUT;
	dma_rmb();
	i82574_lb_frame(priv, want, n);
	if (!(staterr & I82574_RXD_STA_EOP) || staterr & I82574_RXD_ERR_FRAME ||
	    le16_to_cpu(rxd->wb.length) != I82574_LB_LEN ||
	    memcmp(lb->cpu + I82574_LB_RXBUF(n), want, I82574_LB_LEN))
		return -EBADMSG;
	return 0;
}

static int i82574_lb_run(struct i82574_dev *priv, struct i82574_lb *lb)
{
	unsigned int n;
	int err = 0;

	i82574_lb_rings(priv, lb);
	i82574_lb_enable(priv);
	i82574_lb_send(priv, lb);
	for (n = 0; n < I82574_LB_FRAMES && !err; n++)
		err = i82574_lb_check(priv, lb, n);
	if (err)
		netdev_err(priv->netdev, "loopback test: frame %u: %s\n", n - 1,
			   err == -ETIMEDOUT ? "not received" : "corrupt");
	return err;
}

static int i82574_run_loopback_test(struct i82574_dev *priv)
{
	struct device *dev = &priv->pdev->dev;
	u32 ctrl = rd32(priv, I82574_CTRL);
	struct i82574_lb lb;
	int err;

	lb.cpu = dma_alloc_coherent(dev, I82574_LB_SIZE, &lb.dma, GFP_KERNEL);
	if (!lb.cpu)
		return -ENOMEM;
	lb.txd = (struct i82574_tx_desc *)lb.cpu;
	lb.rxd = (union i82574_rx_desc *)(lb.cpu + I82574_LB_RING_BYTES);
	err = i82574_lb_run(priv, &lb);
	/* no DMA to the block once it is freed: disabling RX and TX could
	 * leave descriptors cached, a MAC reset does not
	 */
	if (i82574_hw_reset_keep_stats(priv))
		err = err ?: -EIO;
	wr32(priv, I82574_CTRL, ctrl);
	dma_free_coherent(dev, I82574_LB_SIZE, lb.cpu, lb.dma);
	return err;
}

/* Registers, interrupt, loopback on stopped rings; the service work keeps
 * off the hardware meanwhile (I82574_STATE_TESTING)
 */
static void i82574_run_offline_tests(struct i82574_dev *priv, u64 *data)
{
	bool running = netif_running(priv->netdev);

	set_bit(I82574_STATE_TESTING, &priv->state);
	if (running)
		i82574_down(priv);
	else
		i82574_hw_quiesce(priv);
	data[I82574_TEST_REGS] = -i82574_run_reg_test(priv);
	data[I82574_TEST_IRQ] = -i82574_run_irq_test(priv);
	data[I82574_TEST_LOOPBACK] = -i82574_run_loopback_test(priv);
	if (running)
		i82574_up(priv);
	else	/* the loopback test's reset set it; the interface is down */
		i82574_set_drv_load(priv, false);
	clear_bit(I82574_STATE_TESTING, &priv->state);
}

/**
 * i82574_self_test - ethtool -t
 * @netdev: the device, under RTNL
 * @et: the request; ETH_TEST_FL_FAILED set on any failure
 * @data: I82574_TEST_NUM results, 0 or a positive errno each
 */
void i82574_self_test(struct net_device *netdev, struct ethtool_test *et,
		      u64 *data)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	unsigned int i;

	memset(data, 0, I82574_TEST_NUM * sizeof(*data));
	data[I82574_TEST_LINK] = rd32(priv, I82574_STATUS) & I82574_STATUS_LU ?
				 0 : ENOLINK;
	data[I82574_TEST_NVM] = -i82574_nvm_checksum_valid(priv);
	if (et->flags & ETH_TEST_FL_OFFLINE)
		i82574_run_offline_tests(priv, data);
	for (i = 0; i < I82574_TEST_NUM; i++)
		if (data[i])
			et->flags |= ETH_TEST_FL_FAILED;
}

/* @ledctl with every LED forced to @mode, not blinking */
static u32 i82574_ledctl_force(u32 ledctl, u32 mode)
{
	unsigned int i;

	for (i = 0; i < I82574_LEDCTL_LEDS; i++) {
		ledctl &= ~((I82574_LEDCTL_MODE | I82574_LEDCTL_BLINK) << (8 * i));
		ledctl |= mode << (8 * i);
	}
	return ledctl;
}

/* Every LED on. Without a link e1000e sets each LED's invert bit too, for
 * this part (e1000_led_on_82574()), so that the LED lights.
 */
static u32 i82574_ledctl_on(struct i82574_dev *priv)
{
	u32 ledctl = i82574_ledctl_force(priv->ledctl_saved,
					 I82574_LED_MODE_ON);
	unsigned int i;

	if (rd32(priv, I82574_STATUS) & I82574_STATUS_LU)
		return ledctl;
	for (i = 0; i < I82574_LEDCTL_LEDS; i++)
		ledctl |= I82574_LEDCTL_IVRT << (8 * i);
	return ledctl;
}

/**
 * i82574_set_phys_id - ethtool -p: blink the LEDs, then restore LEDCTL
 * @netdev: the device
 * @state: the ethtool core's step
 *
 * Each LED is switched on and off by its mode, twice a second, keeping its
 * polarity (IVRT) except while on without a link (i82574_ledctl_on()).
 *
 * Return: 2 (on/off cycles per second) for ETHTOOL_ID_ACTIVE, else 0.
 */
int i82574_set_phys_id(struct net_device *netdev,
		       enum ethtool_phys_id_state state)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	switch (state) {
	case ETHTOOL_ID_ACTIVE:
		priv->ledctl_saved = rd32(priv, I82574_LEDCTL);
		return 2;
	case ETHTOOL_ID_ON:
		wr32(priv, I82574_LEDCTL, i82574_ledctl_on(priv));
		break;
	case ETHTOOL_ID_OFF:
		wr32(priv, I82574_LEDCTL, i82574_ledctl_force(priv->ledctl_saved,
							      I82574_LED_MODE_OFF));
		break;
	case ETHTOOL_ID_INACTIVE:
		wr32(priv, I82574_LEDCTL, priv->ledctl_saved);
		break;
	}
	return 0;
}
