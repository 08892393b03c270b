#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# XDP on $DRIVER (default i82574): the programs of xdp_actions.bpf.o, one per
# action, attached to NIC 0 in $XDP_MODE (xdpdrv, native, for i82574;
# xdpgeneric for any other driver), with pktgen on the peer (NIC 1, in a
# namespace) sending XDP_N test frames (IPv4 UDP to port XDP_PORT, to an
# address nobody owns, so that IP drops them and counts each in
# InAddrErrors, where they reach a stack, without answering). Every count
# is exact:
#   - the program's own count (its pinned array map xdp_cnt, read with
#     bpftool), the frames that reached NIC 0's stack and the frames that
#     came back to the peer's, for XDP_PASS, XDP_DROP, XDP_ABORTED, an
#     invalid action (99) and XDP_TX (MAC addresses swapped: the peer's IP
#     counts only frames addressed to it); xdp_exception trace events where
#     tracefs has them; the driver's ethtool -S XDP counters (i82574 native);
#   - XDP_TX doorbells: QEMU's TDT writes under long interrupt moderation;
#   - a program swapped between XDP_DROP and XDP_PASS while pktgen runs:
#     every frame passed or dropped, as many passed as the stack got;
#   - ring and channel changes, ifdown/ifup, unbind/bind and a system
#     suspend (lib.sh's system_sleep) with a
#     program attached: the program stays where the kernel keeps it,
#     XDP_TX after;
#   - MTU 3000 refused with a native program attached, and a native
#     program refused at MTU 3000 (i82574 native);
#   - XDP_REDIRECT through a DEVMAP from NIC 0 to NIC 2 (NIC 3, in a
#     namespace of its own with NIC 0's MAC address, counts them), both
#     $DRIVER, then from a NIC 0 of the other driver (generic XDP); and
#     12 s of the peer's bursts redirected to NIC 2, more than its ring
#     takes: no TX watchdog timeout there, during or after.
# XDP_MODE=xdpgeneric runs i82574 in generic mode (the core runs the
# program; the driver's XDP counters are then not checked).

. "$(dirname "$(readlink -f "$0")")/lib.sh"

if [ "$DRIVER" = i82574 ]; then
	XDP_MODE=${XDP_MODE:-xdpdrv}
	OTHER=e1000e
else
	XDP_MODE=${XDP_MODE:-xdpgeneric}
	OTHER=i82574
fi
XDP_N=${XDP_N:-500}
XDP_SWAP_N=${XDP_SWAP_N:-2000}
XDP_TDT_N=${XDP_TDT_N:-1024}
XDP_LOAD_SECS=${XDP_LOAD_SECS:-12}
# at most one TDT write per this many XDP_TX frames (native XDP only)
XDP_TDT_BATCH=${XDP_TDT_BATCH:-32}
XDP_PORT=7357
XDP_DST=198.18.0.99
XDP_OBJ=${XDP_OBJ:-$DIR/xdp_actions.bpf.o}
SINK_NS=${SINK_NS:-i82574-xdp-sink}
# xdp_cnt's indexes: the action a program returned, 5 for the invalid one
CNT_ABORTED=0 CNT_DROP=1 CNT_PASS=2 CNT_TX=3 CNT_REDIRECT=4 CNT_INVALID=5
PIN=
IF_C='' IF_D='' MAC_D=''
TRACE=
COAL=
DRV_XDP=0
[ "$DRIVER" = i82574 ] && [ "$XDP_MODE" = xdpdrv ] && DRV_XDP=1
NATIVE_ONLY="$DRIVER $XDP_MODE (i82574 native only)"
DRV_XDP_STATS="xdp_pass xdp_drop xdp_tx xdp_redirect xdp_aborted xdp_tx_err xdp_xmit xdp_xmit_err"

# xdp_on IF PROG [MODE]: attach PROG in MODE (default XDP_MODE), replacing
# any program; ip's output in XDP_ERR
xdp_on()
{
	XDP_ERR=$(ip -force link set dev "$1" "${3:-$XDP_MODE}" obj "$XDP_OBJ" \
		program "$2" 2>&1)
}

# xdp_off IF: no program in either mode
xdp_off()
{
	ip link set dev "$1" xdpgeneric off 2>/dev/null
	ip link set dev "$1" xdpdrv off 2>/dev/null
	return 0
}

# xdp_prog IF: the attached program as "MODE ID NAME" in XDP_PROG; fails if
# none
xdp_prog()
{
	local l mode='' re='prog/xdp id ([0-9]+) name ([^ ]+)'

	XDP_PROG=
	l=$(ip -d link show dev "$1") || return 1
	[[ $l =~ \ (xdp|xdpgeneric|xdpdrv|xdpoffload|xdpmulti)\  ]] &&
		mode=${BASH_REMATCH[1]}
	[[ $l =~ $re ]] || return 1
	XDP_PROG="$mode ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# xdp_counts: xdp_cnt's values in the array XC (bpftool's JSON: the
# little-endian bytes of each key and value)
xdp_counts()
{
	local out k v n i b re='"key":\["0x([0-9a-f]+)"[^]]*\],"value":\[([^]]*)\]'

	out=$(bpftool -j map dump pinned "$PIN/xdp_cnt") || return 1
	XC=()
	while [[ $out =~ $re ]]; do
		k=$((16#${BASH_REMATCH[1]}))
		v=${BASH_REMATCH[2]//\"/}
		IFS=, read -r -a b <<< "${v//0x/}"
		n=0
		for ((i = ${#b[@]} - 1; i >= 0; i--)); do
			n=$((n * 256 + 16#${b[i]}))
		done
		XC[k]=$n
		out=${out#*"${BASH_REMATCH[0]}"}
	done
	[ ${#XC[@]} -gt 0 ]
}

# xc_reaches KEY N...: xdp_cnt at KEY (the sum at the KEYs, "a+b") is N
xc_reaches()
{
	local k n=0

	xdp_counts || return 1
	IFS=+ read -r -a k <<< "$1"
	for k in "${k[@]}"; do
		n=$((n + ${XC[k]:-0}))
	done
	[ "$n" -ge "$2" ]
}

# addr_err NETNS: IP InAddrErrors of NETNS ("" = here): the test frames
# that reached its stack
addr_err()
{
	snmp "$1" Ip InAddrErrors
}

# addr_err_reaches NETNS N
addr_err_reaches()
{
	[ "$(addr_err "$1")" -ge "$2" ]
}

# drv_stats IF: IF's ethtool -S in the associative array DS
declare -A DS=()
drv_stats()
{
	local k v

	DS=()
	while read -r k v; do
		[ -n "$v" ] && DS[${k%:}]=$v
	done <<< "$(ethtool -S "$1" 2>/dev/null)"
}

# drv_snap IF: drv_stats IF kept in DS0 for drv_check
declare -A DS0=()
drv_snap()
{
	local k

	DS0=()
	[ $DRV_XDP = 1 ] || return 0
	drv_stats "$1"
	for k in "${!DS[@]}"; do
		DS0[$k]=${DS[$k]}
	done
}

# drv_check IF WHAT NAME=N|NAME>=N...: the driver's XDP counters grew by
# exactly N (at least N) since drv_snap, those not named by 0 (of
# DRV_XDP_STATS); with native XDP on i82574 only
drv_check()
{
	local ifn=$1 what=$2 want k d rc=0 msg=
	declare -A exp=()

	if [ $DRV_XDP = 0 ]; then
		ktap_print_msg "$what: driver XDP counters not checked" \
			"($DRIVER, $XDP_MODE: the driver does not run the program)"
		return 0
	fi
	shift 2
	for want in "$@"; do
		exp[${want%%[>=]*}]=${want#"${want%%[>=]*}"}
	done
	drv_stats "$ifn"
	for k in $DRV_XDP_STATS; do
		if [ -z "${DS[$k]:-}" ]; then
			msg+=" $k missing"
			rc=1
			continue
		fi
		d=$((DS[$k] - ${DS0[$k]:-0}))
		msg+=" $k +$d"
		want=${exp[$k]:-=0}
		case $want in
		\>=*)	[ "$d" -ge "${want#>=}" ] || rc=1 ;;
		=*)	[ "$d" -eq "${want#=}" ] || rc=1 ;;
		esac
	done
	ktap_print_msg "$what: $ifn ethtool -S:$msg"
	return $rc
}

# Exceptions (XDP_ABORTED, invalid actions) in tracefs's xdp_exception
# events, where the kernel has them (the debug kernel; the perf kernel has
# no tracing): TRACE is tracefs's directory, else empty and TRACE_WHY why
trace_find()
{
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events/xdp/xdp_exception" ] && { TRACE=$d; return 0; }
	done
	if [ -d /sys/kernel/tracing ] &&
	   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
	   [ -d /sys/kernel/tracing/events/xdp/xdp_exception ]; then
		TRACE=/sys/kernel/tracing
		return 0
	fi
	if [ -d /sys/kernel/tracing ]; then
		TRACE_WHY="no xdp/xdp_exception event in tracefs"
	else
		TRACE_WHY="no tracefs (kernel without tracing)"
	fi
	return 1
}

# exc_start IF: trace IF's xdp_exception events from now on, if possible
exc_start()
{
	local e

	[ -n "$TRACE" ] || return 0
	e=$TRACE/events/xdp/xdp_exception
	rd "/sys/class/net/$1/ifindex" || return 1
	echo 0 > "$TRACE/tracing_on" &&
		echo > "$TRACE/trace" &&
		echo "ifindex == $RD" > "$e/filter" &&
		echo 1 > "$e/enable" &&
		echo 1 > "$TRACE/tracing_on"
}

# exc_stop: the events traced since exc_start in EXC, tracing off
exc_stop()
{
	local e=$TRACE/events/xdp/xdp_exception

	EXC=
	[ -n "$TRACE" ] || return 0
	echo 0 > "$e/enable"
	echo 0 > "$TRACE/tracing_on"
	EXC=$(grep -c 'xdp_exception:' "$TRACE/trace")
	echo 0 > "$e/filter"
	echo > "$TRACE/trace"
}

# pktgen on the peer: its files through the namespace's pinned process
# (lib.sh's ns_pin), its start from a process in the namespace (pgctrl
# acts on the writer's namespace)
peer_pg_dir()
{
	ns_file "$PEER_NS" /proc/net/pktgen && PGD=$NS_FILE
}

peer_pg_clear()
{
	local t

	peer_pg_dir || return 1
	for t in "$PGD"/kpktgend_*; do
		[ -e "$t" ] || continue
		echo rem_device_all > "$t" || return 1
		wait_for 300 pktgen_idle "$t" || return 1
	done
}

# peer_pg_setup COUNT [DELAY [BURST]]: COUNT test frames from IF_B to NIC
# 0's MAC, DELAY ns apart (default 0), BURST at a time (default 1)
peer_pg_setup()
{
	local c mac

	peer_pg_clear || return 1
	rd "/sys/class/net/$IF_A/address" && mac=$RD || return 1
	echo "add_device $IF_B" > "$PGD/kpktgend_0" || return 1
	for c in "count $1" "pkt_size 60" "delay ${2:-0}" "burst ${3:-1}" \
		 "dst $XDP_DST" "dst_mac $mac" "udp_src_min 9" "udp_src_max 9" \
		 "udp_dst_min $XDP_PORT" "udp_dst_max $XDP_PORT"; do
		echo "$c" > "$PGD/$IF_B" || return 1
	done
}

# peer_pg_start: start the run set up; the writer's PID in PG_W
peer_pg_start()
{
	ip netns exec "$PEER_NS" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	PG_W=$!
}

# peer_pg_ran: the peer's run has ended (lib.sh's pktgen_ran, there)
peer_pg_ran()
{
	local l re='^Result: OK: [0-9]+\(c'

	while IFS= read -r l; do
		[[ $l =~ $re ]] && return 0
	done < "$PGD/$IF_B"
	return 1
}

# peer_pg_wait: the run has ended, its writer reaped; frames sent in SENT
peer_pg_wait()
{
	local l re='pkts-sofar: ([0-9]+)'

	SENT=
	if ! wait_for 1200 peer_pg_ran; then
		kill "$PG_W" 2>/dev/null
		wait "$PG_W"
		return 1
	fi
	wait_for 100 stopped "$PG_W" || kill "$PG_W" 2>/dev/null
	wait "$PG_W"
	while IFS= read -r l; do
		[[ $l =~ $re ]] && SENT=${BASH_REMATCH[1]}
	done < "$PGD/$IF_B"
	[ -n "$SENT" ]
}

# peer_send COUNT [DELAY]: a whole run; SENT frames sent
peer_send()
{
	peer_pg_setup "$@" && peer_pg_start && peer_pg_wait
}

# splat_mark / splat_none: no kernel warning since the mark
splat_mark()
{
	SPLAT_MARK="i82574 XDP selftest mark $RANDOM$RANDOM"
	echo "<6>$SPLAT_MARK" > /dev/kmsg
}

splat_none()
{
	local s l

	s=$(dmesg | sed -n "/$SPLAT_MARK/,\$p" |
	    grep -E 'WARNING:|BUG:|Oops|Call Trace|refcount_t|UBSAN|KASAN')
	[ -z "$s" ] && return 0
	while read -r l; do ktap_print_msg "dmesg: $l"; done <<< "$s"
	return 1
}

# action_case PROG KEY STACK BACK EXC: XDP_N test frames from the peer with
# PROG on NIC 0, counted by PROG at xdp_cnt[KEY]; STACK (N or 0) of them
# reached NIC 0's stack, BACK (N or 0) came back to the peer's, EXC (N or
# 0) xdp_exception events; then the driver's counters (drv_check's
# arguments after the fifth)
action_case()
{
	local prog=$1 key=$2 m0 p0 x0 r0 dm dp dx dr rc=0 want

	xdp_on "$IF_A" "$prog" || { ktap_print_msg "$prog: $XDP_ERR"; return 1; }
	xc_reaches "$key" 0 && x0=${XC[key]:-0} || return 1
	m0=$(addr_err "") && p0=$(addr_err "$PEER_NS") || return 1
	rd "/sys/class/net/$IF_A/statistics/rx_packets" && r0=$RD
	drv_snap "$IF_A"
	exc_start "$IF_A" || return 1
	peer_send "$XDP_N" || { exc_stop; return 1; }
	wait_for 100 xc_reaches "$key" $((x0 + SENT))
	[ "$3" = N ] && wait_for 100 addr_err_reaches "" $((m0 + SENT))
	[ "$4" = N ] && wait_for 100 addr_err_reaches "$PEER_NS" $((p0 + SENT))
	# and nothing more trickles in
	nap 0.3
	exc_stop
	xc_reaches "$key" 0 && dx=$((XC[key] - x0)) || return 1
	dm=$(($(addr_err "") - m0))
	dp=$(($(addr_err "$PEER_NS") - p0))
	rd "/sys/class/net/$IF_A/statistics/rx_packets" && dr=$((RD - r0))
	ktap_print_msg "$prog: sent $SENT, program counted $dx, NIC 0's IP" \
		"got $dm, the peer's IP got $dp back; NIC 0 rx_packets +$dr"
	[ "$dx" -eq "$SENT" ] || rc=1
	want=0; [ "$3" = N ] && want=$SENT
	[ "$dm" -eq "$want" ] || rc=1
	want=0; [ "$4" = N ] && want=$SENT
	[ "$dp" -eq "$want" ] || rc=1
	if [ -z "$TRACE" ]; then
		ktap_print_msg "$prog: xdp_exception not counted: $TRACE_WHY"
	else
		want=0; [ "$5" = N ] && want=$SENT
		ktap_print_msg "$prog: $EXC xdp_exception events (want $want)"
		[ "$EXC" -eq "$want" ] || rc=1
	fi
	shift 5
	drv_check "$IF_A" "$prog" "${@//N/$SENT}" || rc=1
	xdp_off "$IF_A"
	return $rc
}

# bounce_exact WHAT [COUNT]: with xdp_tx on NIC 0, COUNT test frames
# (default 100) come back to the peer, every one
bounce_exact()
{
	local p0 d

	p0=$(addr_err "$PEER_NS") || return 1
	peer_send "${2:-100}" || return 1
	wait_for 100 addr_err_reaches "$PEER_NS" $((p0 + SENT))
	nap 0.2
	d=$(($(addr_err "$PEER_NS") - p0))
	ktap_print_msg "$1: XDP_TX sent back $d of $SENT"
	[ "$d" -eq "$SENT" ]
}

# peer_dbs: the peer driver's doorbells (i82574's tx_doorbells) or, where
# its driver has no such counter, its tx_packets, which a doorbell per
# frame at most bounds
peer_dbs()
{
	local c

	if [ "$PEER_DBS_KIND" = tx_doorbells ]; then
		c=$(doorbell_counts "$IF_B" "$PEER_NS") && echo "${c%% *}"
	else
		ns_cat "$PEER_NS" "/sys/class/net/$IF_B/statistics/tx_packets"
	fi
}

# coal_set IF USECS: interrupt moderation USECS, adaptive off (the old
# settings in COAL, for coal_restore)
coal_set()
{
	local k v a

	COAL=
	while read -r k v a; do
		case "$k $v" in
		"rx-usecs: "*|"tx-usecs: "*)	COAL+=" ${k%:} $v" ;;
		esac
	done <<< "$(ethtool -c "$1")"
	ethtool -C "$1" adaptive-rx off adaptive-tx off 2>/dev/null
	ethtool -C "$1" rx-usecs "$2" tx-usecs "$2" 2>/dev/null ||
		ethtool -C "$1" rx-usecs "$2"
}

coal_restore()
{
	local a

	[ -n "$COAL" ] || return 0
	read -r -a a <<< "$COAL"
	ethtool -C "$1" "${a[@]}" 2>/dev/null ||
		ethtool -C "$1" "${a[@]:0:2}"
	COAL=
}

# tdt_case: XDP_TDT_N frames bounced by xdp_tx under interrupt moderation of
# 2 ms; NIC 0's TDT writes are the window's less the peer's doorbells, as a
# range ("LO HI": the peer may ring between a count and the window's edge).
# Natively the peer (i82574, which counts its doorbells) sends bursts of
# XDP_TDT_BATCH * 2 frames with one doorbell each: QEMU moves a whole burst
# into NIC 0's ring within that one register write, so a poll finds a full
# budget however fast the guest runs (no rate in the outcome). Generically
# the frames come one at a time, 50 us apart.
tdt_case()
{
	local pd t p0 lo hi rc=0

	if ! reg_trace_available; then
		ktap_test_skip "XDP_TX doorbells: no QEMU trace log or hostctl (no harness)"
		return
	fi
	PEER_DBS_KIND=tx_packets
	[[ $(ip netns exec "$PEER_NS" ethtool -S "$IF_B" 2>/dev/null) == *tx_doorbells:* ]] &&
		PEER_DBS_KIND=tx_doorbells
	if ! xdp_on "$IF_A" xdp_tx; then
		ktap_print_msg "xdp_tx: $XDP_ERR"
		ktap_test_fail "XDP_TX doorbells: TDT writes per frame under interrupt moderation"
		return
	fi
	coal_set "$IF_A" 2000 || rc=1
	reg_trace_idle_others 0 1 || rc=1
	p0=$(addr_err "$PEER_NS")
	if [ "$XDP_MODE" = xdpdrv ] && [ "$PEER_DBS_KIND" = tx_doorbells ]; then
		peer_pg_setup "$XDP_TDT_N" 0 $((XDP_TDT_BATCH * 2)) || rc=1
	else
		# 50 us apart: generic XDP_TX goes through the driver's xmit,
		# whose ring (e1000e: 256) must not fill within one 2 ms
		# interrupt interval, or frames are dropped
		peer_pg_setup "$XDP_TDT_N" 50000 || rc=1
	fi
	pd=$(peer_dbs) && reg_trace_on e1000e_core_write && pd+=" $(peer_dbs)" || rc=1
	if [ $rc = 0 ]; then
		peer_pg_start
		peer_pg_wait || rc=1
		wait_for 100 addr_err_reaches "$PEER_NS" $((p0 + SENT))
		nap 0.3
		pd+=" $(peer_dbs)"
		reg_trace_off || rc=1
		pd+=" $(peer_dbs)"
		t=$(reg_trace_lines |
		    grep -cE 'e1000e_core_write Write to register 0x3[89]18,')
	fi
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	reg_trace_restore_others
	coal_restore "$IF_A"
	xdp_off "$IF_A"
	if [ $rc = 0 ]; then
		read -r -a pd <<< "$pd"
		p0=$(($(addr_err "$PEER_NS") - p0))
		lo=$((t - (pd[3] - pd[0])))
		if [ "$PEER_DBS_KIND" = tx_doorbells ]; then
			hi=$((t - (pd[2] - pd[1])))
		else
			# each of the SENT pktgen frames (burst 1) rang
			hi=$((t - SENT))
		fi
		ktap_print_msg "XDP_TX: $SENT sent, $p0 back; $t TDT writes in" \
			"the window, the peer's $PEER_DBS_KIND +$((pd[3] - pd[0]))" \
			"(+$((pd[2] - pd[1])) inside): NIC 0 rang $lo..$hi times," \
			"$(((lo * 1000 + SENT / 2) / SENT))..$(((hi * 1000 + SENT / 2) / SENT))" \
			"per 1000 frames"
		[ "$p0" -eq "$SENT" ] || rc=1
		if [ "$XDP_MODE" = xdpdrv ]; then
			# one doorbell per NAPI poll's XDP_TX bulk at most
			[ $((lo * XDP_TDT_BATCH)) -le $((SENT + 2 * XDP_TDT_BATCH)) ] || rc=1
		else
			# generic XDP_TX transmits each frame alone (no xmit_more)
			[ "$hi" -ge "$SENT" ] || rc=1
		fi
	fi
	ktap_test_result_rc $rc "XDP_TX doorbells: TDT writes per frame under interrupt moderation"
}

# run_case WHAT CMD...: one case, passed if CMD succeeds (ktap_test_result
# without splitting CMD's arguments again)
run_case()
{
	local what=$1

	shift
	if "$@"; then
		ktap_test_pass "$what"
	else
		ktap_test_fail "$what"
	fi
}

# ktap_test_result_rc RC WHAT: pass if RC is 0
ktap_test_result_rc()
{
	if [ "$1" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
	fi
}

# swap_case: xdp_drop and xdp_pass swapped while XDP_SWAP_N frames come in
# 0.3 ms apart: each frame dropped or passed, the stack got the passed
swap_case()
{
	local x0p x0d m0 p0 dp dd dm dpeer swaps=0 progs=(xdp_drop xdp_pass) rc=0

	xdp_on "$IF_A" xdp_pass || { ktap_print_msg "$XDP_ERR"; return 1; }
	xdp_counts || return 1
	x0p=${XC[CNT_PASS]:-0} x0d=${XC[CNT_DROP]:-0}
	m0=$(addr_err "") && p0=$(addr_err "$PEER_NS") || return 1
	drv_snap "$IF_A"
	peer_pg_setup "$XDP_SWAP_N" 300000 || return 1
	peer_pg_start
	while ! peer_pg_ran && running "$PG_W" && [ $swaps -lt 500 ]; do
		if ! xdp_on "$IF_A" "${progs[swaps % 2]}"; then
			ktap_print_msg "swap $swaps: $XDP_ERR"
			rc=1
			break
		fi
		swaps=$((swaps + 1))
		nap 0.05
	done
	peer_pg_wait || return 1
	wait_for 100 xc_reaches "$CNT_PASS+$CNT_DROP" $((x0p + x0d + SENT))
	xdp_counts || return 1
	dp=$((XC[CNT_PASS] - x0p)) dd=$((XC[CNT_DROP] - x0d))
	wait_for 100 addr_err_reaches "" $((m0 + dp))
	nap 0.3
	xdp_counts || return 1
	dp=$((XC[CNT_PASS] - x0p)) dd=$((XC[CNT_DROP] - x0d))
	dm=$(($(addr_err "") - m0))
	dpeer=$(($(addr_err "$PEER_NS") - p0))
	ktap_print_msg "swap: $swaps program swaps during the run; sent $SENT," \
		"passed $dp, dropped $dd; NIC 0's IP got $dm, the peer $dpeer"
	[ $((dp + dd)) -eq "$SENT" ] && [ "$dm" -eq "$dp" ] && [ "$dpeer" -eq 0 ] &&
		[ "$swaps" -ge 2 ] && [ "$dp" -gt 0 ] && [ "$dd" -gt 0 ] || rc=1
	drv_check "$IF_A" swap "xdp_pass>=$dp" "xdp_drop=$dd" || rc=1
	xdp_off "$IF_A"
	return $rc
}

# reconf_case WHAT KEPT CMD...: with xdp_tx on NIC 0 and 600 frames coming
# in 0.1 ms apart, run CMD; then the program is still attached (KEPT=kept:
# the same one; else attach it again) and XDP_TX bounces every frame
reconf_case()
{
	local what=$1 kept=$2 before rc=0

	shift 2
	splat_mark
	xdp_on "$IF_A" xdp_tx || { ktap_print_msg "$XDP_ERR"; return 1; }
	xdp_prog "$IF_A" && before=$XDP_PROG || return 1
	peer_pg_setup 600 100000 || return 1
	peer_pg_start
	nap 0.1
	"$@" || { ktap_print_msg "$what: the change failed"; rc=1; }
	peer_pg_wait || rc=1
	wait_for 100 carrier_up "$IF_A" || { ktap_print_msg "$what: no carrier"; rc=1; }
	if [ "$kept" = kept ]; then
		xdp_prog "$IF_A"
		ktap_print_msg "$what: program before: $before; after: ${XDP_PROG:-none}"
		[ "$XDP_PROG" = "$before" ] || rc=1
	else
		if xdp_prog "$IF_A"; then
			ktap_print_msg "$what: $XDP_PROG on the new netdev"
			rc=1
		else
			ktap_print_msg "$what: no program on the new netdev (it went" \
				"with the old one); attached again"
		fi
		xdp_on "$IF_A" xdp_tx || { ktap_print_msg "$XDP_ERR"; rc=1; }
	fi
	bounce_exact "$what" || rc=1
	xdp_off "$IF_A"
	splat_none || rc=1
	return $rc
}

# rings_get IF: "RX TX" of IF's current ring sizes
rings_get()
{
	local cur=0 k v

	while read -r k v; do
		[ "$k" = Current ] && cur=1
		[ $cur = 1 ] && [ "$k" = RX: ] && RINGS_RX=$v
		[ $cur = 1 ] && [ "$k" = TX: ] && RINGS_TX=$v
	done <<< "$(ethtool -g "$1")"
	[ -n "${RINGS_RX:-}" ] && [ -n "${RINGS_TX:-}" ]
}

rings_change()
{
	ethtool -G "$IF_A" rx 128 tx 128 && nap 0.3 &&
		ethtool -G "$IF_A" rx "$RINGS_RX" tx "$RINGS_TX"
}

channels_change()
{
	ethtool -L "$IF_A" combined 1 && nap 0.3 && ethtool -L "$IF_A" combined 2
}

updown()
{
	ip link set dev "$IF_A" down && nap 0.2 && ip link set dev "$IF_A" up
}

# nic0_setup: NIC 0's interface (again, after a bind) in IF_A, addressed, up
nic0_setup()
{
	IF_A=$(nic_ifname 0) || return 1
	ip addr flush dev "$IF_A" &&
		ip addr add "$IP4_A/24" dev "$IF_A" &&
		ip addr add "$IP6_A/64" dev "$IF_A" nodad &&
		ip link set dev "$IF_A" up &&
		wait_for 50 carrier_up "$IF_A"
}

# suspend: the whole system to its deepest sleep and back (lib.sh's
# system_sleep, woken by the host)
suspend()
{
	sleep_states && system_sleep "$SLEEP_FULL"
}

rebind()
{
	nic_dev 0
	echo "${NIC_DEV##*/}" > "$NIC_DEV/driver/unbind" || return 1
	echo "${NIC_DEV##*/}" > /sys/bus/pci/drivers_probe || return 1
	[ "$NIC_DEV/driver" -ef "/sys/bus/pci/drivers/$DRIVER" ] && nic0_setup
}

mtu_case()
{
	local out rc=0

	xdp_on "$IF_A" xdp_pass || { ktap_print_msg "$XDP_ERR"; return 1; }
	if out=$(ip link set dev "$IF_A" mtu 3000 2>&1); then
		ktap_print_msg "mtu 3000 with a native program: accepted"
		rc=1
	else
		ktap_print_msg "mtu 3000 with a native program: refused: $out"
	fi
	rd "/sys/class/net/$IF_A/mtu"
	ktap_print_msg "MTU now $RD"
	[ "$RD" = 1500 ] || rc=1
	xdp_off "$IF_A"
	ip link set dev "$IF_A" mtu 3000 || return 1
	if xdp_on "$IF_A" xdp_pass; then
		ktap_print_msg "native program at MTU 3000: attached"
		rc=1
	else
		ktap_print_msg "native program at MTU 3000: refused: $XDP_ERR"
		[[ ${XDP_ERR,,} == *mtu* ]] || rc=1
	fi
	xdp_off "$IF_A"
	ip link set dev "$IF_A" mtu 1500 || rc=1
	return $rc
}

# sink_setup: NIC 2 here as IF_C, up, no address; NIC 3 in SINK_NS as IF_D
# with NIC 0's MAC address (it is on the other hub), so that its IP counts
# the frames redirected to NIC 2 unchanged
sink_setup()
{
	local mac

	nic_bind "$DRIVER" 2 3 || return 1
	IF_C=$(nic_ifname 2) && IF_D=$(nic_ifname 3) || return 1
	rd "/sys/class/net/$IF_A/address" && mac=$RD || return 1
	rd "/sys/class/net/$IF_D/address" && MAC_D=$RD || return 1
	ip netns del "$SINK_NS" 2>/dev/null
	ip -batch - <<-EOF || return 1
		netns add $SINK_NS
		link set $IF_D netns $SINK_NS
		addr flush dev $IF_C
		link set $IF_C up
	EOF
	ip -n "$SINK_NS" -batch - <<-EOF || return 1
		link set $IF_D address $mac
		link set $IF_D up
	EOF
	ns_pin "$SINK_NS" || return 1
	wait_for 50 carrier_up "$IF_C" && wait_for 50 carrier_up "$IF_D" "$SINK_NS"
}

sink_cleanup()
{
	[ -n "$IF_D" ] || return 0
	ns_unpin "$SINK_NS"
	ip netns del "$SINK_NS" 2>/dev/null
	wait_for 300 nic_home 3
	IF_D=$(nic_ifname 3) && [ -n "$MAC_D" ] &&
		ip link set dev "$IF_D" down && ip link set dev "$IF_D" address "$MAC_D"
	[ -n "$IF_C" ] && ip link set dev "$IF_C" down
	IF_C='' IF_D=''
}

# redirect_case WHAT SRC_DRIVER SRC_MODE: NIC 0 bound to SRC_DRIVER,
# xdp_redirect on it in SRC_MODE, the devmap pointing at NIC 2: every test
# frame reaches NIC 3's IP, none NIC 0's or the peer's
redirect_case()
{
	local what=$1 drv=$2 mode=$3 ifx x0 m0 p0 s0 dx dm dp ds rc=0 b

	if [ "$(nic_drv 0)" != "$drv" ]; then
		if ! nic_bind "$drv" 0 || ! nic0_setup; then
			ktap_print_msg "$what: bind to $drv failed"
			return 1
		fi
	fi
	xdp_on "$IF_A" xdp_redirect "$mode" || { ktap_print_msg "$XDP_ERR"; return 1; }
	rd "/sys/class/net/$IF_C/ifindex" && ifx=$RD || return 1
	devmap_set "$IF_A" "$ifx" || return 1
	xdp_counts && x0=${XC[CNT_REDIRECT]:-0} || return 1
	m0=$(addr_err "") && p0=$(addr_err "$PEER_NS") && s0=$(addr_err "$SINK_NS") ||
		return 1
	drv_snap "$IF_A"
	declare -A src0=()
	for b in "${!DS0[@]}"; do src0[$b]=${DS0[$b]}; done
	drv_snap "$IF_C"
	peer_send "$XDP_N" || return 1
	wait_for 100 addr_err_reaches "$SINK_NS" $((s0 + SENT))
	nap 0.3
	xdp_counts && dx=$((XC[CNT_REDIRECT] - x0)) || return 1
	dm=$(($(addr_err "") - m0))
	dp=$(($(addr_err "$PEER_NS") - p0))
	ds=$(($(addr_err "$SINK_NS") - s0))
	ktap_print_msg "$what: sent $SENT, program redirected $dx, NIC 3's IP" \
		"got $ds; NIC 0's IP $dm, the peer's $dp"
	[ "$dx" -eq "$SENT" ] && [ "$ds" -eq "$SENT" ] && [ "$dm" -eq 0 ] &&
		[ "$dp" -eq 0 ] || rc=1
	if [ "$drv" = "$DRIVER" ]; then
		drv_check "$IF_C" "$what (target)" "xdp_xmit=$SENT" || rc=1
		for b in "${!src0[@]}"; do DS0[$b]=${src0[$b]}; done
		drv_check "$IF_A" "$what (source)" "xdp_redirect=$SENT" "xdp_pass>=0" || rc=1
	else
		ktap_print_msg "$what: NIC 0 is $drv in generic mode: the frames" \
			"reach NIC 2 through its ndo_start_xmit, not ndo_xdp_xmit"
	fi
	xdp_off "$IF_A"
	return $rc
}

# redirect_load_case: XDP_LOAD_SECS of the peer's bursts (64 frames, one
# doorbell) redirected from NIC 0 to NIC 2, more than NIC 2's ring takes,
# so that XDP frames stop NIC 2's stack queue again and again: its TX
# watchdog (5 s, two checks in 12 s) must see the queue transmit, though
# the stack sends nothing there, and find it running 6 s after. Not
# exact: NIC 2 may refuse frames.
redirect_load_case()
{
	local rc=0 s0 ds l

	splat_mark
	xdp_on "$IF_A" xdp_redirect "$XDP_MODE" || { ktap_print_msg "$XDP_ERR"; return 1; }
	rd "/sys/class/net/$IF_C/ifindex" && devmap_set "$IF_A" "$RD" || return 1
	s0=$(addr_err "$SINK_NS") || return 1
	peer_pg_setup 0 0 64 || return 1
	peer_pg_start
	sleep "$XDP_LOAD_SECS"
	# the writer of "start" returns when the run stops
	kill -TERM "$PG_W" 2>/dev/null
	peer_pg_ran || ip netns exec "$PEER_NS" sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	peer_pg_wait || rc=1
	# a queue left stopped would time out within one more period
	sleep 6
	ds=$(($(addr_err "$SINK_NS") - s0))
	ktap_print_msg "redirect load: ${SENT:-?} frames in $XDP_LOAD_SECS s, NIC 3's IP got $ds"
	l=$(dmesg | sed -n "/$SPLAT_MARK/,\$p" | grep 'NETDEV WATCHDOG')
	[ -z "$l" ] || { ktap_print_msg "dmesg: $l"; rc=1; }
	[ "$ds" -gt 0 ] || rc=1
	splat_none || rc=1
	xdp_off "$IF_A"
	return $rc
}

# devmap_set IF IFINDEX: the devmap of IF's program (xdp_port, found
# through the program's map IDs) sends to IFINDEX
devmap_set()
{
	local l id m re='map_ids ([0-9,]+)' b

	xdp_prog "$1" || return 1
	read -r _ id _ <<< "$XDP_PROG"
	l=$(bpftool prog show id "$id") || return 1
	[[ $l =~ $re ]] || return 1
	IFS=, read -r -a m <<< "${BASH_REMATCH[1]}"
	for id in "${m[@]}"; do
		[[ $(bpftool map show id "$id") == *devmap*xdp_port* ]] || continue
		printf -v b '%d %d %d %d' $(($2 & 255)) $(($2 >> 8 & 255)) \
			$(($2 >> 16 & 255)) $(($2 >> 24))
		ktap_print_msg "devmap: bpftool map update id $id key 0 0 0 0 value $b"
		# shellcheck disable=SC2086 # the value's four bytes
		bpftool map update id "$id" key 0 0 0 0 value $b
		return
	done
	return 1
}

# nic_drv N: the name of NIC N's driver
nic_drv()
{
	local d

	nic_dev "$1"
	d=$(readlink "$NIC_DEV/driver") && echo "${d##*/}"
}

cleanup()
{
	local i ifn

	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	reg_trace_restore_others
	[ -n "${PGD:-}" ] && peer_pg_clear 2>/dev/null
	exc_stop 2>/dev/null
	[ -n "${IF_A:-}" ] && coal_restore "$IF_A"
	sink_cleanup
	wire_cleanup
	for i in 0 1 2 3; do
		ifn=$(nic_ifname "$i" 2>/dev/null) && [ -n "$ifn" ] && xdp_off "$ifn"
	done
	[ -n "${IF_A:-}" ] && ip link set dev "$IF_A" mtu 1500 2>/dev/null
	[ -n "$PIN" ] && rm -f "$PIN/xdp_cnt"
	# the redirect from the other driver leaves NIC 0 bound to it
	nic_bind "$DRIVER" 0
}

ktap_print_header
if [ ! -d "/sys/bus/pci/drivers/$DRIVER" ] || [ ! -d "/sys/bus/pci/drivers/$OTHER" ]; then
	ktap_skip_all "drivers $DRIVER and $OTHER must be built in"
	exit "$KSFT_SKIP"
fi
if [ ! -e "/sys/bus/pci/devices/$(nic_bdf 3)" ]; then
	ktap_skip_all "needs four NICs"
	exit "$KSFT_SKIP"
fi
for t in bpftool ethtool; do
	if ! command -v $t > /dev/null; then
		ktap_skip_all "no $t"
		exit "$KSFT_SKIP"
	fi
done
if [ ! -r "$XDP_OBJ" ]; then
	ktap_skip_all "no $XDP_OBJ (built from xdp_actions.bpf.c)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 18
trap cleanup EXIT
ktap_print_msg "$DRIVER, $XDP_MODE; $XDP_N frames a case; $XDP_OBJ"

# a stale pin of an earlier run: the map would be reused
rm -f /sys/fs/bpf/tc/globals/xdp_cnt 2>/dev/null
trace_find
setup_ok()
{
	wire_setup 0 1 || return 1
	peer_pg_dir && [ -e "$PGD/pgctrl" ] || { ktap_print_msg "no pktgen"; return 1; }
	# generic, which every driver has: the object loads and pins its map
	xdp_on "$IF_A" xdp_pass xdpgeneric || { ktap_print_msg "$XDP_ERR"; return 1; }
	PIN=/sys/fs/bpf/tc/globals
	[ -e "$PIN/xdp_cnt" ] || PIN=$(dirname "$(find /sys/fs/bpf -name xdp_cnt | head -n 1)")
	ktap_print_msg "maps pinned in $PIN"
	xdp_prog "$IF_A" && ktap_print_msg "attached: $XDP_PROG"
	xdp_counts || return 1
	xdp_off "$IF_A"
}
if setup_ok; then
	ktap_test_pass "setup: NICs bound and wired, the programs load"
else
	ktap_exit_fail_msg "setup failed"
fi

if [ $DRV_XDP = 1 ]; then
	counters_present()
	{
		local k rc=0

		drv_stats "$IF_A"
		for k in $DRV_XDP_STATS; do
			[ -n "${DS[$k]:-}" ] || { ktap_print_msg "no $k"; rc=1; }
		done
		return $rc
	}
	run_case "driver XDP counters in ethtool -S" counters_present
else
	ktap_test_skip "driver XDP counters in ethtool -S: $NATIVE_ONLY"
fi

run_case "XDP_PASS: every test frame reaches the stack" \
	action_case xdp_pass $CNT_PASS N 0 0 "xdp_pass>=N"
run_case "XDP_DROP: every test frame dropped, none at the stack" \
	action_case xdp_drop $CNT_DROP 0 0 0 "xdp_drop=N" "xdp_pass>=0"
run_case "XDP_ABORTED: every test frame dropped, one exception each" \
	action_case xdp_aborted $CNT_ABORTED 0 0 N "xdp_aborted=N" "xdp_pass>=0"
run_case "invalid action 99: every test frame dropped, one exception each" \
	action_case xdp_invalid $CNT_INVALID 0 0 N "xdp_aborted=N" "xdp_pass>=0"
run_case "XDP_TX: every test frame back at the peer, MACs swapped" \
	action_case xdp_tx $CNT_TX 0 N 0 "xdp_tx=N" "xdp_pass>=0"
tdt_case
run_case "program swap under load: each frame passed or dropped" swap_case

if rings_get "$IF_A"; then
	run_case "ring size change with a program attached" \
		reconf_case "rings 128 and back" kept rings_change
else
	ktap_test_fail "ring size change with a program attached"
fi
if [ "$DRIVER" = i82574 ]; then
	run_case "channel change with a program attached" \
		reconf_case "channels 1 and 2" kept channels_change
else
	ktap_test_skip "channel change with a program attached: $DRIVER has one queue pair"
fi
run_case "ifdown/ifup with a program attached" \
	reconf_case "down and up" kept updown
run_case "unbind/bind with a program attached" \
	reconf_case "unbind and bind" new rebind
run_case "system suspend with a program attached" \
	reconf_case "suspend and resume" kept suspend
if [ $DRV_XDP = 1 ]; then
	run_case "MTU 3000 and a native program refuse each other" mtu_case
else
	ktap_test_skip "MTU 3000 and a native program refuse each other: $NATIVE_ONLY"
fi

if sink_setup; then
	run_case "XDP_REDIRECT from NIC 0 to NIC 2, both $DRIVER" \
		redirect_case "redirect $DRIVER to $DRIVER" "$DRIVER" "$XDP_MODE"
	run_case "XDP_REDIRECT under load: no TX watchdog timeout on NIC 2" \
		redirect_load_case
	run_case "XDP_REDIRECT from a $OTHER NIC 0 (generic) to a $DRIVER NIC 2" \
		redirect_case "redirect $OTHER to $DRIVER" "$OTHER" xdpgeneric
else
	ktap_test_fail "XDP_REDIRECT from NIC 0 to NIC 2, both $DRIVER"
	ktap_test_fail "XDP_REDIRECT under load: no TX watchdog timeout on NIC 2"
	ktap_test_fail "XDP_REDIRECT from a $OTHER NIC 0 (generic) to a $DRIVER NIC 2"
fi
ktap_finished
