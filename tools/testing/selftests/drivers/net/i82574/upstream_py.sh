#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the upstream drivers/net Python tests (ping.py, stats.py, queues.py)
# against $DRIVER on NIC 0, with NIC 1 in $PEER_NS as the remote end
# (REMOTE_TYPE=netns). Every upstream sub-case is one KTAP case of ours
# ("upstream ping.py: ping.test_v4"): its SKIP and XFAIL both count as a
# skip (an XFAIL is a feature the device does not have, not a pass); a
# program that printed no sub-case, or exited non-zero with none failing,
# is one case more (failed, or skipped on exit 4). The programs run first,
# so the plan is known when the results are printed. PROGS=a.py+b.py
# picks other programs, e.g. hw/pp_alloc_fail.py, which is not in the
# default set: it wants more than 15,000 received packets a second (748
# on the debug kernel under TCG), and on the perf kernel, which has no
# fail_function, it did not end within its 120 s. PROG_TIMEOUT=seconds
# is each program's hang guard (default 120).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

PROGS=${PROGS:-ping.py+stats.py+queues.py}
PROGS=${PROGS//+/ }
PROG_TIMEOUT=${PROG_TIMEOUT:-120}

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
trap 'wire_cleanup; rm -f /tmp/upstream-$$.*' EXIT

nic_reclaim 1

setup_ok=0
wire_setup 0 1 && setup_ok=1

n=0
for prog in $PROGS; do
	n=$((n + 1))
	[ $setup_ok = 1 ] || break
	(
		cd "$DIR/.." &&
		NETIF=$IF_A LOCAL_V4=$IP4_A REMOTE_V4=$IP4_B \
		LOCAL_V6=$IP6_A REMOTE_V6=$IP6_B \
		REMOTE_TYPE=netns REMOTE_ARGS=$PEER_NS \
			timeout -k 5 "$PROG_TIMEOUT" python3 "./$prog"
	) > "/tmp/upstream-$$.$n" 2>&1
	echo $? > "/tmp/upstream-$$.$n.rc"
done
[ $setup_ok = 1 ] || ktap_exit_fail_msg "$DRIVER: wire setup failed"

# upstream_cases N: the sub-case lines of program N's KTAP output
upstream_cases() { grep -E '^(not )?ok [0-9]+ ' "/tmp/upstream-$$.$1"; }

# upstream_extra N: 1 if program N needs a case of its own (no sub-case,
# or a non-zero exit that no failed sub-case explains)
upstream_extra() {
	local rc
	rc=$(cat "/tmp/upstream-$$.$1.rc")
	upstream_cases "$1" > /dev/null || { echo 1; return; }
	[ "$rc" = 0 ] || [ "$rc" = "$KSFT_SKIP" ] ||
		upstream_cases "$1" | grep -q '^not ok' || { echo 1; return; }
	echo 0
}

plan=1 n=0
for prog in $PROGS; do
	n=$((n + 1))
	plan=$((plan + $(upstream_cases $n | wc -l) + $(upstream_extra $n)))
done
ktap_set_plan $plan
ktap_test_pass "$DRIVER: two NICs bound, up, carrier on both"

n=0
for prog in $PROGS; do
	n=$((n + 1))
	rc=$(cat "/tmp/upstream-$$.$n.rc")
	sed 's/^/# /' "/tmp/upstream-$$.$n"
	upstream_cases $n > "/tmp/upstream-$$.cases"
	while read -r res; do
		case $res in
		"not ok "*) ktap_test_fail "upstream $prog: $(echo "$res" | cut -d' ' -f4-)" ;;
		*"# SKIP"*|*"# XFAIL"*)
			ktap_test_skip "upstream $prog: $(echo "$res" | cut -d' ' -f3- |
				sed 's/ # / (/; s/$/)/')" ;;
		*) ktap_test_pass "upstream $prog: $(echo "$res" | cut -d' ' -f3-)" ;;
		esac
	done < "/tmp/upstream-$$.cases"
	[ "$(upstream_extra $n)" = 1 ] || continue
	case $rc in
	0) ktap_test_fail "upstream $prog: exited 0 without a KTAP result" ;;
	"$KSFT_SKIP") ktap_test_skip "upstream $prog (skipped)" ;;
	*) ktap_test_fail "upstream $prog (exit $rc)" ;;
	esac
done
ktap_finished
