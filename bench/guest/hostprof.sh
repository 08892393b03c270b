#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: the workloads of make hostprof. For each variant (e1000e,
# i82574, i82574 with rx/tx-usecs 0, i82574 with one queue pair) an idle
# window (first two only), then iperf3 TCP 1 flow and UDP 18-byte payload
# 1 flow, 9 s each. 2 s into each window it prints "HOSTPROF go NAME" on
# the console, for the host to profile QEMU for the next 5 s, and at the
# end the result and the NIC interrupt rate as "HOSTPROF res/irq NAME ...".

. "${BUILD:-$(dirname "$(readlink -f "$0")")/../../build}/linux/tools/testing/selftests/drivers/net/i82574/lib.sh"
export RESULTS=/tmp

say() { echo "HOSTPROF $*" > /dev/console; }
both() { ethtool "$@" "$IF_A" > /dev/null && in_peer ethtool "$@" "$IF_B" > /dev/null; }
in_peer() { ip netns exec "$PEER_NS" "$@"; }
nic_irqs() { awk '/eth|i82574|e1000e/ { s += $2 + $3 } END { print s + 0 }' /proc/interrupts; }

window() # NAME [iperf3 client args]: one profiled window
{
	local name=$1 pid i0 i1

	shift
	in_peer iperf3 -s -1 -D -B "$IP4_B" --pidfile /tmp/ip.pid
	wait_for 30 test -s /tmp/ip.pid || return 1
	iperf3 -c "$IP4_B" -J -t 9 "$@" > "/tmp/$name.json" &
	pid=$!
	sleep 2
	say "go $name"
	i0=$(nic_irqs)
	wait $pid || return 1
	i1=$(nic_irqs)
	wait_for 50 test ! -e /tmp/ip.pid
	# shellcheck disable=SC2016 # python
	say "res $name $(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]
s = e.get("sum_received") or e["sum"]
if "lost_packets" in s:
    print("%.0f datagrams/s received" % ((s["packets"] - s["lost_packets"]) / s["seconds"]))
else:
    print("%.0f Mbit/s" % (s["bits_per_second"] / 1e6))' "/tmp/$name.json") irq $(((i1 - i0) / 7))/s"
}

for v in e1000e i82574 i82574-usecs0 i82574-1qp; do
	DRIVER=${v%%-*}
	export DRIVER
	wire_setup 0 1 > /dev/null || { say "error: wire setup for $v"; exit 1; }
	case $v in
	*-usecs0) both -C rx-usecs 0 tx-usecs 0 ;;
	*-1qp) both -L combined 1 ;;
	*)
		sleep 2
		say "go idle-$v"
		sleep 7
		;;
	esac
	window "tcp1-$v" || say "error: tcp1-$v"
	window "udp1-$v" -u -b 0 -l 18 || say "error: udp1-$v"
	wire_cleanup
done
say "done"
