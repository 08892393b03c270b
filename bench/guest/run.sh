#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: the benchmark cases, one JSON line per measurement to
# $RESULTS/bench.jsonl and a "# bench:" progress line for each.
#
# Usage: run.sh ROUNDS CASE...    the NIC cases, in one boot
#        run.sh core LABEL ROUND  the dummy0 + pfifo_fast case on whatever
#                                  kernel this boot runs, labelled LABEL
#
# Every round measures each variant in turn, so every comparison is
# interleaved A B A B ... in the same boot on the same emulated NICs:
#   e1000e        the upstream driver (the baseline)
#   i82574        the new driver, every knob at its default
#   i82574-dlN    dispatch_limit N on the sending TX queues (qxmit, fwd)
#   i82574-nobql  BQL limit_min above anything the TX ring can hold (latency)
#   *-notso       TSO off on both NICs (tcp), for e1000e and i82574
#   i82574-cN     EITR interval N us (ethtool -C rx-usecs N tx-usecs N,
#                 adaptive off) on every NIC of the case, any case; only if
#                 asked for in BENCH_VARIANTS (e.g. i82574-c250)
#   i82574-dim    lib/dim on (adaptive-rx on adaptive-tx on) on every NIC
#                 of the case, any case; only if asked for in BENCH_VARIANTS
#   i82574-q1     one queue pair (ethtool -L combined 1) on every NIC of the
#                 case, any case; only if asked for in BENCH_VARIANTS
# The driver changes by driver_override unbind/bind; a knob variant is
# measured right after plain i82574 with the same binding.
#
# Knobs: BENCH_T (iperf3 seconds, default 3), BENCH_W (pktgen measuring
# window in seconds, default 2), BENCH_PINGS (pings per RTT sample, 100),
# BENCH_CW (counting window in seconds, default 1), BENCH_COUNT (0: no
# counting windows, default 1), BENCH_PPS and BENCH_MBPS (the counting
# windows' pace, 6000 frames/s and 150 Mbit/s), BENCH_PING_I (seconds
# between pings, 0.02), BENCH_RR_T and BENCH_RR_MPS (the
# request/response samples' seconds and requests a second, 3 and 200),
# BENCH_VARIANTS (the variants to measure, of those a case knows, e.g.
# "e1000e i82574 i82574-c250 i82574-dim"; default: each case's usual
# ones, without the coalescing variants).
#
# Counting: after its timed windows every case runs again in a shorter
# window with QEMU's MMIO and e1000e trace events on (hostctl trace,
# through QMP), paced to one rate both drivers reach under the trace
# (BENCH_PPS frames a second, BENCH_MBPS for TCP): each such window is a
# "count" line (trace log offsets, the packets the receiving NIC got, the
# window's seconds, and each NIC's BAR 0, packets and interrupts over it),
# which bench/count.py turns on the host into device operations per
# packet. An "idle" count window per driver and round gives the background
# (watchdogs) to subtract. The window's edges are the trace log's size,
# read by the guest itself right beside its counter snapshots (the relay
# that switches the trace on and off takes up to a second under load).
#
# BENCH_ICOUNT=1 (harness/bench.sh's instruction-counted boot, one vCPU):
# the NIC cases emit only guest instructions per packet ("instr:*", the
# CPU time per packet at 1 ns an instruction), no rates.
# Process start-up is costly under TCG (hundreds of ms on a busy host), so
# counters are read with shell builtins and results parsed with one awk.

. "${BUILD:-$(dirname "$(readlink -f "$0")")/../../build}/linux/tools/testing/selftests/drivers/net/i82574/lib.sh"
RESULTS=${RESULTS:-/run/results}
OUT=$RESULTS/bench.jsonl
T=${BENCH_T:-3}
W=${BENCH_W:-2}
PINGS=${BENCH_PINGS:-100}
PING_I=${BENCH_PING_I:-0.02}
CW=${BENCH_CW:-1}
PACE_PPS=${BENCH_PPS:-6000}
PACE_MBPS=${BENCH_MBPS:-150}
RR_T=${BENCH_RR_T:-3}
RR_MPS=${BENCH_RR_MPS:-200}
RR_PORT=11111
COUNT=${BENCH_COUNT:-1}
COUNTING=0
# MMIO through the memory API's events, which carry the absolute address
# (so the NIC: its BAR 0) where e1000e_core_* carry only the register
COUNT_EVENTS=(memory_region_ops_write memory_region_ops_read e1000e_irq_msix_notify_vec
	      e1000e_irq_msix_notify_postponed_vec e1000e_irq_msi_notify
	      e1000e_irq_legacy_notify e1000e_rx_written_to_guest)
# the NICs of the counting windows: "ROLE NS IFNAME BDF" each, NS "-" for
# this namespace (pair_up, fwd_up)
COUNT_NICS=()
PG=/proc/net/pktgen
START=${EPOCHSECONDS:?bash 5 needed}
HZ_USER=$(getconf CLK_TCK)
# busy CPU time in microseconds: the root cgroup's cpu.stat sums the same
# kcpustat fields as /proc/stat (user, nice, system, irq, softirq) but in
# us, where /proc/stat rounds to USER_HZ ticks (10 ms: 1% of a 1 s window)
CG_STAT=/sys/fs/cgroup/cpu.stat
[ -r $CG_STAT ] || mount -t cgroup2 cgroup2 /sys/fs/cgroup 2> /dev/null
[ -r $CG_STAT ] || CG_STAT=
NCPU=$(getconf _NPROCESSORS_ONLN)
# pktgen frames go to an address on the link nobody owns: the receiver
# counts them at its NIC and drops them in IP without answering.
NOBODY=198.18.0.99
FWD_DST=10.2.0.99
ALL_CASES="tcp udp64 pktgen qxmit latency fwd xdp"
# the xdp case's programs (xdp_actions.bpf.c, built into the image): they
# act on UDP to XDP_PORT only
XDP_OBJ=${BUILD:-$(dirname "$(readlink -f "$0")")/../../build}/linux/tools/testing/selftests/drivers/net/i82574/xdp_actions.bpf.o
XDP_PORT=7357
XDP_BURST=64

progress()
{
	local s=$((EPOCHSECONDS - START))

	printf '# bench: [%02d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*"
}

fail()
{
	progress "FAILED: $*"
	exit 1
}

# emit METRIC UNIT higher|lower VALUE [SAMPLES_JSON]
emit()
{
	# instruction-counted NIC cases: only the guest CPU time per packet,
	# which is then instructions (1 ns each)
	if [ "${BENCH_ICOUNT:-0}" = 1 ] && [ "$CASE" != core ]; then
		[[ $1 == cpu:* ]] || return 0
		set -- "instr:${1#cpu:}" instr/pkt lower "$(awk -v u="$4" 'BEGIN { printf "%.0f", u * 1000 }')"
	fi
	if [ "$COUNTING" = 1 ]; then
		[ "$REG_TRACE_FROM" = "${COUNTED_FROM:-}" ] && return 0
		COUNTED_FROM=$REG_TRACE_FROM
		local name=${1%-sent}

		name=${name%-rcvd}
		emit_count "${name%-p50}" "$RX_PKTS" "$1" "${4:-}"
		return 0
	fi
	printf '{"case":"%s","metric":"%s","variant":"%s","round":%d,"unit":"%s","better":"%s","value":%s%s}\n' \
		"$CASE" "$1" "$VARIANT" "$ROUND" "$2" "$3" "$4" "${5:+,\"samples\":$5}" >> "$OUT"
	progress "$CASE round $ROUND/$ROUNDS $VARIANT: $1 = $4 $2"
}

# count_on / count_off: the counting window's trace events on and off.
# The window itself is COUNT_FROM to COUNT_TO in the trace log, read by
# the guest (reg_trace_mark) once the trace is on and before it goes off,
# each mark right beside a snapshot of the NICs' packets and interrupts
# (nics_snap), so the guest's counters and the trace cover the same
# stretch; its length in COUNT_SECS
count_on()
{
	[ "$COUNTING" = 1 ] || return 0
	reg_trace_on "${COUNT_EVENTS[@]}" || return 1
	COUNT_FROM=$(reg_trace_mark) || { reg_trace_off; return 1; }
	nics_snap NICS0
	COUNT_T0=$EPOCHREALTIME
}

count_off()
{
	[ "$COUNTING" = 1 ] || return 0
	COUNT_SECS=$(awk -v a="$COUNT_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	nics_snap NICS1
	COUNT_TO=$(reg_trace_mark) || return 1
	reg_trace_off
}

# nics_snap VAR: VAR gets "ROLE BAR0 RX TX IRQ" for each NIC of
# COUNT_NICS, one line each: its BAR 0 address (what the trace's MMIO
# lines carry), packets in and out, and the interrupts of its vectors
# (i82574 names them by PCI address, e1000e by interface). Shell builtins
# only, so that the snapshot sits within milliseconds of the trace mark
# beside it (a process takes tens of them to start under TCG).
nics_snap()
{
	local -n snap_out=$1
	local e role ns ifn bdf bar n i irq rx tx pid line ncpu
	local -a f lines

	snap_out=
	mapfile -t lines < /proc/interrupts
	# a count per CPU column of the header
	read -r -a f <<< "${lines[0]}"
	ncpu=${#f[@]}
	for e in "${COUNT_NICS[@]}"; do
		read -r role ns ifn bdf <<< "$e"
		[ "$ns" = - ] && ns=
		read -r bar _ < "/sys/bus/pci/devices/$bdf/resource"
		irq=0
		for line in "${lines[@]:1}"; do
			n=${line##* }
			[[ $n == "$ifn" || $n == "$ifn"-* || $n == *-"$bdf"-* ]] || continue
			read -r -a f <<< "$line"
			for ((i = 1; i <= ncpu; i++)); do
				irq=$((irq + f[i]))
			done
		done
		rx=0 tx=0
		pid=$$
		[ -n "$ns" ] && pid=${HOLD[$ns]}
		while read -r n line; do
			[ "$n" = "$ifn:" ] || continue
			read -r -a f <<< "$line"
			rx=${f[1]} tx=${f[9]}
			break
		done < "/proc/$pid/net/dev"
		snap_out+="$role $bar $rx $tx $irq"$'\n'
	done
}

# emit_count NAME PACKETS [METRIC VALUE]: one counting window's line; with
# the rate the case measured inside the window (METRIC as the timed
# windows name it), to show how much the trace slowed it
emit_count()
{
	local nics rate=

	# the figures over the window, NICS0 to NICS1 (a file: the guest has
	# no /dev/fd for a process substitution)
	nics=$(printf '%s' "$NICS0" > /tmp/bench-nics0 &&
	       awk 'NR == FNR { rx[$1] = $3; tx[$1] = $4; irq[$1] = $5; next }
		    { printf "%s\"%s\":{\"bar\":\"%s\",\"rx\":%d,\"tx\":%d,\"irq\":%d}",
			     n++ ? "," : "", $1, $2, $3 - rx[$1], $4 - tx[$1], $5 - irq[$1] }' \
		   /tmp/bench-nics0 - <<< "${NICS1%$'\n'}")
	[ -n "${4:-}" ] && rate=$(printf ',"rate":{"metric":"%s","value":%s}' "$3" "$4")
	[ -n "${COUNT_PACE:-}" ] && rate+=$(printf ',"pace":{"unit":"%s","value":%s}' $COUNT_PACE)
	printf '{"case":"%s","metric":"%s","variant":"%s","round":%d,"kind":"count","trace":[%d,%d],"packets":%d,"secs":%s,"nics":{%s}%s}\n' \
		"$CASE" "$1" "$VARIANT" "$ROUND" "$COUNT_FROM" "$COUNT_TO" "$2" \
		"$COUNT_SECS" "$nics" "$rate" >> "$OUT"
	progress "$CASE round $ROUND/$ROUNDS $VARIANT: counted $1, $2 packets," \
		"$((COUNT_TO - COUNT_FROM)) bytes of trace"
}

# ns_do NS CMD...: CMD in network namespace NS, or here if NS is empty.
# nsenter, not "ip netns exec", which also remounts /sys and costs seconds
# under TCG: for CMDs that need no sysfs (netlink, ethtool, /proc/net).
ns_do()
{
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		nsenter --net="/run/netns/$ns" "$@"
	else
		"$@"
	fi
}

# A process lives in each namespace we make, so that /proc/PID/net shows
# that namespace's counters without entering it.
declare -A HOLD
ns_add()
{
	ip netns del "$1" 2>/dev/null
	ip netns add "$1" || return 1
	ip -n "$1" link set lo up
	nsenter --net="/run/netns/$1" sleep 100000 &
	HOLD[$1]=$!
}

ns_pid()
{
	if [ -n "$1" ]; then
		echo "${HOLD[$1]}"
	else
		echo $$
	fi
}

ns_del_all()
{
	local ns

	for ns in "${!HOLD[@]}"; do
		kill "${HOLD[$ns]}" 2>/dev/null
		wait "${HOLD[$ns]}" 2>/dev/null
		ip netns del "$ns" 2>/dev/null
		unset "HOLD[$ns]"
	done
}

# snap PID IFNAME [PGDEV...]: "usec cpu-busy-usec rx_packets-of-IFNAME
# IP-InReceives IP-InAddrErrors pktgen-sofar" in the namespace of process
# PID, read with builtins only so that the counters are close in time
snap()
{
	local t=${EPOCHREALTIME/[.,]/} u n s irq sirq st name rp a b p=0 r=0 d busy
	local -a f h

	if [ -n "$CG_STAT" ]; then
		read -r _ busy _ < "$CG_STAT"
	else
		read -r _ u n s _ _ irq sirq st _ < /proc/stat
		busy=$(((u + n + s + irq + sirq + st) * 1000000 / HZ_USER))
	fi
	while read -r name _ rp _; do
		[ "$name" = "$2:" ] && { r=$rp; break; }
	done < "/proc/$1/net/dev"
	while read -r -a f; do
		[ "${f[0]}" = Ip: ] || continue
		[ ${#h[@]} -gt 0 ] && break
		h=("${f[@]}")
	done < "/proc/$1/net/snmp"
	for a in "${!h[@]}"; do
		case ${h[a]} in
		InReceives) b=${f[a]} ;;
		InAddrErrors) d=${f[a]} ;;
		esac
	done
	t="$t $busy $r $b $d"
	for d in "${@:3}"; do
		while read -r a b _; do
			[ "$a" = pkts-sofar: ] && { p=$((p + b)); break; }
		done < "/proc/$1/net/pktgen/$d"
	done
	echo "$t $p"
}

# window_calc SNAP0 SNAP1: sets RX_PPS (NIC rx_packets), IN_PPS (IP
# InReceives), DROP_PPS (IP InAddrErrors: frames for nobody's address),
# PG_PPS (pktgen), and the guest CPU time (both vCPUs, both ends of the
# wire) in microseconds per packet: CPU_US per rx_packets, CPU_US_DROP per
# InAddrErrors (the frames for nobody that the receiver's IP saw), CPU_US_PG
# per frame pktgen sent
window_calc()
{
	local t0 c0 r0 i0 e0 p0 t1 c1 r1 i1 e1 p1

	read -r t0 c0 r0 i0 e0 p0 <<< "$1"
	read -r t1 c1 r1 i1 e1 p1 <<< "$2"
	# (no process substitution: the guest has no /dev/fd)
	RX_PKTS=$((r1 - r0))
	read -r _ RX_PPS IN_PPS DROP_PPS PG_PPS CPU_US CPU_US_DROP CPU_US_PG <<< "$(awk -v dt=$((t1 - t0)) \
		-v dc=$((c1 - c0)) -v dr=$((r1 - r0)) -v di=$((i1 - i0)) -v de=$((e1 - e0)) \
		-v dp=$((p1 - p0)) 'BEGIN {
		s = dt / 1e6
		c = dc
		printf "%.3f %.0f %.0f %.0f %.0f %.2f %.2f %.3f\n", s, dr / s, di / s, de / s,
			dp / s, dr ? c / dr : 0, de ? c / de : 0, dp ? c / dp : 0 }')"
}

# pg_setup NS IFNAME THREADS MODE SIZE BURST DST DSTMAC [SRC]: IFNAME@t on
# kpktgend_t for each thread t, sending until stopped
pg_setup()
{
	local ns=$1 ifn=$2 thr=$3 t c cmds=""

	shift 3
	for ((t = 0; t < thr; t++)); do
		cmds+="echo rem_device_all > $PG/kpktgend_$t"$'\n'
		# the thread removes them when it next runs (up to 30 s here)
		cmds+="for i in \$(seq 300); do grep -Eq '^(Running|Stopped): +[^ ]' $PG/kpktgend_$t || break; sleep 0.1; done"$'\n'
		cmds+="echo add_device $ifn@$t > $PG/kpktgend_$t"$'\n'
		for c in "count 0" "xmit_mode $1" "pkt_size $2" "burst $3" \
			 "delay ${PG_DELAY:-0}" "dst $4" "dst_mac $5" ${6:+"src_min $6"} ${6:+"src_max $6"} \
			 ${PG_UDP:+"udp_dst_min $PG_UDP"} ${PG_UDP:+"udp_dst_max $PG_UDP"}; do
			cmds+="echo '$c' > $PG/$ifn@$t"$'\n'
		done
	done
	if [ -n "$ns" ]; then
		ns_do "$ns" bash -e <<< "$cmds"
	else
		(set -e; eval "$cmds")
	fi
}

pg_clear()
{
	ns_do "$1" sh -c "for t in $PG/kpktgend_*; do echo rem_device_all > \$t; done" 2>/dev/null
	return 0
}

# pg_idle PID: no pktgen thread of PID's namespace runs a device
pg_idle()
{
	local f l

	for f in /proc/"$1"/net/pktgen/kpktgend_*; do
		while read -r l; do
			[[ $l == "Running: "* ]] && return 1
		done < "$f"
	done
	return 0
}

pg_busy() { ! pg_idle "$1"; }

# pg_window PGNS RXNS RXIF DEV...: run the configured pktgen devices in
# PGNS, measure W seconds after a warm-up, stop: window_calc's variables
# (PG_PPS from the first snapshots, the receiver's from the second, taken
# right after). Writing "start" blocks until a signal: that is how it stops.
# A counting window encloses the whole run, so that every frame of it is
# both in the trace and in the NICs' counters (nics_snap).
pg_window()
{
	local pgns=$1 rxns=$2 rxif=$3 pid s0 s1 r0 r1 pgpid rxpid

	shift 3
	pgpid=$(ns_pid "$pgns")
	rxpid=$(ns_pid "$rxns")
	count_on || return 1
	# a simple command, so that $! is the writer itself
	if [ -n "$pgns" ]; then
		nsenter --net="/run/netns/$pgns" sh -c "exec echo start > $PG/pgctrl" &
	else
		sh -c "echo start > $PG/pgctrl" &
	fi
	pid=$!
	# the write waits only 125 ms for a kpktgend thread to take the run
	# up (they look every 100 ms): on a busy guest it can return before
	# the run starts, and then no signal stops it (below)
	wait_for 100 pg_busy "$pgpid" || return 1
	sleep 0.5
	s0=$(snap "$pgpid" none "$@")
	r0=$(snap "$rxpid" "$rxif")
	sleep "$W"
	s1=$(snap "$pgpid" none "$@")
	r1=$(snap "$rxpid" "$rxif")
	kill -TERM $pid 2>/dev/null
	wait $pid 2>/dev/null
	pg_idle "$pgpid" || ns_do "$pgns" sh -c "echo stop > $PG/pgctrl"
	wait_for 30 pg_idle "$pgpid" || return 1
	# the last frames through the router and into the receivers' rings
	[ "$COUNTING" = 1 ] && sleep 0.3
	count_off || return 1
	window_calc "$s0" "$s1"
	local pg=$PG_PPS pgus=$CPU_US_PG
	# the CPU time over the receiver's window
	window_calc "$r0" "$r1"
	PG_PPS=$pg CPU_US_PG=$pgus
	[ "$PG_PPS" -gt 0 ]
}

# set_txq NS IFNAME FILE=VALUE...: write each FILE (relative to
# queues/tx-N) on every TX queue of IFNAME and read it back
set_txq()
{
	local ns=$1 ifn=$2 fv script=""

	shift 2
	for fv in "$@"; do
		script+="for q in /sys/class/net/$ifn/queues/tx-*; do
			echo ${fv#*=} > \$q/${fv%%=*} &&
			[ \"\$(cat \$q/${fv%%=*})\" = ${fv#*=} ] || exit 1
		done"$'\n'
	done
	if [ -n "$ns" ]; then
		ip netns exec "$ns" sh -e -c "$script"
	else
		(set -e; eval "$script")
	fi
}

# knobs NS IFNAME VARIANT: put the sending NIC's TX queues in VARIANT's
# state, every other knob at its default (nothing to do on e1000e)
knobs()
{
	local ns=$1 ifn=$2 dl=0 minb=0 ring

	case $3 in
	e1000e*) return 0 ;;
	*-dl*) dl=${3##*-dl} ;;
	*-nobql)
		ring=$(ns_do "$ns" ethtool -g "$ifn" |
		       awk '/^Current/ { c = 1 } c && /^TX:/ { print $2; exit }')
		[ -n "$ring" ] || return 1
		# more bytes than the ring can hold: only a full ring stops it
		minb=$((ring * 65536))
		;;
	esac
	set_txq "$ns" "$ifn" dispatch_limit=$dl byte_queue_limits/limit_min=$minb
}

# tso_knob VARIANT: TSO off on both NICs of the pair for a *-notso variant
# (tcp-rx sends from the peer), on (both drivers' default) otherwise
tso_knob()
{
	local v=on

	[[ $1 == *-notso ]] && v=off
	ethtool -K "$IF_A" tso $v && ns_do "$PEER_NS" ethtool -K "$IF_B" tso $v
}

# The coalescing variants' state. COAL_SAVED[NS/IFNAME] is what the NIC
# had before the first coalescing variant changed it: its driver's
# defaults, as every binding starts afresh (pair_up and fwd_up forget).
declare -A COAL_SAVED

# coal_get NS IFNAME: "ADAPTIVE-RX ADAPTIVE-TX RX-USECS TX-USECS" (ethtool -c)
coal_get()
{
	ns_do "$1" ethtool -c "$2" | awk '
		/^Adaptive RX:/ { ar = $3; at = $5 }
		/^rx-usecs:/ { ru = $2 }
		/^tx-usecs:/ { tu = $2 }
		END { if (ar != "" && ru != "" && tu != "") print ar, at, ru, tu }'
}

# coal_set NS IFNAME AR AT RXUS TXUS: set, and read back. The intervals go
# in with adaptive off first (the vectors take them), then lib/dim starts
# from them if AR or AT is on.
coal_set()
{
	local ns=$1 ifn=$2

	ns_do "$ns" ethtool -C "$ifn" adaptive-rx off adaptive-tx off \
		rx-usecs "$5" tx-usecs "$6" 2>/dev/null
	[ "$3 $4" = "off off" ] ||
		ns_do "$ns" ethtool -C "$ifn" adaptive-rx "$3" adaptive-tx "$4" 2>/dev/null
	[ "$(coal_get "$ns" "$ifn")" = "$3 $4 $5 $6" ]
}

# coal_knob VARIANT NS IFNAME [NS IFNAME...]: the NICs' interrupt
# coalescing in VARIANT's state: i82574-cN an EITR interval of N us on
# every vector (adaptive off), i82574-dim lib/dim on; any other i82574
# variant gets back what the NICs had (nothing to do on e1000e)
coal_knob()
{
	local v=$1 ns ifn key cur ar at ru tu

	shift
	[[ $v == i82574* ]] || return 0
	while [ $# -ge 2 ]; do
		ns=$1 ifn=$2 key=$1/$2
		shift 2
		if [ -z "${COAL_SAVED[$key]:-}" ]; then
			[[ $v =~ -(c[0-9]+|dim)$ ]] || continue
			cur=$(coal_get "$ns" "$ifn")
			[ -n "$cur" ] || return 1
			COAL_SAVED[$key]=$cur
		fi
		read -r ar at ru tu <<< "${COAL_SAVED[$key]}"
		case $v in
		*-c[0-9]*) ar=off at=off ru=${v##*-c} tu=$ru ;;
		*-dim) ar=on at=on ;;
		esac
		coal_set "$ns" "$ifn" "$ar" "$at" "$ru" "$tu" || return 1
	done
}

# chan_knob VARIANT NS IFNAME [NS IFNAME...]: i82574-q1 one queue pair
# (ethtool -L combined 1) on every NIC of the case; any other i82574
# variant gets both back where q1 took one (nothing to do on e1000e)
chan_knob()
{
	local v=$1 n=2

	shift
	[[ $v == i82574* ]] || return 0
	[ "$v" = i82574-q1 ] && n=1
	[ $n = 2 ] && [ -z "$CHAN_CUT" ] && return 0
	while [ $# -ge 2 ]; do
		ns_do "$1" ethtool -L "$2" combined $n && links_up "$1" "$2" || return 1
		shift 2
	done
	CHAN_CUT=
	[ $n = 2 ] || CHAN_CUT=1
}

# eitr_note NS IFNAME [NS IFNAME...]: a progress line with the EITR
# intervals (us) of vectors 0-2 (other, queue pairs 0 and 1) of each NIC,
# as ethtool -d reads them (i82574 only: lib/dim's choice shows here)
eitr_note()
{
	local s=""

	[[ $VARIANT == i82574* ]] || return 0
	while [ $# -ge 2 ]; do
		s+=" $2:$(ns_do "$1" ethtool -d "$2" raw on | od -An -tu4 -j 28 -N 12 |
			awk '{ for (i = 1; i <= NF; i++) printf " %g", $i / 4 }')"
		shift 2
	done
	progress "$CASE $VARIANT: EITR (us) of vectors 0-2 after the windows:$s"
}

# qdisc_default NS IFNAME: the root qdisc a fresh device gets with the
# current net.core.default_qdisc (mq over it if multi-queue): deleting a
# root qdisc makes the kernel attach the default again
qdisc_default()
{
	ns_do "$1" tc qdisc replace dev "$2" root handle 1: pfifo &&
		ns_do "$1" tc qdisc del dev "$2" root &&
		ns_do "$1" tc qdisc show dev "$2" | grep -q " $(sysctl -n net.core.default_qdisc) "
}

# links_up NS IFNAME...: wait until the links are up (operstate)
links_up()
{
	local ns=$1 i n

	shift
	for ((n = 0; n < 50; n++)); do
		for i in "$@"; do
			ip ${ns:+-n "$ns"} -br link show dev "$i" | grep -q ' UP ' || break
			[ "$i" = "${*: -1}" ] && return 0
		done
		sleep 0.2
	done
	return 1
}

# nic_release I...: NICs I unbound, and no driver takes them until
# nic_bind: no MMIO or interrupt of theirs in a counting window (a down
# NIC's driver may still poll it, or runtime-suspend it)
nic_release()
{
	local i

	for i in "$@"; do
		nic_dev "$i"
		[ -e "$NIC_DEV" ] || continue
		echo none > "$NIC_DEV/driver_override"
		[ -e "$NIC_DEV/driver" ] && echo "${NIC_DEV##*/}" > "$NIC_DEV/driver/unbind"
		[ ! -e "$NIC_DEV/driver" ] || return 1
	done
}

# pair_up DRIVER: NIC 0 here ($IF_A), NIC 1 in $PEER_NS ($IF_B), both on
# DRIVER, addressed and up; an iperf3 server in $PEER_NS
pair_up()
{
	DRIVER=$1
	COAL_SAVED=()
	CHAN_CUT=
	nic_bind "$DRIVER" 0 1 && nic_release 2 3 || return 1
	IF_A=$(nic_ifname 0) && IF_B=$(nic_ifname 1) || return 1
	ns_add "$PEER_NS" || return 1
	ip link set "$IF_B" netns "$PEER_NS" || return 1
	ip -b - <<< "addr add $IP4_A/24 dev $IF_A
link set $IF_A up" || return 1
	ip -n "$PEER_NS" -b - <<< "addr add $IP4_B/24 dev $IF_B
link set $IF_B up" || return 1
	links_up "" "$IF_A" && links_up "$PEER_NS" "$IF_B" || return 1
	ns_do "$PEER_NS" iperf3 -s -D -B "$IP4_B" --pidfile /tmp/bench-iperf3.pid || return 1
	COUNT_NICS=("a - $IF_A $(nic_bdf 0)" "b $PEER_NS $IF_B $(nic_bdf 1)")
	qdisc_default "" "$IF_A" || return 1
	MAC_B=$(ip -n "$PEER_NS" -br link show dev "$IF_B" | awk '{ print $3 }')
	[ -n "$MAC_B" ]
}

pair_down()
{
	pg_clear ""
	pkill -x iperf3
	ns_del_all
	ip addr flush dev "$IF_A"
	# deleting the namespace returns the NIC asynchronously
	wait_for 300 test -e "/sys/class/net/$IF_B"
}

# iperf_get FILE SECTION: "bits_per_second bytes seconds" of SECTION of
# the "end" object of iperf3's JSON
iperf_get()
{
	awk -v s="\"$2\":" '
		$1 == "\"end\":" && $2 == "{" { e = 1 }
		e && $1 == s { x = 1 }
		x && $1 ~ /^"(bits_per_second|bytes|seconds)":$/ { sub(/,$/, "", $2); v[$1] = $2 }
		x && /}/ { print v["\"bits_per_second\":"], v["\"bytes\":"], v["\"seconds\":"]; exit }
	' "$1"
}

# iperf_window NAME RXNS RXIF ARGS...: one iperf3 client run to the peer
# with counters around it; JSON in $RESULTS/NAME.json, window_calc's
# variables and HCPU_US: QEMU's host CPU time (every thread) per packet
# received, from hostctl cputime at the window's ends
iperf_window()
{
	local name=$1 rxns=$2 rxif=$3 s0 s1 h0 h1 rxpid try f=$RESULTS/$1.json

	shift 3
	rxpid=$(ns_pid "$rxns")
	for try in 1 2 3; do
		count_on || return 1
		h0=$("$REG_TRACE_HOSTCTL" cputime) || return 1
		s0=$(snap "$rxpid" "$rxif")
		iperf3 -c "$IP4_B" -J "$@" > "$f" && ! grep -q '"error"' "$f" && break
		count_off
		# the server may still be finishing the previous test
		grep -q busy "$f" && [ $try -lt 3 ] || return 1
		sleep 1
	done
	s1=$(snap "$rxpid" "$rxif")
	h1=$("$REG_TRACE_HOSTCTL" cputime) || return 1
	count_off || return 1
	window_calc "$s0" "$s1"
	HCPU_US=$(awk -v dh=$((h1 - h0)) -v dr="$RX_PKTS" \
		'BEGIN { printf "%.2f", dr ? dh / 1e3 / dr : 0 }')
}

case_tcp()
{
	local p dir bps _

	for dir in tx rx; do
		for p in $(subcases 1 2); do
			if [ $dir = tx ]; then
				iperf_window "tcp-$VARIANT" "$PEER_NS" "$IF_B" -t "$T" -P $p \
					$(pace_rate tcp) || return 1
			else
				iperf_window "tcp-$VARIANT" "" "$IF_A" -t "$T" -P $p -R \
					$(pace_rate tcp) || return 1
			fi
			read -r bps _ <<< "$(iperf_get "$RESULTS/tcp-$VARIANT.json" sum_received)"
			[ -n "$bps" ] || return 1
			emit "tcp-$p-$dir" Mbit/s higher "$(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }')"
			emit "cpu:tcp-$p-$dir" us/pkt lower "$CPU_US"
			emit "hcpu:tcp-$p-$dir" us/pkt lower "$HCPU_US"
		done
	done
}

# iperf3 UDP, 18-byte payload = 64-byte frames on the wire with the FCS,
# unlimited rate (paced in a counting window): datagrams/s iperf3 sent,
# and the peer's iperf3 received
case_udp64()
{
	local p f sent rcvd

	for p in $(subcases 1 2); do
		iperf_window "udp64-$VARIANT" "$PEER_NS" "$IF_B" -u -l 18 -t "$T" -P $p \
			$(pace_rate udp) || return 1
		f=$RESULTS/udp64-$VARIANT.json
		read -r sent rcvd <<< "$(awk -v a="$(iperf_get "$f" sum_sent)" \
			-v b="$(iperf_get "$f" sum_received)" 'BEGIN {
			split(a, x, " "); split(b, y, " ")
			if (x[3] > 0 && y[3] > 0) printf "%.0f %.0f", x[2] / 18 / x[3], y[2] / 18 / y[3] }')"
		[ -n "$rcvd" ] || return 1
		emit "udp64-$p-sent" pps higher "$sent"
		emit "udp64-$p-rcvd" pps higher "$rcvd"
		emit "cpu:udp64-$p" us/pkt lower "$CPU_US"
	done
}

# pktgen start_xmit, 60-byte frames (64 with the FCS), burst 1 and 16:
# packets/s pktgen got out, and the peer's NIC received
case_pktgen()
{
	local b

	for b in 1 16; do
		PG_DELAY=$(pace_delay $b) pg_setup "" "$IF_A" 1 start_xmit 60 $b "$NOBODY" \
			"$MAC_B" || return 1
		pg_window "" "$PEER_NS" "$IF_B" "$IF_A@0" || return 1
		pg_clear ""
		emit "pktgen-b$b-sent" pps higher "$PG_PPS"
		progress "(peer NIC rx_packets $RX_PPS/s, IP InAddrErrors $DROP_PPS/s)"
		emit "pktgen-b$b-rcvd" pps higher "$DROP_PPS"
		emit "cpu:pktgen-b$b" us/pkt lower "$CPU_US_DROP"
	done
}

# pktgen queue_xmit (through the qdisc), 60-byte frames, 1 and 2 threads
case_qxmit()
{
	local t devs

	for t in $(subcases 1 2); do
		# a pktgen thread per CPU: the instruction-counted boot has one
		[ "$t" -le "$NCPU" ] || continue
		PG_DELAY=$(pace_delay 1) pg_setup "" "$IF_A" $t queue_xmit 60 1 "$NOBODY" \
			"$MAC_B" || return 1
		devs=("$IF_A@0")
		[ $t = 2 ] && devs+=("$IF_A@1")
		pg_window "" "$PEER_NS" "$IF_B" "${devs[@]}" || return 1
		pg_clear ""
		emit "qxmit-t$t-sent" pps higher "$PG_PPS"
		progress "(peer NIC rx_packets $RX_PPS/s, IP InAddrErrors $DROP_PPS/s)"
		emit "qxmit-t$t-rcvd" pps higher "$DROP_PPS"
		emit "cpu:qxmit-t$t" us/pkt lower "$CPU_US_DROP"
	done
}

# ping_rtts NAME: $PINGS pings to the peer $PING_I s apart; emits NAME-p50,
# NAME-p90 and NAME-p99 in ms, the first with every sample
ping_rtts()
{
	local p50 p90 p99 s

	read -r p50 p90 p99 s <<< "$(ping -n -c "$PINGS" -i "$PING_I" -W 1 "$IP4_B" |
		sed -n 's/.* time=\([0-9.]*\) ms/\1/p' | sort -n | awk '
		{ v[++n] = $1 }
		END {
			if (!n) exit
			i50 = int(0.50 * n + 0.999); i90 = int(0.90 * n + 0.999)
			i99 = int(0.99 * n + 0.999)
			s = v[1]; for (i = 2; i <= n; i++) s = s "," v[i]
			print v[i50], v[i90], v[i99], "[" s "]" }')"
	[ -n "$s" ] || return 1
	emit "$1-p50" ms lower "$p50" "$s"
	emit "$1-p90" ms lower "$p90"
	emit "$1-p99" ms lower "$p99"
}

# rr_listening NS: a UDP socket listens on RR_PORT in NS
rr_listening() { [ -n "$(ns_do "$1" ss -Hlun "sport = :$RR_PORT")" ]; }

# rr_run NAME CLIENT_NS SERVER_NS ADDR: request/response round trips from
# CLIENT_NS ("" for this one) to a sockperf server on ADDR in SERVER_NS:
# UDP ping-pong, one 12-byte request out at a time, RR_MPS a second for
# RR_T s (the first 0.4 s a warm-up sockperf leaves out). Emits NAME-p50 and NAME-p99 in us
# of round trip: sockperf reports half of one, which is doubled here.
rr_run()
{
	local name=$1 cns=$2 sns=$3 addr=$4 pid out p50 p99

	# nsenter itself in the background (not ns_do, a function: its
	# subshell's PID would be killed and the server left running)
	nsenter --net="/run/netns/$sns" sockperf server -i "$addr" -p $RR_PORT \
		> /dev/null 2>&1 &
	pid=$!
	wait_for 100 rr_listening "$sns" || { kill $pid; return 1; }
	out=$(ns_do "$cns" sockperf ping-pong -i "$addr" -p $RR_PORT -t "$RR_T" \
		--mps="$RR_MPS" 2>&1)
	kill $pid
	wait $pid 2>/dev/null
	read -r p50 p99 <<< "$(awk '/percentile 50.000 =/ { p50 = $NF }
		/percentile 99.000 =/ { p99 = $NF }
		END { if (p50 != "" && p99 != "") printf "%.1f %.1f", 2 * p50, 2 * p99 }' <<< "$out")"
	[ -n "$p99" ] || { progress "sockperf: $(tail -n 2 <<< "$out" | paste -sd ';')"; return 1; }
	emit "$name-p50" us lower "$p50"
	emit "$name-p99" us lower "$p99"
}

# Latency: ping RTT idle, then under one saturating TCP flow the same way;
# request/response round trips (rr_run) idle and under the flow too. The
# sender gets fq_codel (under mq if multi-queue), so the ping is not stuck
# behind the TCP flow in the qdisc: what is left is the queue below it,
# the ring, which BQL bounds.
case_latency()
{
	local rc=0

	[ "$COUNTING" = 1 ] && { latency_count; return; }
	sysctl -qw net.core.default_qdisc=fq_codel &&
		qdisc_default "" "$IF_A" &&
		latency_run || rc=1
	sysctl -qw net.core.default_qdisc="$OLD_QDISC"
	qdisc_default "" "$IF_A" || rc=1
	return $rc
}

# counted: 40 idle pings (request and reply: 2 frames each; under load the
# counts are tcp-1-tx's)
latency_count()
{
	local r0 r1

	count_on || return 1
	r0=$(snap $$ "$IF_A")
	ping -n -q -c 40 -i 0.05 -W 1 "$IP4_B" > /dev/null
	r1=$(snap $$ "$IF_A")
	count_off || return 1
	window_calc "$r0" "$r1"
	emit rtt-idle-p50
}

# subcases A B...: what a case's loop goes through: all, or in a counting
# window only the first (counting windows cost 10-30 s each here: QEMU
# flushes every trace line)
subcases()
{
	if [ "$COUNTING" = 1 ]; then echo "$1"; else echo "$@"; fi
}

# pace_delay BURST: pktgen's delay (ns) between bursts of BURST frames:
# PACE_PPS frames a second in a counting window, as fast as it can else
pace_delay()
{
	if [ "$COUNTING" = 1 ]; then echo $(($1 * 1000000000 / PACE_PPS)); else echo 0; fi
}

# pace_rate tcp|udp: iperf3's -b for one stream: PACE_MBPS of TCP or
# PACE_PPS datagrams of 18 bytes in a counting window; UDP unlimited else
pace_rate()
{
	if [ "$COUNTING" = 0 ]; then
		[ "$1" = udp ] && echo "-b 0"
	elif [ "$1" = tcp ]; then
		echo "-b ${PACE_MBPS}M"
	else
		echo "-b $((PACE_PPS * 18 * 8))"
	fi
}

# count_case: the case again in a counting window, at the pace (the
# latency case's idle pings are paced by their interval)
count_case()
{
	local T=$CW W=$CW rc=0 COUNT_PACE="pps $PACE_PPS"

	[ "$COUNT" = 1 ] || return 0
	case $CASE in
	tcp) COUNT_PACE="Mbit/s $PACE_MBPS" ;;
	latency | xdp) COUNT_PACE= ;;
	esac
	COUNTING=1
	"case_$CASE" || rc=1
	COUNTING=0
	return $rc
}

# count_idle NAME: a counting window with no traffic (the background)
count_idle()
{
	local CASE=idle VARIANT=$DRIVER COUNT_PACE=

	[ "$COUNT" = 1 ] || return 0
	COUNTING=1
	count_on || { COUNTING=0; return 1; }
	# longer: the watchdogs' bursts come every 2 s, and 4 s between the
	# marks hold two of them (one more or less only when a burst straddles
	# an edge)
	sleep 4
	count_off || { COUNTING=0; return 1; }
	emit_count "$1" 0
	COUNTING=0
}

latency_run()
{
	local pid bps _ f=$RESULTS/lat-$VARIANT.json

	ping_rtts rtt-idle || return 1
	rr_run rr-idle "" "$PEER_NS" "$IP4_B" || return 1
	iperf3 -c "$IP4_B" -J -t $((PINGS / 40 + RR_T + 5)) > "$f" &
	pid=$!
	sleep 1.5
	ping_rtts rtt-load && rr_run rr-load "" "$PEER_NS" "$IP4_B" ||
		{ wait $pid; return 1; }
	wait $pid || return 1
	read -r bps _ <<< "$(iperf_get "$f" sum_received)"
	[ -n "$bps" ] || return 1
	emit rtt-load-tcp Mbit/s higher "$(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }')"
}

# Forwarding: pktgen in fwd-src (NIC 0) -> NIC 1 in fwd-rtr, ip_forward ->
# NIC 2 in fwd-rtr -> NIC 3 in fwd-sink, which counts what arrives. The
# knob variants set the router's egress (NIC 2).
declare -a FIF
# fwd_up DRIVER [ENDS]: the router's NICs (1, 2) on DRIVER, the source's
# and the sink's (0, 3) on ENDS (default: DRIVER)
fwd_up()
{
	local i

	DRIVER=$1
	COAL_SAVED=()
	CHAN_CUT=
	nic_bind "${2:-$DRIVER}" 0 3 && nic_bind "$DRIVER" 1 2 || return 1
	for i in 0 1 2 3; do
		FIF[$i]=$(nic_ifname $i) || return 1
	done
	ns_add fwd-src && ns_add fwd-rtr && ns_add fwd-sink || return 1
	ip link set "${FIF[0]}" netns fwd-src &&
	ip link set "${FIF[1]}" netns fwd-rtr &&
	ip link set "${FIF[2]}" netns fwd-rtr &&
	ip link set "${FIF[3]}" netns fwd-sink || return 1
	# an address and routes for the request/response samples (rr_run)
	ip -n fwd-src -b - <<< "addr add 10.1.0.1/24 dev ${FIF[0]}
link set ${FIF[0]} up
route add 10.2.0.0/24 via 10.1.0.2" || return 1
	ip -n fwd-rtr -b - <<< "addr add 10.1.0.2/24 dev ${FIF[1]}
addr add 10.2.0.2/24 dev ${FIF[2]}
link set ${FIF[1]} up
link set ${FIF[2]} up" || return 1
	ip -n fwd-sink -b - <<< "addr add 10.2.0.1/24 dev ${FIF[3]}
link set ${FIF[3]} up
route add 10.1.0.0/24 via 10.2.0.2" || return 1
	# nobody owns FWD_DST: the sink's NIC counts it, its IP drops it
	ns_do fwd-rtr sysctl -qw net.ipv4.ip_forward=1 &&
	ip -n fwd-rtr neigh replace "$FWD_DST" dev "${FIF[2]}" nud permanent lladdr \
		"$(ip -n fwd-sink -br link show dev "${FIF[3]}" | awk '{ print $3 }')" || return 1
	links_up fwd-src "${FIF[0]}" && links_up fwd-rtr "${FIF[1]}" "${FIF[2]}" &&
		links_up fwd-sink "${FIF[3]}" || return 1
	FWD_MAC=$(ip -n fwd-rtr -br link show dev "${FIF[1]}" | awk '{ print $3 }')
	# source, router in and out, sink
	COUNT_NICS=("src fwd-src ${FIF[0]} $(nic_bdf 0)" "rin fwd-rtr ${FIF[1]} $(nic_bdf 1)"
		    "rout fwd-rtr ${FIF[2]} $(nic_bdf 2)" "sink fwd-sink ${FIF[3]} $(nic_bdf 3)")
	[ -n "$FWD_MAC" ]
}

fwd_down()
{
	local i

	[ -n "${HOLD[fwd-src]:-}" ] && pg_clear fwd-src
	ns_del_all
	for i in 0 1 2 3; do
		[ -n "${FIF[$i]:-}" ] && wait_for 300 test -e "/sys/class/net/${FIF[$i]}"
	done
	FIF=()
	return 0
}

case_fwd()
{
	local d0 d1

	PG_DELAY=$(pace_delay 1) pg_setup fwd-src "${FIF[0]}" 1 start_xmit 60 1 "$FWD_DST" \
		"$FWD_MAC" 10.1.0.1 || return 1
	pg_window fwd-src fwd-sink "${FIF[3]}" "${FIF[0]}@0" || return 1
	emit fwd-sent pps higher "$PG_PPS"
	progress "(sink NIC rx_packets $RX_PPS/s, IP InAddrErrors $DROP_PPS/s)"
	emit fwd-rcvd pps higher "$DROP_PPS"
	emit cpu:fwd us/pkt lower "$CPU_US_DROP"
	# round trips through the idle router, its egress at the variant's
	# limit (the replies leave through NIC 1 at limit 0)
	[ "$COUNTING" = 1 ] || [ "${BENCH_ICOUNT:-0}" = 1 ] && return 0
	d0=$(egress_doorbells)
	rr_run rr-fwd fwd-src fwd-sink 10.2.0.1 || return 1
	d1=$(egress_doorbells)
	# i82574 only: how the requests' doorbells rang on the router's egress
	[ -n "$d0" ] && progress "(router egress over the round trips: doorbells" \
		"$(( ${d1% *} - ${d0% *} )), of them by the core's flush $(( ${d1#* } - ${d0#* } )))"
	return 0
}

# egress_doorbells: "DOORBELLS FLUSHED" of the router's egress NIC, summed
# over its queues (i82574's ethtool -S); nothing for a driver without them
egress_doorbells()
{
	ns_do fwd-rtr ethtool -S "${FIF[2]}" 2>/dev/null | awk '
		/^ *tx_doorbells:/ { d += $2; n = 1 }
		/^ *tx_flush_doorbells:/ { f += $2 }
		END { if (n) print d, f }'
}

# The 2021 lockless-qdisc setup: dummy0 with pfifo_fast, pktgen queue_xmit
# 64 B, 1 and 2 threads; run on the stock and on the patched kernel. In an
# instruction-counted boot (BENCH_ICOUNT=1, vm.py --icount) guest time is
# guest instructions, so the rate is 1e9 / instructions per packet: the
# path length, which host noise cannot move.
case_core()
{
	local metric=core

	[ "${BENCH_ICOUNT:-0}" = 1 ] && metric=core-ic

	ip link add dummy0 type dummy 2>/dev/null
	ip link set dummy0 up || return 1
	tc qdisc replace dev dummy0 root pfifo_fast || return 1
	core_qxmit dummy0 "$metric" 1 2 || return 1
	# the patched kernel: what every device pays once some queue has a limit
	grep -qw netdev_dispatch_kick /proc/kallsyms || return 0
	core_key_on "$metric"
}

# core_qxmit DEV METRIC THREADS...: pktgen queue_xmit 64 B into DEV's
# pfifo_fast from each number of THREADS in turn; METRIC-tTHREADS each
core_qxmit()
{
	local dev=$1 metric=$2 t devs

	shift 2
	for t in "$@"; do
		pg_setup "" "$dev" "$t" queue_xmit 64 1 198.18.1.1 02:00:00:00:00:01 || return 1
		devs=("$dev@0")
		[ "$t" = 2 ] && devs+=("$dev@1")
		pg_window "" "" none "${devs[@]}" || return 1
		pg_clear ""
		emit "$metric-t$t" pps higher "$PG_PPS"
	done
}

# nsim_port ID: a one-port, one-queue netdevsim device ID, up, in NSIM_IF
nsim_port()
{
	local d=/sys/bus/netdevsim/devices/netdevsim$1/net

	echo "$1 1 1" > /sys/bus/netdevsim/new_device || return 1
	wait_for 50 test -d "$d" || return 1
	NSIM_IF=$(ls "$d") && ip link set "$NSIM_IF" up
}

# core_key_on METRIC: one limit anywhere turns netdev_dispatch_key on, and
# with it the scopes' accounting for every device of the machine. Measured
# with the key off, then on (a second netdevsim port, idle, holds a limit
# of 64): dummy0, a device without ndo_xmit_flush() (METRIC-tN), and a
# netdevsim port, whose queue implements it but stays at limit 0
# (METRIC-nsim-t1). Key on is the variant "patched-keyon".
core_key_on()
{
	local idle rc=0

	nsim_port 91 && tc qdisc replace dev "$NSIM_IF" root pfifo_fast || return 1
	core_qxmit "$NSIM_IF" "$1-nsim" 1 || rc=1
	idle=$NSIM_IF
	nsim_port 92 && echo 64 > "/sys/class/net/$NSIM_IF/queues/tx-0/dispatch_limit" || rc=1
	if [ $rc = 0 ]; then
		VARIANT=$VARIANT-keyon core_qxmit dummy0 "$1" 1 2 &&
			VARIANT=$VARIANT-keyon core_qxmit "$idle" "$1-nsim" 1 || rc=1
	fi
	echo 92 > /sys/bus/netdevsim/del_device
	echo 91 > /sys/bus/netdevsim/del_device
	return $rc
}

# The xdp case, on the forwarding NICs with the source's and the sink's
# (0, 3) on e1000e for every variant, so that what they cost is the same:
# pktgen sends UDP to XDP_PORT at the router's NIC 1, where a program
# drops the frames (xdp-drop), sends them back to the source with the MACs
# swapped (xdp-tx), or redirects them out of NIC 2 to the sink, which is
# promiscuous (xdp-redirect). e1000e runs the program generically
# (xdpgeneric), i82574 natively (xdpdrv). xdp-send is the source alone
# (NIC 1 down): its CPU time per frame sent is taken off the others'
# ("-rx" rows: the receiving side's cost per frame). pktgen sends bursts
# of XDP_BURST (64) frames with one doorbell: QEMU moves a burst into NIC
# 1's ring within that write, so a poll finds a full budget, as at line
# rate. The counting windows run unpaced, as the timed ones: XDP_TX's
# doorbells per frame are what a full poll gives.
xdp_attach()
{
	local mode=xdpgeneric

	[ "$DRIVER" = i82574 ] && mode=xdpdrv
	ip -n fwd-rtr link set dev "${FIF[1]}" $mode off 2>/dev/null
	ip -n fwd-rtr -force link set dev "${FIF[1]}" $mode obj "$XDP_OBJ" program "xdp_$1"
}

xdp_detach()
{
	ip -n fwd-rtr link set dev "${FIF[1]}" xdpgeneric off 2>/dev/null
	ip -n fwd-rtr link set dev "${FIF[1]}" xdpdrv off 2>/dev/null
	return 0
}

# xdp_window ACTION RXNS RXIF: one window of pktgen to XDP_PORT with
# program ACTION on NIC 1; RXNS/RXIF count what arrives
xdp_window()
{
	PG_UDP=$XDP_PORT pg_setup fwd-src "${FIF[0]}" 1 start_xmit 60 $XDP_BURST "$FWD_DST" \
		"$FWD_MAC" 10.1.0.1 || return 1
	pg_window fwd-src "$2" "$3" "${FIF[0]}@0" || return 1
	pg_clear fwd-src
}

# xdp_rx_cost: the receiving side's CPU time per received frame: the
# window's time less the source's (XDP_SEND_US per frame sent)
xdp_rx_cost()
{
	awk -v c="$CPU_US" -v s="$XDP_SEND_US" -v p="$PG_PPS" -v r="$RX_PPS" \
		'BEGIN { printf "%.2f", r ? c - s * p / r : 0 }'
}

case_xdp()
{
	if [ "$COUNTING" = 0 ]; then
		ip -n fwd-rtr link set dev "${FIF[1]}" down || return 1
		xdp_window send fwd-src none || return 1
		ip -n fwd-rtr link set dev "${FIF[1]}" up && links_up fwd-rtr "${FIF[1]}" ||
			return 1
		XDP_SEND_US=$CPU_US_PG
		emit xdp-send-sent pps higher "$PG_PPS"
		emit cpu:xdp-send us/pkt lower "$XDP_SEND_US"
	fi

	xdp_attach drop && xdp_window drop fwd-rtr "${FIF[1]}" || return 1
	emit xdp-drop-rcvd pps higher "$RX_PPS"
	emit cpu:xdp-drop us/pkt lower "$CPU_US"
	[ "$COUNTING" = 1 ] || emit cpu:xdp-drop-rx us/pkt lower "$(xdp_rx_cost)"

	xdp_attach tx && xdp_window tx fwd-src "${FIF[0]}" || return 1
	emit xdp-tx-rcvd pps higher "$RX_PPS"
	emit cpu:xdp-tx us/pkt lower "$CPU_US"
	[ "$COUNTING" = 1 ] || emit cpu:xdp-tx-rx us/pkt lower "$(xdp_rx_cost)"

	xdp_attach redirect && xdp_port_set || return 1
	xdp_window redirect fwd-sink "${FIF[3]}" || return 1
	emit xdp-redirect-rcvd pps higher "$RX_PPS"
	emit cpu:xdp-redirect us/pkt lower "$CPU_US"
	[ "$COUNTING" = 1 ] || emit cpu:xdp-redirect-rx us/pkt lower "$(xdp_rx_cost)"
	xdp_detach
}

# xdp_port_set: NIC 2 as the redirect target, in the devmap (xdp_port,
# not pinned: libbpf 1.1 cannot reuse a pinned devmap) of NIC 1's program
xdp_port_set()
{
	local l id i re='prog/xdp id ([0-9]+)' mre='map_ids ([0-9,]+)'

	[[ $(ip -n fwd-rtr -d link show dev "${FIF[1]}") =~ $re ]] || return 1
	[[ $(bpftool prog show id "${BASH_REMATCH[1]}") =~ $mre ]] || return 1
	i=$(ip -n fwd-rtr -o link show dev "${FIF[2]}" | cut -d: -f1)
	for id in ${BASH_REMATCH[1]//,/ }; do
		l=$(bpftool map show id "$id") || return 1
		[[ $l == *devmap*xdp_port* ]] || continue
		# in the router's namespace: the kernel looks the ifindex up in
		# the caller's
		ns_do fwd-rtr bpftool map update id "$id" key 0 0 0 0 value \
			$((i & 255)) $((i >> 8 & 255)) $((i >> 16 & 255)) $((i >> 24))
		return
	done
	return 1
}

# variants CASE DRIVER: what to measure on DRIVER's binding: the case's
# usual variants or, with BENCH_VARIANTS, those of them it names and then
# the coalescing variants it names (i82574-cN, i82574-dim: every case)
variants()
{
	local all v want out=""

	if [ "$2" = e1000e ]; then
		[ "$1" = tcp ] && all="e1000e e1000e-notso" || all=e1000e
	else
		case $1 in
		tcp) all="i82574 i82574-notso" ;;
		qxmit) all="i82574 i82574-dl64" ;;
		fwd) all="i82574 i82574-dl8 i82574-dl64" ;;
		xdp) all=i82574 ;;
		latency) all="i82574 i82574-nobql" ;;
		*) all=i82574 ;;
		esac
	fi
	[ -n "${BENCH_VARIANTS:-}" ] || { echo $all; return; }
	want=" ${BENCH_VARIANTS//,/ } "
	for v in $all; do
		[[ $want == *" $v "* ]] && out+=" $v"
	done
	if [ "$2" != e1000e ]; then
		for v in $want; do
			[[ $v =~ ^i82574-(c[0-9]+|dim|q1)$ ]] && out+=" $v"
		done
	fi
	echo $out
}

cleanup()
{
	pg_clear ""
	pkill -x iperf3
	ns_del_all
	[ -n "${OLD_QDISC:-}" ] && sysctl -qw net.core.default_qdisc="$OLD_QDISC"
}

[ -e $PG/pgctrl ] || fail "no pktgen in this kernel"
trap cleanup EXIT

if [ "$1" = core ]; then
	CASE=core VARIANT=$2 ROUND=$3 ROUNDS=${ROUNDS:-$3}
	progress "core round $ROUND/$ROUNDS on the $VARIANT kernel ($(uname -r))"
	case_core || fail "core on $VARIANT"
	exit 0
fi

ROUNDS=$1
shift
for CASE in "$@"; do
	case " $ALL_CASES " in
	*" $CASE "*) ;;
	*) fail "unknown case $CASE (NIC cases: $ALL_CASES)" ;;
	esac
done
for d in e1000e i82574; do
	[ -d "/sys/bus/pci/drivers/$d" ] || fail "driver $d is not in this kernel"
done
OLD_QDISC=$(sysctl -n net.core.default_qdisc)
pair_cases=() fwd=0 xdp=0
for CASE in "$@"; do
	case $CASE in
	fwd) fwd=1 ;;
	xdp) xdp=1 ;;
	*) pair_cases+=("$CASE") ;;
	esac
done
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for drv in e1000e i82574; do
		if [ ${#pair_cases[@]} -gt 0 ]; then
			progress "round $ROUND/$ROUNDS: $drv on NICs 0+1"
			pair_up $drv || fail "wire setup on $drv"
			count_idle idle-pair || fail "idle count on $drv"
			for CASE in "${pair_cases[@]}"; do
				for VARIANT in $(variants "$CASE" $drv); do
					knobs "" "$IF_A" $VARIANT && tso_knob $VARIANT &&
						coal_knob $VARIANT "" "$IF_A" "$PEER_NS" "$IF_B" &&
						chan_knob $VARIANT "" "$IF_A" "$PEER_NS" "$IF_B" ||
						fail "knobs of $VARIANT"
					"case_$CASE" || fail "$CASE on $VARIANT"
					[ "$VARIANT" = i82574-nobql ] ||
						count_case || fail "counting $CASE on $VARIANT"
					eitr_note "" "$IF_A" "$PEER_NS" "$IF_B"
				done
				knobs "" "$IF_A" $drv && tso_knob $drv &&
					coal_knob $drv "" "$IF_A" "$PEER_NS" "$IF_B" &&
					chan_knob $drv "" "$IF_A" "$PEER_NS" "$IF_B" ||
					fail "knobs of $drv"
			done
			pair_down
		fi
		if [ $fwd = 1 ]; then
			CASE=fwd
			progress "round $ROUND/$ROUNDS: $drv on NICs 0-3, forwarding"
			fwd_up $drv || fail "forwarding setup on $drv"
			count_idle idle-fwd || fail "idle count on $drv"
			for VARIANT in $(variants fwd $drv); do
				knobs fwd-rtr "${FIF[2]}" $VARIANT &&
					coal_knob $VARIANT fwd-src "${FIF[0]}" fwd-rtr "${FIF[1]}" \
						  fwd-rtr "${FIF[2]}" fwd-sink "${FIF[3]}" &&
					chan_knob $VARIANT fwd-src "${FIF[0]}" fwd-rtr "${FIF[1]}" \
						  fwd-rtr "${FIF[2]}" fwd-sink "${FIF[3]}" ||
					fail "knobs of $VARIANT"
				case_fwd || fail "fwd on $VARIANT"
				count_case || fail "counting fwd on $VARIANT"
				eitr_note fwd-src "${FIF[0]}" fwd-rtr "${FIF[1]}" \
					  fwd-rtr "${FIF[2]}" fwd-sink "${FIF[3]}"
			done
			pg_clear fwd-src
			fwd_down
		fi
		if [ $xdp = 1 ]; then
			CASE=xdp
			progress "round $ROUND/$ROUNDS: $drv on NICs 1-2 (e1000e on 0, 3), XDP"
			fwd_up $drv e1000e || fail "XDP setup on $drv"
			ip -n fwd-sink link set dev "${FIF[3]}" promisc on || fail "sink promisc"
			count_idle idle-xdp || fail "idle count on $drv"
			for VARIANT in $(variants xdp $drv); do
				case_xdp || fail "xdp on $VARIANT"
				count_case || fail "counting xdp on $VARIANT"
			done
			xdp_detach
			fwd_down
		fi
	done
done
progress "done"
