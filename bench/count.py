#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Device operations per packet from the counting windows of a bench boot.

count.py BOOTDIR: BOOTDIR/bench.jsonl's "count" lines (bench/guest/run.sh)
name byte ranges of BOOTDIR/qemu-trace.log, QEMU's trace of the window:
every MMIO access (memory_region_ops_*, which carry the absolute address,
so the NIC whose BAR 0 it falls in) and e1000e's interrupt and receive
events. Per window this counts, for each NIC of the case, the MMIO writes
by register and the MMIO reads. Interrupts and received frames come from
the guest's own per-NIC counters over the same window (the "nics" record:
the interrupts of each NIC's vectors, its rx_packets), since QEMU's events
for them name no device; their sums are checked against QEMU's events
(MSI-X messages sent at once or when the EITR throttle expired, MSI
messages, INTx assertions; e1000e_rx_written_to_guest), and a window where
they disagree, or where a NIC outside the case made an MMIO access, fails
the count. From each figure it subtracts the idle window's rate (same
driver, same round, same NICs) times the window's length, and divides by
the frames the case's NICs received (for a case with one receiving NIC,
the packets it got; forwarding has two, router and sink). Reads of the
statistics registers are counted apart ("rd stats", in no sum): e1000e
reads them whenever anybody reads its counters, as the benchmark's own
snapshots do inside the window. Prints one JSON line per figure (unit "per
pkt", better "lower", the raw counts beside), and the interrupts a second
("irq/s", unit "per s").

Forwarding also gets the router's own figures ("fwd-rtr"): the MMIO and
interrupts of its two NICs per packet the sink received, so that the
source's doorbells (pktgen, one per frame) do not hide the router's. The
XDP case gets the same for each of its windows ("xdp-drop-rtr", ...), per
frame the router's NIC 1, where the program runs, received.
"""
import json
import os
import re
import sys

# MMIO write classes by register offset
WRITES = [
    ("TDT", {0x3818, 0x3918}),
    ("RDT", {0x2818, 0x2918}),
    ("IMS/IMC", {0xD0, 0xD8}),
    ("ICR", {0xC0}),
    ("ITR/EITR", {0xC4} | {0xE8 + 4 * v for v in range(5)}),
]
BAR_SIZE = 0x20000
# the statistics registers (CRCERRS .. ICRXOC)
STATS = range(0x4000, 0x4128)
LINE = re.compile(rb"(?:^|:)(e1000e_[a-z_]+) (.*)$")
# the events counted, each with the form of its line (QEMU 10.0's log
# backend): a line of one of them in another form fails the run rather
# than count as nothing
EVENT_FORMS = {
    b"e1000e_rx_written_to_guest": re.compile(rb"Received packet written to guest \(queue \d+\)$"),
    b"e1000e_irq_msix_notify_vec": re.compile(rb"MSI-X notify vector 0x[0-9a-f]+$"),
    b"e1000e_irq_msix_notify_postponed_vec": re.compile(rb"Sending MSI-X postponed by EITR\[\d+\]$"),
    b"e1000e_irq_msi_notify": re.compile(rb"MSI notify 0x[0-9a-f]+$"),
    b"e1000e_irq_legacy_notify": re.compile(rb"IRQ line state: [01]$"),
}
MMIO_EVENT = re.compile(rb"(?:^|:)memory_region_ops_(?:write|read) ")


class TraceFormatError(Exception):
    pass


def check_form(ev, rest, line):
    form = EVENT_FORMS.get(ev)
    if form and not form.match(rest):
        raise TraceFormatError("unknown form of %s: %r" % (ev.decode(), line))
MMIO = re.compile(rb"(?:^|:)memory_region_ops_(write|read) cpu \d+ mr \S+ "
                  rb"addr 0x([0-9a-f]+) value 0x([0-9a-f]+) size \d+ name 'e1000e-mmio'")
# the figures, in table order; "irq work" is the interrupt work
# (interrupts + IMS/IMC + RDT writes), "all" every operation; "rd" is
# every MMIO read but those of the statistics registers ("rd stats"), "rd
# ICR" those of ICR among them (the 82574 has no EICR)
ROWS = ["wr TDT", "wr RDT", "wr IMS/IMC", "wr ICR", "wr ITR/EITR", "wr other", "rd",
        "rd ICR", "rd stats", "irq", "irq work", "all"]
MMIO_ROWS = ROWS[:9]
# what "all" adds up: every write class, the reads, the interrupts
ALL_ROWS = ROWS[:7] + ["irq"]
# beside them: the interrupt messages the NICs sent (QEMU's events, every
# NIC of the machine), of which the guest took "irq"
EXTRA_ROWS = ["irq msgs"]
# how far the guest's counters may be from QEMU's events over one window:
# the snapshots sit within milliseconds of the trace marks
SLACK = (8, 0.02)
# the router's NICs in the forwarding case (bench/guest/run.sh fwd_up)
ROUTER = ("rin", "rout")


def wclass(off):
    for name, offs in WRITES:
        if off in offs:
            return name
    return "other"


def sums(c):
    c["irq work"] = c["irq"] + c["wr IMS/IMC"] + c["wr RDT"]
    c["all"] = sum(c[k] for k in ALL_ROWS)


def mmio(c, nic, kind, off, val, itr):
    """One MMIO access of a NIC of the case, into the totals c and the
    NIC's own counts nic"""
    if kind == b"write":
        k = "wr " + wclass(off)
        c["wr IMC"] += off == 0xD8
        if k == "wr ITR/EITR":
            r = "ITR" if off == 0xC4 else "EITR[%d]" % ((off - 0xE8) // 4)
            r = "%s=%d" % (r, val & 0xffff)
            itr[r] = itr.get(r, 0) + 1
    else:
        k = "rd stats" if off in STATS else "rd"
        c["rd ICR"] += off == 0xC0
        nic["rd ICR"] += off == 0xC0
    c[k] += 1
    nic[k] += 1


def count(f, lo, hi, bars):
    """The window's MMIO counts: totals over the NICs of bars (role: BAR
    0), the same per NIC; the interrupt messages and received frames of
    QEMU's events (every NIC); MSI-X messages per vector; ITR/EITR values
    written"""
    c = dict.fromkeys(MMIO_ROWS + ["irq msgs", "wr IMC", "irq postponed", "rx frames",
                                   "mmio elsewhere"], 0)
    per = {role: dict.fromkeys(MMIO_ROWS, 0) for role in bars}
    vec = {}
    itr = {}
    f.seek(lo)
    data = f.read(hi - lo)
    for line in data.splitlines():
        m = MMIO.search(line)
        if m:
            addr = int(m.group(2), 16)
            role = next((r for r, b in bars.items() if b <= addr < b + BAR_SIZE), None)
            if role is None:
                c["mmio elsewhere"] += 1
                continue
            mmio(c, per[role], m.group(1), addr - bars[role], int(m.group(3), 16), itr)
            continue
        if MMIO_EVENT.search(line) and b"'e1000e-mmio'" in line:
            raise TraceFormatError("unknown form of memory_region_ops: %r" % line)
        m = LINE.search(line)
        if not m:
            continue
        ev, rest = m.group(1), m.group(2)
        check_form(ev, rest, line)
        if ev == b"e1000e_rx_written_to_guest":
            c["rx frames"] += 1
        elif ev in (b"e1000e_irq_msix_notify_vec", b"e1000e_irq_msix_notify_postponed_vec"):
            c["irq msgs"] += 1
            c["irq postponed"] += ev == b"e1000e_irq_msix_notify_postponed_vec"
            v = str(int(rest.split()[-1].strip(b"EITR[]"), 0))
            vec[v] = vec.get(v, 0) + 1
        elif ev == b"e1000e_irq_msi_notify" or (ev == b"e1000e_irq_legacy_notify" and
                                                rest.endswith(b"1")):
            c["irq msgs"] += 1
    return c, per, vec, itr


def net_of_idle(n, bg, key, secs):
    """n less the idle window's rate of key (a function of the idle
    record) times secs; never below 0"""
    if bg and bg["secs"] > 0:
        n -= key(bg) / bg["secs"] * secs
    return max(n, 0)


def emit(r, metric, value, bg, extra, unit="per pkt"):
    out = {"case": r["case"], "metric": metric, "variant": r["variant"],
           "round": r["round"], "unit": unit, "better": "lower",
           "value": round(value, 5), "counts": r["counts"], "by_nic": r["by_nic"],
           "nics": r.get("nics"), "vectors": r["vectors"], "itr_writes": r["itr_writes"],
           "packets": r["packets"], "secs": r["secs"], "traced_rate": r.get("rate"),
           "pace": r.get("pace"), "idle": bg["counts"] if bg else None,
           "idle_secs": bg["secs"] if bg else None}
    out.update(extra)
    print(json.dumps(out))


def guest(r, key, roles=None):
    """The guest's count of KEY ("rx", "irq") over the window, summed over
    the NICs ROLES (default: every NIC of the case)"""
    return sum(v[key] for k, v in (r.get("nics") or {}).items() if roles is None or k in roles)


def router(r, bg, name, per, extra):
    """The router's NICs' figures (ROUTER) per frame the NIC PER received,
    as "ops NAME: ...": the forwarding case's per packet the sink got
    (fwd-rtr), the XDP case's per frame its NIC 1 got, where the program
    runs (xdp-*-rtr), so that the source's pktgen doorbells stay apart"""
    nics = r.get("nics") or {}
    if not all(k in nics for k in ROUTER + (per,)):
        return
    got = net_of_idle(nics[per]["rx"], bg, lambda b: b["nics"][per]["rx"], r["secs"])
    if got < 20:
        return
    c = {}
    for k in MMIO_ROWS:
        c[k] = net_of_idle(sum(r["by_nic"][n][k] for n in ROUTER), bg,
                           lambda b, k=k: sum(b["by_nic"][n][k] for n in ROUTER), r["secs"])
    c["irq"] = net_of_idle(guest(r, "irq", ROUTER), bg, lambda b: guest(b, "irq", ROUTER),
                           r["secs"])
    sums(c)
    for k in ROWS:
        emit(r, "ops %s: %s" % (name, k), c[k] / got, bg, {extra: got})
    if r["case"] == "fwd":
        emit(r, "ops %s: irq/s" % name, c["irq"] / r["secs"], bg, {extra: got}, "per s")


def moved(r):
    """A window that moved packets has doorbells and received frames in
    its trace: none means an event the count needs was not logged"""
    c = r["counts"]
    if r["case"] == "idle" or r.get("packets", 0) < 20:
        return
    if c["wr TDT"] == 0 or c["rx frames"] == 0:
        raise TraceFormatError("%s %s round %s: %d packets but %d TDT writes and %d "
                               "received frames in the trace" %
                               (r["case"], r["variant"], r["round"], r["packets"],
                                c["wr TDT"], c["rx frames"]))


def attributed(r):
    """What is wrong with the window's attribution: an MMIO access to a NIC
    outside the case, or guest counters that disagree with QEMU's events"""
    c = r["counts"]
    what = "%s %s round %s" % (r["metric"], r["variant"], r["round"])
    errs = []
    if c["mmio elsewhere"]:
        errs.append("%s: %d MMIO accesses to a NIC outside the case" %
                    (what, c["mmio elsewhere"]))
    rx, traced = guest(r, "rx"), c["rx frames"]
    if abs(rx - traced) > max(SLACK[0], SLACK[1] * traced):
        errs.append("%s: %d received frames by the guest's counters, %d by QEMU's events" %
                    (what, rx, traced))
    # a message the guest has not yet taken absorbs the next one for the
    # same vector (the local APIC's IRR bit is already set, or the handler
    # runs on the other CPU): the guest can take fewer, never more
    irq, msgs = guest(r, "irq"), c["irq msgs"]
    if irq > msgs + max(SLACK[0], SLACK[1] * msgs) or (msgs > SLACK[0] and not irq):
        errs.append("%s: %d interrupts by the guest's counters, %d messages by QEMU's events" %
                    (what, irq, msgs))
    return errs


def idle_reads(r):
    """An idle window's MMIO reads a second per NIC, the statistics
    registers' included: what an idle NIC costs in stalls"""
    n = len(r.get("nics") or {})
    if n and r["secs"] > 0:
        emit(r, "ops %s: rd/s per NIC" % r["metric"],
             (r["counts"]["rd"] + r["counts"]["rd stats"]) / r["secs"] / n, None, {}, "per s")


def main():
    d = sys.argv[1]
    recs = []
    for line in open(os.path.join(d, "bench.jsonl")):
        if line.strip():
            r = json.loads(line)
            if r.get("kind") == "count":
                recs.append(r)
    if not recs:
        return
    errs = []
    with open(os.path.join(d, "qemu-trace.log"), "rb") as f:
        for r in recs:
            bars = {k: int(v["bar"], 16) for k, v in (r.get("nics") or {}).items()}
            r["counts"], r["by_nic"], r["vectors"], r["itr_writes"] = count(f, *r["trace"],
                                                                           bars)
            c = r["counts"]
            # the interrupts and frames by the guest's per-NIC counts;
            # QEMU's events check them (attributed())
            c["irq"] = guest(r, "irq")
            c["rx guest"] = guest(r, "rx")
            sums(c)
            moved(r)
            errs += attributed(r)
    idle = {}
    for r in recs:
        if r["case"] == "idle":
            idle[(r["round"], r["variant"], r["metric"])] = r
            idle_reads(r)
    for r in recs:
        if r["case"] == "idle":
            continue
        drv = r["variant"].split("-")[0]
        bg = idle.get((r["round"], drv, {"fwd": "idle-fwd", "xdp": "idle-xdp"}.get(
            r["case"], "idle-pair")))
        net = {k: net_of_idle(r["counts"][k], bg, lambda b, k=k: b["counts"][k], r["secs"])
               for k in ROWS + EXTRA_ROWS + ["rx guest"]}
        # per frame that a NIC of the case received, by its own counters
        pk = net["rx guest"]
        if pk >= 20:
            for k in ROWS + EXTRA_ROWS:
                emit(r, "ops %s: %s" % (r["metric"], k), net[k] / pk, bg, {"rx_frames": pk})
            emit(r, "ops %s: irq/s" % r["metric"], net["irq"] / r["secs"], bg,
                 {"rx_frames": pk}, "per s")
        if r["case"] == "fwd":
            router(r, bg, "fwd-rtr", "sink", "forwarded")
        elif r["case"] == "xdp":
            router(r, bg, r["metric"] + "-rtr", "rin", "rin_frames")
    if errs:
        sys.exit("count.py: the trace and the guest's counters disagree:\n  " +
                 "\n  ".join(errs))


main()
