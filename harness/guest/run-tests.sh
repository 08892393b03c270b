#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: run kselftest programs, each as [VAR=value,...:]path, path
# relative to the applied kernel tree (or absolute) ($BUILD/linux, so the tests run with
# the kselftest helpers they were built against), under its directory's
# settings timeout (TEST_TIMEOUT=seconds, in the environment or among a
# spec's VARs, overrides it).
# KTAP output goes to the console and to /run/results/ktap/<name>.tap, the
# exit code to /run/results/ktap/<name>.rc, and what each case took to
# <name>.cases: "CASE SECONDS PROCESSES" (to a second; processes started
# in the guest meanwhile, each of which costs 0.4-0.7 s on the debug kernel).
# Exits 1 when a program exited other than 0 or 4 (KSFT_SKIP), timed out,
# or its results could not be written; 0 otherwise. harness/ktap.py reads
# the cases. A program's files are written in the guest's RAM and copied
# to RESULTS (default /run/results) when it ends: a test that suspends the
# system unmounts that share meanwhile (9p cannot freeze).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TREE=${BUILD:-$TOP/build}/linux
export RESULTS=${RESULTS:-/run/results}
mkdir -p "$RESULTS/ktap" || exit 1
LIVE=$(mktemp -d) || exit 1
failed=()

# processes: how many the guest has started since boot, in $PROCS
processes()
{
	local k v

	while read -r k v; do
		[ "$k" = processes ] && break
	done < /proc/stat
	PROCS=$v
}

# case_times TAP RC: once a second until RC exists, note each KTAP result
# line new in TAP with the seconds and processes since the one before (no
# process of its own: a FIFO held open at both ends times the wait)
case_times()
{
	local fifo=/tmp/case-times.$$ seen=0 n t=$SECONDS p l last=0

	mkfifo "$fifo" && exec 3<> "$fifo" && rm -f "$fifo" || return
	processes
	p=$PROCS
	while [ $last = 0 ]; do
		read -r -t 1 -u 3
		[ -e "$2" ] && last=1
		n=0
		while read -r l; do
			[[ $l == "ok "* || $l == "not ok "* ]] || continue
			n=$((n + 1))
			[ $n -gt $seen ] || continue
			processes
			echo "$n $((SECONDS - t)) $((PROCS - p))"
			t=$SECONDS p=$PROCS seen=$n
		done < "$1"
	done
}

for spec in "$@"; do
	vars=(); path=$spec
	if [[ $spec == *:* ]]; then
		IFS=, read -r -a vars <<< "${spec%%:*}"
		path=${spec#*:}
	fi
	name=$(basename "$path")${vars[*]:+[${vars[*]}]}; name=${name// /,}; name=${name//\//_}
	case $path in
	/*) dir=$(dirname "$path") ;;
	*) dir=$TREE/$(dirname "$path") ;;
	esac
	limit=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$dir/settings" 2>/dev/null)}
	for v in "${vars[@]}"; do
		[[ $v == TEST_TIMEOUT=* ]] && limit=${v#TEST_TIMEOUT=}
	done
	echo "# I82574-HARNESS: running $spec"
	processes
	p0=$PROCS
	out=$LIVE/$name
	: > "$out.tap"
	rm -f "$out.rc" "$RESULTS/ktap/$name.rc"
	case_times "$out.tap" "$out.rc" > "$out.cases" &
	timer=$!
	(cd "$dir" && env "${vars[@]}" timeout -k 10 "${limit:-300}" "./$(basename "$path")") \
		> "$out.tap" 2>&1
	rc=$?
	# (case_times waits for the .rc file)
	echo $rc > "$out.rc" || { rc=1; kill $timer; }
	wait $timer
	cp "$out.tap" "$out.cases" "$out.rc" "$RESULTS/ktap/" || rc=1
	case $rc in 0|4) ;; *) failed+=("$spec") ;; esac
	processes
	sed 's/^/  /' "$out.tap"
	echo "# I82574-HARNESS: $spec exit $rc, $((PROCS - p0)) processes"
done
[ ${#failed[@]} -eq 0 ] && exit 0
echo "# I82574-HARNESS: ${#failed[@]} of $# programs failed: ${failed[*]}"
exit 1
