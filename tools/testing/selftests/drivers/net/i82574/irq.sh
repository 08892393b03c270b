#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MSI-X interrupt causes of $DRIVER (i82574 by default) as the 82574L
# needs them, from QEMU's register trace (lib.sh's reg_trace_*). NIC 0 and
# NIC 1 (in $PEER_NS, RX ring at its minimum) are both driven by $DRIVER;
# the window spans both interfaces going up and a pktgen flood from NIC 0
# to NIC 1 over many UDP flows, so that NIC 1's receive queues run full
# and its OTHER vector fires (RXO) while a queue cause waits in ICR for its
# masked vector. The events do not say which NIC wrote; both are $DRIVER.
#  - IAM holds the queue causes EIAC auto-clears: with CTRL_EXT.EIAME set,
#    the part masks a cause when its message is sent only if IAM has it,
#    and NAPI unmasks it (IAM's reset value is 0: no auto-mask at all);
#  - the OTHER vector's read of ICR clears every cause, queue causes
#    included: each read that returned queue causes is followed by an ICS
#    write raising them again (e1000e does the same), and the flood made
#    such a read happen at least once.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

EIAC=0xdc
IAM=0xe0
ICR=0xc0
ICS=0xc8
QUEUE_CAUSES=0x00f00000
PG=/proc/net/pktgen
FLOOD=${IRQ_FLOOD:-60000}
REC=()

ktap_print_header
reg_trace_require "$DRIVER"
ktap_set_plan 2

note()
{
	printf '# %s\n' "$*"
}

cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	echo rem_device_all > "$PG/kpktgend_0" 2>/dev/null
	wire_cleanup
	reg_trace_restore_others
}
trap cleanup EXIT

# flood: FLOOD 60-byte frames from NIC 0 to NIC 1 over 64 UDP source ports
flood()
{
	local mac c

	ip -n "$PEER_NS" -j link show "$IF_B" > /tmp/irq-peer.json &&
		mac=$(json_get /tmp/irq-peer.json "j[0]['address']") || return 1
	pktgen_clear || return 1
	echo "add_device $IF_A" > "$PG/kpktgend_0" || return 1
	for c in "count $FLOOD" "pkt_size 60" "delay 0" "burst 16" \
		 "dst $IP4_B" "dst_mac $mac" "udp_src_min 9" "udp_src_max 72" \
		 "flag UDPSRC_RND"; do
		echo "$c" > "$PG/$IF_A" || return 1
	done
	pktgen_go "$IF_A"
}

# window: both NICs bound, every other NIC down; traced from before the
# interfaces go up to the end of the flood, into REC
window()
{
	reg_trace_idle_others 0 1 || return 1
	nic_bind "$DRIVER" 0 1 || return 1
	reg_trace_on e1000e_core_write e1000e_core_read || return 1
	wire_setup 0 1 || return 1
	ip netns exec "$PEER_NS" ethtool -G "$IF_B" rx 64 || return 1
	wait_for 50 carrier_up "$IF_B" "$PEER_NS" || return 1
	flood || return 1
	reg_trace_off || return 1
	# only these registers' lines: bash parses one in about a millisecond
	mapfile -t REC < <(reg_trace_lines |
			   grep -E 'register 0x(c0|c8|dc|e0),' | reg_trace_parse)
	reg_trace_sound "${REC[@]}"
}

# iam_set: the last IAM write equals the last EIAC write, which has the
# queue causes
iam_set()
{
	local eiac iam

	reg_trace_last reg $EIAC "${REC[@]}" && eiac=$LAST
	reg_trace_last reg $IAM "${REC[@]}" && iam=$LAST
	note "last EIAC write ${eiac:-none}, last IAM write ${iam:-none}"
	[ -n "${eiac:-}" ] && [ -n "${iam:-}" ] && [ $((eiac)) -eq $((iam)) ] &&
		[ $((eiac & QUEUE_CAUSES)) -ne 0 ]
}

# reraised: every ICR read that returned queue causes has an ICS write of
# them after it (either NIC's, in any order), and there was such a read
reraised()
{
	local r k o v q reads=0 all=0 left=() i

	for r in "${REC[@]}"; do
		read -r k o v <<< "$r"
		if [ "$k" = rd ] && [ $((o)) -eq $((ICR)) ]; then
			all=$((all + 1))
			q=$((v & QUEUE_CAUSES))
			[ $q -ne 0 ] && reads=$((reads + 1)) && left+=("$q")
		elif [ "$k" = reg ] && [ $((o)) -eq $((ICS)) ]; then
			for i in "${!left[@]}"; do
				(( (v & left[i]) == left[i] )) || continue
				unset "left[$i]"
				break
			done
		fi
	done
	note "$all ICR reads, $reads with queue causes, ${#left[@]} of those" \
	     "not raised again through ICS"
	[ $reads -gt 0 ] && [ ${#left[@]} -eq 0 ]
}

window || ktap_exit_fail_msg "the traced bring-up and flood of NIC 0 -> NIC 1 failed"
note "$DRIVER: qemu-trace.log bytes $REG_TRACE_FROM..$REG_TRACE_TO, ${#REC[@]} records"
ktap_test_result "$DRIVER: IAM auto-masks the queue causes EIAC clears" iam_set
ktap_test_result "$DRIVER: OTHER's ICR read raises pending queue causes again (ICS)" \
	reraised
ktap_finished
