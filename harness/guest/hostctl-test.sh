#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (KTAP): the guest can take a NIC's link down and up
# through hostctl -> QMP set_link. The NIC's carrier follows, and so does
# the wire as its peer sees it: while nic3's link is off, nic2's frames do
# not reach nic3; once it is on, frames pass both ways again. (A QEMU hub
# does not pass a link state on: nic2 keeps its own carrier.)
# And QEMU's trace events through hostctl trace -> QMP trace-event-set-state:
# a window around register writes holds their lines and only the events
# named, nothing is logged once they are off, and bad requests are refused
# without switching anything. And hostctl wakeup takes only 1 to 60 s, and
# the line the host sends when that time comes is not taken for the reply
# of the next request.
TREE=${BUILD:-$(dirname "$0")/../../build}/linux
SEL=$TREE/tools/testing/selftests/drivers/net/i82574
. "$SEL/lib.sh"

# e1000e does not notice a link drop of QEMU 7.2's model (no "Link is Down"
# after set_link off, seen here), so this runs against i82574 only.
ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 8
nic_bind "$DRIVER" 2 3 || ktap_exit_fail_msg "cannot bind NICs 2 and 3 to $DRIVER"
a=$(nic_ifname 2) b=$(nic_ifname 3)
ip link set "$a" up && ip link set "$b" up
carrier_down() { ! carrier_up "$1"; }
rx_packets() { cat "/sys/class/net/$1/statistics/rx_packets"; }

# frames FROM TO: how many of 20 frames sent from FROM (AF_PACKET) to TO's
# MAC reached TO
frames()
{
	local base sent

	base=$(rx_packets "$2")
	sent=$(python3 "$SEL/af_packet_send.py" "$1" "$(cat "/sys/class/net/$2/address")" \
	       198.18.1.1 198.18.1.2 20) || return 1
	[ "${sent%% *}" = 20 ] || return 1
	sleep 0.5
	echo $(($(rx_packets "$2") - base))
}

# wire UP|DOWN: UP: frames pass both ways (each end got all 20, or more
# with something else arriving too); DOWN: none of nic2's reach nic3 (the
# kernel sends nothing from nic3 without carrier: dev_direct_xmit() drops)
wire()
{
	local ab ba=""

	ab=$(frames "$a" "$b") || return 1
	if [ "$1" = DOWN ]; then
		ktap_print_msg "$1: $a -> $b $ab of 20 frames"
		[ "$ab" -eq 0 ]
		return
	fi
	ba=$(frames "$b" "$a") || return 1
	ktap_print_msg "$1: $a -> $b $ab of 20 frames, $b -> $a $ba of 20"
	[ "$ab" -ge 20 ] && [ "$ba" -ge 20 ]
}

ktap_test_result "$DRIVER: carrier on both ends, frames pass both ways" \
	eval "wait_for 100 carrier_up $a && wait_for 100 carrier_up $b && wire UP"
ktap_test_result "set_link nic3 off: carrier drops on nic3, nic2's frames do not reach it" \
	eval "$(dirname "$0")/hostctl set_link nic3 off && wait_for 100 carrier_down $b &&
	      wire DOWN"
ktap_test_result "set_link nic3 on: carrier returns, frames pass both ways" \
	eval "$(dirname "$0")/hostctl set_link nic3 on && wait_for 100 carrier_up $b &&
	      wire UP"

HOSTCTL=$(dirname "$0")/hostctl
TRACE=${RESULTS:-/run/results}/qemu-trace.log
TRACE_END=

log_size() { stat -c %s "$TRACE"; }

# promisc_flip: $a promiscuous and back: $DRIVER rewrites RCTL (0x100)
promisc_flip()
{
	ip link set "$a" promisc on && ip link set "$a" promisc off
}

# traced: trace on e1000e_core_write, promisc_flip, trace off: the window
# between the two offsets holds lines, RCTL writes among them, and no line
# of another event
traced()
{
	local from to l lines rctl=0 other=0

	from=$("$HOSTCTL" trace on e1000e_core_write) || return 1
	promisc_flip
	to=$("$HOSTCTL" trace off e1000e_core_write) || return 1
	TRACE_END=$to
	mapfile -t lines < <(tail -c +$((from + 1)) "$TRACE" | head -c $((to - from)))
	for l in "${lines[@]}"; do
		case $l in
		"e1000e_core_write Write to register 0x100, "*) rctl=$((rctl + 1)) ;;
		"e1000e_core_write "*) ;;
		*) other=$((other + 1)) ;;
		esac
	done
	ktap_print_msg "bytes $from..$to: ${#lines[@]} lines, $rctl RCTL writes," \
		"$other of other events"
	[ "$rctl" -ge 2 ] && [ "$other" -eq 0 ]
}

# untraced: with the event off again, promisc_flip adds nothing to the log
untraced()
{
	local size

	promisc_flip
	size=$(log_size) || return 1
	ktap_print_msg "log size $size after the window ended at ${TRACE_END:-?}"
	[ -n "$TRACE_END" ] && [ "$size" -eq "$TRACE_END" ]
}

# refused: hostctl refuses a name outside [A-Za-z0-9_*] (usage, exit 2);
# the host refuses an unknown event, a glob that matches none, a glob of
# every event and 17 names (hostctl: error: ..., exit 1), and a request
# with one bad name switches none of its events on
refused()
{
	local rc=0 req out size i many=()

	"$HOSTCTL" trace on 'e1000e_core-write' 2>/dev/null
	[ $? -eq 2 ] || { ktap_print_msg "hostctl sent e1000e_core-write"; rc=1; }
	for ((i = 0; i < 17; i++)); do
		many+=(e1000e_core_write)
	done
	size=$(log_size) || return 1
	for req in no_such_event 'no_such_*' '*' 'e1000e_core_write no_such_event' \
		   "${many[*]}"; do
		# each request word by word, unexpanded
		set -f
		# shellcheck disable=SC2086
		out=$("$HOSTCTL" trace on $req 2>&1) && rc=1
		set +f
		# (not ktap_print_msg, which would expand the globs)
		printf '# trace on %s: %s\n' "${req:0:40}" "$out"
		[[ $out == "hostctl: error: "* ]] || rc=1
	done
	promisc_flip
	[ "$(log_size)" -eq "$size" ] || { ktap_print_msg "the log grew"; rc=1; }
	return $rc
}

# wakeup_requests: hostctl wakeup takes 1 to 60 seconds and s3_wakeup 0 to
# 60, and nothing else (usage, exit 2, nothing sent); a good one is
# accepted (the guest is not suspended, so the host's system_wakeup later
# changes nothing; s3_wakeup 0 drops the s3_wakeup request before it)
wakeup_requests()
{
	local rc=0 w

	for w in 0 61 100 -1 1s ''; do
		# shellcheck disable=SC2086
		"$HOSTCTL" wakeup $w 2>/dev/null
		[ $? -eq 2 ] || { ktap_print_msg "wakeup '$w' not refused"; rc=1; }
		[ "$w" = 0 ] && continue
		# shellcheck disable=SC2086
		"$HOSTCTL" s3_wakeup $w 2>/dev/null
		[ $? -eq 2 ] || { ktap_print_msg "s3_wakeup '$w' not refused"; rc=1; }
	done
	"$HOSTCTL" wakeup 1 || { ktap_print_msg "wakeup 1 refused"; rc=1; }
	for w in 60 0; do
		"$HOSTCTL" s3_wakeup $w || { ktap_print_msg "s3_wakeup $w refused"; rc=1; }
	done
	return $rc
}

ktap_test_result "trace on/off around RCTL writes: their lines, no other event's" traced
ktap_test_result "trace off: the same writes log nothing" untraced
ktap_test_result "bad trace requests are refused and switch nothing on" refused
ktap_test_result "wakeup: 1 to 60 seconds (s3_wakeup 0 to 60) accepted, anything else refused" \
	wakeup_requests

# after_wakeup: the host's wakeup line, 1 s after "wakeup 1", reaches a
# port the guest holds open (as pm.sh does for s2idle) and waits there;
# the next request must still get its own reply
after_wakeup()
{
	local ns rc=0

	exec 4<>/dev/ttyS1
	"$HOSTCTL" wakeup 1 || rc=1
	sleep 2
	ns=$("$HOSTCTL" cputime) || rc=1
	exec 4>&-
	ktap_print_msg "cputime after the host's wakeup line: ${ns:-none}"
	[ $rc -eq 0 ] && [[ $ns =~ ^[0-9]+$ ]]
}
ktap_test_result "a request after the host's wakeup line gets its own reply" after_wakeup

ip link set "$a" down
ip link set "$b" down
ktap_finished
