#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two NICs across a QEMU hub, one moved into a network namespace: link and
# carrier, IPv4 and IPv6 ping both ways, an iperf3 TCP run in each direction.
# Runs against $DRIVER (i82574 by default; DRIVER=e1000e for the baseline).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 6
trap wire_cleanup EXIT

if wire_setup 0 1; then
	ktap_test_pass "$DRIVER: two NICs bound, up, carrier on both"
else
	ktap_exit_fail_msg "$DRIVER: wire setup failed"
fi

ktap_test_result "ping IPv4 both ways" \
	eval "ping -c 3 -i 0.2 -W 2 $IP4_B >/dev/null &&
	      ip netns exec $PEER_NS ping -c 3 -i 0.2 -W 2 $IP4_A >/dev/null"
ktap_test_result "ping IPv6 both ways" \
	eval "ping -6 -c 3 -i 0.2 -W 2 $IP6_B >/dev/null &&
	      ip netns exec $PEER_NS ping -6 -c 3 -i 0.2 -W 2 $IP6_A >/dev/null"

tcp_ok()
{
	local bytes

	iperf3_run "wire-$DRIVER-$1" -t 3 "${@:2}" || return 1
	bytes=$(json_get "${RESULTS:-/tmp}/wire-$DRIVER-$1.json" \
		"j['end']['sum_received']['bytes']")
	ktap_print_msg "$1: $bytes bytes received"
	[ "$bytes" -gt 0 ]
}
ktap_test_result "iperf3 TCP out of the namespace" tcp_ok tcp
ktap_test_result "iperf3 TCP into the namespace (-R)" tcp_ok tcp-reverse -R

rx_cnt()
{
	ip -n "$PEER_NS" -s -j link show "$IF_B" > /tmp/wire-link.json &&
		json_get /tmp/wire-link.json "j[0]['stats64']['rx']['packets']"
}
counters_ok()
{
	local n

	n=$(rx_cnt) && [ "$n" -gt 1000 ] && ktap_print_msg "peer rx packets $n"
}
ktap_test_result "peer RX counter saw the traffic" counters_ok
ktap_finished
