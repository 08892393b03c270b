#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Link settings (ethtool -s, -r) and flow control (ethtool -a, -A) of
# $DRIVER (i82574 by default), proven from QEMU's register trace (lib.sh's
# reg_trace_*) where the model ignores them, and from their effect where it
# has one. NIC $LINK_NIC (default 0) leaves e1000e and is bound to $DRIVER
# and set up with every other NIC's interface down (the trace events do
# not say which NIC wrote), then wired to its peer NIC (the next one) in a
# namespace; each step after that is a segment of the trace, between marks.
# The peer, idle, writes none of the registers checked.
#
# What QEMU 7.2's model does with it (see shared/docs/qemu-e1000e.md): it
# stores MII_ADVERTISE and CTRL1000 but links at 1000/full whatever they
# say; a BMCR autonegotiation restart drops STATUS.LU for 500 ms, then LSC;
# STATUS reports the speed and duplex of CTRL when CTRL.FRCSPD/FRCDPX force
# them; the partner's MII_LPA is 0x07e0 (10/100 both duplexes, PAUSE, no
# ASM_DIR) and MII_STAT1000 0x3c00; flow control registers are plain
# storage; after autonegotiation the model sets CTRL.RFCE/TFCE itself, so
# what counts is what the driver writes. The cases:
#  - flow control registers programmed between bind and up: FCAL/FCAH
#    01:80:c2:00:00:01, FCT 0x8808, FCTTV, FCRTH/FCRTL below the RX packet
#    buffer with XON enabled (i82574: the exact values for the model's PBA
#    of 20 KB RX, and FCRTV);
#  - the defaults: every speed but 1000/half advertised with PAUSE (rx and
#    tx), autonegotiation on with automatic MDI/MDI-X (PSCR), as ethtool
#    reports, with the model partner's abilities;
#  - advertise 10/full and 100/full: MII_ADVERTISE, CTRL1000 and a BMCR
#    restart written, ethtool reports it, the link comes back, ping works;
#  - invalid settings (1000/half advertised, nothing advertised, forced
#    1000, forced 2500) are refused with EINVAL, nothing written, ethtool
#    reports what it did before;
#  - forced 100/full and 10/half: BMCR without autonegotiation, PSCR with
#    MDI forced (the PHY resolves crossover only while autonegotiating),
#    CTRL with FRCSPD/FRCDPX, speed and duplex; STATUS (ethtool) follows;
#    no pause at half duplex; ethtool -r refused (EINVAL) while forced;
#  - autonegotiation back on (ethtool asks for every supported speed),
#    automatic crossover again;
#  - ethtool -A rx on tx off, rx off tx on (autonegotiated against the
#    model's symmetric partner: rx only, none), autoneg off rx on tx on
#    (forced): MII_ADVERTISE's PAUSE/ASM_DIR and CTRL.RFCE/TFCE;
#  - the settings survive ip link set down/up, ethtool -r and (debug
#    kernels, with the tx_stop hook) a TX timeout reset;
#  - MTU 9000 on the open interface holds the CPU wake-up latency
#    (/dev/cpu_dma_latency) at the time the RX packet buffer less a frame
#    takes to fill at 1 Gb/s; MTU 1500, or the interface down, releases it.
# DRIVER=e1000e runs the same on e1000e, a reference; where e1000e does
# otherwise the case skips (it masks 1000/half and advertises everything
# for nothing, autonegotiates a forced 1000/full, leaves autoneg off after
# refusing 2500, and honours rx/tx only with pause autoneg off), and the
# settings kept use pause autoneg off there.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

NIC=${LINK_NIC:-0}
PEER=$((NIC + 1))
CTRL=0x0
FCAL=0x28 FCAH=0x2c FCT=0x30 FCTTV=0x170 FCRTL=0x2160 FCRTH=0x2168
FCRTV=0x5f40
# RX packet buffer, KB: e1000e writes 32 to PBA; for i82574 fc_regs finds
# it from the thresholds
PBA_KB=32
PBA=0x1000
RFCE=$((1 << 27)) TFCE=$((1 << 28))
FRCSPD=$((1 << 11)) FRCDPX=$((1 << 12)) CTRL_SPEED=$((3 << 8)) CTRL_FD=1
# PHY registers and bits (linux/mii.h)
BMCR=0 ADVERTISE=4 CTRL1000=9
# the PHY's specific control register: crossover, MDI (0) or automatic
PSCR=16 MDIX=0x60 MDIX_AUTO=0x60
ANENABLE=0x1000 ANRESTART=0x200 SPEED100=0x2000 SPEED1000=0x40 FULLDPLX=0x100
ADV_SPEEDS=0x1e0 ADV_10FULL=0x40 ADV_100FULL=0x100 PAUSE_CAP=0x400
PAUSE_ASYM=0x800 ADV_1000FULL=0x200 ADV_1000HALF=0x100
ALL_MODES="10baseT/Half 10baseT/Full 100baseT/Half 100baseT/Full 1000baseT/Full"
LP_MODES="10baseT/Half 10baseT/Full 100baseT/Half 100baseT/Full 1000baseT/Half 1000baseT/Full"
REC=() S_BIND=()
# the trace lines of those registers: CTRL, flow control, BMCR, ADVERTISE,
# CTRL1000, PSCR
TRACE_KEEP='register 0x(0|28|2c|30|170|1000|2160|2168|5f40),|PHY\[0\]\[(0|4|9|16)\] ='

ktap_print_header
reg_trace_require "$DRIVER" e1000e
if ! command -v ethtool > /dev/null; then
	ktap_skip_all "no ethtool"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 18

# note TEXT: a KTAP diagnostic, TEXT as it is
note()
{
	printf '# %s\n' "$*"
}

cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	if [ -n "${IFN:-}" ]; then
		ethtool -s "$IFN" autoneg on advertise 0x2f 2>/dev/null
		ethtool -A "$IFN" autoneg on rx on tx on 2>/dev/null
	fi
	wire_cleanup
	nic_bind "$DRIVER" "$NIC" "$PEER"
	[ -n "${IFN:-}" ] && ip link set "$IFN" down
	reg_trace_restore_others
}
trap cleanup EXIT

# bind_up: NIC $NIC from e1000e to $DRIVER and up, traced from the unbind
# to the carrier (S_BIND) with every other NIC's interface down; the trace
# then stays on for the steps
bind_up()
{
	local bdf m

	nic_reclaim "$NIC"
	reg_trace_idle_others "$NIC" || return 1
	nic_bind e1000e "$NIC" || return 1
	IFN=$(nic_ifname "$NIC") && ip link set "$IFN" down || return 1
	nic_dev "$NIC"
	bdf=${NIC_DEV##*/}
	reg_trace_on e1000e_core_write 'e1000e_core_mdic_*' || return 1
	echo "$DRIVER" > "$NIC_DEV/driver_override"
	echo "$bdf" > "$NIC_DEV/driver/unbind" || return 1
	m=$(reg_trace_mark) || return 1
	echo "$bdf" > /sys/bus/pci/drivers_probe
	[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$DRIVER" ] || return 1
	IFN=$(nic_ifname "$NIC") || return 1
	ip link set "$IFN" up && wait_for 100 carrier_up "$IFN" || return 1
	segment "$m" "$(reg_trace_mark)"
	S_BIND=("${REC[@]}")
	note "$DRIVER on NIC $NIC ($IFN): ${#S_BIND[@]} records bind..up"
	# the peer: its probe and open are not looked at
	wire_setup "$NIC" "$PEER" && [ "$IF_A" = "$IFN" ]
}

# segment FROM TO: the records (reg_trace_parse) of the registers checked
# here, logged between the offsets FROM and TO, into REC (grep first: bash
# parses a line in about a millisecond here, and a probe logs thousands)
segment()
{
	mapfile -t REC < <(reg_trace_lines "$1" "$2" |
			   grep -E "$TRACE_KEEP" | reg_trace_parse)
	reg_trace_sound "${REC[@]}"
}

# link_known: STATUS.LU as ethtool reports it (the model's autonegotiation
# restart drops it with no carrier change)
link_known()
{
	[[ $(ethtool "$IFN" 2>/dev/null) == *"Speed: "[0-9]* ]]
}

# settle: the link is back and the driver's link-up work (pause) done
settle()
{
	wait_for 100 carrier_up "$IFN" && wait_for 100 link_known || return 1
	nap 0.5
}

# step CMD...: run CMD (its stderr in ERR, status in RC), let the link
# settle (unless NOSETTLE is set: nothing was to change), and keep the
# records it caused in REC
step()
{
	local m

	m=$(reg_trace_mark) || return 1
	ERR=$("$@" 2>&1 > /dev/null)
	RC=$?
	note "$* -> $RC${ERR:+ ($ERR)}"
	[ -n "${NOSETTLE:-}" ] || settle || note "the link did not come back"
	segment "$m" "$(reg_trace_mark)"
}

# last KIND REG: the value of the last KIND record of REG in REC, in LAST
last() { reg_trace_last "$1" "$2" "${REC[@]}"; }

# held REG MASK VALUE: the PHY register REG, as last written or read in
# REC, has the bits MASK equal to VALUE
held()
{
	local r o v=

	for r in "${REC[@]}"; do
		[[ ${r%% *} == phy_[rw] ]] || continue
		o=${r#* }
		[ $((${o%% *})) -eq $(($1)) ] && v=${o#* }
	done
	if [ -z "$v" ]; then
		note "PHY register $1 neither written nor read"
		return 1
	fi
	(( (v & $2) == $3 )) && return 0
	note "PHY register $1 holds $v: bits $2 are $((v & $2)), not $3"
	return 1
}

# count KIND REG: how many KIND records of REG are in REC, in N
count()
{
	local r o

	N=0
	for r in "${REC[@]}"; do
		[ "${r%% *}" = "$1" ] || continue
		o=${r#* }
		[ $((${o%% *})) -eq $(($2)) ] && N=$((N + 1))
	done
}

# expect KIND REG MASK VALUE: the last KIND write of REG in REC has the
# bits MASK equal to VALUE
expect()
{
	if ! last "$1" "$2"; then
		note "no $1 write of $2"
		return 1
	fi
	if (( (LAST & $3) != $4 )); then
		note "$1 $2 last written $LAST: bits $3 are $((LAST & $3)), not $4"
		return 1
	fi
}

# et_read: ethtool's settings of $IFN in ET[field], continuation lines
# joined with single spaces; et_pause: ethtool -a's in PA[field]
et_read()
{
	local l k= v

	declare -gA ET=()
	while IFS= read -r l; do
		if [[ $l =~ ^[[:space:]]+([^:]+):[[:space:]]*(.*)$ ]]; then
			k=${BASH_REMATCH[1]}
			ET[$k]=${BASH_REMATCH[2]}
		elif [ -n "$k" ]; then
			read -r v <<< "$l"
			ET[$k]+=" $v"
		fi
	done < <(ethtool "$IFN" 2>/dev/null)
	for k in "${!ET[@]}"; do
		read -ra v <<< "${ET[$k]}"
		ET[$k]="${v[*]}"
	done
}

et_pause()
{
	local l

	declare -gA PA=()
	while IFS= read -r l; do
		[[ $l =~ ^([A-Za-z ]+):[[:space:]]*(.*)$ ]] &&
			PA[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done < <(ethtool -a "$IFN" 2>/dev/null)
}

# reports FIELD VALUE: ethtool reports VALUE for FIELD (after et_read)
reports()
{
	[ "${ET[$1]}" = "$2" ] && return 0
	note "ethtool $1: '${ET[$1]}', not '$2'"
	return 1
}

# pause_is AUTONEG RX TX: ethtool -a reports them
pause_is()
{
	et_pause
	[ "${PA[Autonegotiate]}/${PA[RX]}/${PA[TX]}" = "$1/$2/$3" ] && return 0
	note "ethtool -a: ${PA[Autonegotiate]}/${PA[RX]}/${PA[TX]}, not $1/$2/$3"
	return 1
}

pings()
{
	wait_for 5 ping -q -c 1 -W 1 "$IP4_B" > /dev/null && return 0
	note "no ping reply from $IP4_B"
	return 1
}

# thresholds_of KB HIGH LOW: i82574's FCRTH and FCRTL for an RX buffer of KB
thresholds_of()
{
	local rx=$(($1 * 1024)) h l

	h=$((rx / 10 * 9))
	(( rx - 1522 < h )) && h=$((rx - 1522))
	h=$((h & 0xfff8))
	l=$(((h - 1522) & 0xfff8 | 1 << 31))
	[ "$2" = $h ] && [ "$3" = $l ]
}

# fc_regs: S_BIND has the flow control registers programmed
fc_regs()
{
	local rc=0 hi lo

	REC=("${S_BIND[@]}")
	expect reg $FCAL 0xffffffff 0x00c28001 || rc=1
	expect reg $FCAH 0xffff 0x0100 || rc=1
	expect reg $FCT 0xffff 0x8808 || rc=1
	last reg $FCTTV && [ $((LAST)) -ne 0 ] || { note "no FCTTV"; rc=1; }
	last reg $FCRTH && hi=$((LAST)) || { note "no FCRTH"; return 1; }
	last reg $FCRTL && lo=$((LAST)) || { note "no FCRTL"; return 1; }
	note "FCRTH $hi FCRTL $(printf %#x $lo)"
	# 8-byte units, XOFF below the 40 KB buffer less a frame, XON below
	(( hi > 0 && (hi & 7) == 0 && hi <= 40960 - 1522 )) || rc=1
	(( (lo & 0xfff8) < hi && (lo & (1 << 31)) )) || rc=1
	[ "$DRIVER" = i82574 ] || return $rc
	# PBA is plain storage in the model: 20 KB of RX from its reset, or
	# the 32 KB e1000e wrote at its probe. High: 90% of it, and a frame
	# below its top; low: a frame lower.
	if thresholds_of 20 "$hi" "$lo"; then
		PBA_KB=20
	elif thresholds_of 32 "$hi" "$lo"; then
		PBA_KB=32
	else
		note "FCRTH/FCRTL fit neither 20 nor 32 KB of RX buffer"
		rc=1
	fi
	expect reg $FCTTV 0xffff 0x800 || rc=1
	expect reg $FCRTV 0xffff 0x400 || rc=1
	return $rc
}

# defaults: what bind..up advertised, and what ethtool says
defaults()
{
	local rc=0

	local pause=$PAUSE_CAP use=Symmetric

	# e1000e advertises its rx and tx pause as PAUSE and ASM_DIR
	[ "$DRIVER" = e1000e ] && pause=$((PAUSE_CAP | PAUSE_ASYM)) \
		use="Symmetric Receive-only"
	REC=("${S_BIND[@]}")
	expect phy_w $ADVERTISE $((ADV_SPEEDS | PAUSE_CAP | PAUSE_ASYM)) \
		$((ADV_SPEEDS | pause)) || rc=1
	expect phy_w $CTRL1000 $((ADV_1000FULL | ADV_1000HALF)) $ADV_1000FULL || rc=1
	expect phy_w $PSCR $MDIX $MDIX_AUTO || rc=1
	et_read
	reports "Supported link modes" "$ALL_MODES" || rc=1
	reports "Advertised link modes" "$ALL_MODES" || rc=1
	reports "Auto-negotiation" on || rc=1
	reports "Advertised pause frame use" "$use" || rc=1
	# the model's partner: MII_LPA 0x07e0 (with LPACK), MII_STAT1000 0x3c00
	reports "Link partner advertised link modes" "$LP_MODES" || rc=1
	reports "Link partner advertised pause frame use" "Symmetric" || rc=1
	pause_is on "on" on || rc=1
	return $rc
}

# adv_subset: advertise 10/full and 100/full
adv_subset()
{
	local rc=0

	step ethtool -s "$IFN" advertise 0x0a
	[ $RC = 0 ] || return 1
	expect phy_w $ADVERTISE $ADV_SPEEDS $((ADV_10FULL | ADV_100FULL)) || rc=1
	expect phy_w $CTRL1000 $((ADV_1000FULL | ADV_1000HALF)) 0 || rc=1
	expect phy_w $BMCR $((ANENABLE | ANRESTART)) $((ANENABLE | ANRESTART)) || rc=1
	et_read
	reports "Advertised link modes" "10baseT/Full 100baseT/Full" || rc=1
	reports "Auto-negotiation" on || rc=1
	pings || rc=1
	return $rc
}

# refused ERRNO-TEXT ARGS...: ethtool -s ARGS fails with ERRNO-TEXT, no PHY
# or CTRL write, ethtool reports the same settings as before
refused()
{
	local want=$1 rc=0 before after r
	shift

	et_read
	before="${ET[Advertised link modes]}|${ET[Auto-negotiation]}|${ET[Speed]}|${ET[Duplex]}"
	NOSETTLE=1 step ethtool -s "$IFN" "$@"
	[ $RC != 0 ] && [[ $ERR == *"$want"* ]] || { note "not refused with $want"; rc=1; }
	for r in $BMCR $ADVERTISE $CTRL1000; do
		count phy_w $r
		[ $N = 0 ] || { note "$N writes of PHY register $r"; rc=1; }
	done
	count reg $CTRL
	[ $N = 0 ] || { note "$N CTRL writes"; rc=1; }
	et_read
	after="${ET[Advertised link modes]}|${ET[Auto-negotiation]}|${ET[Speed]}|${ET[Duplex]}"
	[ "$before" = "$after" ] || { note "settings were $before, now $after"; rc=1; }
	return $rc
}

# e1000e_differs WHAT WHY: skip a case where e1000e does otherwise
e1000e_differs()
{
	[ "$DRIVER" = e1000e ] || return 1
	ktap_test_skip "$DRIVER: $1: $2"
}

invalid_1000half() { refused "Invalid argument" advertise 0x3f; }
invalid_none() { refused "Invalid argument" advertise 0; }
invalid_1000() { refused "Invalid argument" autoneg off speed 1000 duplex full; }
invalid_2500() { refused "Invalid argument" autoneg off speed 2500 duplex full; }

# forced SPEED DUPLEX: autoneg off at SPEED/DUPLEX: BMCR, CTRL, STATUS
forced()
{
	local speed=$1 duplex=$2 rc=0 bmcr=0 ctrl=$((FRCSPD | FRCDPX))
	local Duplex=${2^}

	step ethtool -s "$IFN" autoneg off speed "$speed" duplex "$duplex"
	[ $RC = 0 ] || return 1
	[ "$speed" = 100 ] && bmcr=$SPEED100 ctrl=$((ctrl | 1 << 8))
	[ "$duplex" = full ] && bmcr=$((bmcr | FULLDPLX)) ctrl=$((ctrl | CTRL_FD))
	expect phy_w $BMCR $((ANENABLE | SPEED100 | SPEED1000 | FULLDPLX)) $bmcr || rc=1
	# no crossover resolution without autonegotiation: MDI (written by
	# the first forced setting, read back by the next)
	held $PSCR $MDIX 0 || rc=1
	expect reg $CTRL $((FRCSPD | FRCDPX | CTRL_SPEED | CTRL_FD)) $ctrl || rc=1
	et_read
	reports Speed "${speed}Mb/s" || rc=1
	reports Duplex "$Duplex" || rc=1
	reports "Auto-negotiation" off || rc=1
	pings || rc=1
	return $rc
}

forced_100_full() { forced 100 full; }

# forced_10_half: also no pause at half duplex, whatever was asked for
forced_10_half()
{
	local rc=0

	forced 10 half || rc=1
	expect reg $CTRL $((RFCE | TFCE)) 0 || rc=1
	return $rc
}

# nway_refused: ethtool -r on a forced link: EINVAL, BMCR untouched
nway_refused()
{
	local rc=0

	NOSETTLE=1 step ethtool -r "$IFN"
	[ $RC != 0 ] && [[ $ERR == *"Invalid argument"* ]] || rc=1
	count phy_w $BMCR
	[ $N = 0 ] || { note "$N BMCR writes"; rc=1; }
	return $rc
}

# autoneg_back: autoneg on again (ethtool then asks for every supported
# speed, as its man page says)
autoneg_back()
{
	local rc=0

	step ethtool -s "$IFN" autoneg on
	[ $RC = 0 ] || return 1
	expect phy_w $BMCR $((ANENABLE | ANRESTART)) $((ANENABLE | ANRESTART)) || rc=1
	expect phy_w $ADVERTISE $ADV_SPEEDS $ADV_SPEEDS || rc=1
	expect phy_w $CTRL1000 $((ADV_1000FULL | ADV_1000HALF)) $ADV_1000FULL || rc=1
	expect phy_w $PSCR $MDIX $MDIX_AUTO || rc=1
	expect reg $CTRL $((FRCSPD | FRCDPX)) 0 || rc=1
	et_read
	reports "Advertised link modes" "$ALL_MODES" || rc=1
	reports "Auto-negotiation" on || rc=1
	reports Speed 1000Mb/s || rc=1
	pings || rc=1
	return $rc
}

# pause AUTONEG RX TX ADV CTRL-BITS: ethtool -A, then MII_ADVERTISE's
# pause bits (ADV, or - when not checked) and CTRL.RFCE/TFCE
pause()
{
	local rc=0

	step ethtool -A "$IFN" autoneg "$1" rx "$2" tx "$3"
	[ $RC = 0 ] || return 1
	if [ "$4" != - ]; then
		expect phy_w $ADVERTISE $((PAUSE_CAP | PAUSE_ASYM)) $4 || rc=1
	fi
	expect reg $CTRL $((RFCE | TFCE)) $5 || rc=1
	pause_is "$1" "$2" "$3" || rc=1
	pings || rc=1
	return $rc
}

# against the model's partner (PAUSE, no ASM_DIR): receive only, then none
pause_rx() { pause on "on" off $((PAUSE_CAP | PAUSE_ASYM)) $RFCE; }
pause_tx() { pause on off on $PAUSE_ASYM 0; }
pause_forced() { pause off on "on" - $((RFCE | TFCE)); }

# kept: after what step did (in REC), the 10/100 full advertisement with
# pause rx only is what the PHY has and what ethtool reports; RFCE alone.
# Pause autonegotiated (resolved against the model's symmetric partner);
# e1000e takes rx only with pause autonegotiation off only.
KEPT_PAUSE_AN=on
[ "$DRIVER" = e1000e ] && KEPT_PAUSE_AN=off
kept()
{
	local rc=0

	held $ADVERTISE $((ADV_SPEEDS | PAUSE_CAP | PAUSE_ASYM)) \
		$((ADV_10FULL | ADV_100FULL | PAUSE_CAP | PAUSE_ASYM)) || rc=1
	if last phy_w $CTRL1000; then
		expect phy_w $CTRL1000 $ADV_1000FULL 0 || rc=1
	fi
	expect reg $CTRL $((RFCE | TFCE)) $RFCE || rc=1
	et_read
	reports "Advertised link modes" "10baseT/Full 100baseT/Full" || rc=1
	pause_is "$KEPT_PAUSE_AN" on off || rc=1
	pings || rc=1
	return $rc
}

kept_down_up()
{
	ethtool -s "$IFN" advertise 0x0a || return 1
	ethtool -A "$IFN" autoneg "$KEPT_PAUSE_AN" rx on tx off || return 1
	settle
	ip link set "$IFN" down || return 1
	step ip link set "$IFN" up
	[ $RC = 0 ] && kept
}

kept_nway()
{
	step ethtool -r "$IFN"
	[ $RC = 0 ] || return 1
	expect phy_w $BMCR $ANRESTART $ANRESTART && kept
}

# resets: the driver's reset count (ethtool -S), in RS
resets()
{
	local k v

	RS=0
	while read -r k v; do
		[ "$k" = resets: ] && RS=$v
	done < <(ethtool -S "$IFN" 2>/dev/null)
}

reset_after() { resets; [ "$RS" -gt "$1" ]; }

# kept_reset: a TX timeout's reset (MAC reset, PHY set up and started
# again) keeps them; the tx_stop hook of the debug kernels hangs every TX
# queue (robustness.sh's txhang), and ping's preload fills past BQL's limit
kept_reset()
{
	local q m r0 rc=0

	resets
	r0=$RS
	m=$(reg_trace_mark) || return 1
	echo "I82574-HARNESS: expect-watchdog $IFN" > /dev/kmsg
	for q in "/sys/class/net/$IFN/queues/tx-"*; do
		echo "${q##*-}" > "$TX_STOP" || rc=1
	done
	ping -q -c 200 -l 200 -s 1400 -w 2 "$IP4_B" > /dev/null 2>&1
	wait_for 300 reset_after "$r0" || { note "no reset in 30 s"; rc=1; }
	echo "I82574-HARNESS: expect-watchdog-done $IFN" > /dev/kmsg
	settle || rc=1
	segment "$m" "$(reg_trace_mark)"
	note "reset: ${#REC[@]} records"
	kept || rc=1
	return $rc
}

# cpu_latency: the CPU wake-up latency target now (the lowest request), us
cpu_latency()
{
	od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' '
}

# jumbo_latency: an MTU over 1500 on the open interface holds the CPU
# wake-up latency at the time the RX packet buffer less a frame (9,022
# bytes) takes to fill at 1 Gb/s, as e1000e does for this part (its
# "dropped transactions" in deep C-states); MTU 1500, and the interface
# down, release it. The buffer is PBA_KB, or what a PBA write at the MTU
# change gave it (e1000e moves RX buffer to TX for jumbo frames).
jumbo_latency()
{
	local kb=$PBA_KB want m idle l9 l15 ldown rc=0

	idle=$(cpu_latency)
	m=$(reg_trace_mark)
	ip link set "$IFN" mtu 9000 || return 1
	l9=$(cpu_latency)
	segment "$m" "$(reg_trace_mark)"
	last reg $PBA && kb=$((LAST & 0xffff))
	want=$(( (kb * 1024 - 9022) * 8 / 1000 ))
	ip link set "$IFN" mtu 1500 || rc=1
	l15=$(cpu_latency)
	ip link set "$IFN" mtu 9000 && ip link set "$IFN" down || rc=1
	ldown=$(cpu_latency)
	ip link set "$IFN" mtu 1500 && ip link set "$IFN" up && settle || rc=1
	note "CPU latency, us: before $idle; MTU 9000 $l9 (want $want: $kb KB" \
		"of RX buffer); MTU 1500 $l15; down at MTU 9000 $ldown"
	[ "$l9" = "$want" ] && [ "$l15" = "$idle" ] && [ "$ldown" = "$idle" ] || rc=1
	return $rc
}

bind_up || ktap_exit_fail_msg "cannot bind NIC $NIC to $DRIVER, set it up and wire it"

ktap_test_result "$DRIVER: flow control registers programmed by bind and up" fc_regs
ktap_test_result "$DRIVER: defaults: all speeds but 1000/half, autoneg, pause rx and tx" \
	defaults
ktap_test_result "$DRIVER: advertise 10/full 100/full: ADVERTISE, CTRL1000, restart; link, ping" \
	adv_subset
e1000e_differs "advertise with 1000/half refused" "e1000e masks it silently" ||
	ktap_test_result "$DRIVER: advertise with 1000/half refused (EINVAL), nothing changes" \
		invalid_1000half
e1000e_differs "advertise nothing refused" "e1000e advertises everything" ||
	ktap_test_result "$DRIVER: advertise nothing refused (EINVAL), nothing changes" \
		invalid_none
e1000e_differs "forced 1000/full refused" "e1000e autonegotiates 1000/full alone" ||
	ktap_test_result "$DRIVER: forced 1000/full refused (EINVAL), nothing changes" \
		invalid_1000
e1000e_differs "forced 2500/full refused" "e1000e refuses it but leaves autoneg off" ||
	ktap_test_result "$DRIVER: forced 2500/full refused (EINVAL), nothing changes" \
		invalid_2500
ktap_test_result "$DRIVER: forced 100/full: BMCR, CTRL FRCSPD/FRCDPX; STATUS 100/full, ping" \
	forced_100_full
ktap_test_result "$DRIVER: forced 10/half: BMCR, CTRL; STATUS 10/half; no pause at half duplex" \
	forced_10_half
ktap_test_result "$DRIVER: ethtool -r refused (EINVAL) on a forced link" nway_refused
ktap_test_result "$DRIVER: autoneg on again: restart offering every speed, CTRL not forced" \
	autoneg_back
e1000e_differs "pause rx only" "e1000e takes rx and tx only with pause autoneg off" ||
	ktap_test_result "$DRIVER: pause rx only: PAUSE|ASM_DIR advertised, CTRL.RFCE alone" \
		pause_rx
e1000e_differs "pause tx only" "e1000e takes rx and tx only with pause autoneg off" ||
	ktap_test_result "$DRIVER: pause tx only: ASM_DIR advertised, no pause against the model" \
		pause_tx
ktap_test_result "$DRIVER: pause autoneg off rx tx: CTRL.RFCE|TFCE forced" pause_forced
ktap_test_result "$DRIVER: settings survive ip link set down/up" kept_down_up
ktap_test_result "$DRIVER: settings survive ethtool -r" kept_nway
ktap_test_result "$DRIVER: MTU 9000 holds the CPU wake-up latency for the RX buffer" \
	jumbo_latency
TX_STOP=/sys/kernel/debug/$DRIVER/$(nic_bdf "$NIC")/tx_stop
if [ -w "$TX_STOP" ]; then
	ktap_test_result "$DRIVER: settings survive a TX timeout reset" kept_reset
else
	why="no tx_stop hook (needs CONFIG_FAULT_INJECTION_DEBUG_FS)"
	ktap_test_skip "$DRIVER: settings survive a TX timeout reset: $why"
fi
ktap_finished
