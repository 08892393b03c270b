#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VLAN offloads of i82574 on two NICs, NIC 0 here and NIC 1 in $PEER_NS,
# with VLAN 10 on both ends: tags inserted by the device (the TX data
# descriptors have CMD.VLE and the VID, from QEMU's e1000e_tx_descr trace
# events; the peer inserts its own tags in software meanwhile, so that
# every VLE descriptor is NIC 0's) and stripped (CTRL.VME, status VP),
# counted by its ethtool stats and seen by the peer's VLAN device; the
# same traffic with each offload off (no VLE descriptor); the VLAN filter
# (RCTL.VFE + VFTA) dropping every frame of a VID that is not configured
# (counted with a packet socket on NIC 0: none may arrive), and letting
# them all through with rx-vlan-filter off or in promiscuous mode; every
# ethtool -K toggle under an iperf3 flow over the VLAN, with no link drop
# and counters that never go back. Register state from ethtool -d.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

VID=10
OTHER_VID=20
V4_A=198.18.10.1
V4_B=198.18.10.2
V4_OTHER=198.18.20.1
R_CTRL=0
R_RCTL=10
R_RXCSUM=13
CTRL_VME=$((1 << 30))
RCTL_VFE=$((1 << 18))
RXCSUM_TUOFL=$((1 << 9))
N=100
VLAN_COUNT=$(dirname "$(readlink -f "$0")")/vlan_count.py
TXD_VLE=$((1 << 30))

ktap_print_header
if [ ! -d /sys/bus/pci/drivers/i82574 ]; then
	ktap_skip_all "driver i82574 is not built in"
	exit "$KSFT_SKIP"
fi
DRIVER=i82574
ktap_set_plan 9
vlan_cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	[ -n "${IF_A:-}" ] && ip link del "$IF_A.$VID" 2>/dev/null
	wire_cleanup
}
trap vlan_cleanup EXIT

vlan_setup()
{
	wire_setup 0 1 || return 1
	# the peer's tags in software: every VLE descriptor is NIC 0's
	ip netns exec "$PEER_NS" ethtool -K "$IF_B" txvlan off || return 1
	ip link add link "$IF_A" name "$IF_A.$VID" type vlan id $VID &&
		ip addr add $V4_A/24 dev "$IF_A.$VID" &&
		ip link set "$IF_A.$VID" up || return 1
	# VLAN 20 exists only at the peer, which sends to NIC 0's MAC on it
	ip -n "$PEER_NS" -batch - <<-EOF
		link add link $IF_B name v$VID type vlan id $VID
		addr add $V4_B/24 dev v$VID
		link set v$VID up
		link add link $IF_B name v$OTHER_VID type vlan id $OTHER_VID
		addr add 198.18.20.2/24 dev v$OTHER_VID
		link set v$OTHER_VID up
		neigh add $V4_OTHER lladdr $(< "/sys/class/net/$IF_A/address") dev v$OTHER_VID
	EOF
}

# regs: CTRL, RCTL and RXCSUM from the device's register dump
regs()
{
	local d

	# shellcheck disable=SC2207 # numbers
	d=($(ethtool -d "$IF_A" raw on | od -An -tu4 -v))
	CTRL=${d[R_CTRL]} RCTL=${d[R_RCTL]} RXCSUM=${d[R_RXCSUM]}
	[ -n "$RXCSUM" ]
}

# vstats: the device's VLAN counters in INS and STRIP
vstats()
{
	local k v

	INS='' STRIP=''
	while read -r k v; do
		[ "$k" = tx_vlan_inserted: ] && INS=$v
		[ "$k" = rx_vlan_stripped: ] && STRIP=$v
	done < <(ethtool -S "$IF_A")
	[ -n "$INS" ] && [ -n "$STRIP" ]
}

# delta_is HW DELTA: DELTA is at least 5 where the device did the work
# (HW=1), 0 where it did not
delta_is()
{
	if [ "$1" = 1 ]; then
		[ "$2" -ge 5 ]
	else
		[ "$2" -eq 0 ]
	fi
}

# vle_descs: TX data descriptors with CMD.VLE and VLAN $VID in the last
# trace window of e1000e_tx_descr ("ADDR : LOWER UPPER", the tag in
# UPPER's high 16 bits), in VLE
vle_descs()
{
	local re='e1000e_tx_descr .* : ([0-9a-f]+) ([0-9a-f]+)$' l lo up

	VLE=0
	while IFS= read -r l; do
		[[ $l =~ $re ]] || continue
		lo=$((16#${BASH_REMATCH[1]})) up=$((16#${BASH_REMATCH[2]}))
		(( lo & TXD_VLE )) && [ $(( (up >> 16) & 0xfff )) = $VID ] &&
			VLE=$((VLE + 1))
	done < <(reg_trace_lines)
	return 0
}

# vlan_ping HW_TX HW_RX: 5 pings over VLAN 10 answered; the device
# inserted (HW_TX=1) or did not insert (0) their tags, by its counter and
# by the descriptors it was given, and likewise stripped (HW_RX) the
# replies' tags
vlan_ping()
{
	local ins strip

	vstats || return 1
	ins=$INS strip=$STRIP
	reg_trace_on e1000e_tx_descr || return 1
	ping -c 5 -i 0.1 -W 2 $V4_B > /dev/null || return 1
	reg_trace_off && vle_descs || return 1
	vstats || return 1
	ktap_print_msg "inserted $((INS - ins)), stripped $((STRIP - strip))," \
		"$VLE descriptors with VLE and VID $VID"
	delta_is "$1" $((INS - ins)) && delta_is "$2" $((STRIP - strip)) &&
		delta_is "$1" "$VLE"
}

# bits_are VME VFE TUOFL: those register bits set (1) or clear (0)
bits_are()
{
	regs || return 1
	ktap_print_msg "CTRL $(printf %#x "$CTRL") RCTL $(printf %#x "$RCTL")"
	[ $((CTRL & CTRL_VME ? 1 : 0)) = "$1" ] &&
		[ $((RCTL & RCTL_VFE ? 1 : 0)) = "$2" ] &&
		[ $((RXCSUM & RXCSUM_TUOFL ? 1 : 0)) = "$3" ]
}

offloads_on()
{
	bits_are 1 1 1 && vlan_ping 1 1 &&
		rd "/sys/class/net/$IF_A.$VID/statistics/rx_packets" && [ "$RD" -ge 5 ]
}

peer_rx()
{
	local n

	ip -n "$PEER_NS" -s -j link show v$VID > /tmp/vlan-peer.json &&
		n=$(json_get /tmp/vlan-peer.json "j[0]['stats64']['rx']['packets']") &&
		ktap_print_msg "peer v$VID rx packets $n" && [ "$n" -ge 5 ]
}

offloads_off()
{
	ethtool -K "$IF_A" rxvlan off txvlan off rx-vlan-filter off || return 1
	bits_are 0 0 1 && vlan_ping 0 0
}

# with CTRL.VME off the device cannot insert: the driver pushes the tag
tx_only()
{
	ethtool -K "$IF_A" rxvlan off txvlan on rx-vlan-filter on || return 1
	bits_are 0 1 1 && vlan_ping 0 0
}

# other_vid_rx: the frames of VLAN 20 that NIC 0 receives (a packet
# socket's count) while the peer sends $N to it, in GOT
other_vid_rx()
{
	local out=/tmp/vlan-count.$$ pid

	GOT=
	python3 "$VLAN_COUNT" "$IF_A" $OTHER_VID 60 > "$out" & pid=$!
	if ! wait_for 200 grep -q ready "$out"; then
		kill $pid
		wait $pid
		ktap_print_msg "the packet socket did not start"
		return 1
	fi
	ip netns exec "$PEER_NS" ping -c $N -i 0.002 -W 1 $V4_OTHER > /dev/null
	nap 0.3
	kill -TERM $pid
	wait $pid
	GOT=$(sed -n 2p "$out")
	rm -f "$out"
	ktap_print_msg "${GOT:-?} of $N frames of VLAN $OTHER_VID received"
	[ -n "$GOT" ]
}

filtered()
{
	ethtool -K "$IF_A" rxvlan on txvlan on rx-vlan-filter on || return 1
	bits_are 1 1 1 && other_vid_rx && [ "$GOT" -eq 0 ]
}

filter_off()
{
	ethtool -K "$IF_A" rx-vlan-filter off || return 1
	bits_are 1 0 1 && other_vid_rx && [ "$GOT" -ge $N ]
}

promisc()
{
	ethtool -K "$IF_A" rx-vlan-filter on &&
		ip link set "$IF_A" promisc on || return 1
	bits_are 1 0 1 && other_vid_rx && [ "$GOT" -ge $N ] || return 1
	ip link set "$IF_A" promisc off && bits_are 1 1 1
}

# counters_ok: none of the watched counters went back since the last call
COUNTERS=(statistics/rx_packets statistics/tx_packets statistics/rx_bytes
	  statistics/tx_bytes carrier_changes)
declare -A LAST
counters_ok()
{
	local f d ok=0

	for d in "$IF_A" "$IF_A.$VID"; do
		for f in "${COUNTERS[@]}"; do
			[ -e "/sys/class/net/$d/$f" ] || continue
			rd "/sys/class/net/$d/$f"
			if [ "$RD" -lt "${LAST[$d/$f]:-0}" ]; then
				ktap_print_msg "$d $f went back: ${LAST[$d/$f]} -> $RD"
				ok=1
			fi
			LAST[$d/$f]=$RD
		done
	done
	return $ok
}

toggles()
{
	local out=${RESULTS:-/tmp}/vlan-toggles.json carrier f rc=0 pid

	rd "/sys/class/net/$IF_A/carrier_changes"
	carrier=$RD
	counters_ok
	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B $V4_B \
		--pidfile /tmp/iperf3-vlan.pid || return 1
	wait_for 30 test -s /tmp/iperf3-vlan.pid
	iperf3 -c $V4_B -t 8 -J > "$out" &
	pid=$!
	nap 1
	for f in rxvlan txvlan rx-vlan-filter rx rxhash; do
		ethtool -K "$IF_A" $f off && nap 0.4 && counters_ok || rc=1
		ethtool -K "$IF_A" $f on && nap 0.4 && counters_ok || rc=1
	done
	wait $pid || rc=1
	wait_for 50 test ! -e /tmp/iperf3-vlan.pid
	counters_ok || rc=1
	rd "/sys/class/net/$IF_A/carrier_changes"
	[ "$RD" = "$carrier" ] || { ktap_print_msg "link dropped"; rc=1; }
	f=$(json_get "$out" "j['end']['sum_received']['bytes']") || return 1
	ktap_print_msg "iperf3 over VLAN $VID across the toggles: $f bytes"
	[ $rc = 0 ] && [ "$f" -gt 0 ] && bits_are 1 1 1
}

if vlan_setup; then
	ktap_test_pass "$DRIVER: VLAN $VID on both ends, VLAN $OTHER_VID at the peer"
else
	ktap_exit_fail_msg "$DRIVER: VLAN setup failed"
fi
ktap_test_result "offloads on: CTRL.VME, RCTL.VFE set, tags inserted and stripped by the device" \
	offloads_on
ktap_test_result "peer's VLAN $VID device received the tagged frames" peer_rx
ktap_test_result "offloads off: VME and VFE clear, tags handled by the stack" offloads_off
ktap_test_result "tx-vlan-offload without rx-vlan-offload: tags pushed by the driver" tx_only
ktap_test_result "a VID not configured is dropped by the VLAN filter" filtered
ktap_test_result "rx-vlan-filter off: that VID arrives" filter_off
ktap_test_result "promiscuous mode: VFE clear, that VID arrives; VFE back after" promisc
ktap_test_result "ethtool -K toggles under iperf3 on VLAN $VID: no link drop, counters grow" \
	toggles
ktap_finished
