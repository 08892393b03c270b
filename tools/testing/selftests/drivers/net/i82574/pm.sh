#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Power management of $DRIVER (i82574 by default) on NIC 0 wired to NIC 1:
#  - Wake-on-LAN: each of ethtool -s wol g/u/m/b/d is reported back, and
#    a system suspend programs it: QEMU's register trace shows WUFC written
#    with the matching filters and WUC with PME_EN at the suspend ("m"
#    with RCTL.MPE), both written 0 and WUS cleared at the resume;
#    unsupported modes are refused with EINVAL or EOPNOTSUPP, through
#    netlink and the ioctl, and the setting stays; with the interface down
#    (its PHY powered down) the suspend that arms wol g powers the PHY up
#    (a wake-up needs a link): the last BMCR write of the suspend has
#    PDOWN clear, and its last CTRL write before arming sets SLU;
#  - runtime PM: with power/control "auto", the PCI device suspends once
#    the interface is down (PMCSR written D3hot, from the PCI config
#    trace), an ethtool query while it is suspended answers and lets it
#    suspend again; ip link set up resumes it (PMCSR written D0) and
#    traffic flows;
#  - system suspend and resume with iperf3 running: the callbacks ran (the
#    trace shows a MAC reset and the wake-up registers), iperf3 completes,
#    traffic flows after, and every setting changed before (ring sizes,
#    RSS table and key, coalescing, MTU, an address in the unicast list, a
#    multicast address, the TX queue's dispatch_limit and BQL limit_max)
#    reads back the same; on i82574 the device's registers too (ethtool
#    -d: ring lengths, EITR, RCTL.UPE/MPE, MRQC, RAR 0, RETA, RSS key,
#    MTA), since the driver's and the core's memory of a setting survives
#    any resume; and the receive filter passes frames from the peer to the
#    listed unicast address and the joined group, and drops those to a
#    foreign address and another group;
#  - the PM core's test levels (pm_test devices, platform, processors,
#    core) and full sleeps (s2idle woken by a serial port's interrupt, as
#    QEMU's RTC wakes S3 only; S3, when the machine offers it, woken by the
#    RTC alarm and by QEMU's system_wakeup), each with iperf3 and pktgen
#    running and dispatch_limit set: iperf3 completes, pktgen's run ends
#    (the freezer's signal stops it), every TX queue drains (BQL inflight
#    0), traffic flows after.
# Every suspend is the whole system's, through /sys/power/state
# (lib.sh's system_sleep); a full one is mem, S3 where mem_sleep offers
# "deep". The NICs other than those under test are unbound for the run:
# QEMU's e1000e events do not say which NIC wrote, and a suspend runs
# every bound driver's callbacks. DRIVER=e1000e runs the same suspends;
# the Wake-on-LAN cases are i82574's (e1000e leaves WUC/WUFC armed after
# the resume and does not power the PHY up for wol g with the interface
# down); e1000e runtime suspends on link loss rather than at ip link set
# down, and has no ethtool -x or dispatch_limit.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

WUC=0x5800
WUFC=0x5808
WUS=0x5810
CTRL=0x0
RCTL=0x100
CTRL_RST=$((1 << 26))
PME_EN=0x2
MPE=0x10
BMCR=0x0
PDOWN=0x800
SLU=0x40
DL_OK=0
SLEEP_STATE=
PKTGEN_COUNT=${PKTGEN_COUNT:-2000000}
PKTGEN_DST=198.18.0.99
IPERF_SECS=${IPERF_SECS:-4}
MCAST=01:00:5e:01:02:03
MC_OTHER=01:00:5e:01:07:99	# MTA hash 0x990: none of the NIC's own groups hash there
UC_LISTED=02:00:00:5e:aa:31	# in the unicast list (RAR 1)
FOREIGN_UC=02:00:00:5e:aa:01
TMPD=$(mktemp -d /tmp/pm.XXXXXX)
declare -A WUFC_OF=([g]=0x2 [u]=0x4 [m]=0x8 [b]=0x10 [d]=0)
SAVED_CONTROL=
declare -A OTHERS=()

ktap_print_header
reg_trace_require "$DRIVER" e1000e
ktap_set_plan 30

# note TEXT: a KTAP diagnostic, TEXT as it is
note()
{
	printf '# %s\n' "$*"
}

cleanup()
{
	local i

	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	[ -n "${L2_RX:-}" ] && kill "$L2_RX" 2>/dev/null
	[ -n "${L2_TX:-}" ] && kill "$L2_TX" 2>/dev/null
	[ -e /proc/net/pktgen/pgctrl ] && pktgen_clear
	wire_cleanup
	sleep_restore
	nic_dev 0
	[ -n "$SAVED_CONTROL" ] && echo "$SAVED_CONTROL" > "$NIC_DEV/power/control"
	# bound to $DRIVER afresh (every setting at its default), down, as
	# the other tests expect a NIC
	for i in 0 1; do
		nic_dev "$i"
		[ -e "$NIC_DEV/driver" ] &&
			echo "${NIC_DEV##*/}" > "$NIC_DEV/driver/unbind"
	done
	nic_bind "$DRIVER" 0 1
	others_rebind
	rm -rf "$TMPD"
}
trap cleanup EXIT

# others_unbind N...: unbind every NIC but N... from its driver (kept in
# OTHERS for others_rebind)
others_unbind()
{
	local i others drv

	others=$(nic_others "$@") || return 1
	for i in $others; do
		nic_dev "$i"
		drv=$(cd -P "$NIC_DEV/driver" && pwd) || return 1
		OTHERS[$i]=${drv##*/}
		echo "${NIC_DEV##*/}" > "$NIC_DEV/driver/unbind" || return 1
	done
}

others_rebind()
{
	local i

	for i in "${!OTHERS[@]}"; do
		nic_bind "${OTHERS[$i]}" "$i"
	done
	OTHERS=()
}

# sleep_cycle: one full system suspend and resume (mem), woken by the host
sleep_cycle()
{
	system_sleep "$SLEEP_STATE"
}

# traced_sleep: sleep_cycle inside a register trace window; the window's
# records of CTRL, RCTL and the wake-up registers in TRACE (array)
traced_sleep()
{
	local rc t0=$EPOCHREALTIME t1 t2

	reg_trace_on e1000e_core_write || return 1
	t1=$EPOCHREALTIME
	sleep_cycle
	rc=$?
	t2=$EPOCHREALTIME
	reg_trace_off || return 1
	note "trace on $(ms "$t0" "$t1") ms, cycle $(ms "$t1" "$t2") ms," \
	     "trace off $(ms "$t2" "$EPOCHREALTIME") ms"
	trace_records
	return $rc
}

# trace_records [FROM TO]: the records of CTRL, RCTL and the wake-up
# registers between the log offsets FROM and TO (default: the last
# window) in TRACE (array)
trace_records()
{
	mapfile -t TRACE < <(reg_trace_lines "$@" |
		grep -E 'register 0x(0|100|5800|5808|5810),' | reg_trace_parse)
	reg_trace_sound "${TRACE[@]}"
	note "${#TRACE[@]} records of CTRL, RCTL, WUC, WUFC, WUS"
}

# wol_window: one trace window for every Wake-on mode in WOL_MODES: each
# set, read back (REPORTED), and a sleep cycle (SLEPT: its status);
# MARK[mode] the log offset before the mode was set, MARK[end] after the
# last cycle
declare -A REPORTED=() SLEPT=() MARK=()
wol_window()
{
	local m

	reg_trace_on e1000e_core_write || return 1
	for m in "${WOL_MODES[@]}"; do
		MARK[$m]=$(reg_trace_mark) || return 1
		ethtool -s "$IFN" wol "$m" && wol_of "$IFN" && REPORTED[$m]=$WOL
		sleep_cycle
		SLEPT[$m]=$?
	done
	MARK[end]=$(reg_trace_mark) || return 1
	reg_trace_off
}

# wol_down_phy: wol g armed by a sleep cycle of NIC 0 with its interface
# down; in the trace, from the start to the resume's first write of WUFC 0
# after the suspend armed it, the last BMCR write has PDOWN clear, and the
# last CTRL write before the arming has SLU set (the MAC's link to the
# PHY, which the MAC reset of the close cleared; the model ignores it)
wol_down_phy()
{
	local -a recs
	local r k o v armed=0 bmcr='' ctrl='' rc

	ip link set "$IFN" down && ethtool -s "$IFN" wol g || return 1
	reg_trace_on e1000e_core_write 'e1000e_core_mdic_*' || return 1
	sleep_cycle
	rc=$?
	reg_trace_off || return 1
	ethtool -s "$IFN" wol d
	[ $rc = 0 ] || { note "sleep cycle failed"; return 1; }
	mapfile -t recs < <(reg_trace_lines | reg_trace_parse)
	for r in "${recs[@]}"; do
		read -r k o v <<< "$r"
		if [ "$k" = phy_w ] && [ $((o)) -eq $((BMCR)) ]; then
			bmcr=$v
		elif [ "$k" = reg ] && [ $((o)) -eq $((CTRL)) ]; then
			[ $armed = 1 ] || ctrl=$v
		elif [ "$k" = reg ] && [ $((o)) -eq $((WUFC)) ]; then
			[ $((v)) -eq $((WUFC_OF[g])) ] && armed=1 && continue
			[ $armed = 1 ] && break
		fi
	done
	note "wol g, interface down: WUFC armed $armed, last BMCR write" \
	     "before the resume ${bmcr:-none}, last CTRL write before arming ${ctrl:-none}"
	[ $armed = 1 ] && [ -n "$bmcr" ] && (( (bmcr & PDOWN) == 0 )) &&
		[ -n "$ctrl" ] && (( ctrl & SLU ))
}

# ms T0 T1: milliseconds from EPOCHREALTIME T0 to T1
ms()
{
	echo $(( (${2/./} - ${1/./}) / 1000 ))
}

# wol_of IF: the Wake-on setting ethtool reports, in WOL
wol_of()
{
	WOL=$(ethtool "$1" | sed -n 's/^[[:space:]]*Wake-on: //p')
	[ -n "$WOL" ]
}

# wol_supported IF MODES: every letter of MODES is in "Supports Wake-on"
wol_supported()
{
	local s m

	s=$(ethtool "$1" | sed -n 's/^[[:space:]]*Supports Wake-on: //p')
	for m in $(fold -w1 <<< "$2"); do
		# "d" (off) is never listed; it needs some mode to turn off
		[ "$m" = d ] && m=g
		[[ $s == *$m* ]] || return 1
	done
}

# wake_programmed MODE: in TRACE, the suspend wrote WUFC with MODE's
# filters (then WUC with PME_EN, or WUC 0 for "d"), "m" with RCTL.MPE set
# before it; the resume then wrote WUFC 0, WUC 0 and cleared WUS
wake_programmed()
{
	local want=${WUFC_OF[$1]} r o v stage=0 rctl=0 wuc_ok=0 clr_wufc=0 \
		clr_wuc=0 wus=0

	for r in "${TRACE[@]}"; do
		o=${r#reg }
		v=${o#* }
		o=${o%% *}
		case $stage:$((o)) in
		0:$((RCTL)))	rctl=$v ;;
		0:$((WUFC)))	[ $((v)) -eq $((want)) ] || continue
				stage=1 ;;
		1:$((WUC)))	if [ "$want" = 0 ]; then
					[ $((v)) -eq 0 ] && wuc_ok=1
				else
					(( v & PME_EN )) && wuc_ok=1
				fi
				stage=2 ;;
		2:$((WUFC)))	[ $((v)) -eq 0 ] && clr_wufc=1 ;;
		2:$((WUC)))	[ $((v)) -eq 0 ] && [ $clr_wufc = 1 ] && clr_wuc=1 ;;
		2:$((WUS)))	[ $clr_wuc = 1 ] && wus=1 ;;
		esac
	done
	note "wol $1: WUFC $want at suspend: $((stage > 0)), WUC $wuc_ok," \
	     "RCTL before it $rctl; at resume WUFC 0: $clr_wufc, WUC 0: $clr_wuc, WUS cleared: $wus"
	[ "$1" != m ] || (( rctl & MPE )) || return 1
	[ $stage = 2 ] && [ $wuc_ok = 1 ] && [ $clr_wuc = 1 ] && [ $wus = 1 ]
}

# wol_case MODE NEXT: MODE was reported back, and its cycle (the window's
# part from MARK[MODE] to MARK[NEXT]) programmed it
wol_case()
{
	[ "${REPORTED[$1]:-}" = "$1" ] ||
		{ note "wol $1: Wake-on ${REPORTED[$1]:-unread}"; return 1; }
	[ "${SLEPT[$1]}" = 0 ] || { note "wol $1: sleep cycle failed"; return 1; }
	trace_records "${MARK[$1]}" "${MARK[$2]}"
	wake_programmed "$1"
}

# wol_refused: each mode of p, a, s, f the device does not list among its
# supported ones, alone and with g, fails (EINVAL from the core's netlink
# check, or EOPNOTSUPP from the driver); Wake-on stays g
wol_refused()
{
	local m out rc=0 bad=()

	for m in p a s f; do
		wol_supported "$IFN" "$m" || bad+=("$m" "g$m")
	done
	note "unsupported: ${bad[*]}"
	[ ${#bad[@]} -gt 0 ] || return 1
	ethtool -s "$IFN" wol g || return 1
	for m in "${bad[@]}"; do
		if out=$(ethtool -s "$IFN" wol "$m" 2>&1); then
			note "wol $m: accepted"
			rc=1
		elif [[ $out != *"Invalid argument"* &&
			$out != *"Operation not supported"* ]]; then
			note "wol $m: $out"
			rc=1
		fi
	done
	wol_of "$IFN" && [ "$WOL" = g ] || { note "Wake-on $WOL after them"; rc=1; }
	ethtool -s "$IFN" wol d
	return $rc
}

# rpm_status: NIC 0's runtime PM status in RD
rpm_status()
{
	rd "$NIC_DEV/power/runtime_status"
}

rpm_is()
{
	rpm_status && [ "$RD" = "$1" ]
}

# rpm_down: with power/control auto, ip link set down lets the device
# suspend; ethtool -g while suspended answers with the ring sizes and the
# device suspends again after; the PCI config trace shows PMCSR written
# D3hot, and D3hot last (runtime_status alone would not show the state)
rpm_down()
{
	local out bdf=${NIC_DEV##*/}

	pci_cap_pos "$bdf" 1 && PM_POS=$POS || { note "no PM capability"; return 1; }
	echo auto > "$NIC_DEV/power/control" || return 1
	reg_trace_on pci_cfg_write || return 1
	ip link set "$IF_A" down || return 1
	if ! wait_for 100 rpm_is suspended; then
		note "runtime_status $RD 10 s after ip link set down"
		return 1
	fi
	out=$(ethtool -g "$IF_A" | sed -n '/^Current/,$s/^RX:[[:space:]]*//p') ||
		return 1
	[ "$out" = 256 ] || { note "ethtool -g on the suspended device: RX $out"; return 1; }
	wait_for 100 rpm_is suspended || { note "not suspended again: $RD"; return 1; }
	reg_trace_off && pmcsr_states "$bdf" "$PM_POS" || return 1
	note "PMCSR power states written: ${PMCSR_STATES:-none}"
	[[ " $PMCSR_STATES" == *" D3"* && $PMCSR_STATES == *D3 ]]
}

# rpm_up: ip link set up resumes the device, the link comes back, and
# ping works
rpm_up()
{
	local bdf=${NIC_DEV##*/}

	reg_trace_on pci_cfg_write || return 1
	ip link set "$IF_A" up || return 1
	rpm_is active || { note "runtime_status $RD after ip link set up"; return 1; }
	reg_trace_off && pmcsr_states "$bdf" "$PM_POS" || return 1
	note "PMCSR power states written at up: ${PMCSR_STATES:-none}"
	[[ $PMCSR_STATES == *D0 ]] || return 1
	wait_for 100 carrier_up "$IF_A" || return 1
	# the link may drop once more as autonegotiation restarts
	ping -q -c 3 -i 0.2 -w 10 "$IP4_B" > /dev/null ||
		{ note "ping failed"; return 1; }
}

# squash VAR TEXT: TEXT with each run of white space made one space, in VAR
squash()
{
	local -a w

	read -r -d '' -a w <<< "$2"
	printf -v "$1" '%s' "${w[*]}"
}

# The words of i82574's register dump (ethtool -d, i82574_get_regs()):
# version 1's i82574_dump_regs[], then RAL/RAH 0, RETA, RSSRK and MTA
D_WORDS=212
D_EITR1=8 D_RCTL=10 D_MRQC=15 D_RDLEN0=18 D_TDLEN0=28
D_RAL0=40 D_RETA=42 D_RSSRK=74 D_MTA=84

# dump_settings VAR: the settings under test as the device holds them, from
# its register dump, into VAR: ring lengths, queue vector EITRs, RCTL's
# unicast and multicast promiscuous bits, MRQC, RAR 0, RETA, the RSS key,
# the multicast table
dump_settings()
{
	local -a d

	# shellcheck disable=SC2207 # numbers
	d=($(ethtool -d "$IF_A" raw on | od -An -tu4 -v))
	if [ ${#d[@]} -ne $D_WORDS ]; then
		printf -v "$1" 'a dump of %d words, not %d' ${#d[@]} $D_WORDS
		return
	fi
	printf -v "$1" '%s' "rdlen ${d[D_RDLEN0]} tdlen ${d[D_TDLEN0]}" \
		" eitr ${d[D_EITR1]} ${d[D_EITR1 + 1]}" \
		" upe $(( (d[D_RCTL] >> 3) & 1 )) mpe $(( (d[D_RCTL] >> 4) & 1 ))" \
		" mrqc ${d[D_MRQC]} rar0 ${d[D_RAL0]} ${d[D_RAL0 + 1]}" \
		" reta ${d[*]:D_RETA:32} key ${d[*]:D_RSSRK:10} mta ${d[*]:D_MTA:128}"
}

# snapshot ARRAY: every setting under test, one string each (five
# processes, six on i82574: each costs up to a second on the debug kernel)
snapshot()
{
	local -n s=$1
	local q=/sys/class/net/$IF_A/queues/tx-0 out re

	s=()
	out=$(ethtool -g "$IF_A" 2>&1)
	squash "s[ring]" "${out#*Current hardware settings:}"
	squash "s[rss]" "$(ethtool -x "$IF_A" 2>&1)"
	# (e1000e has no tx-usecs)
	out=$(ethtool -c "$IF_A" 2>&1)
	for re in 'Adaptive RX:[[:space:]]*[a-z/]+[[:space:]]+TX:[[:space:]]*[a-z/]+' \
		  'rx-usecs:[[:space:]]*[0-9]+' 'tx-usecs:[[:space:]]*[0-9]+'; do
		[[ $out =~ $re ]] && squash "s[coal]" "${s[coal]:-} ${BASH_REMATCH[0]}"
	done
	out=$(ip -d -o link show dev "$IF_A")
	[[ $out =~ (mtu [0-9]+) ]] && s[mtu]=${BASH_REMATCH[1]}
	out=$(ip maddr show dev "$IF_A")
	s[mcast]="$MCAST $([[ $out == *"$MCAST"* ]] && echo joined || echo absent)"
	out=$(bridge fdb show dev "$IF_A" self)
	s[uc]="$UC_LISTED $([[ $out == *"$UC_LISTED"* ]] && echo listed || echo absent)"
	rd "$q/dispatch_limit" && s[dl]=$RD
	rd "$q/byte_queue_limits/limit_max" && s[bql]=$RD
	[ "$DRIVER" = e1000e ] || dump_settings "s[regs]"
}
declare -A BEFORE AFTER DEFAULTS

# settings_change: a value other than the default for every setting
settings_change()
{
	local q=/sys/class/net/$IF_A/queues/tx-0 t=$EPOCHREALTIME

	snapshot DEFAULTS
	note "defaults read in $(ms "$t" "$EPOCHREALTIME") ms"
	ethtool -G "$IF_A" rx 512 tx 128 || return 1
	if [ "$DRIVER" = e1000e ]; then
		ethtool -C "$IF_A" rx-usecs 100 || return 1
	else
		ethtool -X "$IF_A" weight 1 3 hkey "$(printf '%02x:' {1..39})28" ||
			return 1
		ethtool -C "$IF_A" adaptive-rx off adaptive-tx off \
			rx-usecs 100 tx-usecs 70 || return 1
	fi
	note "ethtool settings after $(ms "$t" "$EPOCHREALTIME") ms"
	ip -batch - <<-EOF || return 1
		link set $IF_A mtu 4000
		maddr add $MCAST dev $IF_A
	EOF
	bridge fdb add "$UC_LISTED" dev "$IF_A" self permanent || return 1
	ip -n "$PEER_NS" link set "$IF_B" mtu 4000 || return 1
	# e1000e has no ndo_xmit_flush, and its queues no dispatch_limit
	if [ -e "$q/dispatch_limit" ]; then
		echo 8 > "$q/dispatch_limit" || return 1
		DL_OK=1
	fi
	echo 100000 > "$q/byte_queue_limits/limit_max" || return 1
	note "ip settings after $(ms "$t" "$EPOCHREALTIME") ms"
	wait_for 100 carrier_up "$IF_A" &&
		wait_for 100 carrier_up "$IF_B" "$PEER_NS"
}

# setting_kept KEY WHAT: KEY differs from the default before the suspend,
# and reads back the same after it
setting_kept()
{
	note "$2 default: ${DEFAULTS[$1]}"
	note "$2 before: ${BEFORE[$1]}"
	note "$2 after: ${AFTER[$1]}"
	[ "${BEFORE[$1]}" != "${DEFAULTS[$1]}" ] &&
		[ "${BEFORE[$1]}" = "${AFTER[$1]}" ]
}

# callbacks_ran: the trace of the cycle shows a MAC reset (CTRL.RST) and
# the wake-up registers written
callbacks_ran()
{
	local r rst=0 wake=0 o v

	for r in "${TRACE[@]}"; do
		o=${r#reg }
		v=${o#* }
		o=${o%% *}
		[ $((o)) -eq $((CTRL)) ] && (( v & CTRL_RST )) && rst=$((rst + 1))
		[ $((o)) -eq $((WUC)) ] || [ $((o)) -eq $((WUFC)) ] && wake=$((wake + 1))
	done
	note "MAC resets: $rst, wake-up register writes: $wake"
	[ $rst -gt 0 ] && [ $wake -gt 0 ]
}

# iperf_across: iperf3 started before the cycle ends after it, without error
iperf_across()
{
	local pid rc

	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$IP4_B" \
		--pidfile /tmp/iperf3-pm-$$.pid || return 1
	wait_for 30 test -s /tmp/iperf3-pm-$$.pid
	# (not in $RESULTS: the sleep unmounts it)
	iperf3 -c "$IP4_B" -t "$IPERF_SECS" -J > /tmp/pm-iperf3.json &
	pid=$!
	nap 1
	traced_sleep
	SLEEP_RC=$?
	wait $pid
	rc=$?
	wait_for 50 test ! -e /tmp/iperf3-pm-$$.pid
	note "iperf3 across the cycle: rc $rc," \
	     "$(json_get /tmp/pm-iperf3.json \
		'round(j["end"]["sum_received"]["bytes"] / 1e6, 1)' 2>/dev/null) MB"
	[ $rc -eq 0 ] && ! grep -q '"error"' /tmp/pm-iperf3.json
}

# traffic_after: carrier back on both ends, ping and a short iperf3 run
traffic_after()
{
	wait_for 100 carrier_up "$IF_A" &&
		wait_for 100 carrier_up "$IF_B" "$PEER_NS" || return 1
	ping -q -c 3 -i 0.2 -w 10 "$IP4_B" > /dev/null ||
		{ note "ping failed"; return 1; }
	iperf3_run pm-after -t 1
}

# uc_filtered, mc_filtered: test frames from the peer through the receive
# filter (RAR, RCTL.UPE; MTA, RCTL.MPE), counted here (lib.sh's l2_start)
uc_filtered()
{
	l2_expect_rx "$UC_LISTED" "to the listed $UC_LISTED" &&
		l2_expect_drop "$FOREIGN_UC" "to the foreign $FOREIGN_UC"
}

mc_filtered()
{
	l2_expect_rx "$MCAST" "to the joined $MCAST" &&
		l2_expect_drop "$MC_OTHER" "to $MC_OTHER, not joined"
}

# pktgen_start: a pktgen run of PKTGEN_COUNT frames from IF_A to the peer,
# started in the background (PKTGEN_PID)
pktgen_start()
{
	local mac c

	mac=$(ip -n "$PEER_NS" -o link show dev "$IF_B") || return 1
	[[ $mac =~ link/ether\ ([0-9a-f:]+) ]] || return 1
	mac=${BASH_REMATCH[1]}
	pktgen_clear || return 1
	echo "add_device $IF_A" > /proc/net/pktgen/kpktgend_0 || return 1
	for c in "count $PKTGEN_COUNT" "pkt_size 60" "delay 0" "dst $PKTGEN_DST" \
		 "dst_mac $mac"; do
		echo "$c" > "/proc/net/pktgen/$IF_A" || return 1
	done
	pktgen_go "$IF_A" &
	PKTGEN_PID=$!
}

# drained: every TX queue of IF_A has nothing in flight (BQL)
drained()
{
	local q

	for q in /sys/class/net/"$IF_A"/queues/tx-*; do
		rd "$q/byte_queue_limits/inflight" && [ "$RD" = 0 ] || return 1
	done
}

# sleep_loaded STATE LEVEL WAKE: system_sleep STATE LEVEL WAKE with iperf3
# and pktgen running on the wire: iperf3 completes without error,
# pktgen's run ends (stopped by the freezer or done), every TX queue
# drains, and ping and iperf3 work after
sleep_loaded()
{
	local ipid rc ok=0

	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$IP4_B" \
		--pidfile /tmp/iperf3-pm-$$.pid || return 1
	wait_for 30 test -s /tmp/iperf3-pm-$$.pid
	iperf3 -c "$IP4_B" -t "$IPERF_SECS" -J > /tmp/pm-load.json &
	ipid=$!
	nap 1
	pktgen_start || { kill $ipid; return 1; }
	nap 0.5
	system_sleep "$1" "$2" "$3"
	rc=$?
	note "$1 at pm_test $2 (wake $3): write returned $rc after $SLEEP_MS ms"
	wait $ipid && ! grep -q '"error"' /tmp/pm-load.json && ok=$((ok + 1))
	wait $PKTGEN_PID && ok=$((ok + 1))
	wait_for 50 test ! -e /tmp/iperf3-pm-$$.pid
	note "iperf3 $( ((ok > 0)) && echo completed || echo failed)," \
	     "pktgen: $(sed -n 's/^Result: //p' "/proc/net/pktgen/$IF_A")"
	wait_for 100 drained || { note "a TX queue still has bytes in flight"; return 1; }
	pktgen_clear
	[ $rc = 0 ] && [ $ok = 2 ] && traffic_after
}

nic_reclaim 0
others_unbind 0 || ktap_exit_fail_msg "cannot unbind the other NICs"
nic_bind "$DRIVER" 0 || ktap_exit_fail_msg "cannot bind NIC 0 to $DRIVER"
sleep_states || ktap_exit_fail_msg "no /sys/power/state"
SLEEP_STATE=$SLEEP_FULL
IFN=$(nic_ifname 0)
ip link set "$IFN" up
note "$DRIVER, NIC 0 ($IFN); sleep states: $SLEEP_STATES; mem is $SLEEP_MEM"

# Wake-on-LAN, NIC 0 alone. The cases hold i82574's programming (e1000e
# leaves WUC and WUFC armed after the resume, and offers WoL here only as
# the PCI core last found the device's wake-up capability).
WOL_MODES=(g u m b d)
if [ "$DRIVER" != i82574 ]; then
	for m in "${WOL_MODES[@]}"; do
		ktap_test_skip "$DRIVER: wol $m (the cases hold i82574's programming)"
	done
elif ! wol_supported "$IFN" gumb; then
	for m in "${WOL_MODES[@]}"; do
		ktap_test_skip "$DRIVER: wol $m (the device reports no such WoL support)"
	done
else
	wol_window || ktap_exit_fail_msg "the traced Wake-on-LAN sleep cycles failed"
	for i in "${!WOL_MODES[@]}"; do
		m=${WOL_MODES[i]}
		next=${WOL_MODES[i + 1]:-end}
		ktap_test_result \
			"$DRIVER: wol $m reported, programmed at suspend, cleared at resume" \
			wol_case "$m" "$next"
	done
fi
if [ "$DRIVER" = i82574 ] && wol_supported "$IFN" g; then
	ktap_test_result "$DRIVER: unsupported WoL modes refused, setting unchanged" \
		wol_refused
	ktap_test_result \
		"$DRIVER: wol g, interface down: the suspend powers the PHY up, sets CTRL.SLU" \
		wol_down_phy
elif [ "$DRIVER" != i82574 ]; then
	ktap_test_skip "$DRIVER: unsupported WoL modes refused (i82574's cases)"
	ktap_test_skip "$DRIVER: wol g with the interface down (i82574's cases)"
else
	ktap_test_skip "$DRIVER: unsupported WoL modes refused (no WoL support)"
	ktap_test_skip "$DRIVER: wol g with the interface down (no WoL support)"
fi

# NIC 0 wired to NIC 1
ip link set "$IFN" down
wire_setup 0 1 || ktap_exit_fail_msg "cannot wire NIC 0 to NIC 1 on $DRIVER"
unset 'OTHERS[1]'
nic_dev 0
rd "$NIC_DEV/power/control" && SAVED_CONTROL=$RD
if [ "$DRIVER" = e1000e ]; then
	why="(i82574's policy; e1000e suspends on link loss)"
	ktap_test_skip "$DRIVER: runtime suspend at ip link set down $why"
	ktap_test_skip "$DRIVER: runtime resume at ip link set up, traffic"
else
	ktap_test_result \
		"$DRIVER: runtime suspended (D3hot) after ip link set down, ethtool answers" \
		rpm_down
	ktap_test_result "$DRIVER: runtime resumed (D0) by ip link set up, traffic flows" \
		rpm_up
fi
echo "$SAVED_CONTROL" > "$NIC_DEV/power/control"
wait_for 100 carrier_up "$IF_A"

# system suspend with settings changed and iperf3 running
T0=$EPOCHREALTIME
settings_change || ktap_exit_fail_msg "cannot change the settings"
note "settings changed in $(ms "$T0" "$EPOCHREALTIME") ms"
snapshot BEFORE
SLEEP_CASES=(
	"iperf3 started before suspend completes after resume:iperf_across"
	"suspend and resume callbacks ran (MAC reset, wake-up registers):callbacks_ran"
	"traffic after resume:traffic_after"
)
KEPT_CASES=(
	"ring sizes kept (ethtool -g):ring"
	"RSS table and key kept (ethtool -x):rss"
	"coalescing kept (ethtool -c):coal"
	"MTU kept:mtu"
	"unicast list kept:uc"
	"multicast address kept:mcast"
	"tx-0 dispatch_limit kept:dl"
	"tx-0 BQL limit_max kept:bql"
	"registers kept (ethtool -d: rings, EITR, RCTL, MRQC, RAR, RETA, key, MTA):regs"
)
for c in "${SLEEP_CASES[@]}"; do
	ktap_test_result "$DRIVER: ${c%:*}" "${c##*:}"
done
snapshot AFTER
for c in "${KEPT_CASES[@]}"; do
	if [ "$DRIVER" = e1000e ] && [ "${c##*:}" = rss ]; then
		ktap_test_skip "$DRIVER: ${c%:*} (no ethtool -x)"
	elif [ "$DRIVER" = e1000e ] && [ "${c##*:}" = regs ]; then
		ktap_test_skip "$DRIVER: ${c%:*} (i82574's register dump)"
	elif [ $DL_OK = 0 ] && [ "${c##*:}" = dl ]; then
		ktap_test_skip "$DRIVER: ${c%:*} (the driver has no dispatch_limit)"
	else
		ktap_test_result "$DRIVER: ${c%:*}" setting_kept "${c##*:}" "${c%%:*}"
	fi
done
mkdir "$TMPD/l2" && l2_start "" "$IF_A" "$PEER_NS" "$IF_B" "$TMPD/l2" ||
	note "cannot start the test frames' receiver and sender"
ktap_test_result "$DRIVER: receive filter after resume: listed unicast in, foreign out" \
	uc_filtered
ktap_test_result "$DRIVER: receive filter after resume: joined group in, another out" \
	mc_filtered
l2_stop

# every level of the PM core's suspend, and full sleeps, under load
# (dispatch_limit is still 8 on tx-0 from settings_change; every queue)
for q in /sys/class/net/"$IF_A"/queues/tx-*; do
	[ $DL_OK = 1 ] && echo 8 > "$q/dispatch_limit"
done
LOAD="with iperf3 and pktgen running, dispatch_limit $( ((DL_OK)) && echo 8 || echo unset)"
for level in devices platform processors core; do
	ktap_test_result "$DRIVER: $SLEEP_STATE at pm_test $level $LOAD" \
		sleep_loaded "$SLEEP_STATE" "$level" rtc
done
ktap_test_result "$DRIVER: s2idle woken by a serial interrupt $LOAD" \
	sleep_loaded freeze none host
if [ "$SLEEP_MEM" = deep ]; then
	ktap_test_result "$DRIVER: S3 woken by the RTC alarm $LOAD" \
		sleep_loaded mem none rtc
	ktap_test_result "$DRIVER: S3 woken by QEMU's system_wakeup $LOAD" \
		sleep_loaded mem none host
else
	ktap_test_skip "$DRIVER: S3 woken by the RTC alarm (mem is $SLEEP_MEM here)"
	ktap_test_skip "$DRIVER: S3 woken by QEMU's system_wakeup (mem is $SLEEP_MEM here)"
fi
ktap_finished
