#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How much each figure moved between two runs of make bench.

compare.py OLD NEW: OLD and NEW are results.json files (bench/report.py).
For every metric and variant in both, the two runs' medians and the change
in percent; the counted figures (device operations, instructions per
packet) first, then the wall-clock ones, and for each group the median and
the largest absolute change. Prints markdown.
"""
import json
import statistics
import sys


def group(metric, unit):
    if unit in ("per pkt", "per s"):
        return "counted: device operations per packet"
    if unit == "instr/pkt" or metric.startswith("core-ic"):
        return "counted: guest instructions"
    return "wall clock (rates, CPU time, RTT)"


def main():
    old, new = (json.load(open(p))["metrics"] for p in sys.argv[1:3])
    groups = {}
    for name, m in new.items():
        o = old.get(name)
        if not o:
            continue
        for var, v in m["variants"].items():
            ov = o["variants"].get(var)
            if not ov or not ov["median"]:
                continue
            ch = 100.0 * (v["median"] - ov["median"]) / ov["median"]
            groups.setdefault(group(name, m["unit"]), []).append(
                (name, var, ov["median"], v["median"], ch))
    order = ["counted: device operations per packet", "counted: guest instructions",
             "wall clock (rates, CPU time, RTT)"]
    print("| figures | n | median abs. change | largest abs. change |")
    print("|---|---|---|---|")
    for g in order:
        rows = groups.get(g)
        if rows:
            big = max(rows, key=lambda r: abs(r[4]))
            print("| %s | %d | %.1f%% | %.1f%% (%s %s) |" % (
                g, len(rows), statistics.median(abs(r[4]) for r in rows), abs(big[4]),
                big[0], big[1]))
    for g in order:
        rows = groups.get(g)
        if not rows:
            continue
        print("\n%s:\n\n| metric | variant | run 1 | run 2 | change |\n|---|---|---|---|---|" % g)
        for name, var, a, b, ch in rows:
            print("| %s | %s | %.4g | %.4g | %+.1f%% |" % (name, var, a, b, ch))


main()
