#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a real 82574L needs of $DRIVER (i82574 by default) and QEMU's model
# ignores, proven from the register trace (QEMU's e1000e trace events, see
# lib.sh's reg_trace_*). In one trace window, NIC $SIL_NIC (default 0)
# leaves e1000e, is bound to $DRIVER, set up, has its autonegotiation
# restarted (ethtool -r: PHY accesses whatever the driver does at bind),
# reconfigured (MTU 9000, ethtool -G to 512 descriptors, MTU 1500), set
# down and unbound; every other NIC's interface is down meanwhile (the
# events do not say which NIC wrote). The cases:
#  - the PHY is powered up: BMCR is written with PDOWN clear between bind
#    and up, last (e1000e, probing with the interface down, leaves PDOWN
#    set on silicon, and the model ignores it);
#  - CTRL_EXT.DRV_LOAD is set by the time the interface is up, stays set
#    while it is up, and is written clear by ip link set down or unbind
#    (e1000e on this AMT part: set at open, cleared at close);
#  - every MDIC access is inside software MDIO ownership: EXTCNF_CTRL
#    written with MDIO_SW set before it, with it clear after the burst;
#  - ip link set down powers the PHY down (BMCR written with PDOWN set,
#    last) with WoL off;
#  - WUC is written 0 after the MAC reset of the bind (the reset loads
#    WUC.APME from the NVM; e1000e_reset() clears it), and Wake-on right
#    after the bind is "g" exactly when the NVM's APM enable (word 0x24,
#    bit 10) is set, as e1000e defaults it for this part;
#  - MRQC is written, last, with RSS on (bits 1:0 = 01b) and the hash
#    fields e1000e enables on this part: TCP/IPv4 (16), IPv4 (17),
#    TCP/IPv6Ex (18), IPv6 (20) and TCP/IPv6 (21), no other bit. QEMU hashes
#    TCP/IPv6 under bit 18 and ignores 21, so only the trace shows bit 21.
#    Two queues have no e1000e precedent: RSS on (01b) and RETA's queue bit
#    (7) follow the 82574 datasheet and QEMU's model (e1000e_rss_enabled).
#  - no RX (TX) ring register (base, length, head of either queue) is
#    written once that unit has run (EN set with descriptors handed over)
#    until a CTRL.RST: a unit merely disabled may keep descriptors cached,
#    and e1000e never clears RCTL.EN on this part but resets the MAC around
#    every ring change; the MTU and ring changes each reprogram the rings;
#  - ip link set down resets the MAC (CTRL.RST) and sets no RCTL.EN or
#    TCTL.EN after it: nothing in the device points at the freed rings;
#  - the packet buffer split that a reset latches (the last PBA write
#    before it) gives RX 32 KB at MTU 1500 and 22 KB at 9000 (TX room for
#    two jumbo frames), e1000e's split, wherever RCTL.EN is set. The model
#    ignores PBA; only a reset applies it on silicon.
# DRIVER=e1000e runs the same on e1000e (bound again), a reference that
# passes every case but the PBA split at MTU 9000: e1000e reads TX's share
# back from PBA, which silicon computes (8 KB) and the model leaves 0, so
# there e1000e gives RX 14 KB.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

NIC=${SIL_NIC:-0}
CTRL_EXT=0x18
MDIC=0x20
EXTCNF_CTRL=0xf00
MDIO_SW=0x20
DRV_LOAD=$((1 << 28))
BMCR=0x0
PDOWN=0x800
CTRL=0x0
CTRL_RST=$((1 << 26))
WUC=0x5800
MRQC=0x5818
RCTL=0x100
TCTL=0x400
CTL_EN=0x2
PBA=0x1000
RING_SIZE=512
# RSS (bits 1:0 = 01b) only where two queues run: not on e1000e
MRQC_WANT=0x370001
[ "$DRIVER" = e1000e ] && MRQC_WANT=0x370000
# the window's records (reg_trace_parse) from the bind to the interface up,
# while up, at MTU 9000, at ethtool -G, at MTU 1500, at ip link set down, at
# the unbind
S_BIND=() S_AN=() S_JUMBO=() S_RING=() S_STD=() S_DOWN=() S_UNBIND=()

ktap_print_header
reg_trace_require "$DRIVER" e1000e
ktap_set_plan 10

# note TEXT: a KTAP diagnostic, TEXT as it is (trace lines hold glob
# characters, which ktap_print_msg would expand)
note()
{
	printf '# %s\n' "$*"
}

cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	# bound to $DRIVER, down, as the other tests expect a NIC
	nic_bind "$DRIVER" "$NIC"
	reg_trace_restore_others
}
trap cleanup EXIT

# prepare: NIC $NIC on e1000e with its interface down, every other NIC's
# interface down
prepare()
{
	nic_reclaim "$NIC"
	reg_trace_idle_others "$NIC" || return 1
	nic_bind e1000e "$NIC" || return 1
	IFN=$(nic_ifname "$NIC") && ip link set "$IFN" down
}

# window: the traced sequence; M_BIND, M_UP, M_AN, M_JUMBO, M_RING, M_STD
# and M_DOWN are the log's offsets after the unbind from e1000e, once the
# interface is up, after ethtool -r, MTU 9000, ethtool -G, MTU 1500 (each
# with the link back), after ip link set down; REG_TRACE_TO after the unbind. WOL
# is the interface's Wake-on setting once turned off ("d"; "none" without
# WoL support).
window()
{
	local bdf

	nic_dev "$NIC"
	bdf=${NIC_DEV##*/}
	reg_trace_on e1000e_core_write 'e1000e_core_mdic_*' || return 1
	echo "$DRIVER" > "$NIC_DEV/driver_override"
	echo "$bdf" > "$NIC_DEV/driver/unbind" || return 1
	M_BIND=$(reg_trace_mark) || return 1
	echo "$bdf" > /sys/bus/pci/drivers_probe
	[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$DRIVER" ] || return 1
	IFN=$(nic_ifname "$NIC") || return 1
	WOL0=$(ethtool "$IFN" | sed -n 's/^[[:space:]]*Wake-on: //p')
	WOLSUP=$(ethtool "$IFN" | sed -n 's/^[[:space:]]*Supports Wake-on: //p')
	APM=$(ethtool -e "$IFN" offset 0x49 length 1 raw on | od -An -tu1)
	ethtool -s "$IFN" wol d 2>/dev/null
	WOL=$(ethtool "$IFN" | sed -n 's/^[[:space:]]*Wake-on: //p')
	WOL=${WOL:-none}
	ip link set "$IFN" up && wait_for 100 carrier_up "$IFN" || return 1
	M_UP=$(reg_trace_mark) || return 1
	ethtool -r "$IFN" || note "ethtool -r $IFN failed"
	wait_for 100 carrier_up "$IFN" || return 1
	M_AN=$(reg_trace_mark) || return 1
	reconfigure || return 1
	ip link set "$IFN" down || return 1
	M_DOWN=$(reg_trace_mark) || return 1
	echo "$bdf" > "$NIC_DEV/driver/unbind" || return 1
	reg_trace_off
}

# reconfigure: the MTU and ring changes of window(), each waiting for the
# link to come back
reconfigure()
{
	ip link set "$IFN" mtu 9000 && wait_for 100 carrier_up "$IFN" || return 1
	M_JUMBO=$(reg_trace_mark) || return 1
	ethtool -G "$IFN" rx $RING_SIZE tx $RING_SIZE &&
		wait_for 100 carrier_up "$IFN" || return 1
	M_RING=$(reg_trace_mark) || return 1
	ip link set "$IFN" mtu 1500 && wait_for 100 carrier_up "$IFN" || return 1
	M_STD=$(reg_trace_mark)
}

# segment ARRAY FROM TO: the records (reg_trace_parse) logged between the
# offsets FROM and TO, into ARRAY
segment()
{
	local -n recs=$1

	mapfile -t recs < <(reg_trace_lines "$2" "$3" | reg_trace_parse)
	reg_trace_sound "${recs[@]}"
}

# phy_powered_up: between the bind and the interface up, BMCR is written,
# and its last write has PDOWN clear
phy_powered_up()
{
	if ! reg_trace_last phy_w $BMCR "${S_BIND[@]}"; then
		note "no BMCR write between bind and up"
		return 1
	fi
	note "bind..up: last BMCR write $LAST"
	(( (LAST & PDOWN) == 0 ))
}

# drv_load: CTRL_EXT's last write between bind and up has DRV_LOAD set,
# none while up (ethtool -r) clears it, and the last one at down or
# unbind clears it
drv_load()
{
	local rc=0 r

	if reg_trace_last reg $CTRL_EXT "${S_BIND[@]}"; then
		note "bind..up: last CTRL_EXT write $LAST"
		(( LAST & DRV_LOAD )) || rc=1
	else
		note "no CTRL_EXT write between bind and up"
		rc=1
	fi
	for r in "${S_AN[@]}"; do
		reg_trace_last reg $CTRL_EXT "$r" || continue
		note "up: CTRL_EXT write $LAST"
		(( LAST & DRV_LOAD )) || rc=1
	done
	if reg_trace_last reg $CTRL_EXT "${S_DOWN[@]}" "${S_UNBIND[@]}"; then
		note "down..unbind: last CTRL_EXT write $LAST"
		(( (LAST & DRV_LOAD) == 0 )) || rc=1
	else
		note "no CTRL_EXT write at down or unbind"
		rc=1
	fi
	return $rc
}

# mdio_owned: from the bind on, every MDIC access (a write to MDIC) comes
# while EXTCNF_CTRL was last written with MDIO_SW set, the last EXTCNF_CTRL
# write clears it, and there is at least one access
mdio_owned()
{
	local all=("${S_BIND[@]}" "${S_AN[@]}" "${S_JUMBO[@]}" "${S_RING[@]}"
		   "${S_STD[@]}" "${S_DOWN[@]}" "${S_UNBIND[@]}")
	local own=0 cnt=0 bad=0 i o v first=

	for i in "${!all[@]}"; do
		[ "${all[i]%% *}" = reg ] || continue
		o=${all[i]#* }
		v=${o#* }
		o=${o%% *}
		if [ $((o)) -eq $((EXTCNF_CTRL)) ]; then
			own=$(( (v & MDIO_SW) != 0 ))
		elif [ $((o)) -eq $((MDIC)) ]; then
			cnt=$((cnt + 1))
			[ $own = 1 ] && continue
			bad=$((bad + 1))
			# the access and what the model made of it
			[ -n "$first" ] || first="${all[i]}; ${all[i + 1]:-}"
		fi
	done
	note "$cnt MDIC accesses from the bind on, $bad outside MDIO ownership" \
	     "${first:+(the first: $first)}"
	[ $own = 0 ] || note "MDIO ownership still held at the end"
	[ $cnt -gt 0 ] && [ $bad = 0 ] && [ $own = 0 ]
}

# phy_powered_down: with WoL off, ip link set down writes BMCR, and its last
# write has PDOWN set
phy_powered_down()
{
	if [ "$WOL" != d ] && [ "$WOL" != none ]; then
		note "WoL is $WOL, not off"
		return 1
	fi
	if ! reg_trace_last phy_w $BMCR "${S_DOWN[@]}"; then
		note "no BMCR write at ip link set down"
		return 1
	fi
	note "down: last BMCR write $LAST (Wake-on: $WOL)"
	(( LAST & PDOWN ))
}

# wuc_cleared: between bind and up, a WUC write of 0 follows the last
# CTRL write with RST set
wuc_cleared()
{
	local r k o v rst=0 clr=0

	for r in "${S_BIND[@]}"; do
		read -r k o v <<< "$r"
		[ "$k" = reg ] || continue
		if [ $((o)) -eq $((CTRL)) ] && (( v & CTRL_RST )); then
			rst=1 clr=0
		elif [ $((o)) -eq $((WUC)) ] && [ $rst = 1 ]; then
			clr=$(( v == 0 ))
		fi
	done
	note "bind..up: CTRL.RST written $rst, WUC 0 after it $clr"
	[ $rst = 1 ] && [ $clr = 1 ]
}

# wol_default: Wake-on after the bind is g if the NVM's word 0x24 has APM
# enabled (bit 10: bit 2 of its high byte) and the driver offers g, d if
# not (e1000e offers no WoL without PME, which QEMU's model lacks)
wol_default()
{
	local want=d

	[ -n "${APM// /}" ] || { note "NVM word 0x24 unread"; return 1; }
	(( APM & 4 )) && [[ $WOLSUP == *g* ]] && want=g
	note "NVM word 0x24 high byte $((APM)), Wake-on after bind $WOL0"
	[ "$WOL0" = $want ]
}

# mrqc_bits: the last MRQC write from the bind to ethtool -r is MRQC_WANT
mrqc_bits()
{
	if ! reg_trace_last reg $MRQC "${S_BIND[@]}" "${S_AN[@]}"; then
		note "no MRQC write between bind and up"
		return 1
	fi
	note "last MRQC write $LAST, want $(printf 0x%x $MRQC_WANT)"
	[ $((LAST)) -eq $((MRQC_WANT)) ]
}

# ring_reg OFFSET: RING_UNIT "rx" or "tx" if OFFSET is a ring's base,
# length or head register, "rxt" or "txt" if its tail (RX at 0x2800, TX at
# 0x3800, queue 1 0x100 above queue 0). Builtins only: it runs for every
# record of the window, and a subshell each took 246 s on the debug kernel.
ring_reg()
{
	local o=$(($1)) b

	for b in 0x2800 0x2900 0x3800 0x3900; do
		[ $((b)) -lt $((0x3800)) ] && RING_UNIT=rx || RING_UNIT=tx
		case $((o - b)) in
		0 | 4 | 8 | 16) ;;
		24) RING_UNIT+=t ;;
		*) continue ;;
		esac
		return 0
	done
	return 1
}

# rings_on_reset: over the whole window, no write to a ring register of RX
# (TX) once that unit has run since the last CTRL.RST: RCTL.EN (TCTL.EN)
# set with a tail written non-zero (descriptors handed over, which the unit
# may have cached). e1000e sets RCTL.EN on an empty ring before it writes
# the ring. The rings are programmed (RX queue 0's base written) in each
# of the three changes.
rings_on_reset()
{
	local bad=0 n first= r k o v name seg unit
	local -A en=() tail=() ran=()

	for name in S_BIND S_AN S_JUMBO S_RING S_STD S_DOWN S_UNBIND; do
		eval "seg=(\"\${$name[@]}\")"
		n=0
		for r in "${seg[@]}"; do
			read -r k o v <<< "$r"
			[ "$k" = reg ] || continue
			unit=
			if [ $((o)) -eq $((CTRL)) ] && (( v & CTRL_RST )); then
				en=() tail=() ran=()
				continue
			elif [ $((o)) -eq $((RCTL)) ]; then
				unit=rx en[rx]=$(( (v & CTL_EN) != 0 ))
			elif [ $((o)) -eq $((TCTL)) ]; then
				unit=tx en[tx]=$(( (v & CTL_EN) != 0 ))
			elif ring_reg "$o"; then
				unit=$RING_UNIT
				case $unit in
				rxt | txt)
					unit=${unit%t}
					(( v )) && tail[$unit]=1
					;;
				*)
					[ $((o)) -eq $((0x2800)) ] && n=$((n + 1))
					[ -n "${ran[$unit]:-}" ] || continue
					bad=$((bad + 1))
					[ -n "$first" ] || first="$name: $r"
					continue
					;;
				esac
			else
				continue
			fi
			[ "${en[$unit]:-0}" = 1 ] && [ -n "${tail[$unit]:-}" ] &&
				ran[$unit]=1
		done
		note "$name: RX queue 0 base written $n times"
		case $name in
		S_JUMBO | S_RING | S_STD) [ $n -gt 0 ] || bad=$((bad + 1)) ;;
		esac
	done
	note "$bad ring writes to a unit that ran since the last reset" \
	     "${first:+(the first: $first)}"
	[ $bad = 0 ]
}

# down_resets: ip link set down writes CTRL.RST, and from the last one to
# the end of the window no RCTL or TCTL write sets EN
down_resets()
{
	local all=("${S_DOWN[@]}" "${S_UNBIND[@]}") rst=0 en=0 i k o v

	for i in "${!all[@]}"; do
		read -r k o v <<< "${all[i]}"
		[ "$k" = reg ] || continue
		if [ $((o)) -eq $((CTRL)) ] && (( v & CTRL_RST )); then
			[ "$i" -lt ${#S_DOWN[@]} ] && rst=1
			en=0
		elif [ $((o)) -eq $((RCTL)) ] || [ $((o)) -eq $((TCTL)) ]; then
			(( v & CTL_EN )) && en=1
		fi
	done
	note "down: CTRL.RST written $rst; EN set after the last reset $en"
	[ $rst = 1 ] && [ $en = 0 ]
}

# pba_split: wherever RCTL.EN is set, the PBA write the last CTRL.RST
# latched gives RX 32 KB (22 KB while the MTU is 9000), and EN is set at
# least once in each segment but ethtool -r's
pba_split()
{
	local latched= pending= bad=0 name want n r k o v seg

	for name in S_BIND S_AN S_JUMBO S_RING S_STD; do
		eval "seg=(\"\${$name[@]}\")"
		want=32
		[ $name = S_JUMBO ] || [ $name = S_RING ] && want=22
		n=0
		for r in "${seg[@]}"; do
			read -r k o v <<< "$r"
			[ "$k" = reg ] || continue
			if [ $((o)) -eq $((PBA)) ]; then
				pending=$((v & 0xffff))
			elif [ $((o)) -eq $((CTRL)) ] && (( v & CTRL_RST )); then
				latched=$pending
			elif [ $((o)) -eq $((RCTL)) ] && (( v & CTL_EN )); then
				n=$((n + 1))
				[ "$latched" = $want ] && continue
				[ $bad -gt 0 ] ||
					note "$name: RCTL.EN set with PBA.RXA" \
					     "${latched:-never written} latched, want $want"
				bad=$((bad + 1))
			fi
		done
		note "$name: RCTL.EN set $n times," \
		     "PBA.RXA latched ${latched:-never written} (want $want)"
		# ethtool -r leaves RCTL alone
		[ $n -gt 0 ] || [ $name = S_AN ] || bad=$((bad + 1))
	done
	[ $bad = 0 ]
}

prepare || ktap_exit_fail_msg "cannot put NIC $NIC on e1000e with the other NICs down"
window || ktap_exit_fail_msg "the traced bind, up, ethtool -r, down, unbind of NIC $NIC failed"
segment S_BIND "$M_BIND" "$M_UP"
segment S_AN "$M_UP" "$M_AN"
segment S_JUMBO "$M_AN" "$M_JUMBO"
segment S_RING "$M_JUMBO" "$M_RING"
segment S_STD "$M_RING" "$M_STD"
segment S_DOWN "$M_STD" "$M_DOWN"
segment S_UNBIND "$M_DOWN" "$REG_TRACE_TO"
note "$DRIVER on NIC $NIC: qemu-trace.log bytes $REG_TRACE_FROM..$REG_TRACE_TO;" \
	"records: ${#S_BIND[@]} bind..up, ${#S_AN[@]} up, ${#S_JUMBO[@]} MTU 9000," \
	"${#S_RING[@]} ethtool -G, ${#S_STD[@]} MTU 1500, ${#S_DOWN[@]} down," \
	"${#S_UNBIND[@]} unbind"

ktap_test_result "$DRIVER: the PHY is powered up after the bind (BMCR PDOWN clear)" \
	phy_powered_up
ktap_test_result "$DRIVER: CTRL_EXT.DRV_LOAD set while up, clear after down and unbind" \
	drv_load
ktap_test_result "$DRIVER: every MDIC access inside EXTCNF_CTRL MDIO ownership" \
	mdio_owned
ktap_test_result "$DRIVER: ip link set down powers the PHY down (BMCR PDOWN set, WoL off)" \
	phy_powered_down
ktap_test_result "$DRIVER: WUC written 0 after the MAC reset of the bind" \
	wuc_cleared
ktap_test_result "$DRIVER: Wake-on after the bind follows the NVM's APM enable" \
	wol_default
ktap_test_result "$DRIVER: MRQC: RSS on, hash fields IPv4, TCP/IPv4, IPv6, TCP/IPv6, TCP/IPv6Ex" \
	mrqc_bits
ktap_test_result \
	"$DRIVER: rings programmed only on a MAC reset since RX or TX last ran (MTU, ethtool -G)" \
	rings_on_reset
ktap_test_result "$DRIVER: ip link set down resets the MAC, nothing enabled after it" \
	down_resets
ktap_test_result "$DRIVER: PBA latched at the reset: RX 32 KB at MTU 1500, 22 KB at 9000" \
	pba_split
ktap_finished
