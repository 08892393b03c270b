#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Traffic with queues/tx-N/dispatch_limit (Documentation/networking/
# dispatch-limit.rst) on two NICs across a QEMU hub, the sender here, the
# peer in a network namespace, the limit on every TX queue of both. For
# each limit, with exact accounting (packets sent == packets the peer got;
# a packet left without a doorbell would be missing): pktgen start_xmit
# bursts of 1 and 16; pktgen queue_xmit through the lockless pfifo_fast
# (mq, bypass included) and through a locked pfifo root, from one and from
# two pktgen threads, and through netem slots that make backlogs, as the
# root and under mq (with a limit, the core's flush and fewer doorbells
# than packets are required); AF_PACKET with PACKET_QDISC_BYPASS (dev_direct_xmit); iperf3
# TCP, and UDP both ways with every datagram accounted for by the
# receiver's UDP counters; BQL sees nothing left in flight and, outside
# the pktgen floods (see stall_note), no stall (BQL_STALLS). Then the
# limit changes while iperf3 TCP and pktgen queue_xmit run, and idle pings
# give the RTT distribution with limit 0 and 64 (printed, no thresholds).
#
# Smaller runs for slow kernels: PKTGEN_COUNT, AFP_COUNT, IPERF_TIME,
# PING_COUNT, and UDP_RATE (iperf3 -b, default 20M) for a receiver too slow
# to take every datagram off its ring.
#
# Hunting a strand: STRAND_ROUNDS=N repeats the limit changes under pktgen
# queue_xmit N times (default once), and stops at the first round that
# fails, whose report says where the frame waits (nic_report, the pktgen
# threads, the CPUs' backtraces). With LIMITS=64 the limits' part is the
# shortest; CYCLE_SEQ picks what the rounds cycle through (default
# "64 0 8 1 0"; "64" holds the limit, so no static key changes at all;
# "64 0" changes only the key).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

# LIMITS=0+1+8+64 (the default) picks the limits to test
IFS=+ read -r -a LIMITS <<< "${LIMITS:-0+1+8+64}"
PKTGEN_COUNT=${PKTGEN_COUNT:-2000}
AFP_COUNT=${AFP_COUNT:-1000}
IPERF_TIME=${IPERF_TIME:-3}
PING_COUNT=${PING_COUNT:-50}
UDP_RATE=${UDP_RATE:-20M}
# An address on the link that nobody owns: the peer drops the pktgen
# frames in IP without answering, so its RX counter sees only them.
PKTGEN_DST=198.18.0.99
PG=/proc/net/pktgen
# BQL stall threshold in ms, the largest the kernel accepts at HZ=1000
STALL_THRS=${STALL_THRS:-128}
# BQL_STALLS=fail (the default): a BQL stall outside the pktgen floods fails
# the case; note: it is reported (which queue, the NICs' state) and the
# case checks only that nothing stays in flight. BQL's detector is a time
# threshold: a guest whose QEMU thread shares the host's cores with another
# boot sees its clock jump while the thread waits, with nothing stranded
# (strands stay caught exactly: a packet never rung stays in flight, and a
# packet missing from a count fails it).
BQL_STALLS=${BQL_STALLS:-fail}
STRAND_ROUNDS=${STRAND_ROUNDS:-1}

txq_dirs()
{
	ls -d /sys/class/net/"$IF_A"/queues/tx-* 2>/dev/null
}

# on_both CMD...: run CMD here for the sender's TX queues and in the peer's
# namespace for the peer's; CMD gets the sysfs queue directories as $Q
on_both()
{
	Q="/sys/class/net/$IF_A/queues/tx-*" "$@" || return 1
	Q="/sys/class/net/$IF_B/queues/tx-*" ip netns exec "$PEER_NS" "$@"
}

# set_limit N: dispatch_limit N on every TX queue of the sender and the
# peer. Here in this shell, there in one: each process start costs
# 0.4-0.7 s on the debug kernel under TCG.
set_limit()
{
	local q

	for q in /sys/class/net/"$IF_A"/queues/tx-*; do
		echo "$1" > "$q/dispatch_limit" || return 1
		rd "$q/dispatch_limit" && [ "$RD" = "$1" ] || return 1
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$PEER_NS" bash -c 'for q in /sys/class/net/$1/queues/tx-*; do
		echo "$0" > "$q/dispatch_limit" || exit 1
		read -r v < "$q/dispatch_limit" && [ "$v" = "$0" ] || exit 1
	done' "$1" "$IF_B"
}

# stall_thrs MS: BQL stall detection on every TX queue of both ends, if the
# kernel has it
stall_thrs()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	on_both bash -c 'for q in $Q; do
		f=$q/byte_queue_limits/stall_thrs
		[ ! -e "$f" ] || echo "$0" > "$f"
	done' "$1"
}

# bql_sum FILE: a byte_queue_limits value summed over the TX queues of
# both ends (0 where the kernel lacks it)
bql_sum()
{
	local q n=0 there

	for q in /sys/class/net/"$IF_A"/queues/tx-*/byte_queue_limits/"$1"; do
		[ ! -e "$q" ] || { rd "$q" && n=$((n + RD)); } || return 1
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	there=$(ip netns exec "$PEER_NS" bash -c 'n=0
		for q in /sys/class/net/$1/queues/tx-*/byte_queue_limits/$0; do
			[ ! -e "$q" ] || { read -r v < "$q" && n=$((n + v)); } || exit 1
		done; echo $n' "$1" "$IF_B") || return 1
	echo $((n + there))
}

# bql_floor BYTES: BQL's limit_min on the sender's TX queues. A queue BQL
# has stopped rings for every packet, xmit_more or not (a stopped queue
# always rings), and BQL's limit moves with completion timing; the cases
# that count doorbells set a floor above the bytes they send so that only
# xmit_more, the limit and the driver's own stops decide (seen: 304 frames
# of burst 16 on the debug kernel, no driver stop, 109 doorbells)
bql_floor()
{
	local q

	for q in /sys/class/net/"$IF_A"/queues/tx-*/byte_queue_limits/limit_min; do
		[ ! -e "$q" ] || echo "$1" > "$q" || return 1
	done
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
		pktgen_reset
		tc qdisc del dev "$IF_A" root 2>/dev/null
		set_limit 0
		stall_thrs 0
		bql_floor 0
	fi
	wire_cleanup
}

peer_rx()
{
	ns_cat "$PEER_NS" "/sys/class/net/$IF_B/statistics/rx_packets"
}

# peer_addr_err: IP InAddrErrors in the peer's namespace. Our test frames
# are for an address nobody owns; with forwarding off the peer counts each
# one there and drops it silently.
peer_addr_err()
{
	snmp "$PEER_NS" Ip InAddrErrors
}

# addr_err_reaches BASE N: the peer's IP dropped N test frames since BASE
addr_err_reaches()
{
	[ $(($(peer_addr_err) - $1)) -ge "$2" ]
}

# peer_got WHAT SENT BASE BASE_ERR: the peer received exactly the SENT test
# frames since its rx_packets was BASE and InAddrErrors BASE_ERR. The test
# frames are the only ones its IP drops for their address, so InAddrErrors
# must have grown by exactly SENT; rx_packets may have grown by more
# (background IPv6 RS/MLD) but not by less.
peer_got()
{
	local rx ip

	# the frames are on the wire or lost once the sender returns; give the
	# peer time to count them, then make sure nothing more trickles in
	wait_for 100 addr_err_reaches "$4" "$2"
	nap 0.3
	rx=$(($(peer_rx) - $3))
	ip=$(($(peer_addr_err) - $4))
	ktap_print_msg "$1: sent $2, peer IP InAddrErrors +$ip, rx_packets +$rx"
	[ "$ip" -eq "$2" ] && [ "$rx" -ge "$2" ]
}

peer_mac()
{
	ns_cat "$PEER_NS" "/sys/class/net/$IF_B/address"
}

pktgen_reset()
{
	PG_DEVS=()
	pktgen_clear
}

# pktgen_setup MODE THREADS BURST COUNT: COUNT 60-byte frames per thread to
# the peer's MAC from kpktgend_0.. (devices $IF_A@0.. for more than one),
# each thread with its own UDP source port (another flow, another hash)
PG_DEVS=()
pktgen_setup()
{
	local mac t c

	pktgen_reset || return 1
	mac=$(peer_mac) || return 1
	for ((t = 0; t < $2; t++)); do
		[ -e "$PG/kpktgend_$t" ] || return 1
		if [ "$2" -eq 1 ]; then
			PG_DEVS+=("$IF_A")
		else
			PG_DEVS+=("$IF_A@$t")
		fi
		echo "add_device ${PG_DEVS[t]}" > "$PG/kpktgend_$t" || return 1
		for c in "count $4" "pkt_size 60" "delay 0" "xmit_mode $1" \
			 "burst $3" "dst $PKTGEN_DST" "dst_mac $mac" \
			 "udp_src_min $((9 + t))" "udp_src_max $((9 + t))"; do
			echo "$c" > "$PG/${PG_DEVS[t]}" || return 1
		done
	done
}

# pktgen_field NAME: a pktgen counter ("pkts-sofar", "errors") summed over
# the devices of the last pktgen_setup
pktgen_field()
{
	local d n=0 v

	for d in "${PG_DEVS[@]}"; do
		v=$(sed -n "s/.*$1: \([0-9]*\).*/\1/p" "$PG/$d" | head -n 1)
		n=$((n + ${v:-0}))
	done
	echo $n
}

# use_qdisc KIND: the sender's root qdisc. pfifo_fast: mq with a lockless
# pfifo_fast per TX queue (TCQ_F_NOLOCK, with the bypass); pfifo: a locked
# single root qdisc; netem: a root netem that holds every packet until
# its next 100 ms slot and then lets out all it holds, so each slot's qdisc
# run drains a backlog (a slot holds what pktgen sent in 100 ms: with 10
# ms slots a debug kernel on a slow host sent 12 a slot, too few for a
# batch to outgrow xmit_more's); mq-netem: such a netem under mq for each
# TX queue (a qdisc that feeds one queue, which the core judges by that
# queue's limit); default: whatever the kernel attaches
use_qdisc()
{
	local q n

	tc qdisc del dev "$IF_A" root 2>/dev/null
	case $1 in
	pfifo_fast)
		tc qdisc replace dev "$IF_A" root handle 1: mq || return 1
		for q in $(txq_dirs); do
			n=${q##*tx-}
			tc qdisc replace dev "$IF_A" parent "1:$(printf %x $((n + 1)))" \
				pfifo_fast || return 1
		done
		[ "$(tc qdisc show dev "$IF_A" | grep -c pfifo_fast)" -eq \
		  "$(txq_dirs | wc -l)" ]
		;;
	pfifo)
		tc qdisc replace dev "$IF_A" root pfifo limit 1000 &&
			tc qdisc show dev "$IF_A" | grep -q '^qdisc pfifo '
		;;
	netem)
		tc qdisc replace dev "$IF_A" root netem limit 10000 slot 100ms 100ms &&
			tc qdisc show dev "$IF_A" | grep -q '^qdisc netem .*slot'
		;;
	mq-netem)
		tc qdisc replace dev "$IF_A" root handle 1: mq || return 1
		for q in $(txq_dirs); do
			n=${q##*tx-}
			tc qdisc replace dev "$IF_A" parent "1:$(printf %x $((n + 1)))" \
				netem limit 10000 slot 100ms 100ms || return 1
		done
		[ "$(tc qdisc show dev "$IF_A" | grep -c 'netem .*slot')" -eq \
		  "$(txq_dirs | wc -l)" ]
		;;
	default)
		;;
	esac
}

# tx_counts: the sender's tx_packets, tx_doorbells, tx_flush_doorbells (the
# doorbells the core's ndo_xmit_flush() rang) and tx_stopped + tx_busy (the
# times the driver stopped the queue, each of which rang), one ethtool -S
tx_counts()
{
	local k v dbs=0 fls=0 stops=0

	while read -r k v; do
		case $k in
		tx_doorbells:)			dbs=$v ;;
		tx_flush_doorbells:)		fls=$v ;;
		tx_stopped:|tx_busy:)		stops=$((stops + v)) ;;
		esac
	done <<< "$(ethtool -S "$IF_A")"
	echo "$(< "/sys/class/net/$IF_A/statistics/tx_packets") $dbs $fls $stops"
}

# tx_deltas BEFORE: once the sender is idle, tx_counts less BEFORE (an
# earlier tx_counts), as "PACKETS DOORBELLS FLUSHES STOPS" in TX_DELTAS
tx_deltas()
{
	local b a

	wait_for 20 idle
	read -r -a b <<< "$1"
	read -r -a a <<< "$(tx_counts)"
	TX_DELTAS="$((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3]))"
}

# doorbells_ok WHAT HOW SENT BEFORE LIMIT: the doorbells for SENT test
# frames since BEFORE (tx_counts). HOW "each": the design lets none of them
# wait (a lone packet outside any scope, AF_PACKET's bypass), so each rang,
# and the core flushed for nothing but the stack's own packets beside them.
# HOW "shared": xmit_more bursts of 16, and a non-zero LIMIT lets at most
# LIMIT packets wait, so batches of B = min(16, LIMIT + 1): at least SENT / B
# doorbells (the limit caps the batch) and at most twice that, plus two for
# each time the driver stopped the queue (it rings for the packet that
# filled the ring, and pktgen's burst ends there and starts anew once the
# queue wakes: under TCG on a loaded host, 2,006 frames of burst 16 rang
# 279 times with the ring filling between bursts).
doorbells_ok()
{
	local pkts dbs fls stops batch=16

	tx_deltas "$4"
	read -r pkts dbs fls stops <<< "$TX_DELTAS"
	ktap_print_msg "$1: $3 test frames, $pkts packets sent, $dbs doorbells," \
		"$fls of them by the core's flush; the queue stopped $stops times"
	case $2 in
	each)	[ "$dbs" -ge "$3" ] && [ "$fls" -le $((pkts - $3)) ] ;;
	shared)	[ "$5" -gt 0 ] && [ "$5" -lt 16 ] && batch=$(($5 + 1))
		[ $((dbs * batch)) -ge "$3" ] &&
			[ $(((dbs - 2 * stops) * batch)) -le $((2 * $3)) ] ;;
	*)	return 1 ;;
	esac
}

# tdt_writes: the TDT writes (both TX queues) among the trace lines on
# stdin, each a doorbell of some e1000e-model NIC
tdt_writes()
{
	grep -cE 'e1000e_core_write Write to register 0x3[89]18,' || true
}

# device_doorbells_on: two pktgen threads into one locked root qdisc make
# a backlog, so its runs send batches that may defer their doorbells:
# count that case's doorbells where the device sees them (QEMU's trace of
# TDT writes, the other NICs down), when the register trace is there. The
# peer's own doorbells (stray IPv6) share the trace: its driver's count is
# read on both sides of each end of the window (PEER_DBS)
device_doorbells_on()
{
	DEV_DBS=
	reg_trace_available || return 0
	reg_trace_idle_others 0 1 || return 1
	PEER_DBS=$(peer_doorbells) &&
		reg_trace_on e1000e_core_write &&
		PEER_DBS+=" $(peer_doorbells)" && DEV_DBS=on
}

# peer_doorbells: the peer driver's doorbell count
peer_doorbells()
{
	local c

	c=$(doorbell_counts "$IF_B" "$PEER_NS") || return 1
	echo "${c%% *}"
}

# device_doorbells_off: the window's TDT writes less the peer's doorbells,
# as the range "DEV_DBS DEV_DBS_MAX": the peer may have rung between a
# read of its count and the trace's start or end
device_doorbells_off()
{
	local tdt p

	[ "$DEV_DBS" = on ] || return 0
	wait_for 20 idle
	p=$(peer_doorbells) && reg_trace_off && p+=" $(peer_doorbells)" || return 1
	read -r -a p <<< "$PEER_DBS $p"
	tdt=$(reg_trace_lines | tdt_writes)
	DEV_DBS=$((tdt - (p[3] - p[0])))
	DEV_DBS_MAX=$((tdt - (p[2] - p[1])))
	reg_trace_restore_others
}

# device_doorbells: DEV_DBS's range as words
device_doorbells()
{
	if [ -z "$DEV_DBS" ]; then
		echo "not traced"
	elif [ "$DEV_DBS" = "$DEV_DBS_MAX" ]; then
		echo "$DEV_DBS"
	else
		echo "$DEV_DBS to $DEV_DBS_MAX"
	fi
}

# qdisc_doorbells_ok LIMIT SENT BEFORE HOW: pktgen queue_xmit into a
# backlog (device_doorbells_on). The device saw the doorbells the driver
# counted (give or take one for each packet of the stack's own, which may
# fall between the trace's window and the count's, and the peer's
# uncertain ones), so the checks below take the driver's count; with
# limit 0 the core never flushes. HOW "required", the netem slots: every slot's qdisc run
# drains a backlog. The root netem of a multiqueue device dequeues up to 9
# packets of one TX queue at a time (try_bulk_dequeue_skb_slow()), sent as
# one xmit_more batch, so at limit 0 no doorbell covered more than 9. With
# a limit no batch passed LIMIT + 1 packets and fewer doorbells than
# packets reached the device; from limit 16 on, the runs' last packets
# waited for the core's flush and there were fewer doorbells than
# xmit_more alone would ring (one per 9): a core whose qdisc runs never
# defer fails here. (Below 16 a run of 64-72 packets often ends on a full
# batch, so that nothing waits for the flush: limit 1 rang 1,000 times for
# 2,000 packets with no flush.) HOW "required-mq", the netem slots under
# mq: the same, except that a qdisc feeding one TX queue dequeues as much
# as BQL lets through (try_bulk_dequeue_skb()), so that no bound of 9
# holds; a core that judges such a qdisc wrongly by its queue's limit
# never flushes there. HOW "reported", two pktgen threads into one locked pfifo: with a
# limit the doorbells and flushes are printed, not required, as whether the
# threads build a backlog depends on the guest's timing (limit 64 on the
# perf kernel: 10 to 33 flushes and 2,688-3,567 doorbells for 4,000
# packets in 7 runs, then a run where every packet found the queue idle
# and rang, 0 flushes)
qdisc_doorbells_ok()
{
	local pkts dbs fls other

	tx_deltas "$3"
	read -r pkts dbs fls _ <<< "$TX_DELTAS"
	other=$((pkts - $2))
	ktap_print_msg "limit $1: queue_xmit backlog: $2 test frames, $pkts packets," \
		"$dbs doorbells (device: $(device_doorbells)), $fls by the core's flush"
	if [ -n "$DEV_DBS" ]; then
		if [ "$DEV_DBS" -gt $((dbs + other)) ] ||
		   [ "$DEV_DBS_MAX" -lt $((dbs - other)) ]; then
			ktap_print_msg "the driver counted $dbs, the device saw" \
				"$(device_doorbells)"
			return 1
		fi
	fi
	[ "$1" -gt 0 ] || [ "$fls" -eq 0 ] || return 1
	[ "$4" != reported ] || return 0
	[ "$1" -gt 0 ] || [ "$4" = required-mq ] || [ $((dbs * 9)) -ge "$2" ] ||
		return 1
	[ "$1" -gt 0 ] || return 0
	# no batch beyond the limit, and fewer doorbells than packets
	[ $((dbs * ($1 + 1))) -ge "$2" ] && [ "$dbs" -lt "$2" ] || return 1
	[ "$1" -ge 16 ] || return 0
	# from 16 on, the runs' last packets waited, and batches grew longer
	# than xmit_more's alone
	[ "$fls" -gt 0 ] && { [ "$4" = required-mq ] || [ $((dbs * 9)) -lt "$2" ]; }
}

# pktgen_exact LIMIT MODE BURST THREADS QDISC: every frame pktgen sent
# reached the peer; from one thread in start_xmit mode, each frame of
# burst 1 rang and bursts shared doorbells; in queue_xmit mode through
# netem, or from two threads through pfifo, qdisc_doorbells_ok
pktgen_exact()
{
	local base base_err sent before how=shared rc backlog=0

	use_qdisc "$5" || return 1
	pktgen_setup "$2" "$4" "$3" "$PKTGEN_COUNT" || return 1
	base=$(peer_rx) || return 1
	base_err=$(peer_addr_err)
	[ "$2" = queue_xmit ] && [ "$4" -eq 2 ] && [ "$5" = pfifo ] && backlog=reported
	[ "$5" = netem ] && backlog=required
	[ "$5" = mq-netem ] && backlog=required-mq
	before=$(tx_counts)
	[ $backlog = 0 ] || device_doorbells_on || return 1
	[ "$2" = start_xmit ] && [ "$4" -eq 1 ] &&
		{ bql_floor $((PKTGEN_COUNT * 128)) || return 1; }
	pktgen_go "${PG_DEVS[@]}"
	rc=$?
	bql_floor 0 || rc=1
	[ $backlog = 0 ] || device_doorbells_off || rc=1
	[ $rc -eq 0 ] || return 1
	sent=$(pktgen_field pkts-sofar)
	ktap_print_msg "limit $1: pktgen $2 burst $3, $4 thread(s), $5 qdisc:" \
		"$(pktgen_field errors) sends refused and retried"
	pktgen_reset
	# a burst cut short (queue full) makes pktgen overshoot its count
	[ "$sent" -ge $((PKTGEN_COUNT * $4)) ] &&
		peer_got "limit $1: pktgen $2 burst $3, $4 thread(s), $5" \
			"$sent" "$base" "$base_err" || return 1
	[ $backlog = 0 ] ||
		{ qdisc_doorbells_ok "$1" "$sent" "$before" $backlog; return; }
	[ "$2" = start_xmit ] && [ "$4" -eq 1 ] || return 0
	[ "$3" -eq 1 ] && how=each
	doorbells_ok "limit $1: pktgen $2 burst $3" $how "$sent" "$before" "$1"
}

# pktgen_2t LIMIT MODE QDISC: pktgen_exact from two threads, if there are two
pktgen_2t()
{
	if [ -e "$PG/kpktgend_1" ]; then
		ktap_test_result "limit $1: pktgen $2, 2 threads, $3, exact count" \
			pktgen_exact "$1" "$2" 1 2 "$3"
	else
		ktap_test_skip "limit $1: pktgen $2, 2 threads: one CPU only"
	fi
}

# afp_exact LIMIT: AF_PACKET frames sent with PACKET_QDISC_BYPASS all arrive
afp_exact()
{
	local base base_err out sent retries before

	base=$(peer_rx) || return 1
	base_err=$(peer_addr_err)
	before=$(tx_counts)
	out=$(python3 "$DIR/af_packet_send.py" "$IF_A" "$(peer_mac)" "$IP4_A" \
		"$PKTGEN_DST" "$AFP_COUNT") || return 1
	read -r sent retries <<< "$out"
	ktap_print_msg "limit $1: AF_PACKET qdisc bypass: $retries sends refused and retried"
	[ "$sent" -eq "$AFP_COUNT" ] &&
		peer_got "limit $1: AF_PACKET qdisc bypass" "$sent" "$base" "$base_err" &&
		doorbells_ok "limit $1: AF_PACKET qdisc bypass" each "$sent" "$before" "$1"
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
	iperf3_run "$1" -t "$IPERF_TIME" && tcp_bytes "$1"
}

UDP_LEN=1400
# udp_ok NAME [-R]: iperf3 UDP at a moderate rate, from here to the peer
# (-R: the other way). Exact accounting from the kernel's counters, as
# iperf3 stops counting at the end of the test: every datagram the sender's
# UDP sent (OutDatagrams) reached the receiver's UDP. Udp InDatagrams cannot
# say so: it counts in recvmsg(), and what is still queued on iperf3's socket
# when it closes is freed uncounted. IP counts each delivery to a protocol
# (InDelivers), and in the test's namespaces only the UDP data, iperf3's TCP
# control connection and ICMP arrive, so UDP's share is InDelivers less Tcp
# InSegs less Icmp InMsgs.
udp_ok()
{
	local name=$1 rns=$PEER_NS sns="" j=${RESULTS:-/tmp}/$1.json
	local out0 arr0 rd0 out arr rd

	shift
	[ "${1:-}" = -R ] && { rns=""; sns=$PEER_NS; }
	out0=$(snmp "$sns" Udp OutDatagrams)
	arr0=$(udp_arrived "$rns")
	rd0=$(udp_read "$rns")
	iperf3_run "$name" -u -b "$UDP_RATE" -l $UDP_LEN -t "$IPERF_TIME" "$@" ||
		return 1
	out=$(($(snmp "$sns" Udp OutDatagrams) - out0))
	wait_for 100 udp_arrived_all "$rns" "$arr0" "$out"
	nap 0.3
	arr=$(($(udp_arrived "$rns") - arr0))
	rd=$(($(udp_read "$rns") - rd0))
	ktap_print_msg "$name: iperf3 sent $(json_get "$j" "j['end']['sum_sent']['packets']")," \
		"received $(json_get "$j" "j['end']['sum_received']['bytes'] // $UDP_LEN");" \
		"UDP out $out, arrived $arr, of which read, dropped or portless $rd" \
		"and left unread at close $((arr - rd))"
	[ "$out" -gt 0 ] && [ "$arr" -eq "$out" ]
}

# udp_read NS: datagrams NS's UDP handed to a reader, dropped at a full
# socket or found no port for
udp_read()
{
	echo $(($(snmp "$1" Udp InDatagrams) + $(snmp "$1" Udp InErrors) +
		$(snmp "$1" Udp NoPorts)))
}

# stall_note WHAT: report BQL stalls since the last check without failing.
# Two pktgen kthreads flooding both vCPUs of the guest starve the TX
# completion softirq for hundreds of ms, with limit 0 too, which BQL's
# stall detector counts; strands there show as missing frames instead.
stall_note()
{
	local n

	n=$(($(stall_cnt) - STALLS))
	STALLS=$((STALLS + n))
	ktap_print_msg "$1: BQL stall_cnt +$n during pktgen (not a failure)"
}

# stall_report: which queue stalled (BQL's counts since boot, per queue of
# both ends), then what the driver says of both NICs
stall_report()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	on_both bash -c 'for q in $Q; do
		b=$q/byte_queue_limits
		[ -e "$b/stall_cnt" ] || continue
		read -r c < "$b/stall_cnt"; read -r m < "$b/stall_max"
		echo "# ${q#/sys/class/net/}: stall_cnt $c, longest $m jiffies"
	done'
	nic_report "$IF_A"
	nic_report "$IF_B" "$PEER_NS"
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
	ktap_print_msg "limit $1: BQL stall_cnt +$n" \
		"(stall_max summed over the queues: $(bql_sum stall_max) jiffies)"
	[ "$n" -eq 0 ] && [ $rc -eq 0 ] && return 0
	stall_report
	[ $rc -eq 0 ] && [ "$BQL_STALLS" = note ] &&
		ktap_print_msg "limit $1: stall noted, not failed (BQL_STALLS=note)"
}

# change_under_load: 0 -> 64 -> 0 twice while iperf3 runs
change_under_load()
{
	local pid rc=0

	set_limit 0 || return 1
	iperf3_run dl-change -t 4 &
	pid=$!
	nap 0.5
	for _ in 1 2; do
		nap 0.5
		set_limit 64 || rc=1
		nap 0.5
		set_limit 0 || rc=1
	done
	wait $pid || rc=1
	[ $rc -eq 0 ] && tcp_bytes dl-change
}

# set_limit_here LIMIT: the sender's limit only, with builtins (no process:
# many changes fit into one pktgen run)
set_limit_here()
{
	local q

	for q in /sys/class/net/"$IF_A"/queues/tx-*; do
		echo "$1" > "$q/dispatch_limit" || return 1
	done
}

# sender_tx_packets: the sender's tx_packets (completed), in RD
sender_tx_packets()
{
	rd "/sys/class/net/$IF_A/statistics/tx_packets"
}

# pktgen_moving PID: pktgen (PID) runs and its threads' pkts-sofar moved
# within STUCK_SECS (lib.sh's moving); read with builtins, no process, and
# once a second, so that the loop around it keeps changing the limit every
# few ms (reading pktgen's files at each turn cut the changes of one run
# from 36 to 8-12, near the case's minimum of 10)
pktgen_moving()
{
	local d l n=0

	running "$1" || return 1
	[ "$SECONDS" = "${PG_READ_AT:-}" ] && return 0
	PG_READ_AT=$SECONDS
	for d in "${PG_DEVS[@]}"; do
		while read -r l; do
			[[ $l =~ pkts-sofar:\ ([0-9]+) ]] &&
				n=$((n + BASH_REMATCH[1])) && break
		done < "$PG/$d"
	done
	PG_SOFAR=$n
	moving "$1" $n
}

# pktgen_changing PID N: pktgen (PID) still sends, and it has not yet
# sent N frames with 10 limit changes behind it that had packets through
# (cycle_limits' CYCLES): the run's end is set by the changes, not by the
# clock (on the one-vCPU debug kernel beside another boot a change can
# take half a second)
pktgen_changing()
{
	pktgen_moving "$1" || return 1
	[ "$CYCLES" -lt 10 ] || [ "${PG_SOFAR:-0}" -lt "$2" ]
}

# softirq_counts NAME...: the /proc/softirqs rows NAME, one message each
softirq_counts()
{
	local l n

	while read -r l; do
		for n in "$@"; do
			[[ $l == "$n:"* ]] && ktap_print_msg "softirqs $l"
		done
	done < /proc/softirqs
}

# pktgen_threads: each kpktgend thread's scheduler state and, where the
# kernel keeps stacks (CONFIG_STACKTRACE), its stack
pktgen_threads()
{
	local p c st l

	for p in /proc/[0-9]*; do
		read -r c < "$p/comm" 2>/dev/null || continue
		[[ $c == kpktgend_* ]] || continue
		read -r -a st < "$p/stat" 2>/dev/null || continue
		ktap_print_msg "$c: pid ${p#/proc/}, state ${st[2]}," \
			"wchan $(< "$p/wchan")"
		[ -r "$p/stack" ] || continue
		while read -r l; do ktap_print_msg "$c: $l"; done < "$p/stack"
	done 2>/dev/null
}

# cpu_backtraces: SysRq-l's backtrace of every CPU, from the kernel log
# (a pktgen thread that waits for its skb spins in pktgen_wait_for_skb()
# on its CPU; one stuck before its count spins elsewhere)
cpu_backtraces()
{
	local mark="i82574 selftest: backtraces at ${SECONDS}s" l on=0

	[ -w /proc/sysrq-trigger ] && [ -w /dev/kmsg ] || return 0
	echo "$mark" > /dev/kmsg
	echo l > /proc/sysrq-trigger
	nap 1
	while read -r l; do
		[[ $l == *"$mark"* ]] && on=1
		[ $on = 1 ] && ktap_print_msg "dmesg: $l"
	done < <(dmesg | tail -n 400)
}

# proc_tree_report PID: PID and its children: command, scheduler state,
# wchan and kernel stack (CONFIG_STACKTRACE), with builtins only
proc_tree_report()
{
	local p c st l

	for p in /proc/[0-9]*; do
		read -r -a st < "$p/stat" 2>/dev/null || continue
		[ "${p#/proc/}" = "$1" ] || [ "${st[3]}" = "$1" ] || continue
		read -r c < "$p/comm" && read -r l < "$p/wchan"
		ktap_print_msg "$c: pid ${p#/proc/}, state ${st[2]}, wchan ${l:-0}"
		[ -r "$p/stack" ] || continue
		while read -r l; do ktap_print_msg "$c: $l"; done < "$p/stack"
	done 2>/dev/null
}

# pktgen_stuck PID: a run that stopped moving. First, with builtins only
# (a process start can wake a sleeping CPU): each pktgen device's count
# and result (a run that ended has its Result line), the kpktgend
# threads, and the writer (PID) with its children: a run that ended while
# the writer still waits strands nothing, a thread spinning in
# pktgen_wait_for_skb() waits for its last skb. Then what the sender's
# queues say, the softirqs and every CPU's backtrace, the queues again once
# the driver's service work (2 s) has flushed and kicked them; then pktgen
# stopped and the writer killed.
pktgen_stuck()
{
	local d l

	ktap_print_msg "pktgen stuck at $STUCK_VAL frames sent for $STUCK_SECS s"
	for d in "${PG_DEVS[@]}"; do
		while read -r l; do
			[[ $l == Params:* || $l == pkts-sofar:* || $l == Result:* ]] &&
				ktap_print_msg "pktgen $d: $l"
		done < "$PG/$d"
	done
	pktgen_threads
	proc_tree_report "$1"
	nic_report "$IF_A"
	# does net_tx_action() still run? (two samples, 2 s apart)
	softirq_counts NET_TX NET_RX
	cpu_backtraces
	nap 2
	softirq_counts NET_TX NET_RX
	nic_report "$IF_A"
	echo stop > "$PG/pgctrl"
	kill "$1" 2>/dev/null
}

# change_under_pktgen: the sender's limit cycles through 64, 0, 8, 1, 0,
# every few ms, while pktgen queue_xmit runs through pfifo_fast from every
# thread (up to two), until at least 10 changes had packets go out before
# the next and N frames went out (pktgen stops then, or at ten times N);
# every frame still arrives
change_under_pktgen()
{
	local base base_err sent pid rc=0 threads=1 n=$((PKTGEN_COUNT * 16))

	[ -e "$PG/kpktgend_1" ] && threads=2
	[ $n -ge 4000 ] || n=4000
	set_limit 0 && use_qdisc pfifo_fast || return 1
	pktgen_setup queue_xmit $threads 1 $((n * 10)) || return 1
	base=$(peer_rx) || return 1
	base_err=$(peer_addr_err)
	pktgen_go "${PG_DEVS[@]}" &
	pid=$!
	moving_reset
	PG_SOFAR=0
	CYCLE_SET=set_limit_here CYCLE_NAP=0.005 CYCLE_PACKETS=sender_tx_packets \
		cycle_limits 10 pktgen_changing $pid $((n * threads)) ||
		rc=1
	if [ "$STUCK" = 0 ]; then
		running $pid && echo stop > "$PG/pgctrl"
	else
		pktgen_stuck $pid
		rc=1
	fi
	wait $pid || rc=1
	sent=$(pktgen_field pkts-sofar)
	pktgen_reset
	set_limit 0 || rc=1
	ktap_print_msg "pktgen queue_xmit, $threads thread(s): $CYCLES limit changes during the run"
	[ $rc -eq 0 ] && [ "$sent" -ge $((n * threads)) ] &&
		peer_got "limit changing under pktgen" "$sent" "$base" "$base_err"
}

# strand_rounds: change_under_pktgen STRAND_ROUNDS times; stops at the
# first round that fails (a pktgen thread found stuck is lost for the
# rounds after it). A round that lost a frame without getting stuck says
# what the sender's queues hold.
strand_rounds()
{
	local r

	for ((r = 1; r <= STRAND_ROUNDS; r++)); do
		if ! change_under_pktgen; then
			[ "$STUCK" = 0 ] && nic_report "$IF_A"
			ktap_print_msg "round $r of $STRAND_ROUNDS failed"
			return 1
		fi
		[ "$STRAND_ROUNDS" -eq 1 ] ||
			ktap_print_msg "round $r of $STRAND_ROUNDS passed at ${SECONDS}s"
	done
}

# rtt_dist LIMIT: $PING_COUNT pings on the idle queue; prints the RTT
# distribution in ms as "min p50 p90 p99 max"; fails on a lost ping
rtt_dist()
{
	local out

	set_limit "$1" || return 1
	nap 0.2
	out=$(ping -n -c "$PING_COUNT" -i 0.1 -W 2 "$IP4_B" |
	      sed -n 's/.* time=\([0-9.]*\) ms$/\1/p' | sort -n)
	[ "$(grep -c . <<< "$out")" -eq "$PING_COUNT" ] || return 1
	awk '{ v[NR] = $1 }
	     function p(q,  i) { i = int((NR * q + 99) / 100); return v[i < 1 ? 1 : i] }
	     END { print v[1], p(50), p(90), p(99), v[NR] }' <<< "$out"
}

rtt_both()
{
	local r0 r64

	r0=$(rtt_dist 0) && [ -n "$r0" ] || return 1
	r64=$(rtt_dist 64) && [ -n "$r64" ] || return 1
	set_limit 0
	ktap_print_msg "idle ping RTT ms, $PING_COUNT pings each, min p50 p90 p99 max:"
	ktap_print_msg "  limit 0:  $r0"
	ktap_print_msg "  limit 64: $r64"
}

NO_STALL=", no stall"
case $BQL_STALLS in
fail) ;;
note) NO_STALL=" (BQL stalls only reported)" ;;
*) echo "BQL_STALLS=$BQL_STALLS: fail or note" >&2; exit 1 ;;
esac

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan $((5 + 13 * ${#LIMITS[@]}))
trap cleanup EXIT

if wire_setup 0 1 && [ -e "$(txq_dirs | head -n 1)/dispatch_limit" ]; then
	ktap_test_pass "$DRIVER: two NICs bound, up, dispatch_limit present"
else
	ktap_exit_fail_msg "$DRIVER: wire setup failed or no dispatch_limit"
fi
stall_thrs "$STALL_THRS"
STALLS=$(stall_cnt)
[ -e $PG/pgctrl ] || ktap_print_msg "no pktgen: its cases are skipped"

for l in "${LIMITS[@]}"; do
	ktap_print_msg "limit $l: starting at ${SECONDS}s"
	if ! set_limit "$l"; then
		ktap_exit_fail_msg "dispatch_limit $l: write failed"
	fi
	for b in 1 16; do
		if [ -e $PG/pgctrl ]; then
			ktap_test_result "limit $l: pktgen start_xmit burst $b, exact count" \
				pktgen_exact "$l" start_xmit "$b" 1 default
		else
			ktap_test_skip "limit $l: pktgen start_xmit burst $b: no pktgen"
		fi
	done
	for qd in pfifo_fast pfifo; do
		if [ -e $PG/pgctrl ]; then
			ktap_test_result "limit $l: pktgen queue_xmit, 1 thread, $qd, exact count" \
				pktgen_exact "$l" queue_xmit 1 1 "$qd"
			pktgen_2t "$l" queue_xmit "$qd"
		else
			ktap_test_skip "limit $l: pktgen queue_xmit, 1 thread, $qd: no pktgen"
			ktap_test_skip "limit $l: pktgen queue_xmit, 2 threads, $qd: no pktgen"
		fi
	done
	if [ -e $PG/pgctrl ]; then
		ktap_test_result \
			"limit $l: pktgen queue_xmit, netem slots, exact count, doorbells" \
			pktgen_exact "$l" queue_xmit 1 1 netem
		c="limit $l: pktgen queue_xmit, netem slots under mq, exact count"
		ktap_test_result "$c, doorbells" pktgen_exact "$l" queue_xmit 1 1 mq-netem
	else
		ktap_test_skip "limit $l: pktgen queue_xmit, netem slots: no pktgen"
		ktap_test_skip "limit $l: pktgen queue_xmit, netem slots under mq: no pktgen"
	fi
	use_qdisc default
	wait_for 20 idle
	stall_note "limit $l"
	ktap_test_result "limit $l: AF_PACKET PACKET_QDISC_BYPASS, exact count" \
		afp_exact "$l"
	ktap_test_result "limit $l: iperf3 TCP" tcp_ok "dl-tcp-limit$l"
	ktap_test_result "limit $l: iperf3 UDP to the peer, all accounted" \
		udp_ok "dl-udp-limit$l"
	ktap_test_result "limit $l: iperf3 UDP from the peer, all accounted" \
		udp_ok "dl-udp-r-limit$l" -R
	ktap_test_result "limit $l: BQL nothing in flight$NO_STALL" no_stall "$l"
done

ktap_test_result "limit 0 -> 64 -> 0 under iperf3" change_under_load
if [ -e $PG/pgctrl ]; then
	ktap_test_result "limit changes under pktgen queue_xmit, exact count" \
		strand_rounds
else
	ktap_test_skip "limit changes under pktgen queue_xmit: no pktgen"
fi
use_qdisc default
wait_for 20 idle
stall_note "limit changes under pktgen"
ktap_test_result "ping right after the changes, nothing stranded" \
	eval "ping -c 1 -W 1 $IP4_B >/dev/null && no_stall changes"
ktap_test_result "idle ping RTT distribution with limit 0 and 64" rtt_both
ktap_print_msg "done at ${SECONDS}s"
ktap_finished
