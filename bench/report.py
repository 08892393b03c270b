#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn bench.jsonl into a markdown table and results.json.

report.py JSONL OUTDIR [BASELINE]: per case and driver, the median over the
rounds and the spread (min..max as a share of the median); the ratio is each
driver's median over the baseline's (default e1000e) from the same boot.
"""
import json
import os
import statistics
import sys


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    base = sys.argv[3] if len(sys.argv) > 3 else "e1000e"
    rows = [json.loads(l) for l in open(src) if l.strip()]
    cases, drivers, vals, units = [], [], {}, {}
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
        if r["driver"] not in drivers:
            drivers.append(r["driver"])
        vals.setdefault((r["case"], r["driver"]), []).append(float(r["value"]))
        units[r["case"]] = r["unit"]
    others = [d for d in drivers if d != base]
    summary = []
    hdr = "| case | unit | %s (baseline) |" % base
    hdr += "".join(" %s | ratio |" % d for d in others) + " rounds | spread |"
    lines = [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    for c in cases:
        b = vals.get((c, base), [])
        bm = statistics.median(b) if b else None
        line = "| %s | %s | %s |" % (c, units[c], "%.1f" % bm if b else "-")
        spreads = []
        entry = {"case": c, "unit": units[c], "drivers": {}}
        for d in [base] + others:
            v = vals.get((c, d), [])
            if not v:
                continue
            m = statistics.median(v)
            sp = (max(v) - min(v)) / m if m else 0
            spreads.append("%s %.0f%%" % (d, 100 * sp))
            entry["drivers"][d] = {"median": m, "values": v, "spread": sp,
                                   "ratio": (m / bm) if bm else None}
        for d in others:
            v = vals.get((c, d), [])
            if not v:
                line += " - | - |"
                continue
            m = statistics.median(v)
            line += " %.1f | %s |" % (m, "%.2fx" % (m / bm) if bm else "-")
        n = max(len(vals.get((c, d), [])) for d in drivers)
        line += " %d | %s |" % (n, ", ".join(spreads))
        lines.append(line)
        summary.append(entry)
    table = "\n".join(lines)
    print(table)
    os.makedirs(outdir, exist_ok=True)
    open(os.path.join(outdir, "table.md"), "w").write(table + "\n")
    json.dump({"baseline": base, "cases": summary}, open(os.path.join(outdir, "results.json"), "w"),
              indent=1)


if __name__ == "__main__":
    main()
