#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check's shutdown-wol step, host half: from the QEMU trace of a
guest that armed Wake-on-LAN on NIC 0 (i82574) and powered off
(harness/guest/shutdown-wol.sh), check what i82574's .shutdown wrote:
WUFC with the filters of the WoL mode, then WUC with PME_EN, and the
device put in D3hot through its PM control register (QEMU's 82574L
offers no PME, so PME_En stays off there).

    shutdown-check.py TRACE_LOG [MODE]     MODE: g (default) or d
"""
import re
import sys

WUC, WUFC = 0x5800, 0x5808
WUC_PME_EN = 0x2
WUFC_OF = {"g": 0x2, "d": 0x0}
MAC_W = re.compile(r"e1000e_core_write Write to register 0x([0-9a-f]+), "
                   r"\d+ byte\(s\), value: 0x([0-9a-f]+)$")
CFG_W = re.compile(r"pci_cfg_write e1000e 01:00\.0 @0x([0-9a-f]+) <- 0x([0-9a-f]+)$")
CFG_ANY = re.compile(r"pci_cfg_write e1000e [0-9a-f]{2}:[0-9a-f]{2}\.\d @0x[0-9a-f]+ <- 0x[0-9a-f]+$")
# the 82574L's PM capability (QEMU: e1000e_pmrb_offset 0xc8), control at +4
PMCSR = 0xcc


def known_form(line):
    """False for a line of an event read here in another form than the
    one parsed (QEMU changed the event's fields)"""
    if "e1000e_core_write " in line:
        return bool(MAC_W.search(line))
    if "pci_cfg_write e1000e " in line:
        return bool(CFG_ANY.search(line))
    return True


def main():
    mode = sys.argv[2] if len(sys.argv) > 2 else "g"
    wufc = wuc = None
    d3 = False
    seen = {"e1000e_core_write": 0, "pci_cfg_write": 0}
    with open(sys.argv[1]) as f:
        for line in f:
            for ev in seen:
                seen[ev] += (ev + " ") in line
            if not known_form(line.rstrip()):
                sys.exit("shutdown-wol: a trace line in an unknown form: %r" % line)
            m = MAC_W.search(line.rstrip())
            if m:
                reg, val = int(m.group(1), 16), int(m.group(2), 16)
                if reg == WUFC:
                    wufc = val
                elif reg == WUC and wufc is not None:
                    wuc = val
                continue
            m = CFG_W.search(line.rstrip())
            if m and int(m.group(1), 16) == PMCSR and wuc is not None:
                d3 = int(m.group(2), 16) & 0x3 == 0x3
    missing = [ev for ev, n in seen.items() if n == 0]
    if missing:
        sys.exit("shutdown-wol: no %s line in the trace (event missing or renamed?)" %
                 " and no ".join(missing))
    want_wuc = WUC_PME_EN if WUFC_OF[mode] else 0
    print("shutdown-wol: WUFC %s, WUC %s, D3hot %s (want WUFC 0x%x, WUC PME_EN %s)" %
          (None if wufc is None else hex(wufc), None if wuc is None else hex(wuc),
           d3, WUFC_OF[mode], "on" if want_wuc else "off"))
    ok = (wufc == WUFC_OF[mode] and wuc is not None and
          (wuc & WUC_PME_EN) == want_wuc and d3)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
