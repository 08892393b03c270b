#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The i82574 driver's files call each other one way only.

Usage: layers.py OBJ...  (the driver's i82574_*.o)

Reads the symbols each object defines and uses (nm) and
fails if one file calls or refers to a function or object of a file at its
own layer or above. The layers run, bottom up: PCI config space; the PHY
with the MDIO/NVM semaphore; NVM and flow control; the MAC's registers;
TX offloads; the rings; VLAN features; the netdev; diagnostics, power
management and debugfs; ethtool and PCIe error recovery; PCI probe. The
KUnit object tests everything and is not checked.
"""
import collections
import os
import subprocess
import sys

LAYERS = [
    ["aspm"],
    ["phy"],
    ["nvm", "fc"],
    ["mac"],
    ["tx_offload"],
    ["txrx"],
    ["vlan"],
    ["netdev"],
    ["diag", "pm", "debugfs"],
    ["ethtool", "err"],
    ["pci"],
]
RANK = {f: r for r, files in enumerate(LAYERS) for f in files}
SKIP = {"kunit"}


def symbols(obj):
    """(defined, undefined) global symbols of one object"""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDRB":
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            uses.add(p[1])
    return defs, uses


def main():
    objs = {}
    for o in sys.argv[1:]:
        name = os.path.basename(o)[len("i82574_"):-2]
        if name in SKIP or name.endswith(".mod"):
            continue
        objs[name] = symbols(o)
    unknown = sorted(set(objs) - set(RANK))
    if not objs or unknown:
        print("layers: no i82574 objects given" if not objs else
              f"layers: files with no layer: {' '.join(unknown)}")
        return 1
    owner = {s: f for f, (defs, _) in objs.items() for s in defs}
    bad = collections.defaultdict(list)
    for f, (_, uses) in objs.items():
        for s in sorted(uses):
            g = owner.get(s)
            if g and g != f and RANK[g] >= RANK[f]:
                bad[(f, g)].append(s)
    for (f, g), syms in sorted(bad.items()):
        print(f"layers: i82574_{f}.c (layer {RANK[f]}) uses i82574_{g}.c "
              f"(layer {RANK[g]}): {' '.join(syms)}")
    if not bad:
        print(f"layers: {len(objs)} files, every call one way")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
