#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's harness self-test (step harness-selftest): the harness must
# fail closed. Feeds harness/guest/run-tests.sh and harness/boot-verdict.sh
# (ktap.py and the checks around it, as check.sh's boots use them)
# deliberately broken results and manifests, and requires each to fail
# the boot: a crashing ktap.py (a manifest line with an unbalanced quote,
# a corrupt .rc file), a ktap.py without a summary, a total other than the manifest's, a
# renamed case, an XFAIL the manifest does not allow, a failed case, a
# "not ok" SKIP, more cases than planned, a ktap.py swapped in from the
# environment, and run-tests.sh's status after a failing program. Runs
# vm.py on a fake QEMU (a script that prints what a guest's console would
# and exits) and requires each of these boots to fail: a power-off that
# fell back to a reset, a timeout after the job's end, a kmemleak report,
# an unregister_netdevice wait; and a boot stopped before it started must
# leave no earlier results to grade. Runs make check's closing count
# (tally.sh) on results where a boot's verdict is missing or a lane died,
# and vm.py's S3 watch on a guest that asked to be woken, one that did
# not, and requests that lapsed or were dropped.
# Good results must pass, so the self-test can fail too. Host only, about
# 10 seconds; KTAP output, exits 1 on any failure.
#
# Usage: selftest.sh [--old DIR]
# --old DIR runs every case against another checkout's harness folder (to
# show what an older harness does with the same inputs); make check never
# passes it, and nothing in the environment changes which scripts judge.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
H=$TOP/harness
if [ "${1:-}" = --old ]; then
	H=$(cd "$2" && pwd) || exit 1
fi
VERDICT=$H/boot-verdict.sh
RUN_TESTS=$H/guest/run-tests.sh
T=$(mktemp -d /tmp/harness-selftest.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
n=0 failed=0

result()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

# results NAME PROGRAM-TAP-LINES...: a results folder NAME holding one
# program's KTAP output (good.sh, exit 0), as run-tests.sh leaves it
results()
{
	local d=$T/r-$1
	shift
	mkdir -p "$d/ktap"
	printf '%s\n' "TAP version 13" "$@" > "$d/ktap/good.sh.tap"
	echo 0 > "$d/ktap/good.sh.rc"
}

# manifest NAME LINE...: a manifest NAME for boot t
manifest()
{
	local f=$T/m-$1
	shift
	printf '%s\n' "# self-test" "$@" > "$f"
}

# verdict WANT WHAT MANIFEST RESULTS [REASON]: the verdict on RESULTS
# against MANIFEST must be WANT (pass or fail), a failure's message must
# match the extended regex REASON (so that it fails for that reason)
verdict()
{
	local want=$1 what=$2 why=${5:-} got=pass out

	out=$("$VERDICT" ${KTAP_PROG:+--ktap "$KTAP_PROG"} "$T/m-$3" t "$T/r-$4" 2>&1) || got=fail
	echo "# $what: $out"
	[ $got = "$want" ] && { [ -z "$why" ] || grep -qE "$why" <<< "$out"; }
	result $? "$what: the boot must $want"
}

# a fake ktap.py that prints cases the way ktap.py does
fake_ktap()
{
	printf '#!/bin/sh\n%s\n' "$2" > "$T/$1"
	chmod +x "$T/$1"
}

echo "TAP version 13"
echo "1..29"

GOOD="t good.sh 2 names=a261a6fa7a11164a 'second case'"
results good "1..2" "ok 1 first case" "ok 2 second case # SKIP no hook"
manifest good "$GOOD"
verdict pass "good results" good good

manifest crash "t 'good.sh 2 names=a261a6fa7a11164a" "$GOOD"
verdict fail "manifest line with an unbalanced quote (ktap.py exits 1)" crash good \
	'exited 1.*No closing quotation'

results badrc "1..2" "ok 1 first case" "ok 2 second case # SKIP no hook"
echo "exit 1" > "$T/r-badrc/ktap/good.sh.rc"
verdict fail "a corrupt .rc file (ktap.py raises)" good badrc 'exited 1.*ValueError'

fake_ktap nosummary 'echo "pass good.sh: first case"; echo "skip good.sh: second case"'
KTAP_PROG=$T/nosummary verdict fail "ktap.py without a summary" good good 'no summary'

fake_ktap short 'echo "pass good.sh: first case"; echo "{\"pass\": 1, \"fail\": 0, \"skip\": 0}"'
KTAP_PROG=$T/short verdict fail "ktap.py counted 1 case, the manifest's total is 2" good good \
	'counted 1 cases, the manifest lists 2'

manifest total "t good.sh 3 names=a261a6fa7a11164a 'second case'"
verdict fail "a program with 2 cases, the manifest wants 3" total good \
	'good.sh: 2 cases, the manifest wants 3'

results renamed "1..2" "ok 1 first kase" "ok 2 second case # SKIP no hook"
verdict fail "a renamed case, same count" good renamed 'other case names'

results xfail "1..3" "ok 1 first case" "ok 2 second case # SKIP no hook" "ok 3 fec # XFAIL no FEC"
manifest xfail "t good.sh 3 names=0a1993a8033f5cc8 'second case'"
verdict fail "an XFAIL the manifest does not allow" xfail xfail 'allows no such skip: fec'

manifest xfail-ok "t good.sh 3 names=0a1993a8033f5cc8 'second case' fec"
verdict pass "an XFAIL the manifest allows" xfail-ok xfail

results notok "1..2" "ok 1 first case" "not ok 2 second case"
echo 1 > "$T/r-notok/ktap/good.sh.rc"
verdict fail "a failed case" good notok 'second case'

# run-tests.sh: its status, and its results through the verdict
mkdir -p "$T/progs"
printf '#!/bin/sh\n%s\n' 'printf "TAP version 13\n1..2\nok 1 first case\nok 2 second case # SKIP no hook\n"' \
	> "$T/progs/good.sh"
printf '#!/bin/sh\n%s\n' 'printf "TAP version 13\n1..1\nnot ok 1 bad case\n"; exit 1' \
	> "$T/progs/bad.sh"
chmod +x "$T/progs/good.sh" "$T/progs/bad.sh"
RESULTS=$T/r-run-good "$RUN_TESTS" "$T/progs/good.sh" > "$T/run-good.log" 2>&1
result $? "run-tests.sh: every program passed, exit 0"
verdict pass "run-tests.sh's results" good run-good
RESULTS=$T/r-run-bad "$RUN_TESTS" "$T/progs/good.sh" "$T/progs/bad.sh" > "$T/run-bad.log" 2>&1
[ $? -ne 0 ]
result $? "run-tests.sh: a program failed, exit non-zero"

# ktap.py: a "not ok" SKIP is a failure (upstream ksft.py prints one when a
# check failed before the case skipped), and so are more cases than planned
results notokskip "1..2" "ok 1 first case" "not ok 2 second case # SKIP no hook"
verdict fail "a not ok ... # SKIP" good notokskip 'second case'
results overplan "1..1" "ok 1 first case" "ok 2 second case # SKIP no hook"
verdict fail "2 cases reported, 1 planned" good overplan '2 cases reported, 1 planned'

# the judge is the tree's: a ktap.py named in the environment is not run
fake_ktap allpass 'echo "pass good.sh: first case"; echo "pass good.sh: second case"
echo "{\"pass\": 2, \"fail\": 0, \"skip\": 0}"'
KTAP=$T/allpass verdict fail "KTAP= in the environment, a failed case" good notok 'second case'

# vm.py on a fake QEMU: $T/fake-NAME (shell lines) is what it does; $RES is
# the results folder vm.py gave it (-D RES/qemu-trace.log)
mkdir -p "$T/bin"
printf '%s\n' '#!/bin/bash' \
	'while [ $# -gt 0 ]; do [ "$1" = -D ] && RES=$(dirname "$2"); shift; done' \
	'. "$FAKE"' > "$T/bin/qemu-system-x86_64"
chmod +x "$T/bin/qemu-system-x86_64"
: > "$T/bzImage"
: > "$T/initrd"
: > "$T/bios"
UP='echo "I82574-HARNESS: guest up after 1.0 s"'
END='echo "I82574-HARNESS: job exit 0"'
OFF='echo "reboot: Power down"'
printf '%s\n' "$UP" "$END" "$OFF" > "$T/fake-good"
printf '%s\n' "$UP" "$END" 'echo "I82574-HARNESS: power-off fallback: resetting"' \
	'echo "sysrq: Resetting"' > "$T/fake-reset"
printf '%s\n' "$UP" "$END" 'echo "sysrq: Resetting"' > "$T/fake-reset-quiet"
printf '%s\n' "$UP" "$END" 'exec sleep 20' > "$T/fake-late-kill"
printf '%s\n' "$UP" \
	"echo 'unreferenced object 0xffff888004f1a300 (size 64):' > \"\$RES/kmemleak.txt\"" \
	"$END" "$OFF" > "$T/fake-leak"
printf '%s\n' "$UP" \
	'echo "[   31.2] unregister_netdevice: waiting for dummy0 to become free. Usage count = 2"' \
	"$END" "$OFF" > "$T/fake-refwait"

# fake_vm WANT WHAT FAKE REASON [VM.PY ARGS...]: vm.py on the fake QEMU must
# end WANT (pass or fail), a failure saying REASON (an extended regex)
fake_vm()
{
	local want=$1 what=$2 fake=$3 why=$4 got=pass out

	shift 4
	out=$(PATH=$T/bin:$PATH FAKE=$T/fake-$fake "$H/vm.py" --kernel "$T/bzImage" \
		--initrd "$T/initrd" --bios "$T/bios" --nics 0 --quiet --results "$T/vm-$fake" "$@" \
		2>&1) || got=fail
	echo "# $what: $(grep -m 1 -A 1 'vm: FAIL' <<< "$out" | tr '\n' ' ')"
	[ $got = "$want" ] && { [ -z "$why" ] || grep -qE "$why" <<< "$out"; }
	result $? "vm.py: $what: the boot must $want"
}

fake_vm pass "a job that ended and powered off" good ''
fake_vm fail "init.sh's power-off fell back to a reset" reset 'without powering off'
fake_vm fail "the guest reset after its job, without a word" reset-quiet 'without powering off'
fake_vm fail "QEMU killed by the overall timer after the job's end" late-kill \
	"timeout after 3 s, after the job's end" --timeout 3
fake_vm fail "kmemleak.txt with an entry, a clean console" leak 'unreferenced object'
fake_vm fail "an unregister_netdevice wait on the console" refwait 'waiting for dummy0'

# a boot that stops before its guest runs (no kernel) leaves no earlier
# results behind for boot-verdict.sh to count
results stale "1..2" "ok 1 first case" "ok 2 second case # SKIP no hook"
"$H/vm.py" --kernel "$T/no-such-bzImage" --initrd "$T/initrd" --bios "$T/bios" --nics 0 --quiet \
	--results "$T/r-stale" > "$T/stale.log" 2>&1
[ $? -ne 0 ]
result $? "vm.py: no kernel, exit non-zero"
verdict fail "the results of a boot that stopped before it started" good stale \
	'no results folder|did not run|printed no summary'

# tally.sh, make check's closing count: every boot the manifest names for
# the steps run has a verdict, every lane ended with 0
manifest boots "perf good.sh 2 names=a261a6fa7a11164a" "debug-1 good.sh 2 names=a261a6fa7a11164a"

# tally_run WANT WHAT STEPS LANES NOTE-LINE...
tally_run()
{
	local want=$1 what=$2 steps=$3 lanes=$4 d=$T/tally-$n got=pass out

	shift 4
	mkdir -p "$d"
	printf '%s\n' "$@" > "$d/.notes"
	[ -z "$lanes" ] || echo "$lanes" > "$d/.lanes"
	if [ -x "$H/tally.sh" ]; then
		# shellcheck disable=SC2086
		out=$("$H/tally.sh" "$d" "$T/m-boots" $steps 2>&1) || got=fail
	else
		# an older check.sh's closing count: its failed lines, no more
		out="$(grep -c '^pass' "$d/.notes") passed, $(grep -c '^fail' "$d/.notes") failed"
		[ "$(grep -c '^fail' "$d/.notes")" -eq 0 ] || got=fail
	fi
	echo "# $what: $(tail -n 1 <<< "$out")"
	[ $got = "$want" ]
	result $? "tally: $what: the run must $want"
}

tally_run pass "both boots' verdicts, lane A exited 0" "vm-perf vm-debug" "A 0" \
	"pass harness-selftest (4 s)" "pass [perf] results: 2 cases" "pass [debug-1] results: 2 cases"
tally_run fail "lane A vanished: the perf boot has no verdict" "vm-perf vm-debug" "" \
	"pass harness-selftest (4 s)" "pass [debug-1] results: 2 cases"
tally_run fail "lane A exited 1 after its boots" "vm-perf vm-debug" "A 1" \
	"pass harness-selftest (4 s)" "pass [perf] results: 2 cases" "pass [debug-1] results: 2 cases"
tally_run pass "only the debug boots were asked for" "vm-debug" "" \
	"pass [debug-1] results: 2 cases"
tally_run fail "nothing ran" "" "" ""

# vm.py's S3 watch (s3_step, once a second): a guest that asked to be
# woken from S3 is woken that long after it is seen suspended, however late
# its suspend got there, and the run does not fail; a guest in S3 that did
# not ask is woken after S3_LIMIT and the run fails; a request not followed
# by S3 within S3_WAKEUP_WAIT, or dropped by "s3_wakeup 0", wakes nothing.
# Each line: the case, then what it wanted and got (wake-up times, and
# the failures counted).
s3_cases()
{
	python3 - "$H" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import vm

def run(req_at, secs, s3_from, until=400, cancel_at=None):
    """Seconds 0..until: a request for SECS at REQ_AT (None: none), the
    guest suspended from S3_FROM on until woken; the wake times, failures"""
    s3req, state, out, wakes, asleep = {"secs": None}, {"since": None}, {}, [], False
    for t in range(until):
        if t == req_at:
            s3req.update(secs=secs, until=t + vm.S3_WAKEUP_WAIT)
        if t == cancel_at:
            s3req["secs"] = None
        if t == s3_from:
            asleep = True
        if vm.s3_step("suspended" if asleep else "running", t, state, s3req, out):
            wakes.append(t)
            asleep = False
    return wakes, out.get("s3", 0)

limit = vm.S3_LIMIT
cases = [
    ("asked for 1 s, suspended 40 s after asking", run(10, 1, 50), ([51], 0)),
    ("asked for 1 s, suspended at once", run(10, 1, 10), ([11], 0)),
    ("not asked", run(None, 1, 50), ([50 + limit], 1)),
    ("asked, no S3 within the wait", run(0, 1, vm.S3_WAKEUP_WAIT + 5, until=800),
     ([vm.S3_WAKEUP_WAIT + 5 + limit], 1)),
    ("asked, then dropped", run(0, 1, 20, cancel_at=10), ([20 + limit], 1)),
]
for what, got, want in cases:
    print("%s %s: want %s, got %s" % ("ok" if got == want else "not", what, want, got))
PY
}

while read -r verdict line; do
	echo "# $line"
	[ "$verdict" = ok ]
	result $? "vm.py: S3 watch: ${line%%:*}"
done < <(s3_cases 2>/dev/null || echo "not s3_step: missing or broken")

echo "# Totals: pass:$((n - failed)) fail:$failed"
[ $failed -eq 0 ]
