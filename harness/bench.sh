#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [CASE=name]: build the perf kernel, boot it once, run every case
# (or one) A/B interleaved across e1000e and i82574 on the same emulated
# NICs, print the table; results/bench/ keeps the raw JSON lines, the table
# and results.json.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CASES=(tcp udp64 pktgen-b1 pktgen-b16)
ROUNDS=${ROUNDS:-3}
[ $# -gt 0 ] && [ -n "$1" ] && CASES=("$@")
OUT=$TOP/results/bench

"$TOP/harness/deps.sh"
"$TOP/harness/tree.sh"
"$TOP/harness/kbuild.sh" perf
log "benchmarks: ${CASES[*]}, $ROUNDS rounds, e1000e vs i82574 interleaved"
"$TOP/harness/vm.py" --kernel perf --timeout 1800 --results "$OUT" \
	-- bench/guest/run.sh "$ROUNDS" "'e1000e i82574'" "${CASES[@]}" |
	grep --line-buffered -E '# bench:|I82574-HARNESS|vm:' || true
[ -s "$OUT/bench.jsonl" ] || die "no benchmark results (see $OUT/console.log)"
python3 -c "import json,sys; v=json.load(open('$OUT/vm.json')); sys.exit(1 if v['problems'] else 0)" ||
	die "the benchmark VM run failed: $(cat "$OUT/vm.json")"
echo
echo "Benchmarks, $(date -u +%F), perf kernel under QEMU/TCG, medians of $ROUNDS rounds:"
"$TOP/bench/report.py" "$OUT/bench.jsonl" "$OUT"
