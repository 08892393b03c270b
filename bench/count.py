#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Device operations per packet from the counting windows of a bench boot.

count.py BOOTDIR: BOOTDIR/bench.jsonl's "count" lines (bench/guest/run.sh)
name byte ranges of BOOTDIR/qemu-trace.log, QEMU's trace of the window:
every MMIO access (memory_region_ops_*, which carry the absolute address,
so the NIC whose BAR 0 it falls in) and e1000e's interrupt and receive
events. Per window this counts the MMIO writes by register and the MMIO
reads of the case's NICs, and the interrupts (MSI-X messages, sent at once
or when the EITR throttle expired, MSI messages, INTx assertions),
subtracts the idle window's rate (same driver, same round, same NICs)
times the window's length and divides by the frames the NICs received
(QEMU's e1000e_rx_written_to_guest in the same window: for a case with one
receiving NIC, the packets it got; forwarding has two, router and sink).
Prints one JSON line per figure (unit "per pkt", better "lower", the raw
counts beside).

Forwarding also gets the router's own figures ("fwd-rtr"): the MMIO of its
two NICs and the interrupts the guest took on their vectors (the window's
"nics" record), per packet the sink received, so that the source's
doorbells (pktgen, one per frame) do not hide the router's.
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
# every MMIO read, "rd ICR" those of ICR among them (the 82574 has no EICR)
ROWS = ["wr TDT", "wr RDT", "wr IMS/IMC", "wr ICR", "wr ITR/EITR", "wr other", "rd",
        "rd ICR", "irq", "irq work", "all"]
MMIO_ROWS = ROWS[:8]
# what "all" adds up: every write class, the reads, the interrupts
ALL_ROWS = ROWS[:7] + ["irq"]
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
        k = "rd"
        c["rd ICR"] += off == 0xC0
        nic["rd ICR"] += off == 0xC0
    c[k] += 1
    nic[k] += 1


def count(f, lo, hi, bars):
    """The window's counts: totals over the NICs of bars (role: BAR 0),
    the same per NIC, MSI-X messages per vector, ITR/EITR values written"""
    c = dict.fromkeys(ROWS[:9] + ["wr IMC", "irq postponed", "rx frames",
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
            c["irq"] += 1
            c["irq postponed"] += ev == b"e1000e_irq_msix_notify_postponed_vec"
            v = str(int(rest.split()[-1].strip(b"EITR[]"), 0))
            vec[v] = vec.get(v, 0) + 1
        elif ev == b"e1000e_irq_msi_notify" or (ev == b"e1000e_irq_legacy_notify" and
                                                rest.endswith(b"1")):
            c["irq"] += 1
    sums(c)
    return c, per, vec, itr


def net_of_idle(n, bg, key, secs):
    """n less the idle window's rate of key (a function of the idle
    record) times secs; never below 0"""
    if bg and bg["secs"] > 0:
        n -= key(bg) / bg["secs"] * secs
    return max(n, 0)


def emit(r, metric, value, bg, extra):
    out = {"case": r["case"], "metric": metric, "variant": r["variant"],
           "round": r["round"], "unit": "per pkt", "better": "lower",
           "value": round(value, 5), "counts": r["counts"], "by_nic": r["by_nic"],
           "nics": r.get("nics"), "vectors": r["vectors"], "itr_writes": r["itr_writes"],
           "packets": r["packets"], "secs": r["secs"], "traced_rate": r.get("rate"),
           "idle": bg["counts"] if bg else None, "idle_secs": bg["secs"] if bg else None}
    out.update(extra)
    print(json.dumps(out))


def router(r, bg):
    """The forwarding router's figures per packet the sink received"""
    nics = r.get("nics") or {}
    if not all(k in nics for k in ROUTER + ("sink",)):
        return
    fwd = nics["sink"]["rx"]
    if fwd < 20:
        return
    c = {}
    for k in MMIO_ROWS:
        c[k] = net_of_idle(sum(r["by_nic"][n][k] for n in ROUTER), bg,
                           lambda b, k=k: sum(b["by_nic"][n][k] for n in ROUTER), r["secs"])
    c["irq"] = net_of_idle(sum(nics[n]["irq"] for n in ROUTER), bg,
                           lambda b: sum(b["nics"][n]["irq"] for n in ROUTER), r["secs"])
    sums(c)
    for k in ROWS:
        emit(r, "ops fwd-rtr: %s" % k, c[k] / fwd, bg, {"forwarded": fwd})


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
    with open(os.path.join(d, "qemu-trace.log"), "rb") as f:
        for r in recs:
            bars = {k: int(v["bar"], 16) for k, v in (r.get("nics") or {}).items()}
            r["counts"], r["by_nic"], r["vectors"], r["itr_writes"] = count(f, *r["trace"],
                                                                           bars)
            moved(r)
    idle = {}
    for r in recs:
        if r["case"] == "idle":
            idle[(r["round"], r["variant"], r["metric"])] = r
    for r in recs:
        if r["case"] == "idle":
            continue
        drv = r["variant"].split("-")[0]
        bg = idle.get((r["round"], drv, "idle-fwd" if r["case"] == "fwd" else "idle-pair"))
        net = {k: net_of_idle(r["counts"][k], bg, lambda b, k=k: b["counts"][k], r["secs"])
               for k in ROWS + ["rx frames"]}
        # per frame that a NIC of the case received, as QEMU wrote it to
        # the guest in the same window
        pk = net["rx frames"]
        if pk >= 20:
            for k in ROWS:
                emit(r, "ops %s: %s" % (r["metric"], k), net[k] / pk, bg, {"rx_frames": pk})
        if r["case"] == "fwd":
            router(r, bg)


main()
