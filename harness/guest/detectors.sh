#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of make check's splat-detector step: provoke the kernel's
# detectors one after another, each through LKDTM (a test-only trigger, not
# part of the series) or, for the reference wait, a held netdev reference,
# and wait for each one's report in the kernel log. The host (check.sh's
# do_splat) then requires vm.py to have failed the boot with every report
# among its splats. Each provocation breaks something for good (a task in D
# state, a CPU spinning), so they run in an order that keeps the guest able
# to go on: TYPES in the order given, the panicking CORRUPT_STACK_STRONG last.
#
# Usage: detectors.sh TYPE...
# TYPE: WARNING, HUNG_TASK, SOFTLOCKUP (on CPU 1), HARDLOCKUP (on CPU 2),
# CORRUPT_LIST_ADD, CORRUPT_STACK_STRONG, or REFWAIT (see refwait below).
set -u
LKDTM=/sys/kernel/debug/provoke-crash/DIRECT

# reported PATTERN: wait up to 60 s for PATTERN (extended regex) in the log
reported()
{
	local i

	for i in $(seq 120); do
		dmesg | grep -qE "$1" && return 0
		sleep 0.5
	done
	echo "detectors: no report matching '$1' in 60 s" >&2
	return 1
}

# provoke TYPE [CPU]: LKDTM's TYPE, in the background, on CPU if given
provoke()
{
	if [ $# -gt 1 ]; then
		taskset -c "$2" sh -c "echo $1 > $LKDTM" &
	else
		sh -c "echo $1 > $LKDTM" &
	fi
}

# refwait: a packet socket bound to a dummy device with a TX ring, blocked
# in its send (it holds a reference on the device meanwhile), while the
# device is deleted; see harness/guest/refwait.py
refwait()
{
	sysctl -qw net.core.netdev_unregister_timeout_secs=1
	python3 "$(dirname "$0")/refwait.py"
}

rc=0
for t in "$@"; do
	echo "detectors: provoking $t"
	case $t in
	WARNING)
		echo "$t" > "$LKDTM"
		reported 'WARNING: ' || rc=1 ;;
	CORRUPT_LIST_ADD)
		# DEBUG_LIST (the debug kernel): a WARNING, the list left alone
		echo "$t" > "$LKDTM"
		reported 'list_add corruption' || rc=1 ;;
	HUNG_TASK)
		# checked every hung_task_timeout_secs: 2 s here, 120 at boot
		sysctl -qw kernel.hung_task_timeout_secs=2
		provoke HUNG_TASK
		reported 'INFO: task .* blocked for more than' || rc=1 ;;
	SOFTLOCKUP)
		# 2 s without a schedule (2 x watchdog_thresh)
		sysctl -qw kernel.watchdog_thresh=1
		provoke SOFTLOCKUP 1
		reported 'BUG: soft lockup - CPU#1' || rc=1 ;;
	HARDLOCKUP)
		# the buddy detector: CPU 1 sees CPU 2's timer interrupts stop
		sysctl -qw kernel.watchdog_thresh=1
		provoke HARDLOCKUP 2
		reported 'hard LOCKUP on cpu 2' || rc=1 ;;
	REFWAIT)
		refwait || rc=1
		reported 'unregister_netdevice: waiting for' || rc=1 ;;
	CORRUPT_STACK_STRONG)
		# panics: the boot ends here
		echo "$t" > "$LKDTM"
		rc=1 ;;
	*)
		echo "detectors: unknown type $t" >&2
		rc=1 ;;
	esac
done
exit $rc
