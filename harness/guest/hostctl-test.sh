#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (KTAP): the guest can take a NIC's link down and up
# through hostctl -> QMP set_link. The NIC's carrier follows, and so does
# the wire as its peer sees it: while nic3's link is off, nic2's frames do
# not reach nic3; once it is on, frames pass both ways again. (A QEMU hub
# does not pass a link state on: nic2 keeps its own carrier.)
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
ktap_set_plan 3
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
ip link set "$a" down
ip link set "$b" down
ktap_finished
