#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The NVM checks of $DRIVER's (i82574) probe, as e1000e makes them for the
# 82574, on NIC $NVM_NIC (default 0). What the probe finds is set up through
# BAR 0 while no driver is bound (nvm_bar.py). QEMU's model has a 64-word
# SPI EEPROM, but its EECD keeps the NVM type bits (16:15) and AUPDEN as
# software writes them, FLOP is plain storage and HICR unknown to it: a
# flash part is set up by writing those, and nvm_bar.py plays the flash
# controller (it clears EECD.FLUPD when a commit starts). The cases:
#  - a wrong checksum (one word changed) fails the probe with "NVM checksum
#    is not valid" and no interface; with the word back, the probe binds;
#  - a flash NVM (EECD bits 16:15 and AUPDEN set, FLOP's erase opcode STM,
#    word 0x10 bit 4 and word 0x23 bit 15 clear): the probe binds, its
#    first EECD write (before the MAC reset, which zeroes EECD and FLOP in
#    the model) keeps the type and clears AUPDEN, before any NVM write; it
#    sets word 0x23 bit 15 and rewrites the checksum (ethtool -e: the words
#    sum to 0xBABA) and commits that; two ethtool -E writes commit too, and
#    each of those commits (EECD.FLUPD) follows the firmware reset's two
#    HICR writes (FW_RESET_ENABLE, then FW_RESET); no commit follows other
#    HICR writes, and the controller saw every commit (register trace);
#  - manageability in pass-through mode (word 0x0F bits 14:13 = 10b), with
#    the firmware running (FACTPS.MNGCG clear) and taking TCO frames
#    (MANC.RCV_TCO_EN), set after the bind (the model's MAC reset restores
#    MANC and FACTPS): ip link set up gives the IPMI ports (623, 664) a
#    decision filter (MDEF) and passes it to the host (MANC2H, MANC
#    .EN_MNG2HOST), as e1000e does for this part;
#  - with a SOL session as well (MANC.BLK_PHY_RST_ON_IDE): ip link set up
#    powers the PHY up but neither resets it (BMCR.RESET, CTRL.PHY_RST)
#    nor restarts autonegotiation; ethtool -r and -s are refused with a
#    message; ip link set down leaves the PHY powered (register trace).
# The words, EECD, FLOP, MANC and FACTPS are put back, and the NIC is bound
# to $DRIVER.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

NIC=${NVM_NIC:-0}
NVM_BAR=$(dirname "$(readlink -f "$0")")/nvm_bar.py
# an NVM word no driver reads
WORD=0x30
EECD=0x10
EEWR=0x102c
FLOP=0x103c
HICR=0x8f00
NVM_FLASH=$((3 << 15))
AUPDEN=$((1 << 20))
FLUPD=$((1 << 23))
FLOP_STM=0xdb00
MAGIC=0x10d38086
FW_RESET_ENABLE=0x40
FW_RESET=0x80
FW_WORD=0x10
FW_UPDATING=0x10
FIX_WORD=0x23
FIXED=0x8000
CSUM_WORD=0x3f
CTRL2_WORD=0x0f
MNGM=$((3 << 13))
MNGM_PT=$((2 << 13))
CTRL=0x0
PHY_RST=$((1 << 31))
MANC=0x5820
RCV_TCO_EN=$((1 << 17))
BLK_PHY_RST=$((1 << 18))
EN_MNG2HOST=$((1 << 21))
MANC2H=0x5860
MDEF0=0x5890
MDEF_IPMI=0xc00
FACTPS=0x5b30
MNGCG=$((1 << 29))
BMCR=0x0
BMCR_RESET=0x8000
BMCR_ANRESTART=0x200
BMCR_PDOWN=0x800
TMPD=$(mktemp -d /tmp/nvm_probe.XXXXXX)
# what the cleanup puts back: "WORD VALUE" and "REG VALUE" pairs
RESTORE_WORDS=()
RESTORE_REGS=()

ktap_print_header
reg_trace_require "$DRIVER"
ktap_set_plan 4

note()
{
	printf '# %s\n' "$*"
}

bar()
{
	python3 "$NVM_BAR" "$BDF" "$@"
}

restore()
{
	local i

	for ((i = 0; i < ${#RESTORE_WORDS[@]}; i += 2)); do
		bar nvwr "${RESTORE_WORDS[i]}" "${RESTORE_WORDS[i + 1]}"
	done
	for ((i = 0; i < ${#RESTORE_REGS[@]}; i += 2)); do
		bar wr "${RESTORE_REGS[i]}" "${RESTORE_REGS[i + 1]}"
	done
	RESTORE_WORDS=() RESTORE_REGS=()
}

cleanup()
{
	[ -n "${FLASH_PID:-}" ] && kill "$FLASH_PID" 2>/dev/null
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	unbind
	restore
	[ -n "${PM_CONTROL:-}" ] && echo "$PM_CONTROL" > "$NIC_DEV/power/control"
	nic_bind "$DRIVER" "$NIC"
	reg_trace_restore_others
	rm -rf "$TMPD"
}
trap cleanup EXIT

unbind()
{
	[ -e "$NIC_DEV/driver" ] && echo "$BDF" > "$NIC_DEV/driver/unbind"
	[ ! -e "$NIC_DEV/driver" ]
}

# probe: offer the NIC to $DRIVER; succeeds if it bound
probe()
{
	echo "$DRIVER" > "$NIC_DEV/driver_override"
	echo "$BDF" > /sys/bus/pci/drivers_probe
	[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$DRIVER" ]
}

# save_word WORD: WORD's value in RD, and put back by the cleanup
save_word()
{
	RD=$(bar nvrd "$1") || return 1
	RESTORE_WORDS+=("$1" "$RD")
}

save_reg()
{
	RD=$(bar rd "$1") || return 1
	RESTORE_REGS+=("$1" "$RD")
}

# kmsg_since MARK: the kernel log from the line holding MARK on
kmsg_since()
{
	dmesg | sed -n "/$1/,\$p"
}

bad_checksum()
{
	local w mark="i82574 selftest: probe with a wrong NVM checksum" rc=0

	save_word $WORD && w=$RD || return 1
	bar nvwr $WORD $((w ^ 0x5a5a)) || return 1
	echo "$mark" > /dev/kmsg
	if probe; then
		note "bound to $DRIVER with a wrong checksum"
		rc=1
	fi
	if [ -d "$NIC_DEV/net" ]; then
		note "an interface appeared: $(ls "$NIC_DEV/net")"
		rc=1
	fi
	kmsg_since "$mark" | grep -q "NVM checksum is not valid" ||
		{ note "no \"NVM checksum is not valid\" in the kernel log"; rc=1; }
	unbind && restore || return 1
	probe || { note "no bind with word $WORD put back"; rc=1; }
	unbind
	return $rc
}

# flash_trace FROM TO: what was written, in order, from the register
# trace: AUPDEN_CLEAR (1 if the first EECD write has the NVM type bits set
# and AUPDEN clear, and comes before any EEWR write), COMMITS (EECD writes
# with FLUPD set), COMMITS_RESET (those that the two HICR writes,
# FW_RESET_ENABLE then FW_RESET, preceded since the commit before) and
# HICR_BAD (commits preceded by HICR writes other than that pair)
flash_trace()
{
	local o v eewr=0 hicr=

	AUPDEN_CLEAR='' COMMITS=0 COMMITS_RESET=0 HICR_BAD=0
	while read -r o v; do
		case $((o)) in
		$((EEWR))) eewr=1 ;;
		$((HICR))) hicr+=" $((v))" ;;
		$((EECD)))
			[ -z "$AUPDEN_CLEAR" ] &&
				AUPDEN_CLEAR=$(( (v & NVM_FLASH) == NVM_FLASH &&
						 !(v & AUPDEN) && !eewr ))
			(( v & FLUPD )) || continue
			COMMITS=$((COMMITS + 1))
			case $hicr in
			"") ;;
			" $((FW_RESET_ENABLE)) $((FW_RESET))")
				COMMITS_RESET=$((COMMITS_RESET + 1)) ;;
			*) HICR_BAD=$((HICR_BAD + 1)) ;;
			esac
			hicr= ;;
		esac
	done < <(reg_trace_lines "$1" "$2" | reg_writes)
}

# nvm_word IFNAME WORD: WORD as ethtool -e reads it, in RD
nvm_word()
{
	RD=$(ethtool -e "$1" offset $(($2 * 2)) length 2 raw on | od -An -tu2) &&
		RD=$((RD))
}

# nvm_sum IFNAME: the sum of words 0x00-0x3F (ethtool -e), in RD
nvm_sum()
{
	local w sum=0

	for w in $(ethtool -e "$1" length 128 raw on | od -An -v -tu2); do
		sum=$(( (sum + w) & 0xffff ))
	done
	RD=$sum
}

# flash_commits IFNAME: two ethtool -E writes of a byte of word $WORD
# (changed, then back), each committed to the flash
flash_commits()
{
	local b

	b=$(ethtool -e "$1" offset $((WORD * 2)) length 1 raw on | od -An -tu1) &&
		ethtool -E "$1" magic $MAGIC offset $((WORD * 2)) value $((b ^ 1)) &&
		ethtool -E "$1" magic $MAGIC offset $((WORD * 2)) value $((b))
}

flash_nvm()
{
	local eecd w23 w sum from to commits ifn rc=0

	save_word $FW_WORD && (( RD & FW_UPDATING )) &&
		{ note "word $FW_WORD has bit 4 set: the fix-up would not run"; return 1; }
	save_word $FIX_WORD && w23=$RD || return 1
	(( w23 & FIXED )) && { note "word $FIX_WORD has bit 15 set already"; return 1; }
	save_word $CSUM_WORD && save_word $WORD && save_reg $FLOP &&
		save_reg $EECD && eecd=$RD || return 1
	bar wr $EECD $((eecd | NVM_FLASH | AUPDEN)) || return 1
	python3 "$NVM_BAR" "$BDF" flash 600 $FLOP_STM > "$TMPD/commits" &
	FLASH_PID=$!
	reg_trace_on e1000e_core_write e1000e_wrn_regs_write_unknown || return 1
	from=$(reg_trace_mark)
	probe && ifn=$(nic_ifname "$NIC") || { note "no bind with a flash NVM"; return 1; }
	nvm_word "$ifn" $FIX_WORD && w=$RD && nvm_sum "$ifn" && sum=$RD || return 1
	note "bound to a flash NVM: word $FIX_WORD $w23 -> $(printf 0x%x "$w")," \
		"words sum $(printf 0x%x "$sum")"
	[ "$sum" -eq $((0xbaba)) ] && [ "$w" -eq $((w23 | FIXED)) ] || rc=1
	flash_commits "$ifn" || { note "ethtool -E failed on the flash NVM"; rc=1; }
	to=$(reg_trace_mark)
	reg_trace_off
	kill "$FLASH_PID" && wait "$FLASH_PID"
	FLASH_PID=
	commits=$(< "$TMPD/commits")
	flash_trace "$from" "$to"
	note "EECD's first write: type flash, AUPDEN clear, before EEWR: ${AUPDEN_CLEAR:-none};" \
		"commits: $COMMITS written (seen $commits), $COMMITS_RESET after the" \
		"firmware reset, $HICR_BAD after other HICR writes"
	# the probe's fix-up may commit before the controller has put FLOP
	# back after the MAC reset; ethtool -E's two commits come after
	[ "$AUPDEN_CLEAR" = 1 ] && [ "$COMMITS" -eq 3 ] && [ "$commits" -eq 3 ] &&
		[ "$COMMITS_RESET" -ge 2 ] && [ "$HICR_BAD" -eq 0 ] || rc=1
	unbind && restore
	return $rc
}

# nvm_put WORD VALUE: write WORD and fix the checksum word up (both put
# back by the cleanup)
nvm_put()
{
	local sum

	save_word "$1" && save_word $CSUM_WORD && bar nvwr "$1" "$2" &&
		sum=$(bar nvsum) || return 1
	bar nvwr $CSUM_WORD $(( (RD + 0xbaba - sum) & 0xffff ))
}

# mng_up: bound with the NVM in pass-through mode; the firmware's side of a
# SOL session set in MANC and FACTPS; ip link set up, ethtool -r and -s
# (ETHTOOL_RC: how many were refused), ip link set down, traced from
# M_UP0: M_UP after the up, M_CMD after the ethtool commands
mng_up()
{
	local w ifn mark="i82574 selftest: a manageability session"

	save_word $CTRL2_WORD && w=$RD || return 1
	nvm_put $CTRL2_WORD $(( (w & ~MNGM) | MNGM_PT )) || return 1
	probe && ifn=$(nic_ifname "$NIC") ||
		{ note "no bind with the NVM in pass-through mode"; return 1; }
	PM_CONTROL=$(< "$NIC_DEV/power/control")
	# no runtime suspend, whose resume resets the MAC (and MANC)
	echo on > "$NIC_DEV/power/control"
	save_reg $FACTPS && bar wr $FACTPS $((RD & ~MNGCG)) &&
		save_reg $MANC && bar wr $MANC $((RD | RCV_TCO_EN | BLK_PHY_RST)) ||
		return 1
	reg_trace_on e1000e_core_write 'e1000e_core_mdic_*' || return 1
	M_UP0=$(reg_trace_mark)
	ip link set "$ifn" up || return 1
	M_UP=$(reg_trace_mark)
	echo "$mark" > /dev/kmsg
	ETHTOOL_RC=0
	ethtool -r "$ifn" 2>/dev/null || ETHTOOL_RC=$((ETHTOOL_RC + 1))
	ethtool -s "$ifn" autoneg off speed 100 duplex full 2>/dev/null ||
		ETHTOOL_RC=$((ETHTOOL_RC + 1))
	M_CMD=$(reg_trace_mark)
	MNG_MSGS=$(kmsg_since "$mark" | grep -c "manageability (SOL/IDE-R) session")
	ip link set "$ifn" down || return 1
	reg_trace_off
}

# mng_filter: at ip link set up, MDEF(i) written with the IPMI ports, then
# MANC2H with bit i, and MANC with EN_MNG2HOST
mng_filter()
{
	local k o v f= m2h=0 manc=0

	while read -r k o v; do
		[ "$k" = reg ] || continue
		if [ $((o)) -ge $((MDEF0)) ] && [ $((o)) -lt $((MDEF0 + 32)) ] &&
		   [ $((v)) -eq $((MDEF_IPMI)) ]; then
			f=$(( (o - MDEF0) / 4 ))
		elif [ $((o)) -eq $((MANC2H)) ] && [ -n "$f" ]; then
			m2h=$(( (v >> f) & 1 ))
		elif [ $((o)) -eq $((MANC)) ]; then
			manc=$(( (v & EN_MNG2HOST) != 0 ))
		fi
	done < <(reg_trace_lines "$M_UP0" "$M_UP" | reg_trace_parse)
	note "up: IPMI filter MDEF(${f:-none}), its MANC2H bit $m2h, MANC.EN_MNG2HOST $manc"
	[ -n "$f" ] && [ $m2h = 1 ] && [ $manc = 1 ]
}

# mng_phy_kept: from the up to the down, the PHY is reached (an MDIC
# access: the up reads BMCR to power the PHY up), no BMCR write resets it
# or restarts autonegotiation and no CTRL write sets PHY_RST; no BMCR write
# sets PDOWN; both ethtool commands refused, each with the message
mng_phy_kept()
{
	local k o v bad=0 pdown=0 n=0 mdic=0 from=$M_UP0

	while read -r k o v; do
		case $k in
		phy_r)
			mdic=$((mdic + 1))
			;;
		phy_w)
			mdic=$((mdic + 1))
			[ $((o)) -eq $((BMCR)) ] || continue
			n=$((n + 1))
			(( v & (BMCR_RESET | BMCR_ANRESTART) )) && bad=$((bad + 1))
			(( v & BMCR_PDOWN )) && pdown=$((pdown + 1))
			;;
		reg)
			[ $((o)) -eq $((CTRL)) ] && (( v & PHY_RST )) && bad=$((bad + 1))
			;;
		esac
	done < <(reg_trace_lines "$from" "$REG_TRACE_TO" | reg_trace_parse)
	note "up..down: $mdic MDIC accesses, $n BMCR writes, $bad PHY resets or" \
	     "autonegotiation restarts, $pdown power-downs;" \
	     "ethtool -r/-s refused $ETHTOOL_RC of 2, $MNG_MSGS messages"
	[ $mdic -gt 0 ] && [ $bad = 0 ] && [ $pdown = 0 ] && [ "$ETHTOOL_RC" = 2 ] &&
		[ "$MNG_MSGS" -ge 2 ]
}

nic_reclaim "$NIC"
# (sets NIC_DEV to each NIC in turn)
reg_trace_idle_others "$NIC" || ktap_exit_fail_msg "cannot set the other NICs down"
nic_dev "$NIC"
BDF=${NIC_DEV##*/}
unbind || ktap_exit_fail_msg "cannot unbind NIC $NIC"

ktap_test_result "$DRIVER: a wrong NVM checksum fails the probe, with a message" \
	bad_checksum
ktap_test_result "$DRIVER: flash NVM: AUPDEN cleared, checksum fixed, FW reset before commits" \
	flash_nvm
if mng_up; then
	ktap_test_result \
		"$DRIVER: manageability pass-through: IPMI filter passed to the host at up" \
		mng_filter
	ktap_test_result \
		"$DRIVER: SOL session: no PHY reset or renegotiation, ethtool -r/-s refused" \
		mng_phy_kept
else
	ktap_test_fail "$DRIVER: manageability pass-through: IPMI filter passed to the host at up"
	ktap_test_fail "$DRIVER: SOL session: no PHY reset or renegotiation, ethtool -r/-s refused"
fi
ktap_finished
