#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make hostprof: where the host's CPU goes while the guest moves traffic.
# Boots the perf kernel with bench/guest/hostprof.sh as its job; on each
# "HOSTPROF go NAME" from the guest it records 5 s of the QEMU process with
# perf (by thread and by DSO: [JIT] is translated guest code, the QEMU
# binary is device models, TCG helpers and the translator, the kernel is
# the host's) and reads the QEMU threads' CPU time and context switches
# from /proc. Debian ships QEMU stripped and its debug symbols are not in
# the archive this machine reaches, so DSOs are as fine as it gets.
# Needs a quiet host: the CPU shares are of the whole machine.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TOP/results/hostprof
command -v perf > /dev/null || die "no perf (apt-get install linux-perf)"
"$TOP/harness/kbuild.sh" perf || exit 1
rm -rf "$OUT"
mkdir -p "$OUT"
"$TOP/harness/vm.py" --kernel perf --quiet --timeout 1200 --results "$OUT/vm" \
	-- bench/guest/hostprof.sh > "$OUT/vm.log" 2>&1 &
vm=$!
con=$OUT/vm/console.log
until [ -s "$con" ] || ! kill -0 $vm 2>/dev/null; do sleep 0.2; done
qemu=$(pgrep -f "qemu-system-x86_64 .*$OUT/vm" | head -1)
[ -n "$qemu" ] || die "no QEMU process (see $OUT/vm.log)"

# per thread: name, CPU ticks (utime + stime), context switches
threads()
{
	local t

	for t in /proc/"$qemu"/task/*; do
		printf '%s %s %s\n' "$(tr ' ' _ < "$t/comm")" \
			"$(sed 's/.*) //' "$t/stat" | awk '{ print $12 + $13 }')" \
			"$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status")"
	done | awk '{ c[$1] += $2; s[$1] += $3 } END { for (k in c) print k, c[k], s[k] }' | sort
}

seen=0
while kill -0 $vm 2>/dev/null; do
	mapfile -t gos < <(grep -a -o 'HOSTPROF go [^ ]*' "$con" | tr -d '\r')
	while [ $seen -lt ${#gos[@]} ]; do
		name=${gos[$seen]#HOSTPROF go }
		seen=$((seen + 1))
		threads > "$OUT/$name.t0"
		perf record -q -F 997 -p "$qemu" -o "$OUT/$name.data" -- sleep 5 2> /dev/null
		threads > "$OUT/$name.t1"
	done
	sleep 0.1
done
wait $vm || { tail -n 20 "$OUT/vm.log"; die "the guest job failed"; }

{
	echo "# make hostprof, $(date -u '+%Y-%m-%d %H:%M UTC')"
	grep -a 'HOSTPROF \(res\|error\)' "$con" | tr -d '\r' | sed 's/^.*HOSTPROF /  /'
	for t0 in "$OUT"/*.t0; do
		name=$(basename "$t0" .t0)
		echo "== $name: QEMU threads, host cores busy and context switches/s"
		join <(sort "$t0") <(sort "$OUT/$name.t1") |
			awk '{ printf "  %-16s cores %.2f  switches/s %d\n", $1, ($4 - $2) / 100 / 5, ($5 - $3) / 5 }'
		echo "   samples by thread and DSO:"
		perf report -i "$OUT/$name.data" --stdio --no-children --sort comm,dso 2> /dev/null |
			grep '%' | grep -v '^#' | head -12 | sed 's/^ */  /'
	done
} | tee "$OUT/report.txt"
