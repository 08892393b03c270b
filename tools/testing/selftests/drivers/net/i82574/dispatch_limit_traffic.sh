#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Traffic with queues/tx-N/dispatch_limit (Documentation/networking/
# dispatch-limit.rst) on two NICs across a QEMU hub, the sender here, the
# peer in a network namespace. For each limit on every TX queue of the
# sender: pktgen start_xmit bursts of 1 and 16 arrive exactly (nothing is
# stranded without a doorbell), iperf3 TCP runs, BQL sees no stall. Then
# the limit changes while iperf3 runs, and an idle ping measures the RTT
# with limit 0 and 64 (printed only: a lone packet is never delayed).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

LIMITS=(0 1 8 64)
PKTGEN_COUNT=2000
# An address on the link that nobody owns: the peer drops the pktgen
# frames in IP without answering, so its RX counter sees only them.
PKTGEN_DST=198.18.0.99
PG=/proc/net/pktgen
# BQL stall threshold in ms, the largest the kernel accepts at HZ=1000
STALL_THRS=128

txq_dirs()
{
	ls -d /sys/class/net/"$IF_A"/queues/tx-* 2>/dev/null
}

# set_limit N: dispatch_limit N on every TX queue of the sender
set_limit()
{
	local q

	for q in $(txq_dirs); do
		echo "$1" > "$q/dispatch_limit" || return 1
		[ "$(cat "$q/dispatch_limit")" = "$1" ] || return 1
	done
}

# stall_thrs MS: BQL stall detection on every TX queue of the sender, if
# the kernel has it
stall_thrs()
{
	local q

	for q in $(txq_dirs); do
		[ -e "$q/byte_queue_limits/stall_thrs" ] &&
			echo "$1" > "$q/byte_queue_limits/stall_thrs"
	done
	return 0
}

# bql_sum FILE: a byte_queue_limits value summed over the sender's TX
# queues (0 where the kernel lacks it)
bql_sum()
{
	local q n=0

	for q in $(txq_dirs); do
		[ -e "$q/byte_queue_limits/$1" ] &&
			n=$((n + $(cat "$q/byte_queue_limits/$1")))
	done
	echo $n
}

stall_cnt()
{
	bql_sum stall_cnt
}

idle()
{
	[ "$(bql_sum inflight)" -eq 0 ]
}

cleanup()
{
	if [ -n "${IF_A:-}" ]; then
		[ -e $PG/kpktgend_0 ] && echo rem_device_all > $PG/kpktgend_0
		set_limit 0
		stall_thrs 0
	fi
	wire_cleanup
}

peer_rx()
{
	ip netns exec "$PEER_NS" cat "/sys/class/net/$IF_B/statistics/rx_packets"
}

# peer_addr_err: IP InAddrErrors in the peer's namespace. The pktgen frames
# are for an address nobody owns; with forwarding off the peer counts each
# one there and drops it silently.
peer_addr_err()
{
	# shellcheck disable=SC2016 # awk fields, not shell
	ip netns exec "$PEER_NS" awk '$1 == "Ip:" {
		if (!n) { for (i = 2; i <= NF; i++) if ($i == "InAddrErrors") f = i; n = 1 }
		else print $f }' /proc/net/snmp
}

# rx_reaches BASE N: the peer received N packets since BASE
rx_reaches()
{
	[ $(($(peer_rx) - $1)) -ge "$2" ]
}

# pktgen_once BURST: start_xmit of $PKTGEN_COUNT 60-byte frames to the
# peer's MAC; prints "sent received"
pktgen_once()
{
	local mac base base_err rx sent

	mac=$(ip netns exec "$PEER_NS" cat "/sys/class/net/$IF_B/address")
	base=$(peer_rx) || return 1
	base_err=$(peer_addr_err)
	echo rem_device_all > $PG/kpktgend_0
	echo "add_device $IF_A" > $PG/kpktgend_0
	for c in "count $PKTGEN_COUNT" "pkt_size 60" "delay 0" "burst $1" \
		 "dst $PKTGEN_DST" "dst_mac $mac" "xmit_mode start_xmit"; do
		echo "$c" > "$PG/$IF_A" || return 1
	done
	echo start > $PG/pgctrl
	sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' "$PG/$IF_A")
	echo rem_device_all > $PG/kpktgend_0
	# the frames are on the wire or lost once pktgen returns; give the
	# peer time to count them, then make sure nothing more trickles in
	wait_for 50 rx_reaches "$base" "${sent:-0}"
	sleep 0.3
	rx=$(peer_rx) || return 1
	echo "${sent:-0} $((rx - base)) $(($(peer_addr_err) - base_err))"
}

# pktgen_exact LIMIT BURST: every frame pktgen sent reached the peer, by its
# rx_packets. Background frames (IPv6 RS/MLD) may add to that count: then
# the peer's IP must have dropped exactly the frames pktgen sent.
pktgen_exact()
{
	local res sent rx ip

	res=$(pktgen_once "$2") || return 1
	read -r sent rx ip <<< "$res"
	ktap_print_msg "limit $1 burst $2: pktgen sent $sent," \
		"peer rx_packets +$rx, IP InAddrErrors +$ip"
	# a burst cut short (queue full) makes pktgen overshoot its count
	[ "$sent" -ge "$PKTGEN_COUNT" ] || return 1
	[ "$rx" -eq "$sent" ] || { [ "$rx" -gt "$sent" ] && [ "$ip" -eq "$sent" ]; }
}

# tcp_bytes NAME: the iperf3 run NAME moved data
tcp_bytes()
{
	local bytes

	bytes=$(json_get "${RESULTS:-/tmp}/$1.json" \
		"j['end']['sum_received']['bytes']") || return 1
	ktap_print_msg "$1: $bytes bytes received"
	[ "$bytes" -gt 0 ]
}

tcp_ok()
{
	iperf3_run "$1" -t 3 && tcp_bytes "$1"
}

# no_stall LIMIT: once traffic stops every posted packet completes (one
# left without a doorbell would stay in flight), and BQL saw no new stall
# since the previous check
STALLS=0
no_stall()
{
	local n rc=0

	wait_for 20 idle || { rc=1; ktap_print_msg "limit $1: BQL inflight $(bql_sum inflight)"; }
	n=$(($(stall_cnt) - STALLS))
	STALLS=$((STALLS + n))
	ktap_print_msg "limit $1: BQL stall_cnt +$n, longest stall $(bql_sum stall_max) jiffies"
	[ "$n" -eq 0 ] && [ $rc -eq 0 ]
}

# change_under_load: 0 -> 64 -> 0 twice while iperf3 runs
change_under_load()
{
	local pid rc=0

	set_limit 0 || return 1
	iperf3_run dl-change -t 4 &
	pid=$!
	sleep 0.5
	for _ in 1 2; do
		sleep 0.5
		set_limit 64 || rc=1
		sleep 0.5
		set_limit 0 || rc=1
	done
	wait $pid || rc=1
	[ $rc -eq 0 ] && tcp_bytes dl-change
}

# rtt_avg LIMIT: average idle ping RTT in ms with that limit
rtt_avg()
{
	local out

	set_limit "$1" || return 1
	sleep 0.2
	out=$(ping -c 10 -i 0.2 -W 2 "$IP4_B") || return 1
	sed -n 's|^rtt [^=]*= [^/]*/\([^/]*\)/.*|\1|p' <<< "$out"
}

rtt_both()
{
	local r0 r64

	r0=$(rtt_avg 0) && [ -n "$r0" ] || return 1
	r64=$(rtt_avg 64) && [ -n "$r64" ] || return 1
	set_limit 0
	ktap_print_msg "idle ping RTT avg: limit 0 $r0 ms, limit 64 $r64 ms"
}

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan $((4 + 4 * ${#LIMITS[@]}))
trap cleanup EXIT

if wire_setup 0 1 && [ -e "$(txq_dirs | head -n 1)/dispatch_limit" ]; then
	ktap_test_pass "$DRIVER: two NICs bound, up, dispatch_limit present"
else
	ktap_exit_fail_msg "$DRIVER: wire setup failed or no dispatch_limit"
fi
stall_thrs $STALL_THRS
STALLS=$(stall_cnt)

for l in "${LIMITS[@]}"; do
	if ! set_limit "$l"; then
		ktap_exit_fail_msg "dispatch_limit $l: write failed"
	fi
	for b in 1 16; do
		if [ -e $PG/pgctrl ]; then
			ktap_test_result "limit $l: pktgen burst $b, exact count" \
				pktgen_exact "$l" "$b"
		else
			ktap_test_skip "limit $l: pktgen burst $b: no pktgen"
		fi
	done
	ktap_test_result "limit $l: iperf3 TCP" tcp_ok "dl-tcp-limit$l"
	ktap_test_result "limit $l: BQL nothing in flight, no stall" no_stall "$l"
done

ktap_test_result "limit 0 -> 64 -> 0 under iperf3" change_under_load
ktap_test_result "ping right after the changes, nothing stranded" \
	eval "ping -c 1 -W 1 $IP4_B >/dev/null && no_stall 0-64-0"
ktap_test_result "idle ping with limit 0 and 64" rtt_both
ktap_finished
