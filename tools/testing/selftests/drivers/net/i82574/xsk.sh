#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_XDP in copy mode on $DRIVER's XDP hook: NIC 0 here with xsk.bpf.o
# attached (XDP_MODE: xdpdrv, the native hook, for i82574; xdpgeneric for
# e1000e and any other driver, which have none), NIC 1 in $PEER_NS. One
# AF_XDP socket per receive queue (xsk_copy.py, bound with XDP_COPY and put
# into the pinned XSKMAP) takes exactly the UDP frames the peer sends to
# xsk.bpf.c's port, every one checked, and the stack none of them; with
# the sockets closed the same frames reach the stack; while they are
# bound, the stack still gets ping and UDP to another port; frames built in
# the UMEM and sent through the TX ring of each queue arrive at the peer.
# The program is detached and its pins removed on every exit.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

XSK_PY=$DIR/xsk_copy.py
XSK_OBJ=${XSK_OBJ:-$DIR/xsk.bpf.o}
XSK_PORT=7358		# xsk.bpf.c's XSK_TEST_PORT
OTHER_PORT=7359		# to the stack, beside the test frames
TX_PORT=7360		# AF_XDP TX frames, received in the peer
# where ip(8) pins the maps that xsk.bpf.c pins by name
PIN_DIR=${PIN_DIR:-/sys/fs/bpf/tc/globals}
XSK_MAP=$PIN_DIR/xsks
XSK_CNT=$PIN_DIR/xsk_cnt
XSK_COUNT=${XSK_COUNT:-1000}
XSK_OTHER=${XSK_OTHER:-200}
XSK_TX_COUNT=${XSK_TX_COUNT:-200}
XSK_TIMEOUT=${XSK_TIMEOUT:-120}
case $DRIVER in
i82574)	XDP_MODE=${XDP_MODE:-xdpdrv} ;;
*)	XDP_MODE=${XDP_MODE:-xdpgeneric} ;;
esac
TMPD=$(mktemp -d /tmp/xsk.XXXXXX)
BG_PIDS=()

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ]; then
	ktap_skip_all "driver $DRIVER is not built in"
	exit "$KSFT_SKIP"
fi
if ! python3 -c 'import socket; socket.socket(44, socket.SOCK_RAW, 0)' 2>/dev/null; then
	ktap_skip_all "no AF_XDP sockets (CONFIG_XDP_SOCKETS)"
	exit "$KSFT_SKIP"
fi
if [ ! -r "$XSK_OBJ" ]; then
	ktap_skip_all "no $XSK_OBJ (built by harness/initramfs.py)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 6

xsk_detach()
{
	[ -n "${IF_A:-}" ] && ip link set dev "$IF_A" "$XDP_MODE" off 2>/dev/null
	rm -f "$XSK_MAP" "$XSK_CNT"
}

cleanup()
{
	local p

	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	xsk_detach
	wire_cleanup
	rm -rf "$TMPD"
}
trap cleanup EXIT

peer()
{
	ip netns exec "$PEER_NS" "$@"
}

# bg NAME CMD...: CMD in the background, its output in $TMPD/NAME.out and
# its PID in BG_PID (killed at exit if still there)
bg()
{
	local name=$1

	shift
	"$@" > "$TMPD/$name.out" 2>&1 &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# bg_wait NAME: wait for the last bg job; its output as KTAP diagnostics;
# its status
bg_wait()
{
	local rc l

	wait "$BG_PID"
	rc=$?
	while IFS= read -r l; do
		ktap_print_msg "$1: ${l#\# }"
	done < "$TMPD/$1.out"
	[ "$rc" -eq 0 ] || ktap_print_msg "$1: exit $rc"
	return "$rc"
}

# ready FILE: FILE is there, or the job that should write it has ended
ready()
{
	[ -e "$1" ] || ! running "$BG_PID"
}

# counters: xsk_cnt's test frames seen and redirected, in SEEN and REDIR
counters()
{
	local c

	c=$(python3 "$XSK_PY" counter --map "$XSK_CNT" 0 1) || return 1
	read -r SEEN REDIR <<< "$c"
}

# send N PORT [ARGS...]: N test datagrams from the peer to PORT here
send()
{
	peer python3 "$XSK_PY" send --dst "$IP4_A" --count "$1" --port "$2" \
		"${@:3}" > "$TMPD/send.out" 2>&1 ||
		{ ktap_print_msg "send: $(tail -n 3 "$TMPD/send.out")"; return 1; }
}

# rx_start N [ARGS...]: the AF_XDP sockets on every queue, waiting for N
# frames (xsk_copy.py rx ARGS...)
rx_start()
{
	rm -f "$TMPD/rx.ready"
	bg rx python3 "$XSK_PY" rx --ifname "$IF_A" --queue "$QUEUES" \
		--count "$1" --port "$XSK_PORT" --map "$XSK_MAP" \
		--timeout "$XSK_TIMEOUT" --ready "$TMPD/rx.ready" "${@:2}"
	wait_for 600 ready "$TMPD/rx.ready" && [ -e "$TMPD/rx.ready" ] ||
		{ bg_wait rx; return 1; }
}

setup()
{
	local q want=xdp

	wire_setup 0 1 || return 1
	QUEUES=
	for q in /sys/class/net/"$IF_A"/queues/rx-*; do
		QUEUES+=${QUEUES:+,}${q##*/rx-}
	done
	rm -f "$XSK_MAP" "$XSK_CNT"
	if ! ip link set dev "$IF_A" "$XDP_MODE" obj "$XSK_OBJ" sec xdp \
		> "$TMPD/ip.out" 2>&1; then
		ktap_print_msg "ip link set $XDP_MODE: $(tail -n 5 "$TMPD/ip.out")"
		return 1
	fi
	# "mtu 1500 xdp" (native) or "xdpgeneric", then "prog/xdp id N"
	[ "$XDP_MODE" = xdpgeneric ] && want=xdpgeneric
	[[ $(ip -d link show dev "$IF_A") =~ \ mtu\ [0-9]+\ $want\ .*prog/xdp\ id ]] ||
		{ ktap_print_msg "no $XDP_MODE program on $IF_A"; return 1; }
	[ -e "$XSK_MAP" ] && [ -e "$XSK_CNT" ] ||
		{ ktap_print_msg "no pinned maps in $PIN_DIR"; return 1; }
	# a driver may reset the link to attach its program
	wait_for 100 carrier_up "$IF_A" && wait_for 100 carrier_up "$IF_B" "$PEER_NS" ||
		return 1
	ktap_print_msg "$IF_A ($DRIVER, $XDP_MODE), RX queues $QUEUES"
	# neighbours resolved both ways before the counted traffic
	ping -c 2 -i 0.2 -W 2 "$IP4_B" > /dev/null &&
		peer ping -c 2 -i 0.2 -W 2 "$IP4_A" > /dev/null
}

# every test frame to the sockets, each checked; none to the stack
case_rx()
{
	local u0 s0 r0 rc=0

	counters && s0=$SEEN && r0=$REDIR || return 1
	u0=$(udp_arrived "") || return 1
	rx_start "$XSK_COUNT" || return 1
	send "$XSK_COUNT" "$XSK_PORT" || rc=1
	bg_wait rx || rc=1
	counters || return 1
	ktap_print_msg "program: $((SEEN - s0)) test frames seen," \
		"$((REDIR - r0)) redirected; stack: $(($(udp_arrived "") - u0)) UDP"
	[ $((SEEN - s0)) -eq "$XSK_COUNT" ] && [ $((REDIR - r0)) -eq "$XSK_COUNT" ] &&
		[ "$(udp_arrived "")" -eq "$u0" ] || rc=1
	return $rc
}

# with the sockets closed (their map entries go with them), the program's
# bpf_redirect_map() falls back to XDP_PASS and the stack gets the frames
case_closed()
{
	local u0 s0 r0 u

	counters && s0=$SEEN && r0=$REDIR || return 1
	u0=$(udp_arrived "") || return 1
	send "$XSK_OTHER" "$XSK_PORT" || return 1
	wait_for 100 udp_arrived_all "" "$u0" "$XSK_OTHER"
	nap 0.5
	u=$(($(udp_arrived "") - u0))
	counters || return 1
	ktap_print_msg "program: $((SEEN - s0)) test frames seen," \
		"$((REDIR - r0)) redirected; stack: $u UDP of $XSK_OTHER"
	[ $((SEEN - s0)) -eq "$XSK_OTHER" ] && [ "$REDIR" -eq "$r0" ] &&
		[ "$u" -eq "$XSK_OTHER" ]
}

# the sockets bound and taking their frames, the stack gets the rest: UDP
# to another port and ping both ways, all while the sockets wait (they stay
# XSK_SETTLE seconds after their last frame)
case_stack()
{
	local u0 u p1 p2 other rc=0

	u0=$(udp_arrived "") || return 1
	rx_start "$XSK_COUNT" --settle "${XSK_SETTLE:-10}" || return 1
	ping -c 5 -i 0.2 -W 2 "$IP4_B" > "$TMPD/ping1.out" 2>&1 &
	p1=$!
	peer ping -c 5 -i 0.2 -W 2 "$IP4_A" > "$TMPD/ping2.out" 2>&1 &
	p2=$!
	peer python3 "$XSK_PY" send --dst "$IP4_A" --count "$XSK_OTHER" \
		--port "$OTHER_PORT" --sport 7362 > "$TMPD/other.out" 2>&1 &
	other=$!
	send "$XSK_COUNT" "$XSK_PORT" || rc=1
	wait "$other" || { ktap_print_msg "send to $OTHER_PORT failed"; rc=1; }
	wait "$p1" || { ktap_print_msg "ping $IP4_B failed, sockets bound"; rc=1; }
	wait "$p2" || { ktap_print_msg "ping $IP4_A failed, sockets bound"; rc=1; }
	running "$BG_PID" || { ktap_print_msg "rx ended before the pings"; rc=1; }
	bg_wait rx || rc=1
	wait_for 100 udp_arrived_all "" "$u0" "$XSK_OTHER"
	u=$(($(udp_arrived "") - u0))
	ktap_print_msg "stack: $u UDP to port $OTHER_PORT of $XSK_OTHER, ping both ways"
	[ "$u" -eq "$XSK_OTHER" ] || rc=1
	return $rc
}

# frames built in the UMEM, out of every TX queue, all at the peer
case_tx()
{
	local mac q n=0 rc=0 e0

	mac=$(ns_cat "$PEER_NS" "/sys/class/net/$IF_B/address") || return 1
	e0=$(snmp "$PEER_NS" Udp RcvbufErrors) || return 1
	for q in ${QUEUES//,/ }; do
		[ -e "/sys/class/net/$IF_A/queues/tx-$q" ] && n=$((n + 1))
	done
	rm -f "$TMPD/recv.ready"
	bg recv peer python3 "$XSK_PY" recv --port "$TX_PORT" \
		--count $((n * XSK_TX_COUNT)) --timeout "$XSK_TIMEOUT" \
		--ready "$TMPD/recv.ready"
	wait_for 600 ready "$TMPD/recv.ready" && [ -e "$TMPD/recv.ready" ] ||
		{ bg_wait recv; return 1; }
	for q in ${QUEUES//,/ }; do
		[ -e "/sys/class/net/$IF_A/queues/tx-$q" ] || continue
		python3 "$XSK_PY" tx --ifname "$IF_A" --queue "$q" \
			--count "$XSK_TX_COUNT" --dst-mac "$mac" --src "$IP4_A" \
			--dst "$IP4_B" --port "$TX_PORT" --sport $((7400 + q)) \
			--first $((q * XSK_TX_COUNT)) --timeout 60 > "$TMPD/tx.out" 2>&1 || rc=1
		ktap_print_msg "$(tail -n 3 "$TMPD/tx.out")"
	done
	bg_wait recv || rc=1
	[ "$rc" -eq 0 ] || ktap_print_msg "peer: $(($(snmp "$PEER_NS" Udp RcvbufErrors) - e0))" \
		"UDP receive buffer errors, $IF_B rx_missed_errors" \
		"$(ns_cat "$PEER_NS" "/sys/class/net/$IF_B/statistics/rx_missed_errors")"
	return $rc
}

case_detach()
{
	ip link set dev "$IF_A" "$XDP_MODE" off || return 1
	[[ $(ip -d link show dev "$IF_A") != *"prog/xdp"* ]] ||
		{ ktap_print_msg "a program is still attached"; return 1; }
	rm "$XSK_MAP" "$XSK_CNT" && [ ! -e "$XSK_MAP" ] && [ ! -e "$XSK_CNT" ] ||
		return 1
	wait_for 100 carrier_up "$IF_A" && ping -c 2 -i 0.2 -W 2 "$IP4_B" > /dev/null
}

if setup; then
	ktap_test_pass "$DRIVER: xsk.bpf.o attached ($XDP_MODE), XSKMAP pinned"
else
	ktap_exit_fail_msg "$DRIVER: setup failed"
fi
ktap_test_result "$DRIVER: AF_XDP copy RX: every test frame on the sockets, none to the stack" \
	case_rx
ktap_test_result "$DRIVER: sockets closed: the test frames pass to the stack" \
	case_closed
ktap_test_result "$DRIVER: sockets bound: ping and other UDP still reach the stack" \
	case_stack
ktap_test_result "$DRIVER: AF_XDP copy TX: UMEM frames out of every queue, all at the peer" \
	case_tx
ktap_test_result "$DRIVER: program detached, pins removed, traffic after" \
	case_detach
ktap_finished
