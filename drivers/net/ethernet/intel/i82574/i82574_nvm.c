// SPDX-License-Identifier: GPL-2.0
/*
 * NVM of the 82574L: words read through EERD and written through EEWR,
 * both under the MDIO/NVM semaphore shared with the firmware; the checksum
 * word; the MAC address and manageability mode read at probe; ethtool -e
 * and -E.
 *
 * ethtool -E may change words 0x00-0x3E, the ones the checksum covers,
 * except for the checksum word itself, which the driver rewrites after
 * every change, and as long as words 0-2 stay a valid unicast MAC address.
 * Words from 0x3F on are refused: on a flash NVM they hold firmware and
 * boot images that no checksum protects.
 */

#include <linux/etherdevice.h>
#include <linux/iopoll.h>
#include <linux/slab.h>

#include "i82574.h"

#define I82574_NVM_TIMEOUT_US		100000
/* e1000e waits up to 2000 times 1-2 ms for a flash update */
#define I82574_FLUPD_TIMEOUT_US		4000000
#define I82574_NVM_WORDS_BASE_SHIFT	6
#define I82574_NVM_WORDS_MAX_SHIFT	14
#define I82574_NVM_FLASH_WORDS		2048
#define I82574_NVM_CSUM_TRIES		3

/* EERD and EEWR set DONE once the access ended */
static int i82574_nvm_wait_done(struct i82574_dev *priv, u32 reg, u32 *val)
{
	int err;

	err = readl_poll_timeout(priv->hw + reg, *val, *val & I82574_EERD_DONE,
				 5, I82574_NVM_TIMEOUT_US);
	if (err)
		dev_err_ratelimited(&priv->pdev->dev,
				    "NVM access timed out (%#x = %#x)\n",
				    reg, *val);
	return err;
}

/* One word through EERD; caller holds the semaphore */
static int __i82574_nvm_read(struct i82574_dev *priv, u32 word, u16 *data)
{
	u32 v;
	int err;

	wr32(priv, I82574_EERD,
	     FIELD_PREP(I82574_EERD_ADDR, word) | I82574_EERD_START);
	err = i82574_nvm_wait_done(priv, I82574_EERD, &v);
	if (!err)
		*data = FIELD_GET(I82574_EERD_DATA, v);
	return err;
}

/* One word through EEWR, once the previous write has ended; caller holds
 * the semaphore
 */
static int __i82574_nvm_write(struct i82574_dev *priv, u32 word, u16 data)
{
	u32 v;
	int err;

	err = i82574_nvm_wait_done(priv, I82574_EEWR, &v);
	if (err)
		return err;
	wr32(priv, I82574_EEWR, FIELD_PREP(I82574_EERD_DATA, data) |
	     FIELD_PREP(I82574_EERD_ADDR, word) | I82574_EERD_START);
	return i82574_nvm_wait_done(priv, I82574_EEWR, &v);
}

/* Words [first, first + count) as stored (little endian); caller holds the
 * semaphore
 */
static int __i82574_nvm_read_words(struct i82574_dev *priv, u32 first,
				   u32 count, __le16 *buf)
{
	unsigned int i;
	int err;
	u16 w;

	for (i = 0; i < count; i++) {
		err = __i82574_nvm_read(priv, first + i, &w);
		if (err)
			return err;
		buf[i] = cpu_to_le16(w);
	}
	return 0;
}

static int i82574_nvm_read_words(struct i82574_dev *priv, u32 first,
				 u32 count, __le16 *buf)
{
	int err;

	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = __i82574_nvm_read_words(priv, first, count, buf);
	i82574_hw_sem_release(priv);
	return err;
}

static int i82574_nvm_read(struct i82574_dev *priv, u32 word, u16 *val)
{
	__le16 w;
	int err;

	err = i82574_nvm_read_words(priv, word, 1, &w);
	if (!err)
		*val = le16_to_cpu(w);
	return err;
}

static u16 i82574_nvm_sum(const __le16 *words, unsigned int count)
{
	unsigned int i;
	u16 sum = 0;

	for (i = 0; i < count; i++)
		sum += le16_to_cpu(words[i]);
	return sum;
}

/* A flash NVM keeps EEWR's words in shadow RAM until EECD.FLUPD commits
 * them (e1000e's e1000_update_nvm_checksum_82571()). Before the commit the
 * firmware is reset when FLOP says the flash is erased with the STM opcode,
 * as e1000e does; enabling the reset and the reset are two writes.
 */
static int i82574_nvm_commit(struct i82574_dev *priv)
{
	u32 eecd;
	int err;

	err = readl_poll_timeout(priv->hw + I82574_EECD, eecd,
				 !(eecd & I82574_EECD_FLUPD), 1000,
				 I82574_FLUPD_TIMEOUT_US);
	if (err)
		return err;
	if (FIELD_GET(I82574_FLOP_ERASE, rd32(priv, I82574_FLOP)) ==
	    I82574_FLOP_ERASE_STM) {
		wr32(priv, I82574_HICR, I82574_HICR_FW_RESET_ENABLE);
		wrfl(priv);
		wr32(priv, I82574_HICR, I82574_HICR_FW_RESET);
	}
	eecd = rd32(priv, I82574_EECD);
	wr32(priv, I82574_EECD, eecd | I82574_EECD_FLUPD);
	return readl_poll_timeout(priv->hw + I82574_EECD, eecd,
				  !(eecd & I82574_EECD_FLUPD), 1000,
				  I82574_FLUPD_TIMEOUT_US);
}

/* Words 0x00-0x3E as @words hold them, then the checksum word, then the
 * commit to flash; caller holds the semaphore
 */
static int __i82574_nvm_write_words(struct i82574_dev *priv, u32 first,
				    u32 last, const __le16 *words)
{
	u16 csum = I82574_NVM_SUM - i82574_nvm_sum(words, I82574_NVM_CSUM_WORD);
	unsigned int i;
	int err;

	for (i = first; i <= last; i++) {
		err = __i82574_nvm_write(priv, i, le16_to_cpu(words[i]));
		if (err)
			return err;
	}
	err = __i82574_nvm_write(priv, I82574_NVM_CSUM_WORD, csum);
	if (err || !priv->nvm_flash)
		return err;
	return i82574_nvm_commit(priv);
}

/**
 * i82574_nvm_checksum_valid - do words 0x00-0x3F sum to 0xBABA?
 * @priv: device
 *
 * Return: 0 if they do, -EBADMSG if not, or the errno of a failed read.
 */
int i82574_nvm_checksum_valid(struct i82574_dev *priv)
{
	__le16 words[I82574_NVM_CSUM_WORD + 1];
	int err;

	err = i82574_nvm_read_words(priv, 0, ARRAY_SIZE(words), words);
	if (err)
		return err;
	if (i82574_nvm_sum(words, ARRAY_SIZE(words)) != I82574_NVM_SUM)
		return -EBADMSG;
	return 0;
}

/**
 * i82574_nvm_detect - the NVM's type and size, before the MAC reset
 * @priv: device
 *
 * e1000e's sizing for the 82574: a flash part has 2048 words, an SPI
 * EEPROM 2^(6 + EECD.SIZE_EX) words, at most 16384. On a flash part it
 * clears EECD.AUPDEN (autonomous flash updates have an erratum), and, as
 * e1000e's get_variants, does so before the probe resets the MAC.
 */
void i82574_nvm_detect(struct i82574_dev *priv)
{
	u32 eecd = rd32(priv, I82574_EECD);
	u32 shift;

	priv->nvm_flash = (eecd & I82574_EECD_FLASH) == I82574_EECD_FLASH;
	if (priv->nvm_flash) {
		wr32(priv, I82574_EECD, eecd & ~I82574_EECD_AUPDEN);
		priv->nvm_words = I82574_NVM_FLASH_WORDS;
		return;
	}
	shift = FIELD_GET(I82574_EECD_SIZE_EX, eecd) +
		I82574_NVM_WORDS_BASE_SHIFT;
	priv->nvm_words = BIT(min(shift, I82574_NVM_WORDS_MAX_SHIFT));
}

static void i82574_read_mac(struct i82574_dev *priv)
{
	struct net_device *netdev = priv->netdev;
	__le16 words[ETH_ALEN / 2];

	if (!i82574_nvm_read_words(priv, 0, ARRAY_SIZE(words), words) &&
	    is_valid_ether_addr((u8 *)words)) {
		eth_hw_addr_set(netdev, (u8 *)words);
		return;
	}
	eth_hw_addr_random(netdev);
	dev_warn(&priv->pdev->dev, "invalid EEPROM MAC address, using %pM\n",
		 netdev->dev_addr);
}

/* Manageability enabled in the NVM keeps the PHY powered (as e1000e's
 * e1000_check_mng_mode_82574()); if the word cannot be read, assume it is
 * (but not in pass-through mode, which would need the driver's filters).
 */
static void i82574_read_mng_mode(struct i82574_dev *priv)
{
	u16 word;

	if (i82574_nvm_read(priv, I82574_NVM_INIT_CTRL2, &word)) {
		dev_warn(&priv->pdev->dev,
			 "NVM unreadable, assuming manageability is enabled\n");
		priv->mng_enabled = true;
		return;
	}
	priv->mng_enabled = FIELD_GET(I82574_NVM_INIT_CTRL2_MNGM, word);
	priv->mng_pt = FIELD_GET(I82574_NVM_INIT_CTRL2_MNGM, word) ==
		       I82574_NVM_MNGM_PT;
}

/* The default Wake-on-LAN: magic packet if the NVM enables APM wake-up,
 * as e1000e does for this part (FLAG_APME_IN_CTRL3). The reset leaves the
 * APM wake-up itself off (i82574_hw_reset() clears WUC); suspend and
 * shutdown arm it through priv->wol like any ethtool setting.
 */
static void i82574_read_apm_wol(struct i82574_dev *priv)
{
	u16 word;

	if (!i82574_nvm_read(priv, I82574_NVM_INIT_CTRL3, &word) &&
	    (word & I82574_NVM_INIT_CTRL3_APME))
		priv->wol = I82574_WUFC_MAG;
}

/* e1000e's e1000_fix_nvm_checksum_82571(): once the firmware is done with
 * words 0x10-0x12, a flash NVM whose word 0x23 bit 15 is still clear gets
 * that bit set and its checksum rewritten, once in its life
 */
static int i82574_nvm_fix_flash_checksum(struct i82574_dev *priv)
{
	__le16 words[I82574_NVM_CSUM_WORD];
	__le16 *fix = &words[I82574_NVM_CSUM_FIX_WORD];
	int err;

	if (!priv->nvm_flash)
		return 0;
	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = __i82574_nvm_read_words(priv, 0, ARRAY_SIZE(words), words);
	if (!err &&
	    !(le16_to_cpu(words[I82574_NVM_FW_WORD]) & I82574_NVM_FW_UPDATING) &&
	    !(le16_to_cpu(*fix) & I82574_NVM_CSUM_FIXED)) {
		*fix |= cpu_to_le16(I82574_NVM_CSUM_FIXED);
		err = __i82574_nvm_write_words(priv, I82574_NVM_CSUM_FIX_WORD,
					       I82574_NVM_CSUM_FIX_WORD, words);
	}
	i82574_hw_sem_release(priv);
	return err;
}

/* A probe refuses an NVM whose checksum is wrong, as e1000e does, after
 * three reads (with ASPM, e1000e notes, the first can fail)
 */
static int i82574_nvm_validate(struct i82574_dev *priv)
{
	unsigned int i;
	int err;

	err = i82574_nvm_fix_flash_checksum(priv);
	if (err)
		dev_warn(&priv->pdev->dev,
			 "flash NVM checksum fix-up failed: %pe\n",
			 ERR_PTR(err));
	for (i = 0; i < I82574_NVM_CSUM_TRIES; i++) {
		err = i82574_nvm_checksum_valid(priv);
		if (!err)
			return 0;
	}
	dev_err(&priv->pdev->dev, "NVM checksum is not valid (%pe)\n",
		ERR_PTR(err));
	return -EIO;
}

/**
 * i82574_read_nvm_config - check the NVM, read the MAC address,
 *			     manageability mode and default Wake-on-LAN
 * @priv: device, with its netdev allocated and its NVM detected
 *
 * Falls back to a random MAC address if the NVM has no valid one.
 *
 * Return: 0, or -EIO if the NVM's checksum is wrong (or it cannot be read).
 */
int i82574_read_nvm_config(struct i82574_dev *priv)
{
	int err;

	err = i82574_nvm_validate(priv);
	if (err)
		return err;
	i82574_read_mac(priv);
	i82574_read_mng_mode(priv);
	i82574_read_apm_wol(priv);
	return 0;
}

static u32 i82574_nvm_magic(struct i82574_dev *priv)
{
	return priv->pdev->vendor | priv->pdev->device << 16;
}

int i82574_get_eeprom_len(struct net_device *netdev)
{
	struct i82574_dev *priv = netdev_priv(netdev);

	return priv->nvm_words * 2;
}

/* The ethtool core has checked the range against i82574_get_eeprom_len() */
int i82574_get_eeprom(struct net_device *netdev, struct ethtool_eeprom *ee,
		      u8 *bytes)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	u32 first = ee->offset / 2;
	u32 count = (ee->offset + ee->len - 1) / 2 - first + 1;
	__le16 *words;
	int err;

	words = kmalloc_array(count, sizeof(*words), GFP_KERNEL);
	if (!words)
		return -ENOMEM;
	ee->magic = i82574_nvm_magic(priv);
	err = i82574_nvm_read_words(priv, first, count, words);
	if (!err)
		memcpy(bytes, (u8 *)words + (ee->offset & 1), ee->len);
	kfree(words);
	return err;
}

/* Refuse before anything is written: a wrong magic (-EINVAL), a byte at or
 * beyond the checksum word (-EPERM)
 */
static int i82574_check_eeprom_write(struct i82574_dev *priv,
				     const struct ethtool_eeprom *ee)
{
	if (ee->magic != i82574_nvm_magic(priv))
		return -EINVAL;
	if (!ee->len || ee->offset + ee->len > I82574_NVM_CSUM_WORD * 2)
		return -EPERM;
	return 0;
}

/* Merge @bytes into the words as read, check the MAC address (-EADDRNOTAVAIL)
 * and write the words that hold them, then the checksum; caller holds the
 * semaphore
 */
static int __i82574_set_eeprom(struct i82574_dev *priv,
			       const struct ethtool_eeprom *ee, const u8 *bytes)
{
	__le16 words[I82574_NVM_CSUM_WORD];
	int err;

	err = __i82574_nvm_read_words(priv, 0, ARRAY_SIZE(words), words);
	if (err)
		return err;
	memcpy((u8 *)words + ee->offset, bytes, ee->len);
	if (!is_valid_ether_addr((u8 *)words))
		return -EADDRNOTAVAIL;
	return __i82574_nvm_write_words(priv, ee->offset / 2,
					(ee->offset + ee->len - 1) / 2, words);
}

/**
 * i82574_set_eeprom - ethtool -E: write bytes of the NVM, update its checksum
 * @netdev: the device
 * @ee: offset, length (any, odd ones included) and magic
 * @bytes: the new bytes
 *
 * A MAC address written takes effect at the next probe.
 *
 * Return: 0, or a negative errno with nothing written unless the NVM itself
 * failed (-ETIMEDOUT) midway.
 */
int i82574_set_eeprom(struct net_device *netdev, struct ethtool_eeprom *ee,
		      u8 *bytes)
{
	struct i82574_dev *priv = netdev_priv(netdev);
	int err;

	err = i82574_check_eeprom_write(priv, ee);
	if (err)
		return err;
	err = i82574_hw_sem_take(priv);
	if (err)
		return err;
	err = __i82574_set_eeprom(priv, ee, bytes);
	i82574_hw_sem_release(priv);
	if (err == -ETIMEDOUT)
		netdev_err(netdev, "NVM write failed midway: %pe\n",
			   ERR_PTR(err));
	return err;
}
