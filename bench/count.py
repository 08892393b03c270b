#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Device operations per packet from the counting windows of a bench boot.

count.py BOOTDIR: BOOTDIR/bench.jsonl's "count" lines (bench/guest/run.sh)
name byte ranges of BOOTDIR/qemu-trace.log, QEMU's e1000e trace events of
every NIC. Per window this counts the MMIO writes by register, the MMIO
reads and the interrupts (MSI-X messages, sent at once or when the EITR
throttle expired, MSI messages, INTx assertions), subtracts the idle
window's rate (same driver, same round, same NICs) times the window's
length and divides by the frames the NICs received (QEMU's
e1000e_rx_written_to_guest in the same window: for a case with one
receiving NIC, the packets it got; forwarding has two, router and sink). Prints one JSON
line per figure (unit "per pkt", better "lower", the raw counts beside).
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
    ("ITR/EITR", {0xC4} | {0xE8 + 4 * v for v in range(5)}),
]
LINE = re.compile(rb"(?:^|:)(e1000e_[a-z_]+) (.*)$")
REG = re.compile(rb"register 0x([0-9a-f]+)")
VAL = re.compile(rb"value: 0x([0-9a-f]+)")
# the figures, in table order; "irq work" is the interrupt work
# (interrupts + IMS/IMC + RDT writes), "all" every operation
# (writes of ICR count as "other"; reads of ICR are "rd", and also kept
# apart in the raw counts as "rd ICR")
ROWS = ["wr TDT", "wr RDT", "wr IMS/IMC", "wr ITR/EITR", "wr other", "rd", "irq",
        "irq work", "all"]


def wclass(off):
    for name, offs in WRITES:
        if off in offs:
            return name
    return "other"


def count(f, lo, hi):
    c = dict.fromkeys(ROWS[:7] + ["rd ICR", "wr IMC", "irq postponed", "rx frames"], 0)
    vec = {}
    # the intervals written to ITR/EITR (register units of 256 ns), by
    # register and value: what a driver's moderation (lib/dim, e1000e's
    # dynamic ITR) chose in the window
    itr = {}
    f.seek(lo)
    data = f.read(hi - lo)
    for line in data.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        ev, rest = m.group(1), m.group(2)
        if ev in (b"e1000e_core_write", b"e1000e_core_read"):
            r = REG.search(rest)
            if not r:
                continue
            off = int(r.group(1), 16)
            if ev == b"e1000e_core_write":
                c["wr " + wclass(off)] += 1
                c["wr IMC"] += off == 0xD8
                v = VAL.search(rest)
                if wclass(off) == "ITR/EITR" and v:
                    k = "%s=%d" % ("ITR" if off == 0xC4 else "EITR[%d]" % ((off - 0xE8) // 4),
                                   int(v.group(1), 16) & 0xffff)
                    itr[k] = itr.get(k, 0) + 1
            else:
                c["rd"] += 1
                c["rd ICR"] += off == 0xC0
        elif ev == b"e1000e_rx_written_to_guest":
            c["rx frames"] += 1
        elif ev in (b"e1000e_irq_msix_notify_vec", b"e1000e_irq_msix_notify_postponed_vec"):
            c["irq"] += 1
            c["irq postponed"] += ev == b"e1000e_irq_msix_notify_postponed_vec"
            v = str(int(rest.split()[-1].strip(b"EITR[]"), 0))
            vec[v] = vec.get(v, 0) + 1
        elif ev == b"e1000e_irq_msi_notify" or (ev == b"e1000e_irq_legacy_notify" and
                                                rest.endswith(b"1")):
            c["irq"] += 1
    c["irq work"] = c["irq"] + c["wr IMS/IMC"] + c["wr RDT"]
    c["all"] = sum(c[k] for k in ROWS[:7])
    return c, vec, itr


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
            r["counts"], r["vectors"], r["itr_writes"] = count(f, *r["trace"])
    idle = {}
    for r in recs:
        if r["case"] == "idle":
            idle[(r["round"], r["variant"], r["metric"])] = r
    for r in recs:
        if r["case"] == "idle":
            continue
        drv = r["variant"].split("-")[0]
        bg = idle.get((r["round"], drv, "idle-fwd" if r["case"] == "fwd" else "idle-pair"))
        net = {}
        for k in ROWS + ["rx frames"]:
            n = r["counts"][k]
            if bg and bg["secs"] > 0:
                n -= bg["counts"][k] / bg["secs"] * r["secs"]
            net[k] = max(n, 0)
        # per frame that a NIC of the case received, as QEMU wrote it to
        # the guest in the same window (the guest's counters are read a
        # little inside the window's edges)
        pk = net["rx frames"]
        out = {k: net[k] / pk if pk >= 20 else None for k in ROWS}
        for k in ROWS:
            if out[k] is None:
                continue
            print(json.dumps({"case": r["case"], "metric": "ops %s: %s" % (r["metric"], k),
                              "variant": r["variant"], "round": r["round"],
                              "unit": "per pkt", "better": "lower",
                              "value": round(out[k], 5), "counts": r["counts"],
                              "vectors": r["vectors"], "itr_writes": r["itr_writes"],
                              "packets": r["packets"],
                              "rx_frames": pk, "secs": r["secs"],
                              "idle": bg["counts"] if bg else None,
                              "idle_secs": bg["secs"] if bg else None}))


main()
