#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: boot-verdict.sh [--ktap PROGRAM] MANIFEST BOOT DIR
#
# A make check boot's results, failing closed: runs harness/ktap.py on DIR
# (vm.py's --results: ktap/*.tap and dmesg.txt) against MANIFEST's lines
# for BOOT, its cases to DIR/cases.txt, its errors to DIR/ktap.err, and
# prints one line: "N cases, as the manifest lists" or what is wrong. Exits 1
# (the boot fails) when ktap.py exited non-zero, printed no summary, or
# counted other than the manifest's total for the boot (summed here, not
# by ktap.py), or a case failed. --ktap PROGRAM replaces ktap.py (the
# harness self-test, harness/selftest.sh, feeds it broken ones); nothing in
# the environment does, so make check's judge is always the tree's.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KTAP=$TOP/harness/ktap.py
if [ "${1:-}" = --ktap ]; then
	KTAP=$2
	shift 2
fi
[ $# -eq 3 ] || { echo "usage: $0 [--ktap PROGRAM] MANIFEST BOOT DIR" >&2; exit 2; }
manifest=$1 boot=$2 dir=$3
[ -d "$dir" ] || { echo "no results folder $dir"; exit 1; }
SUMMARY='^\{"pass": ([0-9]+), "fail": ([0-9]+), "skip": ([0-9]+)\}$'

# manifest_total: the sum of BOOT's CASES column, or nothing if a line
# of BOOT's has no number there
manifest_total()
{
	awk -v boot="$boot" '
		/^[ \t]*(#|$)/ { next }
		$1 == boot { if ($3 !~ /^[0-9]+$/) { bad = 1; exit } total += $3; n++ }
		END { if (!bad && n) print total }' "$manifest"
}

"$KTAP" --manifest "$manifest" --boot "$boot" --console "$dir/dmesg.txt" "$dir" \
	> "$dir/cases.txt" 2> "$dir/ktap.err"
rc=$?
err=$(tail -n 1 "$dir/ktap.err")
total=$(manifest_total)
last=$(tail -n 1 "$dir/cases.txt")
why=()
if [[ $last =~ $SUMMARY ]]; then
	pass=${BASH_REMATCH[1]} fail=${BASH_REMATCH[2]} skip=${BASH_REMATCH[3]}
	lines=$(grep -cE '^(pass|fail|skip) ' "$dir/cases.txt")
	[ "$fail" -eq 0 ] ||
		why+=("$fail failed: $(grep '^fail ' "$dir/cases.txt" | head -n 3 | cut -c 6- |
			awk '{ printf "%s%s", sep, $0; sep = "; " }')")
	[ "$((pass + fail + skip))" -eq "$lines" ] ||
		why+=("summary says $((pass + fail + skip)) cases, ktap.py listed $lines")
	[ "$fail" -gt 0 ] || [ "$((pass + skip))" = "${total:-none}" ] ||
		why+=("counted $((pass + skip)) cases, the manifest lists ${total:-no total} for $boot")
else
	why+=("ktap.py printed no summary")
fi
# (ktap.py exits 1 when a case failed: that is said above)
if [ $rc -ne 0 ] && [ "${fail:-0}" -eq 0 ]; then
	why+=("ktap.py exited $rc${err:+: $err}")
fi
if [ ${#why[@]} -gt 0 ]; then
	out=${why[0]}
	for w in "${why[@]:1}"; do out+="; $w"; done
	echo "$out"
	exit 1
fi
echo "$((pass + skip)) cases, as the manifest lists ($skip skipped)"
