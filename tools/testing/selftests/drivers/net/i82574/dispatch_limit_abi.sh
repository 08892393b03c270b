#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ABI of /sys/class/net/<dev>/queues/tx-<n>/dispatch_limit
# (Documentation/ABI/testing/sysfs-class-net-queues): default 0, valid
# values round-trip where the driver implements ndo_xmit_flush ($DRIVER,
# if present), every bad write gets EINVAL (not a decimal number) or ERANGE
# (a number above the maximum) and leaves the value unchanged, drivers
# without the op (dummy, veth, e1000e) have no such file, a queue that
# ethtool -L hides comes back with limit 0, and only root may write.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

MAX=4096
BAD=(-1 -0 abc 0x10 " 8" 8abc "8 " "8 9" $'8\n\n' 1.5 $'\n')
BIG=(4097 4294967296 99999999999999999999999)
DUMMY=dl-dummy0
VETH=dl-veth0

cleanup()
{
	ip link del "$DUMMY" 2>/dev/null
	ip link del "$VETH" 2>/dev/null
	[ -n "${ERR_FILE:-}" ] && rm -f "$ERR_FILE"
	[ -n "${OP_DEV:-}" ] && for f in /sys/class/net/$OP_DEV/queues/tx-*/dispatch_limit; do
		echo 0 > "$f"
	done 2>/dev/null
	return 0
}

# The helpers start no process for a read or a write: each costs 0.4-0.7 s
# on the debug kernel under TCG (lib.sh: rd).

# sysfs_write FILE VALUE: write VALUE as is; $GOT is OK or the errno name
sysfs_write()
{
	GOT=OK
	printf '%s' "$2" 2> "$ERR_FILE" > "$1" && return
	rd "$ERR_FILE"
	case $RD in
	*"Invalid argument"*)		GOT=EINVAL ;;
	*"Numerical result out of range"*) GOT=ERANGE ;;
	*"Operation not permitted"*)	GOT=EPERM ;;
	*"Permission denied"*)		GOT=EACCES ;;
	*)				GOT="other: $RD" ;;
	esac
}

# dev_kind DEV: its PCI driver, or its link kind (dummy, veth)
dev_kind()
{
	local d=/sys/class/net/$1/device/driver

	if [ -e "$d" ]; then
		basename "$(readlink "$d")"
	else
		ip -d -j link show "$1" | python3 -c \
			'import json,sys; print(json.load(sys.stdin)[0]["linkinfo"]["info_kind"])'
	fi
}

# txq_files DEV: DEV's dispatch_limit files in $FILES
txq_files()
{
	local g

	FILES=()
	for g in /sys/class/net/"$1"/queues/tx-*/dispatch_limit; do
		[ -e "$g" ] && FILES+=("$g")
	done
}

# all_equal DEV VALUE: every TX queue of DEV reads VALUE
all_equal()
{
	local f n=0

	txq_files "$1"
	for f in "${FILES[@]}"; do
		rd "$f"
		[ "$RD" = "$2" ] || { ktap_print_msg "$f: $RD != $2"; return 1; }
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { ktap_print_msg "$1: no dispatch_limit files"; return 1; }
}

# expect FILE VALUE ERRNO: the write of VALUE answers ERRNO (or OK)
expect()
{
	local q

	sysfs_write "$1" "$2"
	[ "$GOT" = "$3" ] && return 0
	printf -v q '%q' "$2"
	ktap_print_msg "write '$q' to $1: $GOT, expected $3"
	return 1
}

bad_writes_keep()
{
	local dev=$1 keep=$2 f v rc=0

	txq_files "$dev"
	for f in "${FILES[@]}"; do
		for v in "${BAD[@]}" "${BIG[@]}"; do
			if [[ " ${BIG[*]} " == *" $v "* ]]; then
				expect "$f" "$v" ERANGE || rc=1
			else
				expect "$f" "$v" EINVAL || rc=1
			fi
			rd "$f"
			[ "$RD" = "$keep" ] ||
				{ ktap_print_msg "$f changed to $RD"; rc=1; }
		done
		# a zero-length write never reaches the attribute
		expect "$f" "" OK || rc=1
		rd "$f"
		[ "$RD" = "$keep" ] || rc=1
	done
	return $rc
}

# absent DEV: DEV has TX queues, and none of them a dispatch_limit file
absent()
{
	local q n=0

	for q in /sys/class/net/"$1"/queues/tx-*; do
		[ -d "$q" ] || continue
		n=$((n + 1))
		[ -e "$q/dispatch_limit" ] &&
			{ ktap_print_msg "$q/dispatch_limit exists"; return 1; }
	done
	[ $n -gt 0 ] || { ktap_print_msg "$1: no TX queues"; return 1; }
}

round_trip()
{
	local f v rc=0

	txq_files "$1"
	for f in "${FILES[@]}"; do
		for v in 1 2 8 64 $MAX 0 16; do
			expect "$f" "$v"$'\n' OK || rc=1
			rd "$f"
			[ "$RD" = "$v" ] ||
				{ ktap_print_msg "$f: wrote $v, read $RD"; rc=1; }
		done
	done
	return $rc
}

# hidden_queue_cleared DEV: with a limit on every queue, ethtool -L down to
# one channel and back leaves the first queue's limit and clears the others'
# (a hidden queue keeps no limit: Documentation/networking/dispatch-limit.rst)
hidden_queue_cleared()
{
	local dev=$1 n rc=0 i f

	n=$(ethtool -l "$dev" | awk '/^Combined:/ { c = $2 } END { print c }')
	[ "${n:-0}" -ge 2 ] || { ktap_print_msg "$dev: $n channels"; return 1; }
	# up: a driver may apply a channel count to a down device at open
	ip link set dev "$dev" up || return 1
	txq_files "$dev"
	for f in "${FILES[@]}"; do expect "$f" 64 OK || return 1; done
	ethtool -L "$dev" combined 1 || return 1
	txq_files "$dev"
	[ ${#FILES[@]} -eq 1 ] || { ktap_print_msg "$dev: ${#FILES[@]} queues at -L 1"; rc=1; }
	ethtool -L "$dev" combined "$n" || return 1
	ip link set dev "$dev" down
	txq_files "$dev"
	[ ${#FILES[@]} -eq "$n" ] || { ktap_print_msg "$dev: ${#FILES[@]} queues"; rc=1; }
	for i in "${!FILES[@]}"; do
		rd "${FILES[i]}"
		[ "$RD" = "$([ "$i" = 0 ] && echo 64 || echo 0)" ] ||
			{ ktap_print_msg "${FILES[i]}: $RD after -L 1, -L $n"; rc=1; }
	done
	return $rc
}

non_root_refused()
{
	local f=$1 before

	before=$(cat "$f")
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "echo 0 > $f" 2>/dev/null; then
		ktap_print_msg "uid 65534 could write $f"
		return 1
	fi
	[ "$(cat "$f")" = "$before" ]
}

ktap_print_header
[ "$(id -u)" = 0 ] || { ktap_skip_all "needs root"; exit "$KSFT_SKIP"; }
if ! grep -qw netdev_dispatch_kick /proc/kallsyms; then
	ktap_skip_all "kernel without dispatch_limit"
	exit "$KSFT_SKIP"
fi
trap cleanup EXIT
ERR_FILE=$(mktemp /tmp/dl-abi.XXXXXX)

NO_OP=()
ip link add "$DUMMY" numtxqueues 2 type dummy && NO_OP+=("$DUMMY")
ip link add "$VETH" numtxqueues 2 type veth peer name dl-veth1 numtxqueues 2 &&
	NO_OP+=("$VETH")
if [ -d /sys/bus/pci/drivers/e1000e ] && nic_bind e1000e 0; then
	NO_OP+=("$(nic_ifname 0)")
fi
OP_DEV=
if [ -d "/sys/bus/pci/drivers/$DRIVER" ] && [ "$DRIVER" != e1000e ] &&
   nic_bind "$DRIVER" 1; then
	OP_DEV=$(nic_ifname 1)
fi

ktap_set_plan $((${#NO_OP[@]} + 5))

for dev in "${NO_OP[@]}"; do
	ktap_test_result "$dev ($(dev_kind "$dev")): no dispatch_limit on any TX queue" \
		absent "$dev"
done

if [ -n "$OP_DEV" ]; then
	ktap_test_result "$OP_DEV ($DRIVER): present and 0 on every TX queue" \
		all_equal "$OP_DEV" 0
	ktap_test_result "$OP_DEV ($DRIVER): 0..$MAX round-trip" round_trip "$OP_DEV"
	ktap_test_result "$OP_DEV ($DRIVER): bad writes get EINVAL or ERANGE, value 16 unchanged" \
		bad_writes_keep "$OP_DEV" 16
	ktap_test_result "$OP_DEV ($DRIVER): a queue hidden by ethtool -L loses its limit" \
		hidden_queue_cleared "$OP_DEV"
	txq_files "$OP_DEV"
	for f in "${FILES[@]}"; do echo 0 > "$f"; done
else
	for t in "present and 0" "round-trip" "bad writes keep the value" \
		 "a hidden queue loses its limit"; do
		ktap_test_skip "$DRIVER: $t (driver with ndo_xmit_flush not present)"
	done
fi

if [ -n "$OP_DEV" ]; then
	txq_files "$OP_DEV"
	f=${FILES[0]}
	ktap_test_result "non-root write to $f refused" non_root_refused "$f"
else
	ktap_test_skip "non-root write refused (no device with the file)"
fi
ktap_finished
