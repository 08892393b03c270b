#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a test kernel under QEMU/TCG and run one job inside it.

The guest's root is in RAM: an initramfs harness/initramfs.py builds from
the host's own packages, the checkout and the tests of the applied tree
(cached, rebuilt when an input changes), so that it survives a system
suspend. The results folder is a read-write virtio-9p share at
/run/results; 9p cannot freeze, so a test that suspends the system
unmounts it first and unbinds its device (lib.sh's host_share_detach). NICs are
`-device e1000e` wired in pairs (nic0+nic1, nic2+nic3, ...), each NIC
behind a PCIe root port of its own (rpN, bus N+1 in the guest), as an
add-in card sits, so that AER errors injected into a NIC reach the guest's
AER driver through the port.

The wire (--wire) is either QEMU hubs (hub: nic0+nic1 on hub 0, nic2+nic3
on hub 1, ...) or host taps (tap): one tap with a vnet header per NIC
(tap0 for nic0, ...), the two taps of a pair joined back to back by a tc
mirred redirect each way (--tap-join mirred) or a bridge (bridge). The taps
live in a network namespace of their own that QEMU is started in (unshare
--net, so it has no name and nothing in it has an address): it holds
nothing but lo and the wire, and it goes away with QEMU whatever ends it.
QEMU gets SIGKILL if vm.py dies first. On the tap wire the host kernel
segments a TSO packet; on a hub QEMU 10.0 does (7.2 made IPv4 fragments of
it and corrupted IPv6). A QMP socket allows `set_link`, switching trace
events, injecting AER errors (`pcie_aer_inject_error`) and waking the guest
from S3 (`system_wakeup`); the guest reaches it through its second serial
port (`harness/guest/hostctl`).

QEMU's trace events (the log backend, Debian's build) go to
<results>/qemu-trace.log (-D), which the guest reads at
/run/results/qemu-trace.log. None is enabled at boot, so the file stays
empty unless a test switches events on for a window (`hostctl trace`).

The whole console is saved to <results>/console.log. The run fails (exit 1)
on a timeout, on a job that does not report completion, or on any kernel
splat in the console or the guest's final dmesg, whatever the job said
(except one announced NETDEV WATCHDOG report, see EXPECT_WD).
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))

# "WARNING: " is WARN() and every lockdep report ("inconsistent lock
# state", "HARDIRQ-safe -> HARDIRQ-unsafe lock order detected", ...).
SPLAT = re.compile(
    r"(------------\[ cut here \]|WARNING: |BUG: |kernel BUG at"
    r"|KASAN: |UBSAN: |Oops: |general protection fault|Kernel panic"
    r"|INFO: trying to register non-static key"
    r"|lockdep: |INFO: task .* blocked|soft lockup|hard LOCKUP"
    r"|rcu: INFO: .*detected stall|unreferenced object 0x|suspected memory leak"
    r"|DMA-API: .*(device driver|exceeded|leak)|NETDEV WATCHDOG|refcount_t: "
    r"|list_(add|del) corruption|unregister_netdevice: waiting for|ref_tracker: "
    r"|page_pool_release_retry|stack-protector)")
# a kernel message can start right after the digits on the console
DONE = re.compile(r"I82574-HARNESS: job exit (\d+)")
POWER_DOWN = re.compile(r"reboot: Power down")
# init.sh's word when the power-off did not complete and it reset instead
RESET = re.compile(r"I82574-HARNESS: power-off fallback")
# With the stock SeaBIOS 1.16.3, the guest's ACPI power-off ("reboot: Power
# down" on the console) no longer stopped QEMU 10.0.2 after an S3 (the
# firmware lost the ACPI PM base on resume; harness/seabios.sh's build
# restores it). Should that happen again, once the job has reported, the
# harness stops QEMU POWEROFF_GRACE seconds after the power-off message; a guest
# that never gets that far (a driver's .shutdown hung) fails the run, and so
# does one that stops without the power-off message (init.sh's fallback
# reset, or a crash after the job).
POWEROFF_GRACE = 15
POWEROFF_LIMIT = 120


class QMP:
    """One QMP session: the capabilities negotiated, then commands in turn."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        try:
            self.sock.settimeout(10)
            self.sock.connect(path)
            self.f = self.sock.makefile("rw")
            self.f.readline()  # greeting
            self.command("qmp_capabilities")
        except BaseException:
            self.sock.close()
            raise

    def command(self, cmd, args=None):
        """CMD's return; RuntimeError with QEMU's description on an error"""
        self.f.write(json.dumps({"execute": cmd, "arguments": args or {}}) + "\n")
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError("QMP connection closed")
            reply = json.loads(line)
            if "event" not in reply:
                break
        if "error" in reply:
            raise RuntimeError(reply["error"].get("desc", "QMP error"))
        return reply.get("return")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()


def qmp_command(path, cmd, args=None):
    with QMP(path) as q:
        return q.command(cmd, args)


TRACE_LOG = "qemu-trace.log"
TRACE_NAME = re.compile(r"[A-Za-z0-9_*]{1,64}")
TRACE_MAX_NAMES = 16
# what one request may switch: all of e1000e's events (139 in 7.2), not a
# glob as wide as "*", which would log TCG's and every device's
TRACE_MAX_EVENTS = 200


def trace_set(qmp_path, log_path, words):
    """trace on|off EVENT...: switch QEMU trace events (names or globs) on
    or off, all of them or, on any error, none; the trace log's size after
    that: with "on", the offset the guest reads the window from; with "off",
    where the window ends.

    QEMU 7.2's log backend writes each event with qemu_log(), whose
    qemu_log_unlock() fflush()es the line, and e1000e's events are emitted
    with the BQL held (MMIO, its timers), which a QMP command also holds:
    once trace-event-set-state has returned, every line of the window is in
    the file, and none of the events named is written after it."""
    names = words[2:]
    if (len(words) < 3 or words[1] not in ("on", "off") or len(names) > TRACE_MAX_NAMES
            or not all(TRACE_NAME.fullmatch(n) for n in names)):
        raise ValueError("want trace on|off EVENT... (1 to %d names or globs of"
                         " [A-Za-z0-9_*], 64 characters at most)" % TRACE_MAX_NAMES)
    with QMP(qmp_path) as q:
        matched = set()
        for n in names:
            # an unknown name is an error; a glob that matches nothing is not
            events = q.command("trace-event-get-state", {"name": n})
            if not events:
                raise ValueError("no trace event matches %s" % n)
            matched.update(e["name"] for e in events)
        if len(matched) > TRACE_MAX_EVENTS:
            raise ValueError("%d trace events, at most %d" % (len(matched), TRACE_MAX_EVENTS))
        for n in names:
            q.command("trace-event-set-state", {"name": n, "enable": words[1] == "on"})
    return os.path.getsize(log_path)


def qemu_cpu_ns(pid):
    """CPU time QEMU has used so far (all threads: vCPUs, I/O), in ns."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


AER_ERROR = re.compile(r"[A-Z][A-Z_]{1,31}|0x[0-9a-fA-F]{1,8}")
# QEMU's names of the correctable status bits (hw/pci/pcie_aer.c); a named
# error's class is the name's, and QEMU refuses -c with a name ("-c is only
# valid with numeric error status")
AER_CORRECTABLE = {"RCVR", "BAD_TLP", "BAD_DLLP", "REPLAY_NUM", "REPLAY_TIMER",
                   "ADVISORY_NONFATAL", "CORRECTED_INTERNAL", "HEADER_LOG_OVERFLOW"}


def aer_inject(qmp_path, words):
    """aer nicN|rpN correctable|uncorrectable ERROR: inject an AER error
    into a NIC or its root port (HMP pcie_aer_inject_error; ERROR is QEMU's
    name of the status bit, e.g. RCVR or BAD_TLP correctable, UNSUP or
    POISON_TLP uncorrectable, which must be of the class named, or a
    status value 0xN of that class's register). Whether an uncorrectable one is fatal is
    what the device's severity register says for that bit (by default DLP,
    SDN, FCP, RX_OVERFLOW and MALF_TLP are). QEMU 7.2's e1000e keeps its
    error reporting enables (Device Control) at 0, so an error injected
    into a NIC goes no further; one injected into its port reaches the
    guest, whose recovery then runs for every device below the port."""
    if (len(words) != 4 or not re.fullmatch(r"(nic|rp)[0-9]{1,2}", words[1]) or
            words[2] not in ("correctable", "uncorrectable") or
            not AER_ERROR.fullmatch(words[3])):
        raise ValueError("want aer nicN|rpN correctable|uncorrectable ERROR")
    cor = words[2] == "correctable"
    numeric = words[3].startswith("0x")
    if not numeric and (words[3] in AER_CORRECTABLE) != cor:
        raise ValueError("%s is not a%s error" % (words[3], " correctable" if cor
                                                   else "n uncorrectable"))
    line = "pcie_aer_inject_error %s%s %s" % ("-c " if cor and numeric else "",
                                              words[1], words[3])
    out = qmp_command(qmp_path, "human-monitor-command", {"command-line": line})
    # the monitor prints "OK id: nic0 root bus: ..." once it injected
    if not out.startswith("OK id: "):
        raise ValueError(" ".join(out.split()) or "no reply from the monitor")


def wakeup(qmp_path, f, lock):
    """Wake the guest. From S3 (QMP query-status: suspended) with QMP
    system_wakeup alone: QEMU resets the machine's devices as it wakes it,
    the guest's UART among them, so a line sent then would be lost. From
    s2idle, which QEMU does not see, with a line on ttyS1 ("wakeup"), an
    interrupt that wakes the guest while it holds the port open with its
    wakeup enabled. QEMU's RTC alarm wakes S3 only: it sets no ACPI RTC
    event while the guest runs, so nothing wakes s2idle from it."""
    try:
        status = qmp_command(qmp_path, "query-status")["status"]
    except (OSError, RuntimeError, KeyError):
        status = None
    if status == "suspended":
        wakeup_qmp(qmp_path)
        return
    with lock:
        f.write("wakeup\n")
        f.flush()


def hostctl_relay(ctl_path, qmp_path, trace_path, pid, stop, s3req):
    """Serve requests the guest writes to ttyS1, one per line."""
    for _ in range(100):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(ctl_path)
            break
        except OSError:
            time.sleep(0.1)
    else:
        return
    f = s.makefile("rw")
    lock = threading.Lock()
    while not stop.is_set():
        line = f.readline()
        if not line:
            return
        words = line.split()
        with lock:
            hostctl_reply(f, words, qmp_path, trace_path, pid, lock, s3req)


def hostctl_reply(f, words, qmp_path, trace_path, pid, lock, s3req):
    """One request's reply ("ok ...", or "error: ...")"""
    try:
        if len(words) == 3 and words[0] == "set_link" and words[2] in ("on", "off"):
            qmp_command(qmp_path, "set_link",
                        {"name": words[1], "up": words[2] == "on"})
            f.write("ok\n")
        elif words == ["cputime"]:
            f.write("ok %d\n" % qemu_cpu_ns(pid))
        elif words[:1] == ["trace"]:
            f.write("ok %d\n" % trace_set(qmp_path, trace_path, words))
        elif len(words) == 2 and words[0] == "wakeup" and words[1].isdigit() \
                and 1 <= int(words[1]) <= 60:
            # a guest in S3 cannot ask; the request comes before it sleeps
            threading.Timer(int(words[1]), wakeup, args=(qmp_path, f, lock)).start()
            f.write("ok\n")
        elif len(words) == 2 and words[0] == "s3_wakeup" and words[1].isdigit() \
                and int(words[1]) <= 60:
            # s3_watch wakes the guest once it has reached S3, however
            # long its suspend takes to get there; 0 drops the request
            with s3req["lock"]:
                s3req["secs"] = int(words[1]) or None
                s3req["until"] = time.time() + S3_WAKEUP_WAIT
            f.write("ok\n")
        elif words[:1] == ["aer"]:
            aer_inject(qmp_path, words)
            f.write("ok\n")
        else:
            f.write("error: unknown request\n")
    except (OSError, RuntimeError, ValueError) as e:
        f.write("error: %s\n" % e)
    f.flush()


def stop_qemu(proc, halt, how):
    """Stop a QEMU whose guest is done (see POWEROFF_GRACE)"""
    if proc.poll() is None:
        halt["how"] = how
        proc.kill()


S3_LIMIT = 60
# how long an s3_wakeup request waits for the guest to reach S3
S3_WAKEUP_WAIT = 600


def s3_watch(qmp_path, stop, out, s3req):
    """Once a second, s3_step() on the guest's run state; wakes the guest
    from S3 when it says so."""
    state = {"since": None}
    while not stop.wait(1):
        try:
            status = qmp_command(qmp_path, "query-status")["status"]
        except (OSError, RuntimeError, KeyError):
            continue
        with s3req["lock"]:
            wake = s3_step(status, time.time(), state, s3req, out)
        if wake:
            wakeup_qmp(qmp_path)


def s3_step(status, now, state, s3req, out):
    """Whether to wake the guest now. A guest the host was asked to wake
    from S3 (hostctl s3_wakeup N, in s3req) is woken N seconds after it is
    first seen suspended, however long its suspend took to get there; a
    request not followed by S3 within S3_WAKEUP_WAIT is dropped. A guest
    left in S3 unasked (a wake-up timer it armed fired before it slept) is
    woken after S3_LIMIT seconds, and the run fails (out["s3"])."""
    if status != "suspended":
        state["since"] = None
        if s3req["secs"] and now > s3req["until"]:
            s3req["secs"] = None
        return False
    state["since"] = state["since"] or now
    asleep = now - state["since"]
    if s3req["secs"]:
        if asleep < s3req["secs"]:
            return False
        s3req["secs"] = None
    elif asleep >= S3_LIMIT:
        out["s3"] = out.get("s3", 0) + 1
    else:
        return False
    state["since"] = None
    return True


def wakeup_qmp(qmp_path):
    try:
        qmp_command(qmp_path, "system_wakeup")
    except (OSError, RuntimeError):
        pass


def sample_cpu(pid, stop, out):
    """QEMU's CPU time, read every second until it exits (for vm.json)."""
    while not stop.wait(1):
        try:
            out["ns"] = qemu_cpu_ns(pid)
        except OSError:
            return


# Run in the new network namespace, before QEMU replaces the shell: the
# host's own IPv6 would otherwise put router solicitations and MLD reports
# on the wire. MTU 9216: the tests' 9000-byte jumbo frames, VLAN tag included.
TAP_SETUP = r"""set -e
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link set lo up
for i in $(seq 0 $((NICS - 1))); do
	ip tuntap add dev tap$i mode tap vnet_hdr
	ip link set tap$i mtu 9216 up
done
for i in $(seq 0 2 $((NICS - 1))); do
	j=$((i + 1))
	if [ "$JOIN" = bridge ]; then
		ip link add br$i mtu 9216 type bridge stp_state 0 forward_delay 0 \
			mcast_snooping 0 ageing_time 30000
		ip link set tap$i master br$i
		ip link set tap$j master br$i
		ip link set br$i up
	else
		tc qdisc add dev tap$i ingress
		tc qdisc add dev tap$j ingress
		tc filter add dev tap$i ingress u32 match u32 0 0 action mirred egress redirect dev tap$j
		tc filter add dev tap$j ingress u32 match u32 0 0 action mirred egress redirect dev tap$i
	fi
done
shift
exec "$@"
"""


def pdeathsig():
    """In QEMU's process before exec: SIGKILL when vm.py dies."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


def wire_args(a):
    """The netdevs, and the command QEMU must be started through."""
    nets = []
    for i in range(a.nics):
        if a.wire == "tap":
            nets.append("tap,id=hp%d,ifname=tap%d,vnet_hdr=on,vhost=off,script=no,"
                        "downscript=no" % (i, i))
        else:
            nets.append("hubport,id=hp%d,hubid=%d" % (i, i // 2))
    if a.wire != "tap":
        return nets, []
    return nets, ["env", "NICS=%d" % a.nics, "JOIN=%s" % a.tap_join,
                  "unshare", "--net", "--", "sh", "-c", TAP_SETUP, "sh", "--"]


def qemu_args(a, kernel, initrd, res, sockdir):
    # no_timer_check: on a loaded host, TCG's timer interrupt can come too
    # late for the IO-APIC timer check, which then panics at 0.000 s ("IO-APIC
    # + timer doesn't work!", seen with three other guests and builds beside
    # the boot); virtual machines commonly boot with it
    # watchdog_thresh=30: the lockup detectors (base.config) report a CPU
    # without its timer interrupt for 30 s, or without a schedule for 60 s,
    # not 10 and 20: a debug guest beside another boot and a build on a
    # 2-core host can lose a vCPU for seconds
    cmdline = ("console=ttyS0 loglevel=5 log_buf_len=4M panic=-1 mitigations=off "
               "watchdog_thresh=30 "
               "no_timer_check rdinit=/init I82574_TOP=%s I82574_BUILD=%s %s"
               % (TOP, BUILD, a.append))
    # la57=off: with 5-level paging, a timer interrupt that lands while
    # identify_cpu() has boot_cpu_data's feature words cleared makes KASAN
    # take a direct-map address for a wild one (seen at 0.003 s on the
    # debug kernel). Four levels are all a 2 GiB guest needs.
    # --icount: guest time counts guest instructions (1 ns each), so rates
    # measured inside the guest are path lengths, immune to host noise.
    # --one-thread: every vCPU on one host thread in turn (round robin), so
    # that a guest of two vCPUs can share the host with another boot
    # without its vCPUs preempting each other's lock holders, and so that
    # no vCPU translates code another is patching (QEMU 7.2's race, see
    # harness/configs/perf.config).
    accel = ["-accel", "tcg,thread=single", "-icount", "shift=0,sleep=on"] \
        if a.icount else ["-accel", "tcg,thread=%s" % ("single" if a.one_thread else "multi")]
    # debug-threads: vCPU threads are named "CPU n/TCG" (make hostprof)
    args = ["qemu-system-x86_64", "-name", "i82574-vm,debug-threads=on",
            "-M", "q35"] + accel + [
            "-cpu", "max,la57=off", "-smp", str(a.smp), "-m", a.mem,
            "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd, "-append", cmdline]
    args += ["-bios", a.bios]
    args += [
            # the log backend's output: trace events only (no -d mask)
            "-D", os.path.join(res, TRACE_LOG),
            "-serial", "stdio",
            "-serial", "unix:%s/ctl.sock,server=on,wait=off" % sockdir,
            "-qmp", "unix:%s/qmp.sock,server=on,wait=off" % sockdir,
            "-fsdev", "local,id=res,path=%s,security_model=none" % res,
            "-device", "virtio-9p-pci,fsdev=res,mount_tag=results"]
    nets, wrap = wire_args(a)
    for i in range(a.nics):
        hub = i // 2
        args += ["-netdev", nets[i],
                 # a x1 2.5 GT/s link, as the 82574L's; at a faster one
                 # Linux waits after a port reset for Data Link Layer Link
                 # Active, which QEMU's root port does not report
                 "-device", "pcie-root-port,id=rp%d,bus=pcie.0,chassis=%d,addr=0x%x,"
                 "x-speed=2_5,x-width=1" % (i, i + 1, 0x10 + i),
                 "-device", "e1000e,netdev=hp%d,id=nic%d,mac=52:54:00:12:%02x:%02x,bus=rp%d,romfile="
                 % (i, i, hub, i, i)]
    return wrap + args


# A test that hangs a TX queue on purpose announces it in the kernel log
# ("I82574-HARNESS: expect-watchdog IFNAME", then "...-done IFNAME"); in
# between, exactly one NETDEV WATCHDOG report of that interface is expected.
# Any other one (another device, a second report, outside the window) is a
# splat like the rest.
EXPECT_WD = re.compile(r"I82574-HARNESS: expect-watchdog(-done)? (\S+)")
WATCHDOG = re.compile(r"\s(\S+): NETDEV WATCHDOG: ")


def last_line(path):
    """The console's last non-blank line, shortened: a panic's or QEMU's own."""
    last = ""
    with open(path, errors="replace") as f:
        for line in f:
            if line.strip():
                last = line.strip()
    return last[:200] or "none"


def scan(paths):
    hits = []
    for p in paths:
        if not os.path.exists(p):
            continue
        expect = {}
        with open(p, errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = EXPECT_WD.search(line)
                if m:
                    expect[m.group(2)] = 0 if m.group(1) else 1
                    continue
                m = WATCHDOG.search(line)
                if m and expect.get(m.group(1)):
                    expect[m.group(1)] -= 1
                    continue
                if SPLAT.search(line):
                    hits.append("%s:%d: %s" % (os.path.basename(p), n, line.rstrip()))
    return hits


RUNNING = re.compile(r"# I82574-HARNESS: running (\S+)")
FINISHED = re.compile(r"# I82574-HARNESS: (\S+) exit (\d+)(?:, (\d+) processes)?")
GUEST_UP = re.compile(r"I82574-HARNESS: guest up after ([0-9.]+) s")


class Progress:
    """Follows the job in the console: when the guest came up and how long
    each kselftest program took (host wall clock). With --quiet, one line
    per program start and end goes to stderr so a long VM step shows what
    it is doing."""

    def __init__(self, show, t0):
        self.show, self.t0, self.up, self.programs = show, t0, None, []
        self.started = None

    def say(self, what):
        if self.show:
            print(time.strftime("[%H:%M:%S] ") + what, file=sys.stderr, flush=True)

    def feed(self, line):
        m = GUEST_UP.search(line)
        if m:
            self.up = round(time.time() - self.t0, 1)
            self.say("guest up after %.0f s" % self.up)
            return
        m = RUNNING.search(line)
        if m:
            self.started = time.time()
            self.say("running %s" % m.group(1))
            return
        m = FINISHED.search(line)
        if m and self.started:
            secs = round(time.time() - self.started, 1)
            procs = int(m.group(3)) if m.group(3) else None
            self.programs.append({"spec": m.group(1), "rc": int(m.group(2)),
                                  "seconds": secs, "processes": procs})
            self.say("%s exit %s after %.0f s%s" % (m.group(1), m.group(2), secs,
                     ", %d processes" % procs if procs is not None else ""))
            self.started = None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="perf", help="perf, debug or a bzImage path")
    ap.add_argument("--nics", type=int, default=4, help="e1000e NICs, wired in pairs")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--mem", default="2G")
    ap.add_argument("--timeout", type=int, default=600, help="hard limit in seconds")
    ap.add_argument("--results", default=os.path.join(TOP, "results", "vm"))
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--quiet", action="store_true", help="do not echo the console")
    ap.add_argument("--icount", action="store_true",
                    help="deterministic instruction-counted guest time (single-threaded TCG)")
    ap.add_argument("--one-thread", action="store_true",
                    help="run the vCPUs on one host thread (single-threaded TCG)")
    ap.add_argument("--wire", choices=("hub", "tap"), default="hub",
                    help="NIC pairs on QEMU hubs or on host taps in a namespace of their own")
    ap.add_argument("--tap-join", choices=("mirred", "bridge"), default="mirred",
                    help="how a pair's two taps are joined (--wire tap)")
    ap.add_argument("--initrd", help="a guest root to boot instead of initramfs.py's")
    ap.add_argument("--bios", help="the firmware QEMU boots instead of harness/seabios.sh's")
    ap.add_argument("job", nargs=argparse.REMAINDER,
                    help="command run in the guest (default: a shell-less smoke job)")
    a = ap.parse_args()

    # an earlier run's results go first, whatever stops this one: nothing
    # may grade them as this run's
    res = os.path.abspath(a.results)
    shutil.rmtree(res, ignore_errors=True)
    os.makedirs(res)

    kernel = a.kernel
    if "/" not in kernel:
        kernel = os.path.join(BUILD, kernel, "arch/x86/boot/bzImage")
    if not os.path.exists(kernel):
        sys.exit("vm: no kernel at %s (run harness/kbuild.sh)" % kernel)
    if a.nics % 2:
        sys.exit("vm: --nics must be even (NICs are wired in pairs)")

    initrd = a.initrd
    if not initrd:
        built = subprocess.run([os.path.join(TOP, "harness", "initramfs.py")],
                               stdout=subprocess.PIPE, text=True)
        if built.returncode:
            sys.exit("vm: no guest root (harness/initramfs.py failed)")
        initrd = built.stdout.strip()
    if not a.bios:
        built = subprocess.run([os.path.join(TOP, "harness", "seabios.sh")],
                               stdout=subprocess.PIPE, text=True)
        if built.returncode:
            sys.exit("vm: no firmware (harness/seabios.sh failed)")
        a.bios = built.stdout.strip()
    job = a.job[1:] if a.job[:1] == ["--"] else a.job
    with open(os.path.join(res, "job.sh"), "w") as f:
        f.write("cd %s\nexport BUILD=%s\n%s\n" % (TOP, BUILD, " ".join(job) if job else "uname -a"))
    sockdir = os.path.join(res, ".sock")
    os.makedirs(sockdir)

    log_path = os.path.join(res, "console.log")
    t0 = time.time()
    proc = subprocess.Popen(qemu_args(a, kernel, initrd, res, sockdir), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=pdeathsig)
    stop = threading.Event()
    cpu = {}
    s3req = {"lock": threading.Lock(), "secs": None}
    threading.Thread(target=hostctl_relay, daemon=True,
                     args=(os.path.join(sockdir, "ctl.sock"),
                           os.path.join(sockdir, "qmp.sock"),
                           os.path.join(res, TRACE_LOG), proc.pid, stop, s3req)).start()
    threading.Thread(target=sample_cpu, daemon=True, args=(proc.pid, stop, cpu)).start()
    threading.Thread(target=s3_watch, daemon=True,
                     args=(os.path.join(sockdir, "qmp.sock"), stop, cpu, s3req)).start()
    status = None
    halt = {}
    timer = threading.Timer(a.timeout, stop_qemu, args=(proc, halt, "timeout"))
    timer.start()
    powered_down = reset = False
    progress = Progress(a.quiet, t0)
    with open(log_path, "wb") as log:
        for raw in proc.stdout:
            log.write(raw)
            log.flush()
            line = raw.decode(errors="replace")
            if not a.quiet:
                sys.stdout.write(line)
                sys.stdout.flush()
            progress.feed(line)
            m = DONE.search(line)
            if m:
                status = int(m.group(1))
                hung = threading.Timer(POWEROFF_LIMIT, stop_qemu, args=(proc, halt, "hung"))
                hung.daemon = True
                hung.start()
            elif status is not None and RESET.search(line):
                reset = True
            elif status is not None and POWER_DOWN.search(line):
                powered_down = True
                hung.cancel()
                forced = threading.Timer(POWEROFF_GRACE, stop_qemu,
                                         args=(proc, halt, "forced"))
                forced.daemon = True
                forced.start()
    proc.wait()
    cpu_s = round(cpu.get("ns", 0) / 1e9, 1)
    timer.cancel()
    stop.set()
    elapsed = time.time() - t0

    problems = []
    if halt.get("how") == "timeout":
        problems.append("timeout after %d s%s" % (
            a.timeout, ", after the job's end" if status is not None else ""))
    elif status is None:
        # CI keeps only the tail of the output: say how it stopped
        problems.append("guest stopped without finishing its job (QEMU exit %d, last console"
                        " line: %s)" % (proc.returncode, last_line(log_path)))
    elif status != 0:
        problems.append("job exited %d" % status)
    if halt.get("how") == "hung":
        problems.append("no power-off %d s after the job's end (a .shutdown hung?)"
                        % POWEROFF_LIMIT)
    elif status is not None and (reset or not powered_down) and not halt.get("how"):
        problems.append("the guest stopped after its job without powering off (%s)"
                        % ("init.sh reset it: the power-off hung (a .shutdown?)" if reset
                           else "last console line: %s" % last_line(log_path)))
    elif halt.get("how") == "forced":
        print("vm: the guest powered off but QEMU did not stop; stopped it", file=sys.stderr)
    if cpu.get("s3"):
        problems.append("guest left in S3 for %d s, woken by the harness %d time(s)"
                        % (S3_LIMIT, cpu["s3"]))
    # kmemleak.txt: init.sh's copy of the debug kernel's leak report
    splats = scan([log_path, os.path.join(res, "dmesg.txt"), os.path.join(res, "kmemleak.txt")])
    if splats:
        problems.append("kernel splat:\n  " + "\n  ".join(splats[:20]))
    with open(os.path.join(res, "vm.json"), "w") as f:
        json.dump({"kernel": kernel, "wire": a.wire if a.wire == "hub" else "tap-" + a.tap_join,
                   "qemu_stopped": halt.get("how"),
                   "seconds": round(elapsed, 1), "status": status,
                   "guest_up": progress.up, "qemu_cpu_seconds": cpu_s,
                   "programs": progress.programs,
                   "splats": splats, "problems": problems}, f, indent=1)
    for p in problems:
        print("vm: FAIL: " + p, file=sys.stderr)
    print("vm: %s in %.1f s (%s)" % ("failed" if problems else "ok", elapsed, res),
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
