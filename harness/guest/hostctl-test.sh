#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (KTAP): the guest can take a NIC's link down and up
# through hostctl -> QMP set_link, and the peer sees carrier follow.
TREE=${BUILD:-$(dirname "$0")/../../build}/linux
. "$TREE/tools/testing/selftests/drivers/net/i82574/lib.sh"

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
ktap_test_result "$DRIVER: carrier on both ends" \
	eval "wait_for 100 carrier_up $a && wait_for 100 carrier_up $b"
carrier_down() { ! carrier_up "$1"; }
ktap_test_result "set_link nic3 off: carrier drops on nic3" \
	eval "$(dirname "$0")/hostctl set_link nic3 off && wait_for 100 carrier_down $b"
ktap_test_result "set_link nic3 on: carrier returns" \
	eval "$(dirname "$0")/hostctl set_link nic3 on && wait_for 100 carrier_up $b"
ip link set "$a" down
ip link set "$b" down
ktap_finished
