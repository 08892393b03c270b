#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's harness self-test (step harness-selftest): the harness must
# fail closed. Feeds harness/guest/run-tests.sh and harness/boot-verdict.sh
# (ktap.py and the checks around it, as check.sh's boots use them)
# deliberately broken results and manifests, and requires each to fail
# the boot: a crashing ktap.py (a manifest line with an unbalanced quote,
# a corrupt .rc file), a ktap.py without a summary, a total other than the manifest's, a
# renamed case, an XFAIL the manifest does not allow, a failed case, and
# run-tests.sh's status after a failing program. Good results must pass,
# so the self-test can fail too. Host only, a few
# seconds; KTAP output, exits 1 on any failure.
# VERDICT=PROGRAM and RUN_TESTS=PROGRAM replace the two scripts (to show
# what an older harness does with the same inputs).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
VERDICT=${VERDICT:-$TOP/harness/boot-verdict.sh}
RUN_TESTS=${RUN_TESTS:-$TOP/harness/guest/run-tests.sh}
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

	out=$("$VERDICT" "$T/m-$3" t "$T/r-$4" 2>&1) || got=fail
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
echo "1..13"

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
KTAP=$T/nosummary verdict fail "ktap.py without a summary" good good 'no summary'

fake_ktap short 'echo "pass good.sh: first case"; echo "{\"pass\": 1, \"fail\": 0, \"skip\": 0}"'
KTAP=$T/short verdict fail "ktap.py counted 1 case, the manifest's total is 2" good good \
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

echo "# Totals: pass:$((n - failed)) fail:$failed"
[ $failed -eq 0 ]
