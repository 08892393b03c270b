#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Registers and NVM words of an 82574L with no driver bound, through its
BAR 0 (sysfs resource0), for tests that set up what a probe finds.

  nvm_bar.py BDF rd REG          print a 32-bit register
  nvm_bar.py BDF wr REG VALUE    write one
  nvm_bar.py BDF nvrd WORD       print an NVM word (EERD)
  nvm_bar.py BDF nvwr WORD VALUE write one (EEWR)
  nvm_bar.py BDF nvsum           print the sum of words 0x00-0x3F
  nvm_bar.py BDF flash SECONDS FLOP
                                 act as a flash part's controller, for
                                 SECONDS or until SIGTERM: clear EECD.FLUPD
                                 whenever it is set, and keep FLOP at FLOP
                                 (QEMU's MAC reset zeroes it); print how
                                 many commits it saw

The mapping stays valid while a driver binds (no CONFIG_IO_STRICT_DEVMEM).

Numbers are taken in any base int() accepts (0x...), printed in hex.
"""

import mmap
import os
import signal
import sys
import time

EECD = 0x10
EERD = 0x14
EEWR = 0x102C
FLOP = 0x103C
EECD_FLUPD = 1 << 23
START = 1 << 0
DONE = 1 << 1


class Bar:
    def __init__(self, bdf):
        path = "/sys/bus/pci/devices/%s/resource0" % bdf
        fd = os.open(path, os.O_RDWR | os.O_SYNC)
        try:
            self.map = mmap.mmap(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        # 32-bit accesses, as the device decodes them
        self.regs = memoryview(self.map).cast("I")

    def rd(self, reg):
        return self.regs[reg // 4]

    def wr(self, reg, val):
        self.regs[reg // 4] = val & 0xFFFFFFFF

    def wait_done(self, reg):
        for _ in range(10000):
            v = self.rd(reg)
            if v & DONE:
                return v
        sys.exit("NVM access through %#x never ended" % reg)

    def nvrd(self, word):
        self.wr(EERD, word << 2 | START)
        return self.wait_done(EERD) >> 16

    def nvwr(self, word, val):
        self.wr(EEWR, (val & 0xFFFF) << 16 | word << 2 | START)
        # QEMU's model reports the write's end in EERD, silicon in EEWR
        if not self.rd(EEWR) & DONE:
            self.wait_done(EEWR)


def flash(bar, secs, flop):
    commits = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    end = time.monotonic() + secs
    while not stop and time.monotonic() < end:
        eecd = bar.rd(EECD)
        if eecd & EECD_FLUPD:
            bar.wr(EECD, eecd & ~EECD_FLUPD)
            commits += 1
        if bar.rd(FLOP) != flop:
            bar.wr(FLOP, flop)
        time.sleep(0.0005)
    print(commits, flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bar = Bar(sys.argv[1])
    cmd, args = sys.argv[2], [int(a, 0) for a in sys.argv[3:]]
    if cmd == "rd" and len(args) == 1:
        print("%#x" % bar.rd(args[0]))
    elif cmd == "wr" and len(args) == 2:
        bar.wr(*args)
    elif cmd == "nvrd" and len(args) == 1:
        print("%#x" % bar.nvrd(args[0]))
    elif cmd == "nvwr" and len(args) == 2:
        bar.nvwr(*args)
    elif cmd == "nvsum" and not args:
        print("%#x" % (sum(bar.nvrd(w) for w in range(0x40)) & 0xFFFF))
    elif cmd == "flash" and len(args) == 2:
        flash(bar, *args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
