/* SPDX-License-Identifier: GPL-2.0 */
/* Register and descriptor map of the Intel 82574L. */

#ifndef _I82574_CSR_H_
#define _I82574_CSR_H_

#include <linux/bits.h>

/* Byte offsets into BAR0; all accesses are 32 bits wide. */
#define I82574_CTRL			0x00000
#define I82574_CTRL_FD			BIT(0)
#define I82574_CTRL_GIO_MASTER_DISABLE	BIT(2)
#define I82574_CTRL_ASDE		BIT(5)
#define I82574_CTRL_SLU			BIT(6)
#define I82574_CTRL_SPEED		GENMASK(9, 8)	/* STATUS_SPEED coding */
#define I82574_CTRL_FRCSPD		BIT(11)
#define I82574_CTRL_FRCDPX		BIT(12)
#define I82574_CTRL_ADVD3WUC		BIT(20)	/* wake-up logic kept in D3 */
#define I82574_CTRL_EN_PHY_PWR_MGMT	BIT(21)
#define I82574_CTRL_RST			BIT(26)
#define I82574_CTRL_RFCE		BIT(27)
#define I82574_CTRL_TFCE		BIT(28)
#define I82574_CTRL_VME			BIT(30)	/* VLAN strip and insert */
#define I82574_CTRL_PHY_RST		BIT(31)
#define I82574_STATUS			0x00008
#define I82574_STATUS_FD		BIT(0)
#define I82574_STATUS_LU		BIT(1)
#define I82574_STATUS_SPEED		GENMASK(7, 6)
#define I82574_STATUS_GIO_MASTER_ENABLE	BIT(19)
enum {
	I82574_STATUS_SPEED_10		= 0,
	I82574_STATUS_SPEED_100		= 1,
	I82574_STATUS_SPEED_1000	= 2,
};

#define I82574_EECD			0x00010
#define I82574_EECD_AUTO_RD		BIT(9)
#define I82574_EECD_SIZE_EX		GENMASK(14, 11)	/* EEPROM size code */
/* both bits set: the NVM is a flash part rather than an SPI EEPROM */
#define I82574_EECD_FLASH		GENMASK(16, 15)
#define I82574_EECD_AUPDEN		BIT(20)	/* autonomous flash update */
#define I82574_EECD_FLUPD		BIT(23)	/* commit shadow RAM to flash */
#define I82574_EERD			0x00014
#define I82574_EERD_START		BIT(0)
#define I82574_EERD_DONE		BIT(1)
#define I82574_EERD_ADDR		GENMASK(15, 2)
#define I82574_EERD_DATA		GENMASK(31, 16)
/* EEWR has EERD's layout: START, DONE, word address, data */
#define I82574_EEWR			0x0102C
#define I82574_FLOP			0x0103C	/* flash opcodes */
#define I82574_FLOP_ERASE		GENMASK(15, 8)
#define I82574_FLOP_ERASE_STM		0xDB	/* a flash erased with STM */
#define I82574_HICR			0x08F00	/* host interface control */
#define I82574_HICR_FW_RESET_ENABLE	BIT(6)
#define I82574_HICR_FW_RESET		BIT(7)
#define I82574_CTRL_EXT			0x00018
#define I82574_CTRL_EXT_EE_RST		BIT(13)
#define I82574_CTRL_EXT_EIAME		BIT(24)
#define I82574_CTRL_EXT_DRV_LOAD	BIT(28)
#define I82574_CTRL_EXT_PBA_CLR		BIT(31)
#define I82574_MDIC			0x00020
#define I82574_VET			0x00038	/* VLAN ethertype */
#define I82574_MDIC_DATA		GENMASK(15, 0)
#define I82574_MDIC_REG			GENMASK(20, 16)
#define I82574_MDIC_PHY			GENMASK(25, 21)
#define I82574_MDIC_OP			GENMASK(27, 26)
enum {
	I82574_MDIC_OP_WRITE		= 1,
	I82574_MDIC_OP_READ		= 2,
};

#define I82574_MDIC_READY		BIT(28)
#define I82574_MDIC_ERROR		BIT(30)

/* Datasheet "Flow Control": the address and type of received PAUSE frames
 * (FCAL/FCAH/FCT), the pause time sent in XOFF frames (FCTTV), the RX packet
 * buffer levels that send XOFF and XON (FCRTH/FCRTL, 8-byte granularity) and
 * the XOFF refresh timer (FCRTV). PBA splits the 40 KB packet buffer.
 */
#define I82574_FCAL			0x00028
#define I82574_FCAH			0x0002C
#define I82574_FCT			0x00030
#define I82574_FCTTV			0x00170
#define I82574_PBA			0x01000
#define I82574_PBA_RXA			GENMASK(15, 0)	/* RX allocation, KB */
#define I82574_FCRTL			0x02160
#define I82574_FCRTL_RTL		GENMASK(15, 3)
#define I82574_FCRTL_XONE		BIT(31)	/* send XON at the low mark */
#define I82574_FCRTH			0x02168
#define I82574_FCRTH_RTH		GENMASK(15, 3)
#define I82574_FCRTV			0x05F40

/* LEDCTL: one byte per LED, mode in bits 3:0 */
#define I82574_LEDCTL			0x00E00
#define I82574_LEDCTL_MODE		GENMASK(3, 0)
#define I82574_LEDCTL_IVRT		BIT(6)	/* LED output inverted */
#define I82574_LEDCTL_BLINK		BIT(7)
#define I82574_LEDCTL_LEDS		4
enum {
	I82574_LED_MODE_ON		= 0xe,
	I82574_LED_MODE_OFF		= 0xf,
};

/* Hardware semaphore shared with the manageability firmware for MDIO/NVM */
#define I82574_EXTCNF_CTRL		0x00F00
#define I82574_EXTCNF_CTRL_MDIO_SW_OWNERSHIP	BIT(5)
/* PHY OEM bits: low power link up */
#define I82574_POEMB			0x00F10
#define I82574_POEMB_D0A_LPLU		BIT(1)

/* Interrupt causes, shared by ICR, ICS, IMS, IMC and EIAC */
#define I82574_ICR			0x000C0
#define I82574_ITR			0x000C4
#define I82574_ICS			0x000C8
#define I82574_IMS			0x000D0
#define I82574_IMC			0x000D8
#define I82574_EIAC			0x000DC
#define I82574_IAM			0x000E0
#define I82574_IVAR			0x000E4
#define I82574_EITR(v)			(0x000E8 + (v) * 4)
#define I82574_INT_TXDW			BIT(0)
#define I82574_INT_LSC			BIT(2)
#define I82574_INT_RXO			BIT(6)
#define I82574_INT_RXT0			BIT(7)
#define I82574_INT_RXQ(q)		BIT(20 + (q))
#define I82574_INT_TXQ(q)		BIT(22 + (q))
#define I82574_INT_OTHER		BIT(24)
#define I82574_INT_QUEUES		(I82574_INT_RXQ(0) | I82574_INT_RXQ(1) | \
					 I82574_INT_TXQ(0) | I82574_INT_TXQ(1))
#define I82574_ITR_INTERVAL		GENMASK(15, 0)

/* IVAR: one 4-bit field per cause, vector in [2:0], bit 3 valid */
#define I82574_IVAR_FIELD_BITS		4
enum {
	I82574_IVAR_RXQ0		= 0,
	I82574_IVAR_TXQ0		= 2,
	I82574_IVAR_OTHER		= 4,
};

#define I82574_IVAR_VALID		BIT(3)

#define I82574_RCTL			0x00100
#define I82574_RCTL_EN			BIT(1)
#define I82574_RCTL_UPE			BIT(3)
#define I82574_RCTL_MPE			BIT(4)
#define I82574_RCTL_LPE			BIT(5)
#define I82574_RCTL_LBM			GENMASK(7, 6)
#define I82574_RCTL_LBM_MAC		1	/* MAC loopback */
#define I82574_RCTL_RDMTS		GENMASK(9, 8)
#define I82574_RCTL_BAM			BIT(15)
#define I82574_RCTL_BSIZE		GENMASK(17, 16)
#define I82574_RCTL_VFE			BIT(18)	/* VLAN filter (VFTA) */
#define I82574_RCTL_SECRC		BIT(26)
#define I82574_TCTL			0x00400
#define I82574_TCTL_EN			BIT(1)
#define I82574_TCTL_PSP			BIT(3)
#define I82574_TCTL_CT			GENMASK(11, 4)
#define I82574_TCTL_COLD		GENMASK(21, 12)
#define I82574_TCTL_RTLC		BIT(24)
#define I82574_TIPG			0x00410
#define I82574_TIPG_IPGT		GENMASK(9, 0)
#define I82574_TIPG_IPGR1		GENMASK(19, 10)
#define I82574_TIPG_IPGR2		GENMASK(29, 20)

/* Per-queue ring registers, queue stride 0x100 */
#define I82574_RDBAL(q)			(0x02800 + (q) * 0x100)
#define I82574_RDBAH(q)			(0x02804 + (q) * 0x100)
#define I82574_RDLEN(q)			(0x02808 + (q) * 0x100)
#define I82574_RDH(q)			(0x02810 + (q) * 0x100)
#define I82574_RDT(q)			(0x02818 + (q) * 0x100)
#define I82574_RDTR			0x02820
#define I82574_RDTR_FPD			BIT(31)	/* flush partial descriptors */
#define I82574_RXDCTL(q)		(0x02828 + (q) * 0x100)
#define I82574_RXDCTL_PTHRESH		GENMASK(5, 0)
#define I82574_RXDCTL_HTHRESH		GENMASK(13, 8)
#define I82574_RXDCTL_WTHRESH		GENMASK(21, 16)
#define I82574_RXDCTL_GRAN		BIT(24)
#define I82574_RADV			0x0282C
#define I82574_TDBAL(q)			(0x03800 + (q) * 0x100)
#define I82574_TDBAH(q)			(0x03804 + (q) * 0x100)
#define I82574_TDLEN(q)			(0x03808 + (q) * 0x100)
#define I82574_TDH(q)			(0x03810 + (q) * 0x100)
#define I82574_TDT(q)			(0x03818 + (q) * 0x100)
#define I82574_TIDV			0x03820
#define I82574_TIDV_FPD			BIT(31)	/* flush partial descriptors */
#define I82574_TXDCTL(q)		(0x03828 + (q) * 0x100)
#define I82574_TXDCTL_PTHRESH		GENMASK(5, 0)
#define I82574_TXDCTL_HTHRESH		GENMASK(13, 8)
#define I82574_TXDCTL_WTHRESH		GENMASK(21, 16)
#define I82574_TXDCTL_COUNT_DESC	BIT(22)
#define I82574_TXDCTL_GRAN		BIT(24)
#define I82574_TADV			0x0382C
#define I82574_TARC(q)			(0x03840 + (q) * 0x100)
#define I82574_TARC_ENABLE		BIT(10)
#define I82574_RAID			0x02C08

/* MAC statistics, clear on read */
#define I82574_CRCERRS			0x04000
#define I82574_ALGNERRC			0x04004
#define I82574_RXERRC			0x0400C
#define I82574_MPC			0x04010
#define I82574_SCC			0x04014
#define I82574_ECOL			0x04018
#define I82574_MCC			0x0401C
#define I82574_LATECOL			0x04020
#define I82574_COLC			0x04028
#define I82574_DC			0x04030
#define I82574_CEXTERR			0x0403C
#define I82574_RLEC			0x04040
#define I82574_XONRXC			0x04048
#define I82574_XONTXC			0x0404C
#define I82574_XOFFRXC			0x04050
#define I82574_XOFFTXC			0x04054
#define I82574_PRC64			0x0405C
#define I82574_GPRC			0x04074
#define I82574_BPRC			0x04078
#define I82574_MPRC			0x0407C
#define I82574_GPTC			0x04080
#define I82574_GORCL			0x04088
#define I82574_GOTCL			0x04090
#define I82574_RNBC			0x040A0
#define I82574_RUC			0x040A4
#define I82574_RFC			0x040A8
#define I82574_ROC			0x040AC
#define I82574_RJC			0x040B0
#define I82574_PTC64			0x040D8
#define I82574_MPTC			0x040F0
#define I82574_BPTC			0x040F4
#define I82574_TSCTC			0x040F8	/* TSO contexts sent */
#define I82574_STATS_END		0x04100

#define I82574_RXCSUM			0x05000
#define I82574_RXCSUM_IPOFL		BIT(8)
#define I82574_RXCSUM_TUOFL		BIT(9)
#define I82574_RXCSUM_PCSD		BIT(13)
#define I82574_RFCTL			0x05008
#define I82574_RFCTL_ACK_DIS		BIT(12)
#define I82574_RFCTL_EXTEN		BIT(15)
#define I82574_RFCTL_IPV6_EX_DIS	BIT(16)
#define I82574_RFCTL_NEW_IPV6_EXT_DIS	BIT(17)
#define I82574_MTA(i)			(0x05200 + (i) * 4)
#define I82574_MTA_NUM			128
#define I82574_RAL(i)			(0x05400 + (i) * 8)
#define I82574_RAH(i)			(0x05404 + (i) * 8)
#define I82574_RAH_AV			BIT(31)
#define I82574_RAR_NUM			16
#define I82574_VFTA(i)			(0x05600 + (i) * 4)
#define I82574_VFTA_NUM			128
#define I82574_MRQC			0x05818
/* bits 1:0 = 01b: two queues by RSS; the hash fields as e1000e names them */
#define I82574_MRQC_RSS_EN		BIT(0)
#define I82574_MRQC_TCP_IPV4		BIT(16)
#define I82574_MRQC_IPV4		BIT(17)
#define I82574_MRQC_TCP_IPV6_EX		BIT(18)
#define I82574_MRQC_IPV6		BIT(20)
#define I82574_MRQC_TCP_IPV6		BIT(21)
#define I82574_RETA(i)			(0x05C00 + (i) * 4)
#define I82574_RETA_ENTRIES		128
#define I82574_RETA_QUEUE		BIT(7)
#define I82574_RSSRK(i)			(0x05C80 + (i) * 4)
#define I82574_RSS_KEY_SIZE		40

/* Wake-up and manageability */
#define I82574_WUC			0x05800
#define I82574_WUC_APME			BIT(0)
#define I82574_WUC_PME_EN		BIT(1)
#define I82574_WUFC			0x05808	/* wake-up filters */
#define I82574_WUFC_LNKC		BIT(0)	/* link status change */
#define I82574_WUFC_MAG			BIT(1)	/* magic packet */
#define I82574_WUFC_EX			BIT(2)	/* directed (exact) unicast */
#define I82574_WUFC_MC			BIT(3)	/* directed multicast */
#define I82574_WUFC_BC			BIT(4)	/* broadcast */
#define I82574_WUS			0x05810	/* wake-up status, write 1 to clear */
/* Manageability: what the firmware (BMC) owns and which of the frames it
 * filters (MDEF) the host sees as well (MANC2H, one bit per filter)
 */
#define I82574_MANC			0x05820
#define I82574_MANC_RCV_TCO_EN		BIT(17)	/* firmware receives TCO frames */
#define I82574_MANC_BLK_PHY_RST_ON_IDE	BIT(18)
#define I82574_MANC_EN_MNG2HOST		BIT(21)	/* MANC2H's frames to the host */
#define I82574_MANC2H			0x05860
#define I82574_MDEF(i)			(0x05890 + 4 * (i))
#define I82574_MDEF_NUM			8
#define I82574_MDEF_PORT_664		BIT(10)	/* UDP/TCP port 0x298 */
#define I82574_MDEF_PORT_623		BIT(11)	/* UDP/TCP port 0x26f, RMCP */
#define I82574_FACTPS			0x05B30
#define I82574_FACTPS_MNGCG		BIT(29)	/* firmware clock gated */

/* PCIe control; the 82574 bits e1000e sets carry no public names */
#define I82574_GCR			0x05B00
#define I82574_GCR_L1_ACT_WITHOUT_L0S_RX	BIT(27)
#define I82574_GCR2			0x05B64

/* TX descriptors (extended format) */
#define I82574_TXD_LEN			GENMASK(19, 0)
#define I82574_TXD_DTYP_DATA		BIT(20)
#define I82574_TXD_CMD_EOP		BIT(24)
#define I82574_TXD_CMD_IFCS		BIT(25)
#define I82574_TXD_CMD_TSE		BIT(26)
#define I82574_TXD_CMD_RS		BIT(27)
#define I82574_TXD_CMD_DEXT		BIT(29)
#define I82574_TXD_CMD_VLE		BIT(30)
#define I82574_TXD_STA_DD		BIT(0)
#define I82574_TXD_POPTS_IXSM		BIT(8)
#define I82574_TXD_POPTS_TXSM		BIT(9)
#define I82574_TXD_VLAN			GENMASK(31, 16)	/* the upper dword's */
/* Context descriptor fields: IP and TCP checksum context in the address
 * (IPCSS/IPCSO/IPCSE low, TUCSS/TUCSO/TUCSE high), PAYLEN and the command
 * in the lower dword, header length and MSS in the upper one
 */
#define I82574_TXC_IPCSS		GENMASK(7, 0)
#define I82574_TXC_IPCSO		GENMASK(15, 8)
#define I82574_TXC_IPCSE		GENMASK(31, 16)
#define I82574_TXC_TUCSS		GENMASK(7, 0)
#define I82574_TXC_TUCSO		GENMASK(15, 8)
#define I82574_TXC_PAYLEN		GENMASK(19, 0)
#define I82574_TXC_CMD_TCP		BIT(24)
#define I82574_TXC_CMD_IP		BIT(25)
#define I82574_TXC_CMD_TSE		BIT(26)
#define I82574_TXC_HDRLEN		GENMASK(15, 8)
#define I82574_TXC_MSS			GENMASK(31, 16)

struct i82574_tx_desc {
	__le64 addr;
	__le32 lower;	/* length, type and command */
	__le32 upper;	/* status, popts; DD written back here */
};

/* RX descriptors (extended format) */
#define I82574_RXD_STA_DD		BIT(0)
#define I82574_RXD_STA_EOP		BIT(1)
#define I82574_RXD_STA_IXSM		BIT(2)
#define I82574_RXD_STA_VP		BIT(3)	/* VLAN tag stripped */
#define I82574_RXD_STA_UDPCS		BIT(4)
#define I82574_RXD_STA_TCPCS		BIT(5)
#define I82574_RXD_ERR_FRAME		(BIT(24) | BIT(25) | BIT(26) | \
					 BIT(28) | BIT(31))
#define I82574_RXD_ERR_TCPE		BIT(29)
#define I82574_RXD_ERR_IPE		BIT(30)
#define I82574_RXD_MRQ_RSSTYPE		GENMASK(3, 0)
enum {
	I82574_RSSTYPE_NONE		= 0,
	I82574_RSSTYPE_IPV4_TCP		= 1,
	I82574_RSSTYPE_IPV6_TCP		= 3,
};

union i82574_rx_desc {
	struct {
		__le64 addr;
		__le64 reserved;
	} read;
	struct {
		__le32 mrq;
		__le32 rss;
		__le32 staterr;
		__le16 length;
		__le16 vlan;
	} wb;
};

/* NVM words: words 0x00-0x3F sum to 0xBABA, word 0x3F making it so */
#define I82574_NVM_CSUM_WORD		0x3F
/* word 0x10 bit 4 clear: the firmware is done updating words 0x10-0x12 */
#define I82574_NVM_FW_WORD		0x10
#define I82574_NVM_FW_UPDATING		BIT(4)
/* word 0x23 bit 15: a flash NVM's checksum has been fixed up once */
#define I82574_NVM_CSUM_FIX_WORD	0x23
#define I82574_NVM_CSUM_FIXED		BIT(15)
#define I82574_NVM_SUM			0xBABA
#define I82574_NVM_INIT_CTRL2		0x0F
#define I82574_NVM_INIT_CTRL2_MNGM	GENMASK(14, 13)	/* manageability mode */
#define I82574_NVM_MNGM_PT		2	/* pass-through */
#define I82574_NVM_INIT_CTRL3		0x24
#define I82574_NVM_INIT_CTRL3_APME	BIT(10)	/* APM wake-up enabled */

/* PHY registers reached through MDIC, beyond those of <linux/mii.h> */
#define I82574_PHY_ADDR			1
#define I82574_PHY_ID			0x01410cb1	/* e1000e's BME1000_E_PHY_ID_R2 */
#define I82574_PHY_LAST_UNPAGED		15	/* 16-31 are per page */
#define I82574_PHY_PSCR			16	/* PHY specific control */
#define I82574_PSCR_POLARITY_REVERSAL	BIT(1)
#define I82574_PSCR_MDIX		GENMASK(6, 5)
#define I82574_PSCR_MDIX_MDI		0	/* manual MDI */
#define I82574_PSCR_MDIX_AUTO		3
#define I82574_PSCR_DOWNSHIFT		BIT(11)
#define I82574_PHY_RX_ERR_CNT		21
#define I82574_PHY_RX_ERR_CNT_MAX	0xffff
#define I82574_PHY_PAGE_SELECT		22
#define I82574_PHY_POWER_MGMT		25
#define I82574_PHY_POWER_MGMT_SPD	BIT(0)	/* smart power down */
#define I82574_PHY_REG29		29
#define I82574_PHY_REG30		30
/* MII_STAT1000 bits 7:0 */
#define I82574_STAT1000_IDLE_ERR	GENMASK(7, 0)

#endif /* _I82574_CSR_H_ */
