#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [CASE="name..."] [ROUNDS=n]: build what the cases need, boot,
# measure, report. Every comparison is interleaved: the NIC cases run in one
# boot of the perf kernel, each round measuring every variant in turn
# (e1000e, i82574, i82574 with a knob) on the same emulated NICs; the core
# case boots the stock and the patched kernel in turn (stock, patched,
# stock, patched, ...). results/bench/ keeps the JSON lines, table.md (also
# printed), results.json and the plots.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ALL=(tcp udp64 pktgen qxmit fwd xdp latency core)
ROUNDS=${ROUNDS:-3}
read -r -a CASES <<< "${*//,/ }"
[ ${#CASES[@]} -gt 0 ] || CASES=("${ALL[@]}")
OUT=$TOP/results/bench

nic_cases=()
tcp=0
core=0
for c in "${CASES[@]}"; do
	case " ${ALL[*]} " in
	*" $c "*) ;;
	*) die "unknown case '$c' (cases: ${ALL[*]})" ;;
	esac
	case $c in
	core) core=1 ;;
	tcp) tcp=1 ;;
	*) nic_cases+=("$c") ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number, not '$ROUNDS'"
# the wire the NICs are on (vm.py --wire): hub, or tap, where QEMU passes
# TSO on as a vnet header and the host segments it. The tcp case boots on
# TCP_WIRE: the hub too since QEMU 10.0, which passes TCP segments (7.2's
# hub sent e1000e's TSO as IPv4 fragments).
WIRE=${WIRE:-hub}
TCP_WIRE=${TCP_WIRE:-hub}
[[ $WIRE =~ ^(hub|tap)$ ]] || die "WIRE must be hub or tap, not '$WIRE'"
[[ $TCP_WIRE =~ ^(hub|tap)$ ]] || die "TCP_WIRE must be hub or tap, not '$TCP_WIRE'"
# the duration knobs, passed on to the guest
knobs=()
for k in BENCH_T BENCH_W BENCH_PINGS BENCH_CW BENCH_RR_T BENCH_RR_MPS BENCH_PPS BENCH_MBPS; do
	[ -n "${!k:-}" ] || continue
	[[ ${!k} =~ ^[1-9][0-9]*$ ]] || die "$k must be a positive number, not '${!k}'"
	knobs+=("$k=${!k}")
done
if [ -n "${BENCH_PING_I:-}" ]; then
	[[ $BENCH_PING_I =~ ^[0-9]*\.?[0-9]+$ ]] ||
		die "BENCH_PING_I must be seconds, not '$BENCH_PING_I'"
	knobs+=("BENCH_PING_I=$BENCH_PING_I")
fi
# the variants to measure (bench/guest/run.sh), commas on the guest's
# command line
if [ -n "${BENCH_VARIANTS:-}" ]; then
	[[ $BENCH_VARIANTS =~ ^[a-z0-9][a-z0-9,\ -]*$ ]] ||
		die "BENCH_VARIANTS must be variant names, not '$BENCH_VARIANTS'"
	v=${BENCH_VARIANTS// /,}
	knobs+=("BENCH_VARIANTS=$v")
fi
case ${BENCH_INSTR:-1} in
0 | 1) ;;
*) die "BENCH_INSTR must be 0 or 1, not '$BENCH_INSTR'" ;;
esac
case ${BENCH_COUNT:-1} in
0 | 1) knobs+=("BENCH_COUNT=${BENCH_COUNT:-1}") ;;
*) die "BENCH_COUNT must be 0 or 1, not '$BENCH_COUNT'" ;;
esac

"$TOP/harness/deps.sh"
"$TOP/harness/tree.sh"
"$TOP/harness/kbuild.sh" perf
[ $core = 0 ] || "$TOP/harness/kbuild.sh" stock

# the last run's results, to show what moved (bench/compare.py)
PREV=$TOP/results/bench-prev.json
[ -f "$OUT/results.json" ] && cp "$OUT/results.json" "$PREV"
rm -rf "$OUT"
mkdir -p "$OUT"
t0=$(date +%s)
log "benchmarks: ${CASES[*]}, $ROUNDS rounds"

# vm_run NAME KERNEL TIMEOUT JOB...: one boot on $WIRE (or $BOOT_WIRE),
# progress lines shown, fails on anything vm.py calls a problem. Every
# vCPU on one host thread: with CONFIG_JUMP_LABEL, QEMU 7.2's multi-threaded
# TCG can run a stale INT3 that text_poke_bp() left while another vCPU
# thread patched a static branch ("Oops: int3"; fixed in QEMU 8.1), and the
# dispatch_limit variants flip static keys under load.
vm_run()
{
	local name=$1 kernel=$2 timeout=$3

	shift 3
	"$TOP/harness/vm.py" --kernel "$kernel" --timeout "$timeout" --results "$OUT/$name" \
		--one-thread ${VM_ICOUNT:+--icount} ${VM_SMP:+--smp "$VM_SMP"} --wire "${BOOT_WIRE:-$WIRE}" \
		-- "$@" | grep --line-buffered -E '# bench:|vm:' | sed -u "s/^/${LANE:-}/" || true
	python3 -c "import json,sys; sys.exit(1 if json.load(open(sys.argv[1]))['problems'] else 0)" \
		"$OUT/$name/vm.json" ||
		die "benchmark boot $name failed: $(cat "$OUT/$name/vm.json")"
}

# The boots run in two lanes, one host core each (every boot is on one
# host thread). Lane A times and traces the NIC cases. Lane B runs the
# instruction-counted boots, whose guest time is the instructions the guest
# ran: what the other core does cannot change what they report. Each boot's
# network is in a namespace of its own, so two tap-wire boots can overlap.
timed_lane()
{
	if [ $tcp = 1 ]; then
		BOOT_WIRE=$TCP_WIRE vm_run nics-tcp perf $((600 + ROUNDS * 300)) \
			env "${knobs[@]}" bench/guest/run.sh "$ROUNDS" tcp
	fi
	if [ ${#nic_cases[@]} -gt 0 ]; then
		vm_run nics perf $((600 + ROUNDS * 1200)) \
			env "${knobs[@]}" bench/guest/run.sh "$ROUNDS" "${nic_cases[@]}"
	fi
}

# Guest instructions per packet: the NIC cases again in an
# instruction-counted boot (vm.py --icount) with one vCPU, whose busy time
# is then the instructions it ran (1 ns each) whatever the host does; no
# counting windows, and no rates (they are in guest time). The latency
# case has no per-packet path length to count (its pings leave the CPU
# idle between them) and stays out. Guest time runs several times slower
# than the host's clock there, so its windows are 1 s (of guest time):
# 100 ticks of CPU time each, enough for 1%.
# The core case is instruction-counted too: the path length per packet to
# better than 0.1% (its wall-clock rate moved +-30% between windows of one
# boot and is no longer measured).
counted_lane()
{
	local c r k ic_cases=()

	for c in "${nic_cases[@]}"; do
		[ "$c" = latency ] || ic_cases+=("$c")
	done
	if [ "${BENCH_INSTR:-1}" = 1 ] && [ ${#ic_cases[@]} -gt 0 ]; then
		VM_ICOUNT=1 VM_SMP=1 vm_run nics-ic perf $((600 + ROUNDS * 1200)) \
			env "${knobs[@]}" BENCH_COUNT=0 BENCH_ICOUNT=1 BENCH_T=1 BENCH_W=1 \
			bench/guest/run.sh "$ROUNDS" "${ic_cases[@]}"
	fi
	if [ "${BENCH_INSTR:-1}" = 1 ] && [ $tcp = 1 ]; then
		VM_ICOUNT=1 VM_SMP=1 BOOT_WIRE=$TCP_WIRE vm_run nics-tcp-ic perf $((600 + ROUNDS * 300)) \
			env "${knobs[@]}" BENCH_COUNT=0 BENCH_ICOUNT=1 BENCH_T=1 BENCH_W=1 \
			bench/guest/run.sh "$ROUNDS" tcp
	fi
	[ $core = 1 ] || return 0
	for r in $(seq 1 "$ROUNDS"); do
		for k in stock patched; do
			log "${LANE:-}core round $r/$ROUNDS: booting the $k kernel, instruction-counted"
			VM_ICOUNT=1 vm_run "coreic-$k-$r" \
				"$([ $k = stock ] && echo stock || echo perf)" 300 \
				env ROUNDS="$ROUNDS" BENCH_ICOUNT=1 BENCH_W=1 \
				"${knobs[@]}" bench/guest/run.sh core "$k" "$r"
		done
	done
}

# kill_tree PID: a lane and everything it started (vm.py's QEMU dies with it)
kill_tree()
{
	local c

	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null || true
}

LANE="[ic] " counted_lane &
counted_pid=$!
trap 'kill_tree $counted_pid' EXIT
timed_lane
wait "$counted_pid" || die "the instruction-counted lane failed (see above)"
trap - EXIT
# the counting windows' trace, counted here: operations per packet
for b in nics nics-tcp; do
	[ -s "$OUT/$b/bench.jsonl" ] && [ -f "$OUT/$b/qemu-trace.log" ] || continue
	log "counting the trace of $b ($(du -sh "$OUT/$b/qemu-trace.log" | cut -f1))"
	"$TOP/bench/count.py" "$OUT/$b" > "$OUT/$b/counts.jsonl" ||
		die "counting the trace of $OUT/$b failed"
	# counted: a big log is not worth keeping
	[ "$(stat -c %s "$OUT/$b/qemu-trace.log")" -lt 100000000 ] ||
		rm -f "$OUT/$b/qemu-trace.log"
done
# the counts, then the NIC cases, then the core boots in the order they ran
cat "$OUT"/nics-tcp/counts.jsonl "$OUT"/nics/counts.jsonl "$OUT"/nics-tcp/bench.jsonl "$OUT"/nics/bench.jsonl \
	"$OUT"/nics-tcp-ic/bench.jsonl "$OUT"/nics-ic/bench.jsonl $(ls -d "$OUT"/core*-*-* 2>/dev/null | sort -t- -k3n -k1 -k2r |
	sed 's|$|/bench.jsonl|') > "$OUT/bench.jsonl" 2>/dev/null || true
[ -s "$OUT/bench.jsonl" ] || die "no benchmark results (see $OUT/*/console.log)"
secs=$(($(date +%s) - t0))
log "measured in $((secs / 60)) min $((secs % 60)) s"

echo
echo "Benchmarks, $(date -u +%F), perf kernel under QEMU/TCG, medians of $ROUNDS rounds" \
	"(measured in $((secs / 60)) min $((secs % 60)) s):"
echo
"$TOP/bench/report.py" "$OUT/bench.jsonl" "$OUT"
if [ -f "$PREV" ]; then
	"$TOP/bench/compare.py" "$PREV" "$OUT/results.json" > "$OUT/compare.md"
	echo
	echo "Against the previous run (every figure: $OUT/compare.md):"
	echo
	sed -n '1,/^$/p' "$OUT/compare.md"
fi
