#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forwarding with queues/tx-N/dispatch_limit (Documentation/networking/
# dispatch-limit.rst): the scope that ends with the NAPI poll. Four NICs
# on two QEMU hubs, all driven by $DRIVER: the source here (nic0) floods
# pktgen frames to a router namespace (nic1 in, nic2 out, ip_forward=1)
# that sends them on to a sink namespace (nic3). The limit is set on the
# router's egress, where every packet is its own lockless bypass send from
# the RX poll of nic1. For each limit: the sink gets exactly what the router
# handed to nic2 (a doorbell deferred to the end of a poll and never rung
# would leave packets missing), nic2's doorbell counters show deferral and
# core flushes with a limit and none without, BQL sees nothing left in
# flight (its stall count is reported). Then the limit changes while the
# router forwards.
#
# Smaller runs for slow kernels: FWD_COUNT, and CHANGE_COUNT for the
# limit changes (default twice FWD_COUNT).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

# LIMITS=0+1+8+64 (the default) picks the limits to test
IFS=+ read -r -a LIMITS <<< "${LIMITS:-0+1+8+64}"
FWD_COUNT=${FWD_COUNT:-10000}
CHANGE_COUNT=${CHANGE_COUNT:-$((FWD_COUNT * 2))}
CHANGE_MIN=10
RTR_NS=dl-fwd-rtr
SINK_NS=dl-fwd-sink
SRC_IP=198.19.1.1
RTR_IN_IP=198.19.1.2
RTR_OUT_IP=198.19.2.1
SINK_IP=198.19.2.2
# nobody owns it: the sink, not forwarding, counts each frame in IP
# InAddrErrors and drops it silently, so that count sees only them
DST_IP=198.19.2.99
PG=/proc/net/pktgen
STALL_THRS=128
KSRC=$(readlink -f "$DIR/../../../../../..")

rtr()
{
	ip netns exec "$RTR_NS" "$@"
}

sink()
{
	ip netns exec "$SINK_NS" "$@"
}

cleanup()
{
	ns_unpin "$RTR_NS"
	pktgen_clear
	[ -n "${IF2:-}" ] && set_limit 0 && stall_thrs 0
	ip netns del "$RTR_NS" 2>/dev/null
	ip netns del "$SINK_NS" 2>/dev/null
	[ -n "${IF0:-}" ] && ip addr flush dev "$IF0" 2>/dev/null
	# deleting a namespace returns its NICs asynchronously
	for i in "${IF1:-}" "${IF2:-}" "${IF3:-}"; do
		[ -n "$i" ] && wait_for 300 test -e "/sys/class/net/$i"
	done
	# the NICs keep their settings: give them IPv6 back for later tests
	for i in "${IF0:-}" "${IF1:-}" "${IF2:-}" "${IF3:-}"; do
		[ -n "$i" ] && sysctl -qw "net.ipv6.conf.$i.disable_ipv6=0"
	done
	return 0
}

# rtr_q CMD: run the shell code CMD in the router's namespace over the
# sysfs directories of nic2's TX queues ($q), with $1 as the argument
rtr_q()
{
	rtr bash -c "for q in /sys/class/net/$IF2/queues/tx-*; do $1; done" _ "$2"
}

# set_limit N: dispatch_limit N on every TX queue of the router's egress
set_limit()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	rtr_q 'echo "$1" > $q/dispatch_limit &&
		[ "$(cat $q/dispatch_limit)" = "$1" ] || exit 1' "$1"
}

stall_thrs()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	rtr_q 'f=$q/byte_queue_limits/stall_thrs; [ ! -e $f ] || echo "$1" > $f' "$1"
}

# bql_sum FILE: a byte_queue_limits value summed over nic2's TX queues
bql_sum()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	rtr_q 'f=$q/byte_queue_limits/$1; [ ! -e $f ] || cat $f' "$1" |
		awk '{ n += $1 } END { print n + 0 }'
}

idle()
{
	[ "$(bql_sum inflight)" -eq 0 ]
}

# qdisc_drops: packets dropped by nic2's root qdisc (mq sums its children)
qdisc_drops()
{
	rtr tc -s qdisc show dev "$IF2" |
		awk '/dropped/ { sub(",", "", $7); print $7 + 0; exit }'
}

# counters: a snapshot of everything fwd_check compares, one line (in few
# processes: each start costs 0.4-0.7 s on the debug kernel under TCG)
counters()
{
	local sys

	sys=$(rtr cat "/sys/class/net/$IF2/statistics/tx_dropped" \
		      "/sys/class/net/$IF2/statistics/tx_packets") || return 1
	# shellcheck disable=SC2086 # two lines into two words
	echo "$(snmp "$SINK_NS" Ip InAddrErrors)" \
	     "$(snmp "$RTR_NS" Ip ForwDatagrams)" \
	     "$(qdisc_drops)" $sys "$(doorbell_counts "$IF2" "$RTR_NS")" \
	     "$(rtr cat "/sys/class/net/$IF1/statistics/rx_packets")"
}

sink_reaches()
{
	[ $(($(snmp "$SINK_NS" Ip InAddrErrors) - $1)) -ge "$2" ]
}

# pktgen_start COUNT [DELAY]: pktgen start_xmit, bursts of 16 (DELAY ns
# apart, default 0), from nic0 to the
# router's MAC for $DST_IP (fast enough that each RX poll of the router
# forwards several packets); returns when the run has ended
pktgen_start()
{
	local mac c

	mac=$(rtr cat "/sys/class/net/$IF1/address") || return 1
	pktgen_clear || return 1
	echo "add_device $IF0" > $PG/kpktgend_0 || return 1
	for c in "count $1" "pkt_size 60" "delay ${2:-0}" "burst 16" \
		 "src_min $SRC_IP" "src_max $SRC_IP" "dst $DST_IP" \
		 "dst_mac $mac"; do
		echo "$c" > "$PG/$IF0" || return 1
	done
	pktgen_go "$IF0"
}

# fwd_check WHAT BEFORE COUNT: compare the counters with the snapshot
# BEFORE. pktgen sent at least COUNT frames (a burst cut short by a full
# ring is sent again whole), the router's nic1 received them (and maybe
# an ARP request more) and the router forwarded exactly them; the sink got
# exactly what the router forwarded minus what nic2's qdisc dropped (at
# most a tenth), and nic2's driver dropped none: it has no reason to drop
# a 60-byte frame, and a TX path that dropped and counted what it failed
# to send would otherwise pass. Leaves the deltas of nic2's tx_packets,
# tx_doorbells and tx_flush_doorbells in PKTS, DBS, FLUSHES.
fwd_check()
{
	local sent sink fwd qd txd rx a b

	sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' "$PG/$IF0")
	pktgen_clear
	read -r -a b <<< "$2"
	fwd=$(($(snmp "$RTR_NS" Ip ForwDatagrams) - b[1]))
	wait_for 100 sink_reaches "${b[0]}" "$fwd"
	nap 0.3
	read -r -a a <<< "$(counters)"
	sink=$((a[0] - b[0]))
	fwd=$((a[1] - b[1]))
	qd=$((a[2] - b[2]))
	txd=$((a[3] - b[3]))
	PKTS=$((a[4] - b[4]))
	DBS=$((a[5] - b[5]))
	FLUSHES=$((a[6] - b[6]))
	rx=$((a[7] - b[7]))
	ktap_print_msg "$1: pktgen sent ${sent:-?}, router nic1 rx $rx," \
		"forwarded $fwd, nic2 qdisc drops $qd, tx_dropped $txd;" \
		"sink got $sink"
	ktap_print_msg "$1: nic2 tx_packets $PKTS, tx_doorbells $DBS," \
		"tx_flush_doorbells $FLUSHES"
	[ "${sent:-0}" -ge "$3" ] && [ "$rx" -ge "$sent" ] &&
		[ "$fwd" -eq "$sent" ] && [ "$sink" -eq $((fwd - qd)) ] &&
		[ "$txd" -eq 0 ] && [ $((qd * 10)) -le "$fwd" ]
}

# fwd_exact LIMIT: forward $FWD_COUNT frames with LIMIT on nic2
fwd_exact()
{
	local before

	set_limit "$1" || return 1
	before=$(counters)
	pktgen_start "$FWD_COUNT" || return 1
	fwd_check "limit $1" "$before" "$FWD_COUNT"
}

# doorbells LIMIT: with limit 0 the core never flushes nic2; with a limit
# the router deferred doorbells (fewer than packets) and the core rang
# some of them at the end of a poll
doorbells()
{
	if [ "$1" -eq 0 ]; then
		[ "$FLUSHES" -eq 0 ]
	else
		[ "$FLUSHES" -gt 0 ] && [ "$DBS" -lt "$PKTS" ]
	fi
}

# no_stall LIMIT: once the flood stops every packet nic2 was given
# completes (one left without a doorbell would stay in flight). BQL's stall
# count is reported, not judged: the pktgen kthread flooding one of the
# guest's two vCPUs starves the TX completion softirq under TCG, with
# limit 0 too (stalls of over a second were seen on a loaded host).
STALLS=0
no_stall()
{
	local n

	if ! wait_for 20 idle; then
		ktap_print_msg "limit $1: BQL inflight $(bql_sum inflight)"
		return 1
	fi
	n=$(($(bql_sum stall_cnt) - STALLS))
	STALLS=$((STALLS + n))
	ktap_print_msg "limit $1: nic2 BQL stall_cnt +$n, longest stall" \
		"$(bql_sum stall_max) jiffies (reported only)"
}

# forwarding PID: pktgen (PID) still runs and the router's nic1 received
# more within STUCK_SECS (pktgen outruns the router; the hub holds the
# difference, which the router forwards after pktgen ended). Reads through
# the router's pin (ns_pin), without a process. A run whose frames stop
# arriving is stuck (STUCK=1, lib.sh's moving): the case fails then, with
# what the queues say, instead of waiting out the hang guard.
forwarding()
{
	ns_file "$RTR_NS" "/sys/class/net/$IF1/statistics/rx_packets" &&
		rd "$NS_FILE" && moving "$1" "$RD"
}

# stuck_report: what the sender's queues and pktgen say, then pktgen
# stopped so that the case ends
# stuck_report PID: what the sender's queues, the router's ingress and
# pktgen say, then pktgen stopped and its writer (PID, which waits for a
# thread that may wait for its last skb forever) killed, so that the case
# ends
stuck_report()
{
	local l

	ktap_print_msg "router rx stuck at $STUCK_VAL for $STUCK_SECS s, pktgen still running"
	nic_report "$IF0"
	nic_report "$IF1" "$RTR_NS"
	grep -E '^Result|pkts-sofar|^Current' "$PG/$IF0" |
		while read -r l; do ktap_print_msg "pktgen: $l"; done
	echo stop > "$PG/pgctrl"
	kill "$1" 2>/dev/null
}

# set_limit_pinned LIMIT: nic2's limit written through the router's pin,
# without a process (so that many changes fit into one run)
set_limit_pinned()
{
	local q

	ns_file "$RTR_NS" "/sys/class/net/$IF2/queues" || return 1
	for q in "$NS_FILE"/tx-*; do
		echo "$1" > "$q/dispatch_limit" || return 1
	done
}

# router_tx_packets: the router's nic2 tx_packets, in RD (builtins only)
router_tx_packets()
{
	ns_file "$RTR_NS" "/sys/class/net/$IF2/statistics/tx_packets" &&
		rd "$NS_FILE"
}

# router_tx_moved COUNT: nic2's tx_packets is past COUNT
router_tx_moved()
{
	router_tx_packets && [ "$RD" -gt "$1" ]
}

# pkts_sofar: the frames pktgen's run on nic0 has sent so far, in RD
# (builtins only)
pkts_sofar()
{
	local l

	RD=0
	while IFS= read -r l; do
		[[ $l =~ pkts-sofar:\ *([0-9]+) ]] && RD=${BASH_REMATCH[1]} && return 0
	done < "$PG/$IF0"
	return 1
}

# changing PID: the router forwards pktgen's run (PID), and the changes
# are not yet done: fewer than CHANGE_MIN had packets through, or pktgen
# has sent fewer than CHANGE_COUNT frames
changing()
{
	forwarding "$1" || return 1
	[ "$CYCLES" -lt $CHANGE_MIN ] && return 0
	pkts_sofar && [ "$RD" -lt "$CHANGE_COUNT" ]
}

# change_while_forwarding: nic2's limit cycles through 64, 0, 8, 1, 0,
# every few ms, while the router forwards, until CHANGE_MIN (10) changes
# had forwarded packets leave nic2 before the next change and pktgen sent
# at least CHANGE_COUNT frames; then pktgen stops and every frame it sent
# is counted at the sink. pktgen sends its bursts of 16 2 ms apart, with
# a ceiling of ten times CHANGE_COUNT frames, so that the end is set by
# the changes, not by the clock: on the one-vCPU debug kernel beside
# another boot a change under traffic takes 0.3-0.5 s or more. The
# changes start once the first forwarded packets left (pktgen's set-up
# there took 1.3 s, during which 15 changes went by with nothing to
# forward).
change_while_forwarding()
{
	local before pid rc=0 tx0

	set_limit 0 && ns_pin "$RTR_NS" && router_tx_packets || return 1
	tx0=$RD
	before=$(counters)
	pktgen_start $((CHANGE_COUNT * 10)) 2000000 &
	pid=$!
	if ! wait_for 300 router_tx_moved "$tx0"; then
		ktap_print_msg "the router forwarded nothing within 30 s"
		rc=1
	fi
	moving_reset
	CYCLE_SET=set_limit_pinned CYCLE_NAP=0.005 CYCLE_PACKETS=router_tx_packets \
		cycle_limits $CHANGE_MIN changing $pid ||
		rc=1
	if [ "$STUCK" = 0 ]; then
		running $pid && echo stop > "$PG/pgctrl"
	else
		stuck_report $pid
		rc=1
	fi
	wait $pid || rc=1
	ns_unpin "$RTR_NS"
	set_limit 0 || rc=1
	ktap_print_msg "$CYCLES limit changes while forwarding"
	[ $rc -eq 0 ] && fwd_check "changing" "$before" "$CHANGE_COUNT"
}

# ynl_qstats [SCOPE]: nic2's qstats as ynl reads them from netdev-genl,
# JSON: the device's totals (queues and base), or per queue with "queue"
ynl_qstats()
{
	local ifi req

	ifi=$(rtr cat "/sys/class/net/$IF2/ifindex") || return 1
	req="{\"ifindex\": $ifi${1:+, \"scope\": \"$1\"}}"
	rtr python3 "$KSRC/tools/net/ynl/cli.py" --no-schema \
		--spec "$KSRC/Documentation/netlink/specs/netdev.yaml" \
		--dump qstats-get --output-json --json "$req"
}

# qstats_sum: nic2's tx-doorbells and tx-doorbell-flushes, device totals
# (what ethtool -S counts, queues hidden by earlier tests' ethtool -L or
# ring changes included); prints the per-queue rows as diagnostics
qstats_sum()
{
	local q d

	q=$(ynl_qstats queue) && d=$(ynl_qstats) || return 1
	python3 -c '
import json, sys
for r in json.loads(sys.argv[1]):
    if r["queue-type"] == "tx":
        print("#   tx-%d: tx-packets %d tx-doorbells %d tx-doorbell-flushes %d" %
              (r["queue-id"], r["tx-packets"], r["tx-doorbells"],
               r["tx-doorbell-flushes"]), file=sys.stderr)
d = json.loads(sys.argv[2])[0]
print(d["tx-doorbells"], d["tx-doorbell-flushes"])' "$q" "$d"
}

# qstats_match: with nic2 idle, netdev-genl's qstats (what an operator
# reads with ynl) count the doorbells and core flushes ethtool -S counts
qstats_match()
{
	local q e

	read -r -a q <<< "$(qstats_sum)" || return 1
	read -r -a e <<< "$(counters)"
	ktap_print_msg "qstats: tx-doorbells ${q[0]}, tx-doorbell-flushes ${q[1]};" \
		"ethtool -S: tx_doorbells ${e[5]}, tx_flush_doorbells ${e[6]}"
	[ "${q[0]}" -gt 0 ] && [ "${q[0]}" -eq "${e[5]}" ] && [ "${q[1]}" -eq "${e[6]}" ]
}

setup()
{
	local i

	nic_reclaim 1
	nic_bind "$DRIVER" 0 1 2 3 || return 1
	IF0=$(nic_ifname 0) IF1=$(nic_ifname 1)
	IF2=$(nic_ifname 2) IF3=$(nic_ifname 3)
	ip netns del "$RTR_NS" 2>/dev/null
	ip netns del "$SINK_NS" 2>/dev/null
	ip netns add "$RTR_NS" && ip netns add "$SINK_NS" || return 1
	ip link set "$IF1" netns "$RTR_NS" && ip link set "$IF2" netns "$RTR_NS" &&
		ip link set "$IF3" netns "$SINK_NS" || return 1
	# no IPv6: nothing but the test frames on the wires
	sysctl -qw "net.ipv6.conf.$IF0.disable_ipv6=1"
	rtr sysctl -qw "net.ipv6.conf.$IF1.disable_ipv6=1"
	rtr sysctl -qw "net.ipv6.conf.$IF2.disable_ipv6=1"
	sink sysctl -qw "net.ipv6.conf.$IF3.disable_ipv6=1"
	rtr sysctl -qw net.ipv4.ip_forward=1 || return 1
	sink sysctl -qw net.ipv4.ip_forward=0 || return 1
	ip addr add "$SRC_IP/24" dev "$IF0" && ip link set "$IF0" up || return 1
	rtr ip addr add "$RTR_IN_IP/24" dev "$IF1" &&
		rtr ip addr add "$RTR_OUT_IP/24" dev "$IF2" &&
		sink ip addr add "$SINK_IP/24" dev "$IF3" || return 1
	for i in lo "$IF1" "$IF2"; do
		rtr ip link set "$i" up || return 1
	done
	sink ip link set lo up && sink ip link set "$IF3" up || return 1
	rtr ip neigh replace "$DST_IP" dev "$IF2" nud permanent \
		lladdr "$(sink cat "/sys/class/net/$IF3/address")" || return 1
	wait_for 50 carrier_up "$IF0" && wait_for 50 carrier_up "$IF1" "$RTR_NS" &&
		wait_for 50 carrier_up "$IF2" "$RTR_NS" &&
		wait_for 50 carrier_up "$IF3" "$SINK_NS" || return 1
	# the path works end to end
	ip route add 198.19.2.0/24 via "$RTR_IN_IP" dev "$IF0" &&
		sink ip route add 198.19.1.0/24 via "$RTR_OUT_IP" dev "$IF3" &&
		ping -c 1 -W 5 "$SINK_IP" > /dev/null &&
		[ -e "/sys/class/net/$IF0/queues/tx-0/dispatch_limit" ]
}

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
if [ ! -e "/sys/bus/pci/devices/$(nic_bdf 3)" ] || [ ! -e $PG/pgctrl ]; then
	ktap_skip_all "needs four NICs (nic0+nic1, nic2+nic3) and pktgen"
	exit "$KSFT_SKIP"
fi
ktap_set_plan $((3 + 3 * ${#LIMITS[@]}))
trap cleanup EXIT

if setup; then
	ktap_test_pass "$DRIVER: source, router and sink namespaces, path up"
else
	ktap_exit_fail_msg "$DRIVER: forwarding setup failed"
fi
stall_thrs $STALL_THRS
STALLS=$(bql_sum stall_cnt)

for l in "${LIMITS[@]}"; do
	ktap_test_result "limit $l: forwarded $FWD_COUNT, sink count exact" \
		fwd_exact "$l"
	if [ "$l" -eq 0 ]; then
		ktap_test_result "limit 0: no core flush on the router's egress" \
			doorbells 0
	else
		ktap_test_result "limit $l: router deferred doorbells, core flushed" \
			doorbells "$l"
	fi
	ktap_test_result "limit $l: BQL nothing left in flight" no_stall "$l"
done
ktap_test_result "limit changes while forwarding, sink count exact" \
	change_while_forwarding
ktap_test_result "qstats tx-doorbells and tx-doorbell-flushes as ethtool -S" \
	qstats_match
ktap_finished
