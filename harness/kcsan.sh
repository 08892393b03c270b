#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kcsan: the dispatch_limit tests on a KCSAN kernel (perf + the data
# race detector, harness/configs/kcsan.config): the netdevsim oracle whole,
# then i82574's traffic and forwarding cases with the deferral on. Any
# KCSAN report fails the boot (vm.py counts "BUG: KCSAN" as a splat).
# Not part of make check: a third kernel that shares no object with the
# other two (every file is instrumented), about 25 minutes to build cold.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TOP/results/kcsan
SEL=tools/testing/selftests/drivers/net/i82574
"$TOP/harness/kbuild.sh" kcsan || exit 1
"$TOP/harness/vm.py" --kernel kcsan --nics 4 --timeout 2400 --results "$OUT" -- \
	harness/guest/run-tests.sh \
	"PYTHONUNBUFFERED=1,TEST_TIMEOUT=900:tools/testing/selftests/drivers/net/dispatch_limit.py" \
	"LIMITS=64,PKTGEN_COUNT=1000,TEST_TIMEOUT=1200:$SEL/dispatch_limit_traffic.sh" \
	"LIMITS=64,FWD_COUNT=5000:$SEL/dispatch_limit_forward.sh"
rc=$?
"$TOP/harness/ktap.py" --console "$OUT/dmesg.txt" "$OUT" | grep -v '^{' | tee "$OUT/cases.txt"
grep -a -A4 'BUG: KCSAN' "$OUT/console.log" | head -n 60
[ $rc -eq 0 ] && ! grep -q '^fail' "$OUT/cases.txt" && grep -q '^pass' "$OUT/cases.txt"
