#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Basic functional checks of $DRIVER (i82574 by default) on two NICs across
# a QEMU hub, NIC 0 here and NIC 1 in $PEER_NS: link, MAC and driver info,
# iperf3 UDP both ways with every datagram accounted, per-queue traffic
# steered by RSS indirection and XPS to each queue pair in turn (netdev
# qstats: the steered queues carried it, the others nothing), jumbo MTU,
# unicast/promiscuous and multicast filtering, the unicast list (an
# upper device's address, more addresses than RARs), MAC address changes
# while up and while down (RAR 0 in the register dump), ethtool -G/-L/-C
# under traffic with monotonic counters, the settings checked in the device's
# registers (ethtool -d), refusal of invalid ring/channel settings, and
# the service task's interrupt on each idle queue vector.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

TOOLS=$(readlink -f "$DIR/../../../../..")
KSRC=$(readlink -f "$TOOLS/..")
NETDEV_SPEC=$KSRC/Documentation/netlink/specs/netdev.yaml
NIC_A=0
NIC_B=1
TMPD=$(mktemp -d /tmp/i82574_basic.XXXXXX)

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 42

# check DESCRIPTION CMD...: like ktap_test_result, but CMD keeps its quoting
check()
{
	local desc=$1

	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

cleanup()
{
	[ -n "${BG_PID:-}" ] && kill "$BG_PID" 2>/dev/null
	[ -n "${L2_RX:-}" ] && kill "$L2_RX" 2>/dev/null
	[ -n "${L2_TX:-}" ] && kill "$L2_TX" 2>/dev/null
	if [ -n "${IF_A:-}" ]; then
		ip link set "$IF_A" mtu 1500 promisc off 2>/dev/null
		# leave the defaults to the next test if we stopped half-way
		[ -n "${RING_RX0:-}" ] && ethtool -G "$IF_A" rx "$RING_RX0" \
			tx "$RING_TX0" 2>/dev/null
		[ -n "${CHAN0:-}" ] && ethtool -L "$IF_A" combined "$CHAN0" 2>/dev/null
		[ -n "${USECS0:-}" ] && ethtool -C "$IF_A" adaptive-rx "$ADAPT0" \
			rx-usecs "$USECS0" tx-usecs "$TX_USECS0" 2>/dev/null
		ip neigh del "$IP4_B" dev "$IF_A" 2>/dev/null
	fi
	wire_cleanup
	if [ -n "${IF_B:-}" ]; then
		ip link set "$IF_B" mtu 1500 promisc off 2>/dev/null
		ip maddr del 01:00:5e:01:02:03 dev "$IF_B" 2>/dev/null
	fi
	rm -rf "$TMPD"
}
trap cleanup EXIT

# peer CMD...: run CMD in the peer namespace
peer()
{
	ip netns exec "$PEER_NS" "$@"
}

# in_ns NETNS CMD...: run CMD in NETNS, or here if NETNS is ""
in_ns()
{
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

nic_reclaim 1

if wire_setup "$NIC_A" "$NIC_B"; then
	ktap_test_pass "$DRIVER: two NICs bound, moved, addressed and up"
else
	ktap_exit_fail_msg "$DRIVER: wire setup failed"
fi

# --- link, MAC, driver ------------------------------------------------------

link_ok()
{
	local ifn=$1 ns=$2

	[[ $(in_ns "$ns" ip -o link show dev "$ifn") == *" state UP "* ]] ||
		return 1
	carrier_up "$ifn" "$ns" || return 1
	[[ $(in_ns "$ns" ethtool "$ifn") == *"Link detected: yes"* ]]
}
check "link up, carrier and ethtool link on both ends" \
	eval 'link_ok "$IF_A" "" && link_ok "$IF_B" "$PEER_NS"'

# QEMU (harness/vm.py) programs nic N with 52:54:00:12:<hub>:<N>
eeprom_mac()
{
	printf '52:54:00:12:%02x:%02x' $(($1 / 2)) "$1"
}
mac_ok()
{
	local ifn=$1 ns=$2 want cur perm

	want=$(eeprom_mac "$3")
	cur=$(in_ns "$ns" cat "/sys/class/net/$ifn/address")
	perm=$(in_ns "$ns" ethtool -P "$ifn" | awk '{print $NF}')
	ktap_print_msg "$ifn: address $cur, permanent $perm, expected $want"
	[ "$cur" = "$want" ] && [ "$perm" = "$want" ] &&
		[ "$(in_ns "$ns" cat "/sys/class/net/$ifn/addr_assign_type")" = 0 ]
}
check "MAC address is the EEPROM one on both NICs" \
	eval 'mac_ok "$IF_A" "" $NIC_A && mac_ok "$IF_B" "$PEER_NS" $NIC_B'

drvinfo_ok()
{
	[ "$(in_ns "$2" ethtool -i "$1" | awk '/^driver:/{print $2}')" = "$DRIVER" ] &&
		[ "$(in_ns "$2" ethtool -i "$1" | awk '/^bus-info:/{print $2}')" = "$3" ]
}
check "ethtool -i: driver $DRIVER, bus-info matches" \
	eval 'drvinfo_ok "$IF_A" "" $(nic_bdf $NIC_A) &&
	      drvinfo_ok "$IF_B" "$PEER_NS" $(nic_bdf $NIC_B)'

# --- iperf3 UDP -------------------------------------------------------------

# udp_ok NAME [-R]: iperf3 UDP from here to the peer (-R: the other way);
# every datagram the sender's UDP sent (Udp OutDatagrams) arrived at the
# receiver's UDP (lib.sh: udp_arrived), counted by the kernel on both ends
# since iperf3 stops counting at the end of the test
udp_ok()
{
	local name=udp-$DRIVER-$1 rns=$PEER_NS sns="" out0 arr0 out arr
	shift

	[ "${1:-}" = -R ] && { rns=""; sns=$PEER_NS; }
	out0=$(snmp "$sns" Udp OutDatagrams)
	arr0=$(udp_arrived "$rns")
	iperf3_run "$name" -u -b 50M -t 2 "$@" || return 1
	out=$(($(snmp "$sns" Udp OutDatagrams) - out0))
	wait_for 100 udp_arrived_all "$rns" "$arr0" "$out"
	nap 0.3
	arr=$(($(udp_arrived "$rns") - arr0))
	ktap_print_msg "$name: UDP out $out, arrived $arr; iperf3:" \
		"$(json_get "${RESULTS:-/tmp}/$name.json" \
		"'%d packets, %d lost' % (j['end']['sum']['packets'],
		 j['end']['sum']['lost_packets'])")"
	[ "$out" -gt 0 ] && [ "$arr" -eq "$out" ]
}
check "iperf3 UDP out of the namespace" udp_ok out
check "iperf3 UDP into the namespace (-R)" udp_ok in -R

# --- per-queue traffic (RSS, TX queue selection) --------------------------

# snap NAME: per-queue netdev qstats of every device here into $TMPD/qa.NAME
# and in $PEER_NS into qb.NAME, as lines "ifindex type id packets"; one
# python3 for both (interpreter start-up is slow under TCG)
QS_PY='
import ctypes, sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily
def snap(out):
    with open(out, "w") as f:
        for q in YnlFamily(sys.argv[2], "").dump("qstats-get", {"scope": "queue"}):
            t = q["queue-type"]
            print(q["ifindex"], t, q["queue-id"], q.get(t + "-packets", 0), file=f)
snap(sys.argv[3])
with open("/run/netns/" + sys.argv[4]) as ns:
    if ctypes.CDLL(None, use_errno=True).setns(ns.fileno(), 0x40000000):
        sys.exit("setns: errno %d" % ctypes.get_errno())
snap(sys.argv[5])
'
snap()
{
	python3 -c "$QS_PY" "$TOOLS/net/ynl" "$NETDEV_SPEC" "$TMPD/qa.$1" \
		"$PEER_NS" "$TMPD/qb.$1"
}
ifindex()
{
	ns_cat "$2" "/sys/class/net/$1/ifindex"
}

# queue_took SIDE IFINDEX Q: from snapshot pre$Q to post$Q, tx-Q and rx-Q of
# IFINDEX moved packets and the other queue pair's moved none
# qs_load FILE IFINDEX ARRAY: IFINDEX's "type id" -> packets from FILE
qs_load()
{
	local -n to=$3
	local i t q n

	to=()
	while read -r i t q n; do
		[ "$i" = "$2" ] && to["$t $q"]=$n
	done < "$1"
}

queue_took()
{
	local t q b a d rc=0 m="ifindex $2, steered to $3:"
	local -A pre post

	qs_load "$TMPD/$1.pre$3" "$2" pre
	qs_load "$TMPD/$1.post$3" "$2" post
	for t in tx rx; do
		for q in 0 1; do
			b=${pre["$t $q"]:-}
			a=${post["$t $q"]:-}
			if [ -z "$a" ] || [ -z "$b" ]; then
				m+=" $t-$q none"
				rc=1
				continue
			fi
			d=$((a - b))
			m+=" $t-$q +$d"
			if [ $q = "$3" ]; then
				[ $d -gt 0 ] || rc=1
			else
				[ $d -eq 0 ] || rc=1
			fi
		done
	done
	ktap_print_msg "$m"
	return $rc
}

# Flows spread over the queues by hash only with some probability (four
# iperf3 flows once all landed on the peer's rx-0), so steer instead:
# steer NETNS IFNAME Q: every RSS-hashed frame IFNAME receives to rx-Q
# (ethtool -X weight), every frame it sends to tx-Q (xps_cpus: all CPUs on
# tx-Q, none on the other)
ALL_CPUS=$(printf %x $(((1 << $(nproc)) - 1)))
steer()
{
	local w="1 0" x0=$ALL_CPUS x1=0

	[ "$3" = 1 ] && { w="0 1"; x0=0; x1=$ALL_CPUS; }
	in_ns "$1" ethtool -X "$2" weight $w &&
		in_ns "$1" sh -c "echo $x0 > /sys/class/net/$2/queues/tx-0/xps_cpus &&
				 echo $x1 > /sys/class/net/$2/queues/tx-1/xps_cpus"
}

steer_both()
{
	steer "" "$IF_A" "$1" && steer "$PEER_NS" "$IF_B" "$1"
}

# steered_run Q: iperf3 TCP both ways, both ends steered to queue pair Q
# since snapshot pre$Q; then snapshot post$Q
steered_run()
{
	iperf3_run "mq-$DRIVER-q$1-out" -t 1 -P 2 &&
		iperf3_run "mq-$DRIVER-q$1-in" -t 1 -P 2 -R &&
		snap "post$1"
}

# unsteer NETNS IFNAME: the default indirection table and XPS maps back
unsteer()
{
	in_ns "$1" ethtool -X "$2" default
	in_ns "$1" sh -c "echo $3 > /sys/class/net/$2/queues/tx-0/xps_cpus;
			 echo $4 > /sys/class/net/$2/queues/tx-1/xps_cpus"
}

# Only frames RSS does not hash (ARP here) ignore the steering and land on
# rx-0: fixed neighbour entries on both ends keep ARP off the wire meanwhile.
MAC_A=$(cat "/sys/class/net/$IF_A/address")
PEER_MAC=$(ns_cat "$PEER_NS" "/sys/class/net/$IF_B/address")
XPS_A=$(cat /sys/class/net/"$IF_A"/queues/tx-{0,1}/xps_cpus 2>/dev/null | tr -d , | xargs)
XPS_B=$(in_ns "$PEER_NS" sh -c "cat /sys/class/net/$IF_B/queues/tx-[01]/xps_cpus" 2>/dev/null |
	tr -d , | xargs)
STEERED=0
ip neigh replace "$IP4_B" lladdr "$PEER_MAC" dev "$IF_A" nud permanent &&
	peer ip neigh replace "$IP4_A" lladdr "$MAC_A" dev "$IF_B" nud permanent &&
	steer_both 0 && STEERED=1
QS_OK=0
snap pre0 && QS_OK=1
check "netdev qstats per queue readable (ynl qstats-get)" \
	eval '[ $QS_OK = 1 ] && [ $(wc -l < $TMPD/qa.pre0) -ge 4 ] &&
	      [ $(wc -l < $TMPD/qb.pre0) -ge 4 ]'

mq_ok()
{
	local rc=0

	[ $STEERED = 1 ] && [ $QS_OK = 1 ] && steered_run 0 &&
		steer_both 1 && snap pre1 && steered_run 1 || rc=1
	# shellcheck disable=SC2086 # two masks
	unsteer "" "$IF_A" $XPS_A
	# shellcheck disable=SC2086 # two masks
	unsteer "$PEER_NS" "$IF_B" $XPS_B
	ip neigh del "$IP4_B" dev "$IF_A"
	peer ip neigh del "$IP4_A" dev "$IF_B"
	return $rc
}
check "iperf3 TCP both ways, steered to queue pair 0, then 1 (ethtool -X weight, xps_cpus)" \
	mq_ok

qs_both()
{
	local rc=0

	queue_took "$1" "$2" 0 || rc=1
	queue_took "$1" "$2" 1 || rc=1
	return $rc
}
check "$IF_A (here): traffic steered to queue pair 0, then 1, on its tx/rx queues only" \
	qs_both qa "$(ifindex "$IF_A")"
check "$IF_B (peer): traffic steered to queue pair 0, then 1, on its tx/rx queues only" \
	qs_both qb "$(ifindex "$IF_B" "$PEER_NS")"

# --- RSS by behaviour: the key and table the device holds -------------------

# rss_flows WHAT: TCP flows from the peer on the queues the Toeplitz hash of
# the key and table ethtool -x reads back gives (rss_flows.py)
rss_flows()
{
	local l rc

	python3 "$DIR/rss_flows.py" "$IF_A" "$PEER_NS" "$IF_B" "$TOOLS/net/ynl" \
		"$NETDEV_SPEC" > "$TMPD/rss" 2>&1
	rc=$?
	while read -r l; do ktap_print_msg "$1: $l"; done < "$TMPD/rss"
	return $rc
}

RSS_KEY0=$(ethtool -x "$IF_A" | awk '/RSS hash key:/ { getline; print $1 }')
# rss_set WHAT ARGS...: ethtool -X ARGS, then rss_flows WHAT
rss_set()
{
	local what=$1

	shift
	ethtool -X "$IF_A" "$@" && rss_flows "$what"
}
check "RSS: TCP flows on the queue the Toeplitz hash of the key and table gives" \
	rss_flows "defaults"
check "RSS: the same after a new key and table (ethtool -X hkey, weight 1 3)" \
	rss_set "new key, weight 1 3" weight 1 3 hkey "$(printf '%02x:' {101..139})8c"
ethtool -X "$IF_A" default
[ -n "$RSS_KEY0" ] && ethtool -X "$IF_A" hkey "$RSS_KEY0"

# --- jumbo MTU --------------------------------------------------------------

mtu_set()
{
	ip link set "$IF_A" mtu "$1" && peer ip link set "$IF_B" mtu "$1" &&
		[ "$(cat "/sys/class/net/$IF_A/mtu")" = "$1" ] &&
		[ "$(ns_cat "$PEER_NS" "/sys/class/net/$IF_B/mtu")" = "$1" ] &&
		wait_for 50 carrier_up "$IF_A" &&
		wait_for 50 carrier_up "$IF_B" "$PEER_NS"
}
check "MTU 9000 on both ends" mtu_set 9000
check "ping -s 8900 -M do both ways at MTU 9000" \
	eval "ping -c 3 -i 0.2 -W 2 -s 8900 -M do $IP4_B >/dev/null &&
	      peer ping -c 3 -i 0.2 -W 2 -s 8900 -M do $IP4_A >/dev/null"
jumbo_tcp_ok()
{
	local f=${RESULTS:-/tmp}/jumbo-$DRIVER.json bytes

	iperf3_run "jumbo-$DRIVER" -t 2 || return 1
	bytes=$(json_get "$f" "j['end']['sum_received']['bytes']")
	ktap_print_msg "jumbo TCP: $bytes bytes received"
	[ "$bytes" -gt 0 ]
}
check "iperf3 TCP at MTU 9000" jumbo_tcp_ok
check "MTU back to 1500, ping -s 1472 -M do both ways" \
	eval "mtu_set 1500 &&
	      ping -c 3 -i 0.2 -W 2 -s 1472 -M do $IP4_B >/dev/null &&
	      peer ping -c 3 -i 0.2 -W 2 -s 1472 -M do $IP4_A >/dev/null &&
	      ! ping -c 1 -W 1 -s 1473 -M do $IP4_B >/dev/null 2>&1"

# --- L2 filtering: unicast, promiscuous, multicast -----------------------

FOREIGN_UC=02:00:00:5e:aa:01
MC_JOINED=01:00:5e:01:02:03	# MTA hash 0x030
MC_OTHER=01:00:5e:01:07:99	# MTA hash 0x990, no default group hashes there

# test frames from here, counted by the peer (lib.sh's l2_start)
mkdir "$TMPD/l2" && l2_start "$PEER_NS" "$IF_B" "" "$IF_A" "$TMPD/l2" ||
	ktap_print_msg "cannot start the test frames' receiver and sender"
flag_off()
{
	! peer ip -d link show "$IF_B" | head -1 | grep -q "$1"
}

check "unicast to the peer's own MAC is received" \
	l2_expect_rx "$PEER_MAC" "to $PEER_MAC"
check "unicast to a foreign MAC is dropped without promisc" \
	eval 'flag_off PROMISC && l2_expect_drop $FOREIGN_UC "foreign, promisc off"'
check "unicast to a foreign MAC is received with promisc on" \
	eval 'peer ip link set $IF_B promisc on &&
	      l2_expect_rx $FOREIGN_UC "foreign, promisc on"'
check "foreign unicast dropped again after promisc off" \
	eval 'peer ip link set $IF_B promisc off && flag_off PROMISC &&
	      l2_expect_drop $FOREIGN_UC "foreign, promisc off again"'
check "multicast to a non-joined group is dropped (no allmulti)" \
	eval 'flag_off ALLMULTI && l2_expect_drop $MC_JOINED "$MC_JOINED not joined yet"'
check "multicast to a joined group is received" \
	eval 'peer ip maddr add $MC_JOINED dev $IF_B &&
	      l2_expect_rx $MC_JOINED "$MC_JOINED joined"'
check "multicast to another non-joined group is still dropped" \
	eval 'flag_off ALLMULTI && l2_expect_drop $MC_OTHER "$MC_OTHER not joined"'
check "multicast to a left group is dropped again" \
	eval 'peer ip maddr del $MC_JOINED dev $IF_B &&
	      l2_expect_drop $MC_JOINED "$MC_JOINED left"'

# The unicast list (RAR 1 and up), promisc off: the address of an upper
# device of its own (a VLAN here; a macvlan adds its address the same way).
# Without IPv6 on it: its link-local address's solicited-node group would
# put the same hash as its MAC into the MTA, which QEMU's model (the
# MTA's inexact filter) applies to unicast as well.
UPPER_MAC=02:00:00:5e:aa:11
check "unicast to an upper device's own address is received (unicast list)" \
	eval 'peer ip link add link $IF_B name l2up address $UPPER_MAC type vlan id 77 &&
	      peer ip link set l2up addrgenmode none &&
	      peer ip link set l2up up && flag_off PROMISC &&
	      l2_expect_rx $UPPER_MAC "to the VLAN device'"'"'s $UPPER_MAC"'
check "unicast to a deleted upper device's address is dropped" \
	eval 'peer ip link del l2up && flag_off PROMISC &&
	      l2_expect_drop $UPPER_MAC "to $UPPER_MAC, VLAN device gone"'
# more addresses than RARs (16, the device's own in RAR 0): unicast
# promiscuous, until they are gone again
uc_many()
{
	local i

	for ((i = 1; i <= $1; i++)); do
		peer bridge fdb "$2" "02:00:00:5e:ab:$(printf %02x $i)" dev "$IF_B" \
			self permanent || return 1
	done
}
check "unicast list longer than the RARs: foreign unicast received" \
	eval 'uc_many 16 add && flag_off PROMISC &&
	      l2_expect_rx 02:00:00:5e:ab:10 "to the 16th listed address" &&
	      l2_expect_rx $FOREIGN_UC "foreign, 16 listed addresses"'
check "unicast list back within the RARs: foreign unicast dropped" \
	eval 'uc_many 16 del && uc_many 15 add &&
	      l2_expect_rx 02:00:00:5e:ab:0f "to the 15th listed address" &&
	      l2_expect_drop $FOREIGN_UC "foreign, 15 listed addresses" &&
	      uc_many 15 del'

# rar0_is MAC: the peer's RAR 0 (words 40 and 41 of its register dump)
# holds MAC, marked valid. (Frames to the old address may still pass: the
# MTA's inexact filter applies to unicast too, and the solicited-node
# group of the old link-local address hashes as the old MAC does.)
rar0_is()
{
	local d m

	# shellcheck disable=SC2207 # numbers
	d=($(peer ethtool -d "$IF_B" raw on | od -An -tu4 -v))
	IFS=: read -r -a m <<< "$1"
	ktap_print_msg "$IF_B RAR 0: $(printf 'RAL %08x RAH %08x' "${d[40]}" "${d[41]}")"
	[ "${d[40]}" -eq $((0x${m[3]}${m[2]}${m[1]}${m[0]})) ] &&
		[ "${d[41]}" -eq $((0x80000000 | 0x${m[5]}${m[4]})) ]
}

# ndo_set_mac_address: RAR 0 written while up, and at up after a change
# made while down
NEW_MAC=02:00:00:5e:aa:21
DOWN_MAC=02:00:00:5e:aa:22
check "MAC changed while up: the new address received, in RAR 0" \
	eval 'peer ip link set $IF_B address $NEW_MAC &&
	      l2_expect_rx $NEW_MAC "to the new $NEW_MAC" $NEW_MAC && rar0_is $NEW_MAC'
check "MAC changed while down: the new address received after up" \
	eval 'peer ip link set $IF_B down &&
	      peer ip link set $IF_B address $DOWN_MAC &&
	      peer ip link set $IF_B up && wait_for 100 carrier_up $IF_B $PEER_NS &&
	      l2_expect_rx $DOWN_MAC "to $DOWN_MAC, set while down" $DOWN_MAC &&
	      l2_expect_drop $NEW_MAC "to $NEW_MAC, replaced while down" $DOWN_MAC &&
	      rar0_is $DOWN_MAC'
peer ip link set "$IF_B" address "$PEER_MAC"

l2_stop

# --- ethtool -G/-L/-C under traffic -----------------------------------------

ring_cur()	# ring_cur IFNAME RX|TX
{
	ethtool -g "$1" | awk -v k="$2:" '/^Current/{c=1} c && $1==k {print $2}'
}
chan_cur()
{
	ethtool -l "$1" | awk '/^Current/{c=1} c && $1=="Combined:" {print $2}'
}
usecs_cur()
{
	ethtool -c "$1" | awk '$1=="rx-usecs:" {print $2}'
}
tx_usecs_cur()
{
	ethtool -c "$1" | awk '$1=="tx-usecs:" {print $2}'
}
adaptive_rx_cur()
{
	ethtool -c "$1" | awk '/^Adaptive RX:/ {print $3}'
}

# What the device holds, not what the driver remembers: its register dump
# (ethtool -d, i82574_get_regs()), words in i82574_dump_regs[] order.
R_EITR=7		# EITR(v): word R_EITR + v; queue pair q's vector is q + 1
R_LEN="18 28 23 35"	# RDLEN(0) TDLEN(0) RDLEN(1) TDLEN(1)

# reg_words IFNAME WORD...: those 32-bit words of IFNAME's register dump
reg_words()
{
	local d w

	# shellcheck disable=SC2207 # numbers
	d=($(ethtool -d "$1" raw on | od -An -tu4 -v))
	[ ${#d[@]} -gt 35 ] || return 1
	shift
	for w; do
		echo -n "${d[w]} "
	done
}

# rings_hw IFNAME QPS RX TX: RDLEN and TDLEN of the QPS queue pairs in use
# hold RX and TX descriptors of 16 bytes, those of an unused pair 0
rings_hw()
{
	local q want="" got

	for q in 0 1; do
		if [ $q -lt "$2" ]; then
			want+="$(($3 * 16)) $(($4 * 16)) "
		else
			want+="0 0 "
		fi
	done
	# shellcheck disable=SC2086 # word list
	got=$(reg_words "$1" $R_LEN) || return 1
	ktap_print_msg "$1: RDLEN/TDLEN of queue pairs 0, 1: $got(want $want)"
	[ "$got" = "$want" ]
}

# coal_words IFNAME QPS: EITR of the QPS queue pairs' vectors
coal_words()
{
	local q w=()

	for ((q = 0; q < $2; q++)); do
		w+=($((R_EITR + 1 + q)))
	done
	reg_words "$1" "${w[@]}"
}

# coal_hw IFNAME QPS USECS: EITR of each queue pair's vector holds USECS in
# the driver's units (i82574_usecs_to_itr(): 4 per microsecond)
coal_hw()
{
	local q want="" got

	for ((q = 0; q < $2; q++)); do
		want+="$(($3 * 4)) "
	done
	got=$(coal_words "$1" "$2") || return 1
	ktap_print_msg "$1: EITR of the queue vectors: $got(want $want)"
	[ "$got" = "$want" ]
}

# counters_sample: append one line of rx/tx packets/bytes of both ends
# (the same dev_get_stats() as ip -s; the peer's in one process, as that
# costs 0.4-0.7 s on the debug kernel)
STATS=(rx_packets rx_bytes tx_packets tx_bytes)
counters_sample()
{
	local k line=() peer_line

	for k in "${STATS[@]}"; do
		rd "/sys/class/net/$IF_A/statistics/$k" || return 1
		line+=("$RD")
	done
	peer_line=$(ns_cat "$PEER_NS" "${STATS[@]/#//sys/class/net/$IF_B/statistics/}") ||
		return 1
	# shellcheck disable=SC2086 # four lines into four words
	echo "${line[@]}" $peer_line >> "$TMPD/samples"
}

RING_RX0=$(ring_cur "$IF_A" RX)
RING_TX0=$(ring_cur "$IF_A" TX)
CHAN0=$(chan_cur "$IF_A")
USECS0=$(usecs_cur "$IF_A")
TX_USECS0=$(tx_usecs_cur "$IF_A")
ADAPT0=$(adaptive_rx_cur "$IF_A")
EITR0=$(coal_words "$IF_A" "$CHAN0")
ktap_print_msg "$IF_A defaults: rings rx $RING_RX0 tx $RING_TX0," \
	"combined $CHAN0, rx-usecs $USECS0, tx-usecs $TX_USECS0," \
	"adaptive-rx $ADAPT0, EITR $EITR0"

: > "$TMPD/samples"
counters_sample
ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$IP4_B" \
	--pidfile "$TMPD/iperf3-srv.pid"
wait_for 30 test -s "$TMPD/iperf3-srv.pid"
# flow_now: "RX TX" bytes of $IF_A so far in $FLOW
flow_now()
{
	rd "/sys/class/net/$IF_A/statistics/rx_bytes" || return 1
	FLOW=$RD
	rd "/sys/class/net/$IF_A/statistics/tx_bytes" || return 1
	FLOW+=" $RD"
}
# flowing: both directions of $IF_A moved 64 KiB since $FLOW0
flowing()
{
	flow_now || return 1
	[ $((${FLOW% *} - ${FLOW0% *})) -ge 65536 ] &&
		[ $((${FLOW#* } - ${FLOW0#* })) -ge 65536 ]
}

# -t is only a ceiling: the client runs until both directions have moved
# data after the last reconfiguration, then gets SIGTERM (on a slow guest
# the reconfigurations outlast any fixed run)
flow_now
FLOW0=$FLOW
iperf3 -c "$IP4_B" -J -t 900 -P 2 --bidir \
	> "${RESULTS:-/tmp}/reconfig-$DRIVER.json" &
BG_PID=$!
wait_for 600 flowing
counters_sample

# reconf NAME CMD... CHECK: run a reconfiguration under traffic, check
# its effect, take a counter sample
reconf()
{
	local rc=0

	"$@" || rc=1
	nap 0.5
	counters_sample || rc=1
	return $rc
}
check "under traffic: ethtool -G rx 512 tx 128" \
	reconf eval 'ethtool -G $IF_A rx 512 tx 128 &&
		     [ "$(ring_cur $IF_A RX)" = 512 ] && [ "$(ring_cur $IF_A TX)" = 128 ] &&
		     rings_hw $IF_A $CHAN0 512 128'
check "under traffic: ethtool -L combined 1" \
	reconf eval 'ethtool -L $IF_A combined 1 && [ "$(chan_cur $IF_A)" = 1 ] &&
		     [ $(ls -d /sys/class/net/$IF_A/queues/rx-* | wc -l) = 1 ] &&
		     rings_hw $IF_A 1 512 128'
check "under traffic: ethtool -C rx-usecs 100 tx-usecs 100" \
	reconf eval 'ethtool -C $IF_A adaptive-rx off rx-usecs 100 tx-usecs 100 &&
		     [ "$(usecs_cur $IF_A)" = 100 ] && coal_hw $IF_A 1 100'
check "under traffic: ethtool -L combined 2" \
	reconf eval 'ethtool -L $IF_A combined 2 && [ "$(chan_cur $IF_A)" = 2 ] &&
		     [ $(ls -d /sys/class/net/$IF_A/queues/rx-* | wc -l) = 2 ] &&
		     rings_hw $IF_A 2 512 128 && coal_hw $IF_A 2 100'
restore="-G rx $RING_RX0 tx $RING_TX0, -C rx-usecs $USECS0 tx-usecs $TX_USECS0"
check "under traffic: $restore adaptive-rx $ADAPT0" \
	reconf eval 'ethtool -G $IF_A rx $RING_RX0 tx $RING_TX0 &&
		     ethtool -C $IF_A adaptive-rx $ADAPT0 rx-usecs $USECS0 \
			tx-usecs $TX_USECS0 &&
		     [ "$(adaptive_rx_cur $IF_A)" = "$ADAPT0" ] &&
		     [ "$(ring_cur $IF_A RX)" = "$RING_RX0" ] &&
		     [ "$(usecs_cur $IF_A)" = "$USECS0" ] &&
		     rings_hw $IF_A $CHAN0 $RING_RX0 $RING_TX0 &&
		     [ "$(coal_words $IF_A $CHAN0)" = "$EITR0" ]'

bg_iperf_ok()
{
	local f=${RESULTS:-/tmp}/reconfig-$DRIVER.json err bytes rbytes moved=1

	flow_now
	FLOW0=$FLOW
	wait_for 600 flowing || moved=0
	kill "$BG_PID"
	wait "$BG_PID"
	BG_PID=
	wait_for 50 test ! -e "$TMPD/iperf3-srv.pid"
	counters_sample
	# SIGTERM's handler longjmps out of whatever iperf3 was doing: in the
	# middle of an interval report, that interval has no sums (seen once)
	IFS=$'\t' read -r err bytes rbytes <<< "$(json_get "$f" \
		"'%s\t%d\t%d' % (j.get('error'),
		 sum(i['sum']['bytes'] for i in j['intervals'] if 'sum' in i),
		 sum(i['sum_bidir_reverse']['bytes'] for i in j['intervals']
		     if 'sum_bidir_reverse' in i))")"
	# stopped by SIGTERM, it reports what it moved with this error only
	[ "$err" = "interrupt - the client has terminated" ] || return 1
	ktap_print_msg "iperf3 across reconfiguration: $bytes bytes out," \
		"$rbytes bytes back; both ways after the last one: $moved"
	[ "$bytes" -gt 0 ] && [ "$rbytes" -gt 0 ] && [ $moved = 1 ]
}
check "iperf3 --bidir completed across the reconfigurations" bg_iperf_ok

monotonic_ok()
{
	local n

	n=$(wc -l < "$TMPD/samples")
	ktap_print_msg "$n counter samples"
	[ "$n" -ge 3 ] && awk '
		NR > 1 { for (i = 1; i <= NF; i++) if ($i < p[i]) {
			printf "# counter %d went back: %s -> %s\n", i, p[i], $i; bad = 1 } }
		{ for (i = 1; i <= NF; i++) p[i] = $i }
		END { exit bad }' "$TMPD/samples"
}
check "interface counters never went backwards" monotonic_ok

# --- invalid settings are refused, settings unchanged ----------------------

refused()	# refused CMD...: CMD fails; ring/channel settings and registers unchanged
{
	local before after

	# shellcheck disable=SC2086 # word list
	before=$(ethtool -g "$IF_A"; ethtool -l "$IF_A"; reg_words "$IF_A" $R_LEN)
	if "$@" 2>/dev/null; then
		ktap_print_msg "'$*' was accepted"
		return 1
	fi
	# shellcheck disable=SC2086 # word list
	after=$(ethtool -g "$IF_A"; ethtool -l "$IF_A"; reg_words "$IF_A" $R_LEN)
	[ "$before" = "$after" ]
}
check "ethtool -G rx 100 refused, settings unchanged" \
	refused ethtool -G "$IF_A" rx 100
check "ethtool -G tx 8192 refused, settings unchanged" \
	refused ethtool -G "$IF_A" tx 8192
check "ethtool -L combined 3 refused, settings unchanged" \
	refused ethtool -L "$IF_A" combined 3
check "still passing traffic after the refused settings" \
	eval "ping -c 3 -i 0.2 -W 2 $IP4_B >/dev/null"

# --- idle: the service task raises each queue vector ------------------------

# queue_irqs: the interrupt count of each of $IF_A's MSI-X queue vectors
queue_irqs()
{
	local l bdf

	bdf=$(nic_bdf "$NIC_A")
	while read -r l; do
		[[ $l == *"$DRIVER-$bdf-q"[0-9] ]] || continue
		awk '{ for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i }
		     END { print n + 0 }' <<< "$l"
	done < /proc/interrupts
}

# if_packets: packets in and out of $IF_A so far
if_packets()
{
	local rx

	rd "/sys/class/net/$IF_A/statistics/rx_packets" || return 1
	rx=$RD
	rd "/sys/class/net/$IF_A/statistics/tx_packets" || return 1
	echo "$rx $RD"
}

# idle_kick_ok: over 5 s in which no packet went in or out of $IF_A (five
# tries: a neighbour probe now and then), every queue vector still took an
# interrupt. The service task raises each one per period (2 s), so that a
# queue interrupt that never came cannot leave completed descriptors and
# their BQL bytes waiting.
idle_kick_ok()
{
	local try pk0 pk1 before after i

	for try in 1 2 3 4 5; do
		pk0=$(if_packets)
		mapfile -t before < <(queue_irqs)
		nap 5
		mapfile -t after < <(queue_irqs)
		pk1=$(if_packets)
		if [ "$pk0" != "$pk1" ]; then
			ktap_print_msg "idle window $try: packets $pk0 -> $pk1, again"
			continue
		fi
		ktap_print_msg "idle 5 s: queue vector interrupts" \
			"${before[*]} -> ${after[*]}"
		# the vectors of the $CHAN0 queue pairs in use
		[ ${#before[@]} -ge "$CHAN0" ] && [ ${#after[@]} -ge "$CHAN0" ] ||
			return 1
		for ((i = 0; i < CHAN0; i++)); do
			[ $((after[i] - before[i])) -ge 1 ] || return 1
		done
		return 0
	done
	return 1
}
if [ "$DRIVER" = i82574 ]; then
	check "idle: every queue vector interrupted by the service task" idle_kick_ok
else
	ktap_test_skip "idle queue vector interrupts: i82574's vector names"
fi

ktap_finished
