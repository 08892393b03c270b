#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make ppfail: the upstream drivers/net/hw/pp_alloc_fail.py against i82574
# on the ppfail kernel (perf + fail_function) with ethtool 6.14.2. Not part
# of make check: it needs a third kernel, and its traffic check (15,000
# received packets a second) only holds on a quiet host under TCG.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TOP/results/ppfail
"$TOP/harness/kbuild.sh" ppfail || exit 1
"$TOP/harness/ethtool.sh" || exit 1
"$TOP/harness/vm.py" --kernel ppfail --timeout 900 --results "$OUT" -- \
	harness/guest/with-tools.sh ethtool -- harness/guest/run-tests.sh \
	PROGS=hw/pp_alloc_fail.py:tools/testing/selftests/drivers/net/i82574/upstream_py.sh
rc=$?
"$TOP/harness/ktap.py" --console "$OUT/dmesg.txt" "$OUT" > "$OUT/ktap.txt"
# (exits 1 on a failed case, and on an error, which leaves no case)
ktap_rc=$?
grep -v '^{' "$OUT/ktap.txt" | tee "$OUT/cases.txt"
[ $rc -eq 0 ] && [ $ktap_rc -eq 0 ] && ! grep -q '^fail' "$OUT/cases.txt" &&
	grep -q '^pass' "$OUT/cases.txt"
