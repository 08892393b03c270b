#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot-parameter test (KTAP), for a guest booted with pci=nomsi: i82574
# falls back to one queue pair on a legacy (INTx) interrupt, refuses a
# second channel, and its interrupt is not an MSI one.
TREE=${BUILD:-$(dirname "$0")/../../build}/linux
. "$TREE/tools/testing/selftests/drivers/net/i82574/lib.sh"

ktap_print_header
if ! grep -qw pci=nomsi /proc/cmdline; then
	ktap_skip_all "needs a guest booted with pci=nomsi"
	exit "$KSFT_SKIP"
fi
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4
nic_bind "$DRIVER" 0 || ktap_exit_fail_msg "cannot bind NIC 0 to $DRIVER"
dev=$(nic_ifname 0)
ip link set "$dev" up

# irq_lines: /proc/interrupts lines of NIC 0
irq_lines() { grep "$DRIVER-$(nic_bdf 0)" /proc/interrupts; }
ktap_print_msg "$(irq_lines)"
ktap_test_result "one interrupt line, a legacy one" \
	eval '[ "$(irq_lines | wc -l)" -eq 1 ] && ! irq_lines | grep -q MSI'
ktap_test_result "one queue pair" \
	eval '[ "$(ls -d /sys/class/net/$dev/queues/tx-* | wc -l)" -eq 1 ] &&
	      [ "$(ls -d /sys/class/net/$dev/queues/rx-* | wc -l)" -eq 1 ]'
ktap_test_result "ethtool -L combined 2 refused" \
	eval '! ethtool -L "$dev" combined 2 2>/dev/null'
# the first "Combined:" line is the maximum
max_combined() { ethtool -l "$dev" | awk '/^Combined:/ { print $2; exit }'; }
ktap_test_result "ethtool -l: at most 1 combined" \
	eval '[ "$(max_combined)" = 1 ]'
ip link set "$dev" down
ktap_finished
