#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVM, diagnostics and hardware error counters of $DRIVER (i82574): ethtool
# -e/-E, -t, -p and the MAC counters in the rtnl stats. NIC $NVM_NIC (default
# 0) is wired to the next NIC, in a namespace. QEMU 7.2's model reads the NVM
# through EERD and writes it through EEWR (its EEWR always reads DONE),
# loops frames back with RCTL.LBM, keeps LEDCTL as plain storage, and counts
# ROC for frames over 1522 bytes without RCTL.LPE, but never CRC, alignment,
# missed (MPC) or no-buffer (RNBC) errors. Where the effect cannot be seen
# the register trace (lib.sh's reg_trace_*) shows the programming. The
# cases:
#  - ethtool -e: words 0-2 hold the permanent MAC address, words 0x00-0x3F
#    sum to 0xBABA; an odd offset and length read the same bytes;
#  - ethtool -E of a byte at an even and one at an odd offset: ethtool -e
#    shows them, the checksum word keeps the sum, EEWR written with START
#    for that word and the checksum word (trace), each while the driver
#    owns the MDIO/NVM semaphore it shares with the firmware (EXTCNF_CTRL
#    last written with MDIO_SW set, released after); the old bytes written
#    back;
#  - ethtool -E refused, with nothing written to EEWR and the NVM as it
#    was: a wrong magic (EINVAL), the checksum word (EPERM), a multicast
#    MAC address (EADDRNOTAVAIL), beyond the NVM (refused);
#  - ethtool -t offline passes its five tests with RCTL.LBM (MAC loopback)
#    and an ICS written, and ping works afterwards;
#  - ethtool -t online with the link up passes; with it down (QMP
#    set_link off) the link test fails and nothing else;
#  - ethtool -p: LEDCTL written with every LED on, then off, then back to
#    its value before (trace); without link (QMP set_link off) the LEDs
#    are on with their invert bits set (IVRT), as e1000e does;
#  - oversized frames from the peer (MTU 9000 against 1500): rx_length_errors
#    and rx_errors count them (ROC), as the RMON oversize counter does, from
#    one accumulator; missed and fifo stay 0.

. "$(dirname "$(readlink -f "$0")")/lib.sh"

NIC=${NVM_NIC:-0}
PEER=$((NIC + 1))
EEWR=0x102c
EXTCNF_CTRL=0xf00
MDIO_SW=0x20
RCTL=0x100
ICS=0xc8
LEDCTL=0xe00
LSC=0x4
LBM_MAC=0x40
MAGIC=0x10d38086
# an NVM word the driver does not read, for the write test
WORD=48

ktap_print_header
reg_trace_require "$DRIVER"
if ! command -v ethtool > /dev/null; then
	ktap_skip_all "no ethtool"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 8

note()
{
	printf '# %s\n' "$*"
}

cleanup()
{
	[ -n "$REG_TRACE_FROM" ] && [ -z "$REG_TRACE_TO" ] && reg_trace_off
	[ -n "${LINK_OFF:-}" ] && "$REG_TRACE_HOSTCTL" set_link "nic$NIC" on > /dev/null
	[ -n "${IF_B:-}" ] && ip -n "$PEER_NS" link set "$IF_B" mtu 1500 2>/dev/null
	wire_cleanup
}
trap cleanup EXIT

# nvm_words: the NVM's 16-bit words (as ethtool -e dumps them, little
# endian) in the array NVM
nvm_words()
{
	local w

	NVM=()
	for w in $(ethtool -e "$IF_A" raw on | od -An -v -tx2); do
		NVM+=($((16#$w)))
	done
	[ ${#NVM[@]} -ge 64 ]
}

# nvm_sum: the sum of NVM's words 0x00-0x3F, in SUM
nvm_sum()
{
	local i

	SUM=0
	for ((i = 0; i < 64; i++)); do
		SUM=$(( (SUM + NVM[i]) & 0xffff ))
	done
}

# One trace window for the whole test (each hostctl call costs a round trip
# to the host); each case looks at its segment of it, between two marks.
seg_begin()
{
	SEG_FROM=$(reg_trace_mark)
}

seg_end()
{
	SEG_TO=$(reg_trace_mark)
}

# seg_writes [OFFSET]: "OFFSET VALUE" of the segment's register writes
seg_writes()
{
	reg_trace_lines "$SEG_FROM" "$SEG_TO" | reg_writes "$@"
}

# trace_eewr: the segment's EEWR writes, "WORD DATA START" each
trace_eewr()
{
	local o v

	seg_writes $EEWR | while read -r o v; do
		echo "$(( (v >> 2) & 0x3fff )) $(( v >> 16 )) $(( v & 1 ))"
	done
}

# eewr_owned: every EEWR write of the segment while EXTCNF_CTRL was last
# written with MDIO_SW set, and the semaphore released at the end
eewr_owned()
{
	local o v own=0 cnt=0 bad=0

	while read -r o v; do
		if [ $((o)) -eq $((EXTCNF_CTRL)) ]; then
			own=$(( (v & MDIO_SW) != 0 ))
		elif [ $((o)) -eq $((EEWR)) ]; then
			cnt=$((cnt + 1))
			[ $own = 1 ] || bad=$((bad + 1))
		fi
	done < <(seg_writes)
	note "$cnt EEWR writes, $bad outside the semaphore$( ((own)) && echo ', still held')"
	[ $cnt -gt 0 ] && [ $bad = 0 ] && [ $own = 0 ]
}

nvm_read()
{
	local mac perm sum odd want

	nvm_words || return 1
	printf -v mac '%02x:%02x:%02x:%02x:%02x:%02x' \
		$((NVM[0] & 255)) $((NVM[0] >> 8)) $((NVM[1] & 255)) \
		$((NVM[1] >> 8)) $((NVM[2] & 255)) $((NVM[2] >> 8))
	perm=$(ethtool -P "$IF_A")
	nvm_sum
	printf -v sum %#x "$SUM"
	note "NVM: ${#NVM[@]} words, MAC $mac, sum $sum; $perm"
	[ "${perm##* }" = "$mac" ] && [ "$SUM" -eq $((0xbaba)) ] || return 1
	# bytes 1..3: the high byte of word 0 and word 1
	odd=$(ethtool -e "$IF_A" offset 1 length 3 raw on | od -An -v -tx1)
	printf -v want ' %02x %02x %02x' $((NVM[0] >> 8)) $((NVM[1] & 255)) \
		$((NVM[1] >> 8))
	note "offset 1 length 3:$odd (want$want)"
	[ "$odd" = "$want" ]
}

nvm_write()
{
	local old lo=0x5a hi=0xa5 rc=0 l found=0 csum w d s x y z

	# NVM as the previous case read it
	[ ${#NVM[@]} -ge 64 ] || nvm_words || return 1
	old=${NVM[WORD]}
	seg_begin
	ethtool -E "$IF_A" magic $MAGIC offset $((2 * WORD)) value $lo &&
		ethtool -E "$IF_A" magic $MAGIC offset $((2 * WORD + 1)) value $hi ||
		rc=1
	seg_end
	nvm_words || return 1
	csum=${NVM[63]}
	nvm_sum
	printf -v x '%#x -> %#x, checksum word %#x, sum %#x' "$old" \
		"${NVM[WORD]}" "$csum" "$SUM"
	note "word $WORD: $x"
	[ "${NVM[WORD]}" -eq $((hi << 8 | lo)) ] || rc=1
	[ "$SUM" -eq $((0xbaba)) ] || rc=1
	# the trace: START writes of the word and of the checksum word, the
	# last of which wrote what -e reads
	while read -r w d s; do
		printf -v x 'word %#x data %#x start %s' "$w" "$d" "$s"
		note "EEWR: $x"
		[ "$s" = 1 ] || rc=1
		[ "$w" -eq $WORD ] && [ "$d" -eq $((hi << 8 | lo)) ] && found=1
		[ "$w" -eq 63 ] && l=$d
	done < <(trace_eewr)
	[ $found = 1 ] && [ "${l:-x}" = "$csum" ] || rc=1
	eewr_owned || rc=1
	# put the old word back
	printf -v y '%02x' $((old & 255))
	printf -v z '%02x' $((old >> 8))
	printf "\\x$y\\x$z" |
		ethtool -E "$IF_A" magic $MAGIC offset $((2 * WORD)) length 2 || rc=1
	nvm_words && nvm_sum && [ "${NVM[WORD]}" -eq "$old" ] &&
		[ "$SUM" -eq $((0xbaba)) ] || rc=1
	return $rc
}

# refused WANT ARGS...: ethtool -E ARGS fails, with WANT in its message
refused()
{
	local want=$1 out

	shift
	out=$(ethtool -E "$IF_A" "$@" 2>&1) && { note "-E $*: accepted"; return 1; }
	note "-E $*: ${out//$'\n'/ }"
	[[ $out == *"$want"* ]]
}

nvm_refused()
{
	local before rc=0 eewr

	# NVM as the previous case left it
	[ ${#NVM[@]} -ge 64 ] || nvm_words || return 1
	before="${NVM[*]}"
	seg_begin
	refused "Invalid argument" magic 0x12345678 offset $((2 * WORD)) value 1 || rc=1
	refused "Operation not permitted" magic $MAGIC offset 0x7e value 1 || rc=1
	refused "Operation not permitted" magic $MAGIC offset 0x7f value 1 || rc=1
	refused "Cannot assign requested address" magic $MAGIC offset 0 value 1 || rc=1
	refused "" magic $MAGIC offset 0x80 value 1 || rc=1
	seg_end
	eewr=$(trace_eewr)
	if [ -n "$eewr" ]; then
		note "EEWR written: ${eewr//$'\n'/; }"
		rc=1
	fi
	nvm_words && [ "${NVM[*]}" = "$before" ] || { note "NVM changed"; rc=1; }
	return $rc
}

# ping_peer: a few pings through the wire get answers
ping_peer()
{
	ping -c 2 -i 0.2 -W 2 "$IP4_B" > /dev/null
}

selftest_offline()
{
	local out rc=0 lbm=0 ics=0 o v

	seg_begin
	out=$(ethtool -t "$IF_A" offline) || rc=1
	seg_end
	note "${out//$'\n'/; }"
	[[ $out == *"result is PASS"* ]] || rc=1
	while read -r o v; do
		if [ $((o)) -eq $((RCTL)) ] && (( (v & 0xc0) == LBM_MAC )); then
			lbm=1
		elif [ $((o)) -eq $((ICS)) ] && (( v & LSC )); then
			ics=1
		fi
	done < <(seg_writes)
	note "trace: RCTL with LBM=01 $lbm, ICS with LSC $ics"
	[ $lbm = 1 ] && [ $ics = 1 ] || rc=1
	wait_for 50 carrier_up "$IF_A" && wait_for 20 ping_peer || {
		note "no ping after the offline test"
		rc=1
	}
	return $rc
}

selftest_online()
{
	local out rc=0

	out=$(ethtool -t "$IF_A" online) || rc=1
	note "link up: ${out//$'\n'/; }"
	[[ $out == *"result is PASS"* ]] || rc=1
	LINK_OFF=1
	"$REG_TRACE_HOSTCTL" set_link "nic$NIC" off > /dev/null || return 1
	wait_for 50 eval '! carrier_up "$IF_A"'
	out=$(ethtool -t "$IF_A" online) && rc=1
	note "link down: ${out//$'\n'/; }"
	[[ $out == *"result is FAIL"* ]] || rc=1
	[[ $out =~ Link\ test[^0-9]*0 ]] && rc=1
	[[ $out =~ NVM\ checksum[^0-9]*0 ]] || rc=1
	"$REG_TRACE_HOSTCTL" set_link "nic$NIC" on > /dev/null || rc=1
	LINK_OFF=
	wait_for 50 carrier_up "$IF_A" || rc=1
	return $rc
}

# the mode fields of LEDCTL's four LEDs
LED_MODES=0x0f0f0f0f
LED_IVRT=0x40404040

# identify [IVRT]: ethtool -p for a second; LEDCTL written with every
# LED on (with the invert bits IVRT, 0 or all four), with every LED off
# (invert bits as before: none), then restored
identify()
{
	local vals=() o v on=0 off=0 ivrt=${1:-0}

	seg_begin
	ethtool -p "$IF_A" 1 || return 1
	seg_end
	while read -r o v; do
		vals+=("$v")
		(( (v & (LED_MODES | LED_IVRT)) == (0x0e0e0e0e | ivrt) )) &&
			on=$((on + 1))
		(( (v & (LED_MODES | LED_IVRT)) == 0x0f0f0f0f )) && off=$((off + 1))
	done < <(seg_writes $LEDCTL)
	note "LEDCTL writes: ${vals[*]}; all on $on, all off $off"
	# the last restores the value before: the model's reset value, which
	# no other path writes
	[ $on -ge 1 ] && [ $off -ge 1 ] && [ "${vals[-1]}" = 0x68302 ]
}

# identify_no_link: with the link down (QMP set_link off), every LED's
# invert bit is set while on, as e1000e does for this part
identify_no_link()
{
	local rc=0

	LINK_OFF=1
	"$REG_TRACE_HOSTCTL" set_link "nic$NIC" off > /dev/null || return 1
	wait_for 50 eval '! carrier_up "$IF_A"' || rc=1
	identify $LED_IVRT || rc=1
	"$REG_TRACE_HOSTCTL" set_link "nic$NIC" on > /dev/null || rc=1
	LINK_OFF=
	wait_for 50 carrier_up "$IF_A" || rc=1
	return $rc
}

# if_stat NAME VAR: rtnl statistic NAME of $IF_A (through sysfs) into VAR
if_stat()
{
	rd "/sys/class/net/$IF_A/statistics/$1" && printf -v "$2" %s "$RD"
}

# std_stat GROUP NAME VAR: a standard ethtool statistic of $IF_A into VAR
std_stat()
{
	local l

	printf -v "$3" %s ""
	while IFS= read -r l; do
		[[ $l == *"$2: "* ]] && printf -v "$3" %s "${l##*: }"
	done < <(ethtool -S "$IF_A" --groups "$1")
	[ -n "${!3}" ]
}

oversize_counted()
{
	local len0 err0 roc0 len err roc n=3 miss fifo

	if_stat rx_length_errors len0 && if_stat rx_errors err0 &&
		std_stat rmon etherStatsOversizePkts roc0 || return 1
	ip -n "$PEER_NS" link set "$IF_B" mtu 9000 || return 1
	ip netns exec "$PEER_NS" ping -c $n -i 0.2 -W 1 -s 3000 "$IP4_A" > /dev/null
	ip -n "$PEER_NS" link set "$IF_B" mtu 1500
	# the service work folds the counters in every 2 s; ethtool's standard
	# statistics do it at once, into the same accumulator
	std_stat rmon etherStatsOversizePkts roc && if_stat rx_length_errors len &&
		if_stat rx_errors err && if_stat rx_missed_errors miss &&
		if_stat rx_fifo_errors fifo || return 1
	note "rx_length_errors $len0 -> $len, rx_errors $err0 -> $err," \
		"RMON oversize $roc0 -> $roc; missed $miss, fifo $fifo"
	[ $((len - len0)) -eq $n ] && [ $((err - err0)) -eq $n ] &&
		[ $((roc - roc0)) -eq $n ] && [ "$miss" = 0 ] && [ "$fifo" = 0 ]
}

wire_setup "$NIC" "$PEER" || ktap_exit_fail_msg "cannot wire NIC $NIC to NIC $PEER"
wait_for 20 ping_peer || ktap_exit_fail_msg "no ping over the wire"
reg_trace_on e1000e_core_write || ktap_exit_fail_msg "cannot trace register writes"

ktap_test_result "ethtool -e: MAC address in words 0-2, checksum 0xBABA, odd offset and length" \
	nvm_read
ktap_test_result "ethtool -E: bytes written through EEWR, checksum word updated, restored" \
	nvm_write
ktap_test_result "ethtool -E: bad magic, checksum word, multicast MAC, past the end: refused" \
	nvm_refused
ktap_test_result "ethtool -t offline: registers, NVM, irq, MAC loopback, link; ping after" \
	selftest_offline
ktap_test_result "ethtool -t online: passes with link, link test fails without" \
	selftest_online
ktap_test_result "ethtool -p: LEDCTL all on, all off, then restored (trace)" \
	identify
ktap_test_result "ethtool -p without link: every LED inverted while on (trace)" \
	identify_no_link
reg_trace_off
ktap_test_result "oversized frames: rx_length_errors and rx_errors from ROC, one accumulator" \
	oversize_counted
ktap_finished
