#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of make check's shutdown-wol step: NIC 0 to i82574 with
# Wake-on-LAN magic packet, NIC 1 left without a driver (the MAC register
# trace does not say which NIC wrote, so only one may have a .shutdown),
# then QEMU's register and PCI config trace on, and the job ends: the
# harness's init powers the guest off, which runs the driver's .shutdown.
# The host reads what it wrote from the trace (harness/check.sh).
set -eu
nic0=0000:01:00.0
nic1=0000:02:00.0
dev=/sys/bus/pci/devices
for b in $nic0 $nic1; do
	[ -e $dev/$b/driver ] && echo $b > $dev/$b/driver/unbind
done
echo i82574 > $dev/$nic0/driver_override
echo $nic0 > /sys/bus/pci/drivers_probe
[ $dev/$nic0/driver -ef /sys/bus/pci/drivers/i82574 ]
ifname=$(ls $dev/$nic0/net)
ip link set "$ifname" up
ethtool -s "$ifname" wol "${WOL:-g}"
ethtool "$ifname" | grep -x $'\tWake-on: '"${WOL:-g}"
"$(dirname "$0")/hostctl" trace on e1000e_core_write pci_cfg_write
echo "shutdown-wol: $ifname armed with wol ${WOL:-g}, trace on"
