#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: run benchmark cases A/B interleaved across drivers, one JSON
# line per measurement to $RESULTS/bench.jsonl.
# Usage: run.sh ROUNDS "DRIVER..." CASE...
. "${BUILD:-$(dirname "$(readlink -f "$0")")/../../build}/linux/tools/testing/selftests/drivers/net/i82574/lib.sh"
RESULTS=${RESULTS:-/run/results}
OUT=$RESULTS/bench.jsonl
rounds=$1 drivers=$2
shift 2

emit() # case driver round value unit
{
	printf '{"case":"%s","driver":"%s","round":%d,"value":%s,"unit":"%s"}\n' \
		"$@" >> "$OUT"
	echo "# bench: $1 $2 round $3: $4 $5"
}

case_tcp()
{
	iperf3_run "bench-tcp-$DRIVER" -t 5 -O 1 || return 1
	json_get "$RESULTS/bench-tcp-$DRIVER.json" \
		"round(j['end']['sum_received']['bits_per_second'] / 1e6, 1)"
}

# iperf3 UDP, 18-byte payload = 64-byte frames on the wire (with FCS),
# unlimited rate; the value is what the peer received per second.
case_udp64()
{
	iperf3_run "bench-udp64-$DRIVER" -u -b 0 -l 18 -t 5 || return 1
	json_get "$RESULTS/bench-udp64-$DRIVER.json" \
		"round((j['end']['sum']['packets'] - j['end']['sum']['lost_packets']) / j['end']['sum']['seconds'])"
}

# pktgen start_xmit, 60-byte frames to the peer, burst $1
pktgen_run()
{
	local burst=$1 count=${PKTGEN_COUNT:-100000} pg=/proc/net/pktgen
	local mac

	mac=$(ip netns exec "$PEER_NS" cat "/sys/class/net/$IF_B/address")
	echo rem_device_all > $pg/kpktgend_0
	echo "add_device $IF_A" > $pg/kpktgend_0
	for c in "count $count" "pkt_size 60" "delay 0" "burst $burst" \
		 "dst $IP4_B" "dst_mac $mac" "xmit_mode start_xmit"; do
		echo "$c" > "$pg/$IF_A"
	done
	echo start > $pg/pgctrl
	grep -o '[0-9]*pps' "$pg/$IF_A" | tr -d 'ps'
	echo rem_device_all > $pg/kpktgend_0
}
case_pktgen_b1() { pktgen_run 1; }
case_pktgen_b16() { pktgen_run 16; }

[ -e /proc/net/pktgen/pgctrl ] || { echo "no pktgen"; exit 1; }
for r in $(seq 1 "$rounds"); do
	for DRIVER in $drivers; do
		[ -d "/sys/bus/pci/drivers/$DRIVER" ] || continue
		wire_setup 0 1 || { echo "wire setup failed for $DRIVER"; exit 1; }
		for c in "$@"; do
			v=$("case_${c//-/_}") && [ -n "$v" ] ||
				{ echo "case $c failed on $DRIVER"; exit 1; }
			emit "$c" "$DRIVER" "$r" "$v" "$(case $c in tcp) echo Mbit/s ;; *) echo pps ;; esac)"
		done
		wire_cleanup
	done
done
