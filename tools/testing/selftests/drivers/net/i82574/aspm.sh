#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ASPM L0s and L1 stay off on the 82574's link (i82574_aspm.c), proven from
# QEMU's PCI config trace (pci_cfg_write). Firmware may turn the states on
# behind the kernel (it kept ASPM control, or at S3 resume), where the PCI
# core's pci_disable_link_state() sees nothing to do (its view says off)
# or may not act (pcie_aspm=off); setpci tries the same here, setting L0s
# and L1 in Link Control of NIC 0 and of its root port (QEMU 10's e1000e
# keeps no ASPM enable: the bits read back 0, which is noted). Then, for
#  - a bind of the driver (probe),
#  - a non-fatal AER error on the root port (slot_reset; skipped where the
#    OS has no AER control),
#  - a system suspend and resume (S3 where the machine offers it),
#  - a runtime resume (power/control auto, ip link set up),
# the trace must show a config write of each end's Link Control with both
# states clear, and both must read back clear. A driver that leaves it to
# the core writes neither (the core's view already says off), and a
# restore of the NIC's saved state writes only the NIC's. What stays
# unverified: the QEMU link has no power states, so nothing shows the TX
# hangs ASPM causes on silicon, nor a model that keeps the enables. With
# pcie_aspm=off (the OS without ASPM control) the first three pass too.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

NIC=0
LNKCTL_ASPM=3	# PCI_EXP_LNKCTL_ASPM_L0S | _L1

ktap_print_header
reg_trace_require "$DRIVER"
nic_dev $NIC
PORT_DEV=$(dirname "$(readlink -f "$NIC_DEV")")
NIC_BDF=${NIC_DEV##*/}
PORT_BDF=${PORT_DEV##*/}
if [ ! -e "$PORT_DEV/aer_dev_fatal" ] || ! command -v setpci > /dev/null; then
	ktap_skip_all "no root port above NIC $NIC or no setpci"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4

msg() { ktap_print_msg "$*"; }

cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	[ -n "${SAVED_CONTROL:-}" ] && echo "$SAVED_CONTROL" > "$NIC_DEV/power/control"
	wire_cleanup
	sleep_restore
	reg_trace_restore_others
}
trap cleanup EXIT

# lnkctl BDF: Link Control of BDF in RD
lnkctl()
{
	RD=$(setpci -s "$1" CAP_EXP+10.w) && RD=$((16#$RD))
}

# pcie_cap_pos BDF: the offset of BDF's PCI Express capability in POS
pcie_cap_pos() { pci_cap_pos "$1" 16; }

# aspm_on: L0s and L1 on at both ends, as firmware could leave them, where
# the model keeps them (noted if it does not)
aspm_on()
{
	local b

	for b in "$NIC_BDF" "$PORT_BDF"; do
		setpci -s "$b" CAP_EXP+10.w=$LNKCTL_ASPM:$LNKCTL_ASPM &&
			lnkctl "$b" || return 1
		(( (RD & LNKCTL_ASPM) == LNKCTL_ASPM )) ||
			msg "$b: Link Control reads $(printf 0x%x "$RD"):" \
				"the model keeps no ASPM enable"
	done
}

# cleared_in_trace NAME BDF: the window holds a config write of BDF's Link
# Control with L0s and L1 clear (lines: "pci_cfg_write NAME BB:DD.F @0xOFF
# <- 0xVAL"), and BDF's Link Control reads back clear
cleared_in_trace()
{
	local name=$1 bdf=$2 l re off val seen=0

	pcie_cap_pos "$bdf" || { msg "$bdf: no PCIe capability"; return 1; }
	re="pci_cfg_write $name ${bdf#0000:} @0x([0-9a-f]+) <- 0x([0-9a-f]+)\$"
	while IFS= read -r l; do
		[[ $l =~ $re ]] || continue
		off=$((16#${BASH_REMATCH[1]})) val=$((16#${BASH_REMATCH[2]}))
		[ $off -eq $((POS + 16)) ] && (( !(val & LNKCTL_ASPM) )) && seen=1
	done < <(reg_trace_lines)
	[ $seen = 1 ] || { msg "$bdf: no Link Control write with ASPM off"; return 1; }
	lnkctl "$bdf" || return 1
	(( !(RD & LNKCTL_ASPM) )) ||
		{ msg "$bdf: Link Control 0x$(printf %x "$RD") after"; return 1; }
}

# traced EVENT...: ASPM on at both ends, EVENT in a config write trace
# window, then both ends' Link Control written and read back clear
traced()
{
	local rc

	aspm_on || return 1
	reg_trace_on pci_cfg_write || return 1
	"$@"
	rc=$?
	reg_trace_off || return 1
	[ $rc -eq 0 ] || { msg "'$*' failed"; return 1; }
	cleared_in_trace e1000e "$NIC_BDF" &&
		cleared_in_trace pcie-root-port "$PORT_BDF"
}

# bind_nic: NIC 0 unbound and bound again to $DRIVER (NIC_DEV: helpers
# such as reg_trace_idle_others leave it at another NIC)
bind_nic()
{
	nic_dev $NIC
	[ -e "$NIC_DEV/driver" ] && echo "$NIC_BDF" > "$NIC_DEV/driver/unbind"
	nic_bind "$DRIVER" $NIC
}

sleep_cycle() { sleep_states && system_sleep "$SLEEP_FULL"; }

rpm_suspended()
{
	rd "$NIC_DEV/power/runtime_status" && [ "$RD" = suspended ]
}

# runtime_resume: ASPM turned on while the device is runtime suspended,
# then ip link set up resumes it
runtime_resume()
{
	local ifn

	nic_dev $NIC
	ifn=$(nic_ifname $NIC) || return 1
	rd "$NIC_DEV/power/control" && SAVED_CONTROL=$RD
	ip link set "$ifn" down && echo auto > "$NIC_DEV/power/control" ||
		return 1
	wait_for 100 rpm_suspended || { msg "not runtime suspended: $RD"; return 1; }
	traced ip link set "$ifn" up
}

recoveries() { dmesg | grep -F "$PORT_BDF" | grep -cF "device recovery" || true; }
recovered() { [ "$(recoveries)" -gt "$1" ]; }

# aer_recovery: a non-fatal error on the root port, recovered
aer_recovery()
{
	local r0

	r0=$(recoveries)
	"$REG_TRACE_HOSTCTL" aer rp$NIC uncorrectable UNSUP &&
		wait_for 300 recovered "$r0"
}

reg_trace_idle_others $NIC || ktap_exit_fail_msg "cannot set the other NICs down"
ktap_test_result "$DRIVER: bind (probe) turns ASPM L0s/L1 off at both ends" \
	traced bind_nic
IFN=$(nic_ifname $NIC)
ip link set "$IFN" up || ktap_exit_fail_msg "cannot set $IFN up"
# the port's AER service (pcieport's pcie002): without native AER control
# (pcie_aspm=off also drops the _OSC request) nothing recovers.
if [ -e "$PORT_DEV/$PORT_BDF:pcie002" ]; then
	ktap_test_result "$DRIVER: slot reset after an AER error turns ASPM L0s/L1 off" \
		traced aer_recovery
else
	ktap_test_skip "$DRIVER: slot reset after an AER error (no AER service on the port)"
fi
ktap_test_result "$DRIVER: system resume turns ASPM L0s/L1 off at both ends" \
	traced sleep_cycle
ktap_test_result "$DRIVER: runtime resume turns ASPM L0s/L1 off at both ends" \
	runtime_resume
echo "$SAVED_CONTROL" > "$NIC_DEV/power/control" && SAVED_CONTROL=
ip link set "$IFN" down
ktap_finished
