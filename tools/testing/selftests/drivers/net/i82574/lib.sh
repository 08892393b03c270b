# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the i82574 selftests. They expect a guest with e1000e-model
# NICs wired in pairs on QEMU hubs (nic0+nic1, nic2+nic3, ...), NIC N at
# PCI 0000:0<N+1>:00.0 behind a root port of its own (harness/vm.py), and
# the driver under test in $DRIVER (default: i82574).

DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
. "$DIR/../../../kselftest/ktap_helpers.sh"

DRIVER=${DRIVER:-i82574}
PEER_NS=${PEER_NS:-i82574-peer}
IP4_A=198.18.0.1
IP4_B=198.18.0.2
IP6_A=2001:db8:1::1
IP6_B=2001:db8:1::2

# nic_bdf N: NIC N's PCI address (harness/vm.py puts NIC N behind root
# port N, which the guest numbers bus N + 1)
nic_bdf()
{
	printf '0000:%02x:00.0' $(($1 + 1))
}

# nic_dev N: NIC N's PCI device directory in $NIC_DEV (no subshell)
nic_dev()
{
	printf -v NIC_DEV '/sys/bus/pci/devices/0000:%02x:00.0' $(($1 + 1))
}

# nic_ifname N: the interface name of NIC N in whatever namespace it lives
# (a glob, not ls: each process costs up to a second on the debug kernel)
nic_ifname()
{
	local n

	nic_dev "$1"
	n=("$NIC_DEV"/net/*)
	if [ -e "${n[0]}" ]; then
		echo "${n[0]##*/}"
		return 0
	fi
	n=$(ip netns exec "$PEER_NS" ls "$NIC_DEV/net" 2>/dev/null)
	[ -n "$n" ] && echo "$n"
}

# nic_home N: NIC N has a netdev in this namespace
nic_home()
{
	local n

	nic_dev "$1"
	n=("$NIC_DEV"/net/*)
	[ -e "${n[0]}" ]
}

# nic_reclaim N: a test killed by its timeout can leave NIC N in $PEER_NS;
# deleting the namespace hands it back asynchronously, so wait for it
nic_reclaim()
{
	ns_unpin "$PEER_NS"
	if ip netns del "$PEER_NS" 2>/dev/null; then
		wait_for 100 nic_home "$1"
	fi
	return 0
}

# nic_bind DRIVER N...: hand NICs to DRIVER through driver_override
nic_bind()
{
	local drv=$1 i
	shift

	for i in "$@"; do
		nic_dev "$i"
		[ -e "$NIC_DEV" ] || return 1
		echo "$drv" > "$NIC_DEV/driver_override"
		[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$drv" ] && continue
		[ -e "$NIC_DEV/driver" ] && echo "${NIC_DEV##*/}" > "$NIC_DEV/driver/unbind"
		echo "${NIC_DEV##*/}" > /sys/bus/pci/drivers_probe
		[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$drv" ] || return 1
	done
}

# pktgen_ran DEV: DEV's last pktgen run has ended (its "Result:" holds the
# run's summary, not the echo of the last setting or "Idle")
pktgen_ran()
{
	local l re='^Result: OK: [0-9]+\(c'

	while IFS= read -r l; do
		[[ $l =~ $re ]] && return 0
	done < "/proc/net/pktgen/$1"
	return 1
}

# pktgen_idle THREAD: the pktgen thread file THREAD lists no device
pktgen_idle()
{
	local l

	while IFS= read -r l; do
		[[ $l =~ ^(Running|Stopped):\ *[^\ ] ]] && return 1
	done < "$1"
	return 0
}

# pktgen_clear: remove every device from every pktgen thread of this
# namespace, and return once the threads have. "rem_device_all" only asks:
# the thread acts when it next runs, and the write waits 125 ms for that;
# on a busy TCG guest the thread may run later, and until it has, adding
# the same device again fails with EBUSY (seen: the soak's pktgen run did
# not run).
pktgen_clear()
{
	local t

	for t in /proc/net/pktgen/kpktgend_*; do
		[ -e "$t" ] || continue
		echo rem_device_all > "$t" || return 1
		wait_for 300 pktgen_idle "$t" || return 1
	done
}

# pktgen_go DEV...: start the pktgen devices set up (each just added, with
# a count) and return once every one of them has ended its run. The write
# of "start" to pgctrl waits only 125 ms for a kpktgend thread to take the
# run up, and the threads look every 100 ms: on a busy TCG guest the write
# can return before anything ran, and the run starts after it. A signal to
# the writer stops the run, so the writer is a child without children of
# its own (no SIGCHLD from a caller's background jobs). The run's end is
# each device's Result line, not the writer's return: the writer then
# sleeps in 100 ms steps until it sees the threads idle, and under QEMU
# 7.2 with two vCPU threads such a sleep once lasted over 20 s after both
# runs had ended (idle threads, nothing in flight, rings and qdiscs empty),
# which a caller watching for a stuck run took for a strand. A writer
# still there 10 s after the end is reported and killed.
pktgen_go()
{
	local d w

	sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	w=$!
	for d in "$@"; do
		wait_for 1200 pktgen_ran "$d" || { kill $w; wait $w; return 1; }
	done
	if ! wait_for 100 stopped $w; then
		ktap_print_msg "pktgen: every run ended, the pgctrl writer still waits (killed)"
		kill $w
	fi
	wait $w
	return 0
}

# Starting a process costs 0.4-0.7 s on the debug kernel under TCG, against
# 0.09 s on the perf kernel, so the helpers polling in loops use bash
# builtins only: nap instead of sleep, rd instead of $(cat ...).
#
# nap SECONDS: sleep without a process. read -t on a FIFO that this shell
# holds open at both ends (so it never sees EOF) waits out its timeout.
NAP_FIFO=/tmp/i82574-nap.$$
if mkfifo -m 600 "$NAP_FIFO" 2>/dev/null; then
	exec {NAP_FD}<> "$NAP_FIFO"
	rm -f "$NAP_FIFO"
fi
nap()
{
	if [ -n "${NAP_FD:-}" ]; then
		read -r -t "$1" -u "$NAP_FD"
		return 0
	fi
	sleep "$1"
}

# rd FILE: FILE's first line (a sysfs attribute) in $RD
rd()
{
	RD=
	{ IFS= read -r RD || [ -n "$RD" ]; } < "$1"
}

wait_for()
{
	local tries=$1
	shift

	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		nap 0.1
	done
}

# carrier_up IFNAME [NETNS]: IFNAME is up with carrier (in a NETNS that
# is not pinned, where this shell cannot read its sysfs: its LOWER_UP flag,
# which is the same)
carrier_up()
{
	if ns_file "${2:-}" "/sys/class/net/$1/carrier"; then
		rd "$NS_FILE" 2>/dev/null && [ "$RD" = 1 ]
	else
		[[ $(ip -n "$2" -o link show dev "$1" 2>/dev/null) == *[,\<]LOWER_UP[,\>]* ]]
	fi
}

# wire_setup A B: NIC A stays here as $IF_A, NIC B moves into $PEER_NS as
# $IF_B; both driven by $DRIVER, addressed, up and with carrier.
wire_setup()
{
	nic_bind "$DRIVER" "$1" "$2" || return 1
	IF_A=$(nic_ifname "$1")
	IF_B=$(nic_ifname "$2")
	ns_unpin "$PEER_NS"
	ip netns del "$PEER_NS" 2>/dev/null
	# one ip(8) per namespace (each costs up to a second on the debug kernel)
	ip -batch - <<-EOF || return 1
		netns add $PEER_NS
		link set $IF_B netns $PEER_NS
		addr flush dev $IF_A
		addr add $IP4_A/24 dev $IF_A
		addr add $IP6_A/64 dev $IF_A nodad
		link set $IF_A up
	EOF
	ip -n "$PEER_NS" -batch - <<-EOF || return 1
		link set lo up
		addr add $IP4_B/24 dev $IF_B
		addr add $IP6_B/64 dev $IF_B nodad
		link set $IF_B up
	EOF
	ns_pin "$PEER_NS" || return 1
	wait_for 50 carrier_up "$IF_A" || return 1
	wait_for 50 carrier_up "$IF_B" "$PEER_NS"
}

# wire_cleanup: give the peer NIC back to the main namespace, addresses off
wire_cleanup()
{
	pkill -x iperf3 2>/dev/null
	ns_unpin "$PEER_NS"
	ip netns del "$PEER_NS" 2>/dev/null
	[ -n "${IF_A:-}" ] && ip addr flush dev "$IF_A" 2>/dev/null
	# Deleting the namespace returns the NIC asynchronously.
	[ -n "${IF_B:-}" ] && wait_for 300 test -e "/sys/class/net/$IF_B"
	return 0
}

# iperf3_run NAME ARGS...: client here, server in the peer namespace; the
# JSON result lands in $RESULTS/NAME.json. Fails on any iperf3 error.
iperf3_run()
{
	local name=$1 out=${RESULTS:-/tmp}/$1.json
	shift

	ip netns exec "$PEER_NS" iperf3 -s -1 -D -B "$IP4_B" \
		--pidfile /tmp/iperf3-$$.pid || return 1
	wait_for 30 test -s /tmp/iperf3-$$.pid
	iperf3 -c "$IP4_B" -J "$@" > "$out"
	local rc=$?
	wait_for 50 test ! -e /tmp/iperf3-$$.pid
	[ $rc -eq 0 ] && ! grep -q '"error"' "$out"
}

# json_get FILE EXPR: evaluate a Python expression over the JSON as "j"
json_get()
{
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# Test frames through a receive filter (l2_frames.py): one receiver, a
# packet socket on the interface under test, and one sender on the other
# end, each a python3 process for the whole test.
L2_PROTO=0x88b5	# IEEE local experimental ethertype
L2_SEQ=0

# l2_start RX_NS RX_IF TX_NS TX_IF DIR: the receiver on RX_IF in RX_NS and
# the sender on TX_IF in TX_NS ("" for this namespace), their files in DIR;
# end markers go to RX_IF's own address. l2_stop ends both.
l2_start()
{
	local ns=(ip netns exec "$1") end

	[ -n "$1" ] || ns=()
	L2_DIR=$5
	end=$("${ns[@]}" cat "/sys/class/net/$2/address") || return 1
	"${ns[@]}" python3 "$DIR/l2_frames.py" rx "$2" $L2_PROTO "$L2_DIR" \
		"$L2_DIR/l2ready" &
	L2_RX=$!
	wait_for 100 test -e "$L2_DIR/l2ready" || return 1
	ns=(ip netns exec "$3")
	[ -n "$3" ] || ns=()
	mkfifo "$L2_DIR/l2fifo" || return 1
	"${ns[@]}" python3 "$DIR/l2_frames.py" tx "$4" $L2_PROTO "$end" \
		< "$L2_DIR/l2fifo" &
	L2_TX=$!
	exec 7> "$L2_DIR/l2fifo"
}

l2_stop()
{
	exec 7>&-
	[ -n "${L2_TX:-}" ] && wait "$L2_TX"
	[ -n "${L2_RX:-}" ] && kill "$L2_RX" 2>/dev/null && wait "$L2_RX" 2>/dev/null
	L2_TX= L2_RX=
}

# l2_count DST MARK [END]: how many of 20 test frames to DST, marked MARK,
# the receiver got (end markers to END, default the receiver's own address)
l2_count()
{
	[ -n "${L2_TX:-}" ] || return 1
	echo "$1 $2 ${3:-}" >&7 || return 1
	wait_for 100 test -e "$L2_DIR/$2" || return 1
	cat "$L2_DIR/$2"
}

# l2_expect OP DST WHAT [END]: the count of frames to DST that got through
# satisfies "-gt 0" or "-eq 0" (OP); l2_expect_rx DST WHAT [END]: at least
# one did; l2_expect_drop DST WHAT [END]: none did
l2_expect()
{
	local op=$1 n

	shift
	L2_SEQ=$((L2_SEQ + 1))
	n=$(l2_count "$1" "l2-$L2_SEQ" "${3:-}") || return 1
	ktap_print_msg "$2: $n of 20 frames received"
	[ "$n" "$op" 0 ]
}

l2_expect_rx() { l2_expect -gt "$@"; }
l2_expect_drop() { l2_expect -eq "$@"; }

# cycle_limits MIN CMD...: while CMD succeeds (the traffic still flows),
# set the limit to each of $CYCLE_SEQ (default "64 0 8 1 0") in turn, over
# and over, with $CYCLE_SET (default the caller's set_limit), $CYCLE_NAP
# seconds apart (default 0.05). $CYCLE_PACKETS names a function that reads
# a packet counter of the path under test into RD (with builtins: no
# process per change); CYCLES counts the changes after which that counter
# moved before the next change (or the end), so packets went through with
# that limit. Without CYCLE_PACKETS, a change counts if CMD still succeeds
# after it (the traffic was still running). Fails if a change failed or if
# fewer than MIN counted.
cycle_limits()
{
	local min=$1 seq l i=0 rc=0 at

	read -r -a seq <<< "${CYCLE_SEQ:-64 0 8 1 0}"
	shift
	CYCLES=0
	while "$@"; do
		cycle_packets || return 1
		[ -n "${at:-}" ] && [ "$RD" -gt "$at" ] && CYCLES=$((CYCLES + 1))
		l=${seq[i++ % ${#seq[@]}]}
		"${CYCLE_SET:-set_limit}" $l ||
			{ rc=1; ktap_print_msg "limit $l: write failed"; }
		cycle_packets || return 1
		at=$RD
		nap "${CYCLE_NAP:-0.05}"
		[ -n "${CYCLE_PACKETS:-}" ] || ! "$@" || CYCLES=$((CYCLES + 1))
	done
	cycle_packets && [ -n "${at:-}" ] && [ "$RD" -gt "$at" ] &&
		CYCLES=$((CYCLES + 1))
	if [ "$CYCLES" -lt "$min" ]; then
		ktap_print_msg "only $CYCLES of $i limit changes had packets" \
			"through before the next"
		rc=1
	fi
	return $rc
}

# cycle_packets: $CYCLE_PACKETS's counter in RD; without one, RD 0 (no
# change counts by it)
cycle_packets()
{
	RD=0
	[ -z "${CYCLE_PACKETS:-}" ] || "$CYCLE_PACKETS"
}

# doorbell_counts IF [NETNS]: "DOORBELLS FLUSHES", the tx_doorbells and
# tx_flush_doorbells (rung by the core's ndo_xmit_flush()) of ethtool -S
doorbell_counts()
{
	local k v dbs=0 fls=0 ns=()

	[ -n "${2:-}" ] && ns=(ip netns exec "$2")

	while read -r k v; do
		case $k in
		tx_doorbells:)		dbs=$v ;;
		tx_flush_doorbells:)	fls=$v ;;
		esac
	done <<< "$("${ns[@]}" ethtool -S "$1")"
	echo "$dbs $fls"
}

# nic_report IF [NETNS]: what IF's queues and device say, as KTAP
# diagnostics, for a case that finds traffic stuck: BQL per TX queue, the
# ring registers (ethtool -d; i82574 only), the interrupt mask, the
# counters that move with the queues, the NIC's interrupt counts, the
# backlog of its qdiscs and, where the driver has it, its debugfs
# tx_state (i82574: each TX queue's state bits, dispatch counts, BQL, ring
# indexes and its qdisc's state)
nic_report()
{
	local ns=() q d l f

	[ -n "${2:-}" ] && ns=(ip netns exec "$2")
	for q in $("${ns[@]}" sh -c "echo /sys/class/net/$1/queues/tx-*"); do
		ktap_print_msg "$1 ${q##*/}: BQL inflight" \
			"$("${ns[@]}" cat "$q/byte_queue_limits/inflight")," \
			"limit $("${ns[@]}" cat "$q/byte_queue_limits/limit")"
	done
	# shellcheck disable=SC2207 # numbers, i82574_dump_regs[] order
	d=($("${ns[@]}" ethtool -d "$1" raw on 2>/dev/null | od -An -tu4 -v))
	[ ${#d[@]} -ge 40 ] &&
		ktap_print_msg "$1 IMS ${d[4]}; RDH/RDT ${d[19]}/${d[20]}" \
			"${d[24]}/${d[25]}; TDH/TDT ${d[29]}/${d[30]} ${d[36]}/${d[37]}"
	"${ns[@]}" ethtool -S "$1" |
		grep -E 'packets|doorbell|busy|stop|wake|timeout|alloc|drop' |
		grep -v ': 0$' | while read -r l; do ktap_print_msg "$1 $l"; done
	d=$("${ns[@]}" readlink -f "/sys/class/net/$1/device")
	grep -F "${d##*/}" /proc/interrupts |
		while read -r l; do ktap_print_msg "irq $l"; done
	# packets still in a qdisc (a queue nobody reschedules)
	"${ns[@]}" tc -s qdisc show dev "$1" |
		awk '/^qdisc/ { q = $2 " " $3 " " $5 } /^ backlog/ { print q ":" $0 }' |
		while read -r l; do ktap_print_msg "$1 qdisc $l"; done
	# debugfs is not per namespace: the device's PCI name finds it
	f=/sys/kernel/debug/$DRIVER/${d##*/}/tx_state
	if [ -r "$f" ]; then
		while read -r l; do ktap_print_msg "$1 $l"; done < "$f"
	fi
}

# moving PID VALUE: for a loop that watches a run: succeeds while PID runs
# and VALUE changed within the last STUCK_SECS seconds (default 60). A run
# that goes on that long without VALUE moving is stuck: STUCK=1, and this
# fails, so that the caller reports it instead of waiting out the hang
# guard. moving_reset before each run.
STUCK_SECS=${STUCK_SECS:-60}
moving_reset()
{
	STUCK=0 STUCK_VAL= STUCK_AT=$SECONDS
}

moving()
{
	if [ "$2" != "$STUCK_VAL" ]; then
		STUCK_VAL=$2 STUCK_AT=$SECONDS
	fi
	running "$1" || return 1
	[ $((SECONDS - STUCK_AT)) -lt "$STUCK_SECS" ] && return 0
	STUCK=1
	return 1
}

# running PID: process PID has not ended. Not kill -0, which succeeds on a
# zombie: a background job that ended stays one until this shell reaps it,
# and in a loop of builtins (no fork, no wait) bash once left one unreaped
# for over 60 s, after which a watcher called the finished pktgen run
# stuck. Builtins only.
running()
{
	local st

	{ read -r st < "/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

stopped()
{
	! running "$1"
}

# ns_pin NETNS: keep one process (cat on a pipe this shell holds) in NETNS
# until ns_unpin or this shell's end. Through its /proc/PID/net and
# /proc/PID/root/sys this shell reads NETNS's counters and sysfs with
# builtins; a process per read costs up to a second on the debug kernel.
declare -A NS_PIN=()
ns_pin()
{
	local fd

	[ -n "${NS_PIN[$1]:-}" ] && return 0
	exec {fd}> >(exec ip netns exec "$1" cat > /dev/null)
	NS_PIN[$1]=$!:$fd
	wait_for 50 ns_pinned "$1" || { ns_unpin "$1"; return 1; }
}

# ns_pinned NETNS: the pin runs cat, in NETNS (with that namespace's sysfs)
ns_pinned()
{
	local pid=${NS_PIN[$1]%%:*}

	[ "/proc/$pid/exe" -ef "$(type -P cat)" ] &&
		[ "/proc/$pid/ns/net" -ef "/run/netns/$1" ]
}

# ns_unpin NETNS: end NETNS's pin (a namespace with a process in it stays)
ns_unpin()
{
	local pin=${NS_PIN[$1]:-} fd

	[ -n "$pin" ] || return 0
	fd=${pin#*:}
	exec {fd}>&-
	kill "${pin%%:*}" 2>/dev/null
	unset "NS_PIN[$1]"
}

# ns_file NETNS PATH: PATH (under /proc/net or /sys) as NETNS sees it, in
# NS_FILE ("" = this namespace); fails unless NETNS is pinned
ns_file()
{
	local pid

	NS_FILE=$2
	[ -z "$1" ] && return 0
	pid=${NS_PIN[$1]:-}
	[ -n "$pid" ] || return 1
	pid=${pid%%:*}
	case $2 in
	/proc/net/*) NS_FILE=/proc/$pid/net/${2#/proc/net/} ;;
	*) NS_FILE=/proc/$pid/root$2 ;;
	esac
}

# ns_cat NETNS FILE...: the first line of each FILE as NETNS sees it
ns_cat()
{
	local ns=$1 f

	shift
	if ! ns_file "$ns" /; then
		ip netns exec "$ns" cat "$@"
		return
	fi
	for f in "$@"; do
		ns_file "$ns" "$f" && rd "$NS_FILE" || return 1
		echo "$RD"
	done
}

# snmp_get NETNS PROTO:FIELD...: /proc/net/snmp or /proc/net/netstat
# counters of NETNS ("" = here), from one read of each file, in the array
# SNMP in the order asked. Both files are header/value line pairs.
snmp_get()
{
	local ns=$1 f want i j k lines=() h v
	shift

	for f in /proc/net/snmp /proc/net/netstat; do
		if ns_file "$ns" "$f"; then
			mapfile -t -O "${#lines[@]}" lines < "$NS_FILE" || return 1
		else
			mapfile -t -O "${#lines[@]}" lines < <(ip netns exec "$ns" cat "$f")
		fi
	done
	SNMP=()
	for want in "$@"; do
		k=
		for ((i = 0; i + 1 < ${#lines[@]}; i += 2)); do
			read -r -a h <<< "${lines[i]}"
			[ "${h[0]}" = "${want%%:*}:" ] || continue
			read -r -a v <<< "${lines[i + 1]}"
			for j in "${!h[@]}"; do
				[ "${h[j]}" = "${want#*:}" ] && k=${v[j]}
			done
			break
		done
		[ -n "$k" ] || return 1
		SNMP+=("$k")
	done
}

# snmp NETNS PROTO FIELD: one /proc/net/snmp or /proc/net/netstat counter
# of NETNS ("" = here)
snmp()
{
	snmp_get "$1" "$2:$3" && echo "${SNMP[0]}"
}

# udp_arrived NETNS: IPv4 datagrams delivered to UDP in NETNS so far, from
# one read of /proc/net/snmp. Udp InDatagrams counts in recvmsg(), so what
# is still queued on a socket when it closes is never counted there; IP
# counts every delivery to a protocol (InDelivers), and where only UDP, TCP
# and ICMP arrive, UDP's share is InDelivers less Tcp InSegs less Icmp
# InMsgs.
udp_arrived()
{
	snmp_get "$1" Ip:InDelivers Tcp:InSegs Icmp:InMsgs &&
		echo $((SNMP[0] - SNMP[1] - SNMP[2]))
}

# udp_arrived_all NETNS BASE N: N datagrams arrived at UDP in NETNS since
# udp_arrived gave BASE
udp_arrived_all()
{
	[ $(($(udp_arrived "$1") - $2)) -ge "$3" ]
}

# Register-level proof through QEMU's trace events: harness/vm.py logs them
# (log backend) to the results folder, /run/results/qemu-trace.log here,
# and `hostctl trace on|off EVENT...` switches them through QMP. A window
# is the byte range of the log between trace on and trace off.
# QEMU 7.2's e1000e events (hw/net/trace-events) carry no device identity:
# a window holds the lines of every e1000e NIC, so a test keeps the other
# NICs idle meanwhile (interfaces down: neither driver writes a register
# of a NIC that is down, see reg_trace_idle_others). Their lines:
#   e1000e_core_write Write to register 0x18, 4 byte(s), value: 0x10000000
#   e1000e_core_mdic_write MDIC WRITE: PHY[0][0] = 0x1140
#   e1000e_core_mdic_read MDIC READ: PHY[0][1] = 0x821794d
# core_write's offset is the register's own (aliases resolved); mdic_read
# prints the whole MDIC value, whose low 16 bits are the data. An MDIC
# access to another PHY address than 1 logs only its write of MDIC (0x20).
REG_TRACE_FILE=${REG_TRACE_FILE:-${RESULTS:-/run/results}/qemu-trace.log}
REG_TRACE_HOSTCTL=${HOSTCTL:-${I82574_TOP:-/nonexistent}/harness/guest/hostctl}
REG_TRACE_FROM=
REG_TRACE_TO=
REG_TRACE_EVENTS=()
REG_TRACE_IDLED=()

# pci_cap_pos BDF ID: the offset of BDF's capability ID (1: power
# management, 16: PCI Express) in POS. Reading config space resumes a
# runtime-suspended device.
pci_cap_pos()
{
	local -a cfg
	local p

	mapfile -t cfg < <(od -An -v -tu1 -w1 -N256 "/sys/bus/pci/devices/$1/config")
	p=${cfg[0x34]// /}
	while [ "${p:-0}" -ne 0 ]; do
		[ "${cfg[p]// /}" -eq "$2" ] && { POS=$p; return 0; }
		p=${cfg[p + 1]// /}
	done
	return 1
}

# pmcsr_states BDF POS: the power states written to BDF's PMCSR (its PM
# capability at POS, + 4) in the last trace window of pci_cfg_write
# ("pci_cfg_write NAME BB:DD.F @0xOFF <- 0xVAL"), in order, as "D3 D0 ..."
# in PMCSR_STATES
pmcsr_states()
{
	local re="pci_cfg_write [^ ]+ ${1#0000:} @0x([0-9a-f]+) <- 0x([0-9a-f]+)\$" l

	PMCSR_STATES=
	while IFS= read -r l; do
		[[ $l =~ $re ]] || continue
		[ $((16#${BASH_REMATCH[1]})) -eq $(($2 + 4)) ] || continue
		PMCSR_STATES+="D$((16#${BASH_REMATCH[2]} & 3)) "
	done < <(reg_trace_lines)
	PMCSR_STATES=${PMCSR_STATES% }
}

# reg_trace_available: hostctl and the trace log are there (harness guest)
reg_trace_available()
{
	[ -x "$REG_TRACE_HOSTCTL" ] && [ -f "$REG_TRACE_FILE" ]
}

# reg_trace_require DRIVER...: skip the whole test (and exit) unless every
# DRIVER is built in and the register trace is available
reg_trace_require()
{
	local d

	for d in "$@"; do
		if [ ! -d "/sys/bus/pci/drivers/$d" ]; then
			ktap_skip_all "driver $d is not built in"
			exit "$KSFT_SKIP"
		fi
	done
	if ! reg_trace_available; then
		ktap_skip_all "no QEMU trace log or hostctl (not in the harness guest)"
		exit "$KSFT_SKIP"
	fi
}

# reg_trace_last KIND REG RECORD...: the value of the last KIND record of
# REG among the records (reg_trace_parse), in LAST; fails if none, or if
# the records hold a line that could not be parsed
reg_trace_last()
{
	local kind=$1 reg=$2 r o

	shift 2
	LAST=
	reg_trace_sound "$@" || return 1
	for r in "$@"; do
		[ "${r%% *}" = "$kind" ] || continue
		o=${r#* }
		[ $((${o%% *})) -eq $((reg)) ] && LAST=${o#* }
	done
	[ -n "$LAST" ]
}

# reg_trace_on EVENT...: enable QEMU trace events (names or globs); the
# window starts at the log's size then, kept in REG_TRACE_FROM
reg_trace_on()
{
	REG_TRACE_EVENTS=("$@")
	REG_TRACE_TO=
	REG_TRACE_FROM=$("$REG_TRACE_HOSTCTL" trace on "$@") &&
		[[ $REG_TRACE_FROM =~ ^[0-9]+$ ]]
}

# reg_trace_mark: print the log's size now, to split a window. A register
# access the guest made is in the log once the access has returned: the
# model traces it synchronously and QEMU flushes every line.
reg_trace_mark()
{
	stat -c %s "$REG_TRACE_FILE"
}

# reg_trace_off: disable reg_trace_on's events; the window ends at the
# log's size then, kept in REG_TRACE_TO
reg_trace_off()
{
	REG_TRACE_TO=$("$REG_TRACE_HOSTCTL" trace off "${REG_TRACE_EVENTS[@]}") &&
		[[ $REG_TRACE_TO =~ ^[0-9]+$ ]]
}

# reg_trace_lines [FROM [TO]]: print the trace lines logged between the
# offsets FROM and TO (default: the last window, up to now if still open)
reg_trace_lines()
{
	local from=${1:-$REG_TRACE_FROM} to=${2:-$REG_TRACE_TO}

	[ -n "$to" ] || to=$(reg_trace_mark) || return 1
	[[ $from =~ ^[0-9]+$ && $to =~ ^[0-9]+$ ]] && [ "$to" -ge "$from" ] || return 1
	tail -c +$((from + 1)) "$REG_TRACE_FILE" | head -c $((to - from))
}

# reg_trace_parse: the trace lines on stdin as records, in their order,
# numbers in hex; other lines are left out:
#   reg OFFSET VALUE   e1000e_core_write (MAC register at byte OFFSET),
#                      e1000e_wrn_regs_write_unknown (one the model lacks)
#   rd OFFSET VALUE    e1000e_core_read
#   phy_w REG DATA     e1000e_core_mdic_write
#   phy_r REG DATA     e1000e_core_mdic_read
# A PHY register on a page other than 0 is (page << 5) | reg, as e1000e's
# BM_PHY_REG(). Lines may carry -msg timestamp=on's "TID@SECONDS:" prefix.
# A line of one of these events in another format (a QEMU whose event
# changed its fields) becomes an "error" record and a message on stderr,
# never a record left out: reg_trace_sound fails on it.
reg_trace_parse()
{
	local l k p='^([0-9]+@[0-9.]+:)?' x='0x([0-9a-f]+)'
	local w="${p}e1000e_core_(write|read) (Write to|Read from) register $x, "
	local u="${p}e1000e_wrn_regs_write_unknown WARNING: Write to unknown register $x, "
	local m="${p}e1000e_core_mdic_(w|r)(rite|ead) MDIC [A-Z]+: "
	local known="${p}e1000e_(core_(write|read|mdic_write|mdic_read)|wrn_regs_write_unknown) "

	w+="[0-9]+ byte\\(s\\), value: $x\$"
	u+="[0-9]+ byte\\(s\\), value: $x\$"
	m+="PHY\\[([0-9]+)\\]\\[([0-9]+)\\] = $x\$"
	while IFS= read -r l; do
		if [[ $l =~ $w ]]; then
			[ "${BASH_REMATCH[2]}" = write ] && k=reg || k=rd
			printf '%s 0x%x 0x%x\n' $k $((16#${BASH_REMATCH[4]})) \
				$((16#${BASH_REMATCH[5]}))
		elif [[ $l =~ $u ]]; then
			printf 'reg 0x%x 0x%x\n' $((16#${BASH_REMATCH[2]})) \
				$((16#${BASH_REMATCH[3]}))
		elif [[ $l =~ $m ]]; then
			printf 'phy_%s 0x%x 0x%x\n' "${BASH_REMATCH[2]}" \
				$((BASH_REMATCH[4] << 5 | BASH_REMATCH[5])) \
				$((16#${BASH_REMATCH[6]} & 0xffff))
		elif [[ $l =~ $known ]]; then
			echo "reg_trace: a trace line in an unknown format: $l" >&2
			echo error
		fi
	done
}

# reg_trace_sound RECORD...: no record is reg_trace_parse's "error"; else
# a failed case of its own (the plan's count is then off too, so the run
# fails whatever the checks that use the records conclude)
reg_trace_sound()
{
	local r

	for r in "$@"; do
		[ "$r" != error ] && continue
		ktap_test_fail "register trace: lines in a format this parser does not know"
		return 1
	done
}

# reg_trace_select KIND [WHICH]: "OFFSET VALUE" of reg_trace_parse's KIND
# records among the trace lines on stdin (only WHICH register's, if given)
reg_trace_select()
{
	local kind=$1 which=${2:-} k o v

	reg_trace_parse | while read -r k o v; do
		[ "$k" = error ] && return 1
		[ "$k" = "$kind" ] || continue
		[ -z "$which" ] || [ $((o)) -eq $((which)) ] || continue
		echo "$o $v"
	done
}

# reg_writes [OFFSET]: "OFFSET VALUE" of each MAC register write among the
# trace lines on stdin; phy_writes [REG], phy_reads [REG]: "REG DATA" of
# each MDIC write or read
reg_writes() { reg_trace_select reg "$@"; }
phy_writes() { reg_trace_select phy_w "$@"; }
phy_reads() { reg_trace_select phy_r "$@"; }

# nic_others N...: the index of every bound NIC but N..., each once it is
# back in this namespace (a deleted namespace hands its NICs back
# asynchronously); fails if one does not come back
nic_others()
{
	local i keep=" $* "

	for ((i = 0; ; i++)); do
		nic_dev "$i"
		[ -e "$NIC_DEV" ] || break
		[[ $keep == *" $i "* ]] && continue
		[ -e "$NIC_DEV/driver" ] || continue
		wait_for 100 nic_home "$i" || return 1
		echo "$i"
	done
}

# reg_trace_idle_others N...: set down the interface of every other NIC
# (those that were up go into REG_TRACE_IDLED, for reg_trace_restore_others);
# fails if a bound one has no netdev in this namespace
reg_trace_idle_others()
{
	local i others ifn

	REG_TRACE_IDLED=()
	others=$(nic_others "$@") || return 1
	for i in $others; do
		ifn=$(nic_ifname "$i")
		rd "/sys/class/net/$ifn/flags" || return 1
		(( RD & 1 )) || continue
		ip link set "$ifn" down || return 1
		REG_TRACE_IDLED+=("$ifn")
	done
}

# reg_trace_restore_others: set up again what reg_trace_idle_others set down
reg_trace_restore_others()
{
	local ifn

	for ifn in "${REG_TRACE_IDLED[@]}"; do
		ip link set "$ifn" up
	done
	REG_TRACE_IDLED=()
}

# System sleep through the PM core. The harness guest runs from RAM, but
# its results folder is a virtio-9p share, and 9p cannot freeze: after a
# resume its device is reset with no queues, and the next access hangs. So
# a sleep unmounts the share and unbinds its PCI device first, and binds
# and mounts it again after. Nothing may hold a file of it open meanwhile
# (harness/guest/run-tests.sh keeps a program's output in RAM).
HOST_SHARE=/run/results
HOST_SHARE_PCI=
# A wake-up on a timer started before the suspend (the RTC alarm, the
# host's line for s2idle) that fires before the guest sleeps leaves it
# asleep (the harness fails the run). A guest under iperf3 and pktgen took
# more than 2 s to get there on a busy host, the debug kernel more than 15
# s on a slower one: such a timer runs at least SLEEP_WAKE_SECS, and at
# least twice the longest pm_test suspend and resume seen so far plus 2 s
# (SLEEP_PMTEST_MS). S3 woken by the host needs no timer: the host wakes it
# a second after it sees it suspended (hostctl s3_wakeup).
SLEEP_WAKE_SECS=${SLEEP_WAKE_SECS:-8}
SLEEP_PMTEST_MS=0
SLEEP_SAVED_TEST=
SLEEP_SAVED_DELAY=

# host_share_find: the PCI address of the share's virtio device, in
# HOST_SHARE_PCI (the tag file holds "results" and a NUL)
host_share_find()
{
	local d tag

	[ -n "$HOST_SHARE_PCI" ] && return 0
	for d in /sys/bus/virtio/devices/*; do
		[ -r "$d/mount_tag" ] || continue
		IFS= read -r -d '' tag < "$d/mount_tag"
		[ "$tag" = results ] || continue
		d=$(cd -P "$d/.." && pwd) || return 1
		HOST_SHARE_PCI=${d##*/}
		return 0
	done
	return 1
}

host_share_detach()
{
	local left

	host_share_find || { echo "# no virtio device for $HOST_SHARE" >&2; return 1; }
	umount "$HOST_SHARE" || return 1
	# the unbind would wait for ever while any mount namespace still has
	# the share (a private copy, not a slave of this one)
	left=$(grep -l ' - 9p results ' /proc/[0-9]*/mountinfo 2>/dev/null)
	if [ -n "$left" ]; then
		echo "# $HOST_SHARE still mounted for ${left//$'\n'/ }" >&2
		host_share_attach
		return 1
	fi
	echo "$HOST_SHARE_PCI" > /sys/bus/pci/drivers/virtio-pci/unbind
}

host_share_attach()
{
	[ -e "/sys/bus/pci/drivers/virtio-pci/$HOST_SHARE_PCI" ] ||
		echo "$HOST_SHARE_PCI" > /sys/bus/pci/drivers/virtio-pci/bind || return 1
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "$HOST_SHARE"
}

# sleep_states: what /sys/power/state and mem_sleep offer, in SLEEP_STATES
# (e.g. "freeze mem"), SLEEP_MEM ("deep" when mem is S3, else "s2idle")
# and SLEEP_FULL (mem if offered, else freeze)
sleep_states()
{
	rd /sys/power/state || return 1
	SLEEP_STATES=$RD
	SLEEP_FULL=freeze
	[[ " $RD " == *" mem "* ]] && SLEEP_FULL=mem
	SLEEP_MEM=s2idle
	rd /sys/power/mem_sleep && [[ $RD == *deep* ]] && SLEEP_MEM=deep
	return 0
}

# sleep_test LEVEL: set /sys/power/pm_test to LEVEL (none: a real sleep)
# with no wait at the level; the first call saves what cleanup restores
sleep_test()
{
	local p=/sys/module/suspend/parameters/pm_test_delay

	if [ -z "$SLEEP_SAVED_TEST" ]; then
		rd /sys/power/pm_test || return 1
		SLEEP_SAVED_TEST=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' <<< "$RD")
		rd "$p" && SLEEP_SAVED_DELAY=$RD
	fi
	echo 0 > "$p" && echo "$1" > /sys/power/pm_test
}

# sleep_restore: pm_test and its delay as they were
sleep_restore()
{
	[ -n "$SLEEP_SAVED_TEST" ] && echo "$SLEEP_SAVED_TEST" > /sys/power/pm_test
	[ -n "$SLEEP_SAVED_DELAY" ] &&
		echo "$SLEEP_SAVED_DELAY" > /sys/module/suspend/parameters/pm_test_delay
	SLEEP_SAVED_TEST= SLEEP_SAVED_DELAY=
}

# system_sleep STATE [LEVEL [WAKE]]: one suspend of the whole system to
# STATE (freeze or mem; mem_sleep says whether mem is s2idle or S3) at
# pm_test LEVEL (default none). A real sleep is woken by WAKE: host (the
# default) or rtc. host: S3 with QEMU's system_wakeup alone, a second after
# the host sees the guest in S3 (hostctl s3_wakeup: QEMU resets the UART on
# that wake); s2idle with a line on ttyS1 (hostctl wakeup), whose interrupt
# wakes it: the port is held open with its wakeup enabled meanwhile. rtc:
# the CMOS RTC's alarm (QEMU's RTC wakes S3 only). Timers as
# SLEEP_WAKE_SECS says.
# Returns the write's status; SLEEP_MS is how long the write took.
system_sleep()
{
	local level=${2:-none} wake=${3:-host} s3=

	sleep_test "$level" || return 1
	[ "$1" = mem ] && sleep_states && [ "$SLEEP_MEM" = deep ] && s3=1
	if [ "$level" != none ]; then
		sleep_write "$1" "$level" "$wake"
	elif [ "$wake" = host ] && [ -n "$s3" ]; then
		sleep_s3_host "$1"
	elif [ "$wake" = host ]; then
		sleep_s2idle_host "$1"
	else
		sleep_rtc "$1"
	fi
}

# sleep_timer_secs: how far ahead a wake-up timer fires (SLEEP_WAKE_SECS)
sleep_timer_secs()
{
	local t=$((SLEEP_PMTEST_MS * 2 / 1000 + 2))

	echo $((t > SLEEP_WAKE_SECS ? t : SLEEP_WAKE_SECS))
}

# sleep_write STATE LEVEL WAKE: the write to /sys/power/state, the share
# detached around it; SLEEP_MS is how long the write took, and a pm_test
# level's counts in SLEEP_PMTEST_MS
sleep_write()
{
	local rc t0

	host_share_detach || return 1
	# on the console (a warning's level), where a hang is seen
	echo "<4>i82574-selftest: sleep $1 pm_test $2 wake $3" > /dev/kmsg
	t0=$EPOCHREALTIME
	echo "$1" > /sys/power/state
	rc=$?
	SLEEP_MS=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
	echo "<4>i82574-selftest: awake, status $rc after $SLEEP_MS ms" > /dev/kmsg
	if [ "$2" != none ] && [ "$SLEEP_MS" -gt "$SLEEP_PMTEST_MS" ]; then
		SLEEP_PMTEST_MS=$SLEEP_MS
	fi
	host_share_attach || rc=1
	return $rc
}

sleep_s3_host()
{
	"$REG_TRACE_HOSTCTL" s3_wakeup 1 > /dev/null || return 1
	sleep_write "$1" none host && return 0
	# no S3 came: the host must not wake a later one
	"$REG_TRACE_HOSTCTL" s3_wakeup 0 > /dev/null
	return 1
}

sleep_s2idle_host()
{
	local tty=/sys/class/tty/ttyS1/power/wakeup rc=0 fd line was

	rd "$tty" && was=$RD && echo enabled > "$tty" || return 1
	exec {fd}<> /dev/ttyS1
	"$REG_TRACE_HOSTCTL" wakeup "$(sleep_timer_secs)" > /dev/null &&
		sleep_write "$1" none host || rc=1
	# the host's line, so that the next hostctl reads its own reply
	read -r -t $(($(sleep_timer_secs) + 10)) -u "$fd" line || rc=1
	[ "$line" = wakeup ] || rc=1
	exec {fd}<&-
	echo "$was" > "$tty"
	return $rc
}

sleep_rtc()
{
	local alarm=/sys/class/rtc/rtc0/wakealarm rc=0

	echo 0 > "$alarm" && echo "+$(sleep_timer_secs)" > "$alarm" || return 1
	sleep_write "$1" none rtc || rc=1
	echo 0 > "$alarm"
	return $rc
}
