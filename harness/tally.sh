#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tally.sh RESULTS MANIFEST STEP...
#
# make check's closing count, failing closed. RESULTS is check.sh's results
# folder: .notes holds one "pass|fail WHAT" line per result, .lanes one
# "LANE STATUS" line per lane of boots run in the background. STEP... are
# the steps this run was asked for. Every boot MANIFEST names whose step was
# asked for must have left its verdict ("[BOOT] results: ...") in .notes,
# and every lane must have exited 0; a missing verdict or a lane's other
# status is one failure more, added to .notes. Lists the failures, then
# prints "N passed, N failed" and exits 1 if any failed.
set -u
[ $# -ge 2 ] || { echo "usage: $0 RESULTS MANIFEST STEP..." >&2; exit 2; }
res=$1 manifest=$2
shift 2
notes=$res/.notes
steps=" $* "

# boot_step BOOT: the check.sh step that runs BOOT
boot_step()
{
	case $1 in
	perf) echo vm-perf ;;
	perf-nomsi) echo vm-nomsi ;;
	debug-*) echo vm-debug ;;
	*) echo "unknown" ;;
	esac
}

[ -r "$notes" ] || { echo "no results in $res"; exit 1; }
boots=$(awk '/^[ \t]*(#|$)/ { next } { print $1 }' "$manifest" | sort -u)
[ -n "$boots" ] || echo "fail the manifest $manifest names no boot" >> "$notes"
for b in $boots; do
	s=$(boot_step "$b")
	if [ "$s" = unknown ]; then
		echo "fail [$b] the manifest names a boot no step runs" >> "$notes"
		continue
	fi
	[[ $steps == *" $s "* ]] || continue
	grep -qE "^(pass|fail) +\[$b\] results: " "$notes" ||
		echo "fail [$b] no verdict: the boot did not run to its end" >> "$notes"
done
if [ -f "$res/.lanes" ]; then
	while read -r lane rc; do
		[ "$rc" = 0 ] || echo "fail lane $lane exited $rc: its boots may be cut short" >> "$notes"
	done < "$res/.lanes"
fi

grep -qE '^(pass|fail)' "$notes" || echo "fail nothing ran" >> "$notes"
passed=$(grep -c '^pass' "$notes")
failed=$(grep -c '^fail' "$notes")
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	grep '^fail' "$notes" | sed 's/^fail */  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
