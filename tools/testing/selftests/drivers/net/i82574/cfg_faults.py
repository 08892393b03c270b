#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cfg_faults.py IFNAME PEER_IP [LIMIT]: ring and channel changes on IFNAME (rings
halved and doubled; channels 2 -> 1 and 1 -> 2), each run again and
again with the next kernel allocation it makes failing
(/proc/thread-self/fail-nth, with failslab and fail_page_alloc set up to
fail any allocation), until a run makes fewer allocations than the one
that was to fail. After each refused change the device must report its
old configuration (or, when only netlink's reply failed, the new one),
after each accepted one the new one (which is then set back), and
after each attempt a datagram to PEER_IP must leave through IFNAME
(tx_packets grows within 5 s): a failure path that leaves the rings
stopped fails here, even if the next change would start them again. LIMIT (default 400) caps the attempts per change. Prints one
line per change: attempts, refusals, errno counts; exits 1 on a wrong
state, a change that never ran to the end, or an unexpected exception."""

import errno
import os
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# pylint: disable=wrong-import-position
from lib.py import EthtoolFamily, NlError  # noqa: E402

# opened once: an open() while a count is armed would itself allocate
NTH = os.open("/proc/thread-self/fail-nth", os.O_RDWR)


def set_nth(n):
    os.pwrite(NTH, str(n).encode(), 0)


def get_nth():
    return int(os.pread(NTH, 32, 0))


class Dev:
    """The ring sizes and channel count of one interface, over ethtool
    netlink (one socket, opened before any fault is armed)."""

    def __init__(self, ifname, peer):
        self.eth = EthtoolFamily()
        self.ifname = ifname
        self.hdr = {"header": {"dev-name": ifname}}
        self.tx = "/sys/class/net/%s/statistics/tx_packets" % ifname
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.peer = (peer, 9)

    def tx_packets(self):
        with open(self.tx, encoding="ascii") as f:
            return int(f.read())

    def alive(self):
        """a datagram to the peer leaves through the device"""
        t0 = self.tx_packets()
        self.sock.sendto(b"cfg_faults", self.peer)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            if self.tx_packets() > t0:
                return True
            time.sleep(0.01)
        return False

    def state(self):
        r = self.eth.rings_get(self.hdr)
        c = self.eth.channels_get(self.hdr)
        return (r["rx"], r["tx"], c["combined-count"])

    def apply(self, old, want):
        """old -> want, in one request: rings or channels, not both"""
        if want[:2] != old[:2]:
            self.eth.rings_set(self.hdr | {"rx": want[0], "tx": want[1]})
        elif want[2] != old[2]:
            self.eth.channels_set(self.hdr | {"combined-count": want[2]})


def attempt(dev, old, want, n):
    """old -> want with the n-th allocation failing. Returns (errno or
    None, whether the fault was injected)."""
    err = None
    set_nth(n)
    try:
        dev.apply(old, want)
    except NlError as e:
        err = e.error
    except OSError as e:
        err = e.errno
    except MemoryError:
        # the fault hit this process's own memory before the request
        err = errno.ENOMEM
    injected = get_nth() == 0
    set_nth(0)
    return err, injected


def sweep(dev, old, want, limit):
    """Every failure point of the change old -> want; the device is in
    old on entry and on return. Returns a line of what happened."""
    refused = {}
    for n in range(1, limit + 1):
        err, injected = attempt(dev, old, want, n)
        got = dev.state()
        if not dev.alive():
            raise RuntimeError("fail-nth %d: %s %s, and nothing leaves %s"
                               % (n, want, "refused (%s)" % errno.errorcode.get(err, err)
                                  if err is not None else "accepted", dev.ifname))
        if err is not None:
            refused[err] = refused.get(err, 0) + 1
            # netlink's own reply may fail after the change took effect
            # (ENOBUFS): then the new configuration, whole
            if got != old and (err != errno.ENOBUFS or got != want):
                raise RuntimeError("fail-nth %d: %s refused (%s) left %s"
                                   % (n, want, errno.errorcode.get(err, err), got))
        elif got != want:
            raise RuntimeError("fail-nth %d: %s accepted, device has %s"
                               % (n, want, got))
        if got != old:
            dev.apply(got, old)
            if dev.state() != old:
                raise RuntimeError("could not go back to %s" % (old,))
        if not injected:
            errs = ", ".join("%s %d" % (errno.errorcode.get(e, e), c)
                             for e, c in sorted(refused.items()))
            return "%s -> %s: %d attempts, %d refused (%s)" % (
                old, want, n, sum(refused.values()), errs or "none")
    raise RuntimeError("%s -> %s: still failing after %d attempts"
                       % (old, want, limit))


def main():
    ifname, peer = sys.argv[1:3]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    dev = Dev(ifname, peer)
    old = dev.state()
    rx, tx, comb = old
    other = (rx, tx, 1 if comb > 1 else 2)
    # rings halved and doubled (every buffer reallocated), then the
    # channel count both ways (queues and vectors taken away and added)
    plans = [(old, (rx // 2, tx * 2, comb)), (old, other), (other, old)]
    # one change without faults first: the library's and Python's own
    # memory is in place before any allocation can fail
    dev.apply(old, plans[0][1])
    dev.apply(plans[0][1], old)
    for start, want in plans:
        if dev.state() != start:
            dev.apply(old, start)
        print(sweep(dev, start, want, limit), flush=True)
    if dev.state() != old:
        dev.apply(dev.state(), old)
    return 0


if __name__ == "__main__":
    sys.exit(main())
