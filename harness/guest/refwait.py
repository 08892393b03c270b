#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""In the guest of make check's splat-detector step: hold a reference on a
net device across its unregister for a few seconds, from user space, so that
the kernel reports "unregister_netdevice: waiting for ... to become free"
(net.core.netdev_unregister_timeout_secs, set to 1 by detectors.sh), then let
it go, so the device finishes going away.

How: a packet socket sends to a VLAN device (sendto() names it: packet_snd()
holds a reference on it for the whole call) with the smallest send buffer.
The VLAN's frames leave through a dummy device whose netem qdisc keeps them
for 20 s, still charged to the socket, so the next send blocks for buffer
space, reference held, until SO_SNDTIMEO. Deleting the VLAN meanwhile does
not free those frames (they sit in the lower device's qdisc), so the
unregister waits for the blocked send.
"""
import socket
import struct
import subprocess
import sys
import threading
import time

HOLD_SECS = 4


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)


def main():
    sh("ip link add rw-lower type dummy && ip link set rw-lower up")
    sh("tc qdisc add dev rw-lower root netem slot 20s 20s")
    sh("ip link add link rw-lower name rw-vlan type vlan id 5 && ip link set rw-vlan up")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", HOLD_SECS, 0))
    frame = b"\xff" * 6 + b"\x02" + b"\0" * 5 + b"\x88\xb5" + b"\0" * 100
    held = {}

    def send():
        sent = 0
        try:
            while True:
                s.sendto(frame, ("rw-vlan", 0x88b5, 0, 0, b"\xff" * 6))
                sent += 1
        except OSError as e:
            held["end"] = "%d frames sent, then: %s" % (sent, e)

    t = threading.Thread(target=send)
    t.start()
    time.sleep(1)
    t0 = time.monotonic()
    sh("ip link del rw-vlan")
    print("refwait: rw-vlan deleted in %.1f s; sender: %s"
          % (time.monotonic() - t0, held.get("end", "still sending")))
    t.join()
    sh("ip link del rw-lower")
    return 0


if __name__ == "__main__":
    sys.exit(main())
