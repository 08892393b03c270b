#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP segmentation offload (TSO, TSO6) of $DRIVER (i82574 by default,
# DRIVER=e1000e for the baseline) on two NICs, NIC 0 here and NIC 1 in
# $PEER_NS, both driven by $DRIVER, on a QEMU 10.0 hub, which passes TCP
# segments (QEMU 7.2's sent IPv4 fragments instead and corrupted IPv6,
# which the reassembly counters below catch).
#
# Each iperf3 run (IPv4 and IPv6, both directions, MTU 1500 and 9000, over
# a VLAN: tag inserted by the device, and for i82574 also in the frame)
# checks that the receiver got the data as TCP segments: its NIC received
# at least bytes / (MTU - 40) frames, its IP reassembled no fragments, its
# TCP saw no checksum error; that the sender's driver counted TSO packets
# (i82574: tx_tso_packets, equal to the MAC's TSCTC, tx_tso_contexts;
# e1000e: TSCTC, tx_tcp_seg_good) and, for i82574, counted the segments,
# not the packets, in tx_packets (at least what the receiver got: e1000e
# reports the MAC's GPTC, which QEMU counts once per TSO packet); and that
# BQL has nothing in flight after it. Then ethtool -K tso off and on under
# iperf3 (no TSO while off, no link drop, no counter going back), and a TCP
# flow whose IPv6 headers (a 256-byte destination options header) no
# context descriptor can describe: every byte delivered, for i82574 through
# software GSO with no TSO counted. Last, from QEMU's trace of the TX
# descriptors the device fetches (e1000e_tx_descr), that under TSO no data
# descriptor of i82574 carries more than the TX FIFO less 96 bytes holds:
# 8096 bytes at MTU 1500 (an 8 KB FIFO) and at MTU 9000, as it splits every
# buffer for its smallest FIFO. e1000e sizes its split from PBA.TXA as the
# device reads it back, which QEMU's model does not report as silicon
# does (it splits at 24,576 bytes here), so the case is i82574's only.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

TIME=${TSO_TIME:-2}
VID=10
V4_VA=198.18.10.1
V4_VB=198.18.10.2
FALLBACK_BYTES=1000000

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 10
trap 'tso_cleanup; wire_cleanup' EXIT

tso_cleanup()
{
	ip link del "$IF_A.$VID" 2>/dev/null
	[ -n "${SRV_PID:-}" ] && kill "$SRV_PID" 2>/dev/null
	return 0
}

# on_side A|B: the side's interface and namespace in SIF and SNS
on_side()
{
	if [ "$1" = A ]; then
		SIF=$IF_A SNS=
	else
		SIF=$IF_B SNS=$PEER_NS
	fi
}

# ctr A|B NAME: a statistics/ counter of that side's NIC in $RD
ctr()
{
	on_side "$1"
	ns_file "$SNS" "/sys/class/net/$SIF/statistics/$2" && rd "$NS_FILE"
}

# tso_count A|B: the TSO counters of that side's NIC: TSO (the driver's,
# for e1000e the MAC's) and TSO_HW (the MAC's TSCTC)
tso_count()
{
	local k v cmd=(ethtool -S)

	on_side "$1"
	[ -n "$SNS" ] && cmd=(ip netns exec "$SNS" ethtool -S)
	TSO='' TSO_HW=''
	while read -r k v; do
		case $DRIVER:$k in
		i82574:tx_tso_packets:) TSO=$v ;;
		i82574:tx_tso_contexts:|e1000e:tx_tcp_seg_good:) TSO_HW=$v ;;
		esac
	done < <("${cmd[@]}" "$SIF")
	[ "$DRIVER" = e1000e ] && TSO=$TSO_HW
	[ -n "$TSO" ] && [ -n "$TSO_HW" ]
}

# rx_faults A|B 4|6: IP reassemblies and TCP checksum errors at that side
# in FAULTS (a sum: both must stay 0)
rx_faults()
{
	local k v reasm=0

	on_side "$1"
	snmp_get "$SNS" Tcp:InCsumErrors Ip:ReasmReqds || return 1
	reasm=${SNMP[1]}
	if [ "$2" = 6 ]; then
		ns_file "$SNS" /proc/net/snmp6 || return 1
		while read -r k v; do
			[ "$k" = Ip6ReasmReqds ] && reasm=$v
		done < "$NS_FILE"
	fi
	FAULTS=$((SNMP[0] + reasm))
}

# bql_idle A|B: BQL has nothing in flight on any TX queue of that side
bql_idle()
{
	local f

	on_side "$1"
	ns_file "$SNS" "/sys/class/net/$SIF/queues" || return 1
	for f in "$NS_FILE"/tx-*/byte_queue_limits/inflight; do
		rd "$f" && [ "$RD" = 0 ] || return 1
	done
}

# iperf NAME ADDR ARGS...: iperf3 from here to the peer's server at ADDR
# for $TIME s; the bytes the receiver got in BYTES. Fails on any error.
iperf()
{
	local name=$1 addr=$2 out=${RESULTS:-/tmp}/tso-$DRIVER-$1.json rc

	shift 2
	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$addr" \
		--pidfile /tmp/iperf3-tso.pid || return 1
	wait_for 30 test -s /tmp/iperf3-tso.pid
	iperf3 -c "$addr" -J -t "$TIME" "$@" > "$out"
	rc=$?
	wait_for 50 test ! -e /tmp/iperf3-tso.pid
	[ $rc = 0 ] && ! grep -q '"error"' "$out" || return 1
	BYTES=$(json_get "$out" "j['end']['sum_received']['bytes']")
}

# flow NAME OUT|IN ADDR 4|6 [ARGS...]: one iperf3 run out of this
# namespace (OUT) or into it (IN, iperf3 -R), and the checks above
flow()
{
	local name=$1 snd=A rcv=B addr=$3 fam=$4 tx0 rx0 f0 t0 h0 mtu segs
	local args=("${@:5}")

	[ "$2" = IN ] && snd=B rcv=A && args+=(-R)
	nap 0.3
	tso_count $snd && t0=$TSO h0=$TSO_HW &&
		ctr $snd tx_packets && tx0=$RD &&
		ctr $rcv rx_packets && rx0=$RD &&
		rx_faults $rcv "$fam" && f0=$FAULTS || return 1
	iperf "$name" "$addr" "${args[@]}" || return 1
	nap 0.5
	tso_count $snd && ctr $snd tx_packets && tx0=$((RD - tx0)) &&
		ctr $rcv rx_packets && rx0=$((RD - rx0)) &&
		rx_faults $rcv "$fam" && ctr $rcv ../mtu || return 1
	mtu=$RD segs=$((BYTES / (RD - 40)))
	ktap_print_msg "$name: $BYTES bytes; receiver's NIC got $rx0 frames" \
		"(at least $segs segments at MTU $mtu), sender sent $tx0;" \
		"TSO packets $((TSO - t0)), TSCTC $((TSO_HW - h0));" \
		"reassemblies + TCP checksum errors $((FAULTS - f0))"
	[ "$BYTES" -gt 0 ] && [ "$rx0" -ge "$segs" ] && [ $((FAULTS - f0)) = 0 ] &&
		[ $((TSO - t0)) -gt 0 ] || return 1
	# e1000e's tx_packets is the MAC's GPTC, which QEMU counts once per
	# TSO packet
	[ "$DRIVER" = e1000e ] ||
		{ [ $((tx0 + 5)) -ge "$rx0" ] && [ $((TSO - t0)) = $((TSO_HW - h0)) ]; } ||
		return 1
	wait_for 50 bql_idle $snd || { ktap_print_msg "BQL: bytes still in flight"; return 1; }
}

tso_on()
{
	local k v on=0 d

	while read -r k v; do
		case $k:$v in
		tx-tcp-segmentation::on|tx-tcp6-segmentation::on) on=$((on + 1)) ;;
		esac
	done < <(ethtool -k "$IF_A")
	ktap_print_msg "$IF_A: TSO and TSO6 on: $on of 2"
	[ $on = 2 ] || return 1
	[ "$DRIVER" = i82574 ] || return 0
	# 64 KiB, and 64 KiB at TCP's smallest MSS (48 bytes)
	d=$(ip -d link show "$IF_A")
	[[ $d == *"tso_max_size 65536 tso_max_segs 1366"* ]] ||
		{ ktap_print_msg "not the 82574's TSO limits: ${d//$'\n'/ }"; return 1; }
}

# set_mtu MTU: on both NICs, then wait for both carriers (a reset)
set_mtu()
{
	ip link set "$IF_A" mtu "$1" && ip -n "$PEER_NS" link set "$IF_B" mtu "$1" &&
		wait_for 100 carrier_up "$IF_A" && wait_for 100 carrier_up "$IF_B" "$PEER_NS"
}

jumbo()
{
	local rc=0

	set_mtu 9000 || rc=1
	if [ $rc = 0 ]; then
		flow mtu9000-v4 OUT "$IP4_B" 4 || rc=1
		flow mtu9000-v6 OUT "$IP6_B" 6 || rc=1
	fi
	set_mtu 1500 && return $rc
}

# over a VLAN: the tag inserted by the device (CMD.VLE in the TSO
# packet's data descriptors), then, with tx-vlan-offload off, in the frame,
# where the IP header starts at 18 as the context descriptor says
# (e1000e's tx-vlan-offload is fixed on)
vlan_tso()
{
	local rc=0

	ip link add link "$IF_A" name "$IF_A.$VID" type vlan id $VID &&
		ip addr add $V4_VA/24 dev "$IF_A.$VID" &&
		ip link set "$IF_A.$VID" up || return 1
	ip -n "$PEER_NS" -batch - <<-EOF || return 1
		link add link $IF_B name v$VID type vlan id $VID
		addr add $V4_VB/24 dev v$VID
		link set v$VID up
	EOF
	flow vlan$VID-v4 OUT $V4_VB 4 || rc=1
	if [ "$DRIVER" = i82574 ]; then
		ethtool -K "$IF_A" txvlan off > /dev/null &&
			flow vlan$VID-v4-inframe OUT $V4_VB 4 || rc=1
		ethtool -K "$IF_A" txvlan on > /dev/null
	fi
	ip link del "$IF_A.$VID"
	ip -n "$PEER_NS" link del v$VID
	return $rc
}

# counters_ok: none of the watched counters went back since the last call
COUNTERS=(statistics/rx_packets statistics/tx_packets statistics/rx_bytes
	  statistics/tx_bytes)
declare -A LAST
counters_ok()
{
	local f ok=0

	for f in "${COUNTERS[@]}"; do
		rd "/sys/class/net/$IF_A/$f"
		if [ "$RD" -lt "${LAST[$f]:-0}" ]; then
			ktap_print_msg "$f went back: ${LAST[$f]} -> $RD"
			ok=1
		fi
		LAST[$f]=$RD
	done
	tso_count A || return 1
	[ "$TSO" -ge "${LAST[tso]:-0}" ] || { ktap_print_msg "TSO count went back"; ok=1; }
	LAST[tso]=$TSO
	return $ok
}

# tso_past N: the TSO count of NIC 0 is past N
tso_past()
{
	tso_count A && [ "$TSO" -gt "$1" ]
}

# ethtool -K tso off and on under iperf3: no TSO while off, some again
# once on, the flow unbroken, no link drop, no counter going back
toggle()
{
	local out=${RESULTS:-/tmp}/tso-$DRIVER-toggle.json carrier pid rc=0 off on

	rd "/sys/class/net/$IF_A/carrier_changes"
	carrier=$RD
	counters_ok || return 1
	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$IP4_B" \
		--pidfile /tmp/iperf3-tso.pid || return 1
	wait_for 30 test -s /tmp/iperf3-tso.pid
	iperf3 -c "$IP4_B" -J -t $((4 * TIME)) > "$out" &
	pid=$!
	nap 1
	ethtool -K "$IF_A" tso off > /dev/null && nap 0.3 && counters_ok || rc=1
	off=${LAST[tso]}
	nap 1
	counters_ok || rc=1
	[ "${LAST[tso]}" = "$off" ] || { ktap_print_msg "TSO while off"; rc=1; }
	ethtool -K "$IF_A" tso on > /dev/null && wait_for 30 tso_past "$off" || rc=1
	counters_ok || rc=1
	on=${LAST[tso]}
	wait $pid || rc=1
	wait_for 50 test ! -e /tmp/iperf3-tso.pid
	counters_ok || rc=1
	ktap_print_msg "TSO packets: $off when switched off, still $off after 1 s," \
		"$on once on, ${LAST[tso]} at the end"
	[ "$on" -gt "$off" ] || { ktap_print_msg "no TSO after on"; rc=1; }
	rd "/sys/class/net/$IF_A/carrier_changes"
	[ "$RD" = "$carrier" ] || { ktap_print_msg "link dropped"; rc=1; }
	grep -q '"error"' "$out" && { ktap_print_msg "iperf3 reported an error"; rc=1; }
	[ $rc = 0 ] && wait_for 50 bql_idle A
}

# A TCP/IPv6 flow with a 256-byte destination options header (one
# option of type 0x1e, "skip if unknown", 252 bytes): headers of 352
# bytes, over the context descriptor's 255. It must go out through
# software GSO (the core strips TSO6 for extension headers, and
# i82574_features_check() would) and arrive whole.
SERVER='
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5299))
s.listen(1)
open(sys.argv[2], "w").close()
c, _ = s.accept()
n = 0
while True:
    b = c.recv(65536)
    if not b:
        break
    n += len(b)
print(n)
'
CLIENT='
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_DSTOPTS,
             bytes([0, 31, 0x1e, 252]) + bytes(252))
s.connect((sys.argv[1], 5299))
s.sendall(bytes(int(sys.argv[2])))
s.close()
'
fallback()
{
	local got=/tmp/tso-fallback.out ready=/tmp/tso-fallback.ready t0 f0 n

	rm -f "$got" "$ready"
	tso_count A && t0=$TSO && rx_faults B 6 && f0=$FAULTS || return 1
	ip netns exec "$PEER_NS" python3 -c "$SERVER" "$IP6_B" "$ready" > "$got" &
	SRV_PID=$!
	wait_for 100 test -e "$ready" || return 1
	python3 -c "$CLIENT" "$IP6_B" $FALLBACK_BYTES || return 1
	wait "$SRV_PID"
	SRV_PID=
	read -r n < "$got"
	tso_count A && rx_faults B 6 || return 1
	ktap_print_msg "$n of $FALLBACK_BYTES bytes arrived; TSO packets $((TSO - t0));" \
		"reassemblies + TCP checksum errors at the peer $((FAULTS - f0))"
	# e1000e offers NETIF_F_HW_CSUM, so the core leaves TSO6 on for
	# extension headers: QEMU, which parses them, segments what an
	# 82574 could not (HDRLEN has 8 bits)
	[ "$DRIVER" = e1000e ] || [ "$TSO" = "$t0" ] || return 1
	[ "$n" = $FALLBACK_BYTES ] && [ "$FAULTS" = "$f0" ] && wait_for 50 bql_idle A
}

# tx_data_lens: the trace lines on stdin, TX data descriptors (DEXT, DTYP
# 1) only: how many, and the longest buffer
tx_data_lens()
{
	python3 -c '
import sys
n = top = 0
for line in sys.stdin:
    if "e1000e_tx_descr" not in line:
        continue
    lower = int(line.rsplit(":", 1)[1].split()[0], 16)
    if lower >> 29 & 1 and lower >> 20 & 0xf == 1:
        n += 1
        top = max(top, lower & 0xfffff)
print(n, top)'
}

# fifo_fits MTU...: an iperf3 TSO flow out at each MTU, the device's TX
# descriptors traced: none longer than 8096 bytes, and, as TCP hands the
# driver fragments of up to 32 KB, some split at exactly that (at MTU 9000
# always; a slow kernel's TSO packets at 1500 may stay smaller)
fifo_fits()
{
	local mtu n max top=0 rc=0

	for mtu in "$@"; do
		set_mtu "$mtu" && reg_trace_on e1000e_tx_descr || { rc=1; break; }
		iperf "fifo-$mtu" "$IP4_B" || rc=1
		reg_trace_off || rc=1
		read -r n max < <(reg_trace_lines | tx_data_lens)
		ktap_print_msg "MTU $mtu: $n TX data descriptors, the longest $max bytes"
		[ "${n:-0}" -gt 0 ] && [ "$max" -le 8096 ] || rc=1
		[ "${max:-0}" -gt $top ] && top=$max
	done
	[ $top = 8096 ] || { ktap_print_msg "no buffer split at 8096 bytes"; rc=1; }
	set_mtu 1500 && return $rc
}

wire_setup 0 1 || ktap_exit_fail_msg "$DRIVER: wire setup failed"
ktap_test_result "$DRIVER: TSO and TSO6 on by default, the 82574's limits" tso_on
ktap_test_result "TSO IPv4 out: segments, no fragments, TSO counted, BQL idle" \
	flow v4-out OUT "$IP4_B" 4
ktap_test_result "TSO IPv4 in (-R): segments, no fragments, TSO counted, BQL idle" \
	flow v4-in IN "$IP4_B" 4
ktap_test_result "TSO6 out: segments, no fragments, TSO counted, BQL idle" \
	flow v6-out OUT "$IP6_B" 6
ktap_test_result "TSO6 in (-R): segments, no fragments, TSO counted, BQL idle" \
	flow v6-in IN "$IP6_B" 6
ktap_test_result "MTU 9000: TSO and TSO6 out, jumbo segments" jumbo
ktap_test_result "VLAN $VID: TSO, tag by the device and (i82574) in the frame" \
	vlan_tso
ktap_test_result "ethtool -K tso off and on under iperf3: no TSO while off, no link drop" \
	toggle
ktap_test_result "IPv6 headers over 255 bytes: all bytes arrive (i82574: software GSO), BQL idle" \
	fallback
if [ "$DRIVER" = i82574 ]; then
	ktap_test_result \
		"TSO at MTU 1500 and 9000: no TX buffer over the TX FIFO less 96 (8096 bytes)" \
		fifo_fits 1500 9000
else
	ktap_test_skip "TX buffers within the TX FIFO (e1000e reads PBA.TXA back from the model)"
fi
ktap_finished
