#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the frames of one VLAN that an interface receives.

  vlan_count.py IFNAME VID SECONDS

Prints "ready" once its packet socket is bound, then, after SECONDS or at
SIGTERM, the number of frames received on IFNAME with VLAN ID VID. The ID is taken from
the tag where the frame still carries one, and from the socket's auxiliary
data where the device or the stack stripped it. Frames the host sent are
not counted.
"""

import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_8021Q = 0x8100
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
# struct tpacket_auxdata: status, len, snaplen, mac, net, vlan_tci, vlan_tpid
AUXDATA = struct.Struct("=IIIHHHH")


def frame_vid(frame, ancillary):
    """The frame's VLAN ID, or None if it has no tag."""
    for level, kind, data in ancillary:
        if level != SOL_PACKET or kind != PACKET_AUXDATA:
            continue
        status, _, _, _, _, tci, _ = AUXDATA.unpack_from(data)
        if status & TP_STATUS_VLAN_VALID:
            return tci & 0xFFF
    if len(frame) >= 16 and struct.unpack_from("!H", frame, 12)[0] == ETH_P_8021Q:
        return struct.unpack_from("!H", frame, 14)[0] & 0xFFF
    return None


class Stop(Exception):
    """SIGTERM: stop counting (a handler that returned would let select()
    wait on, PEP 475)."""


def stop(*_):
    raise Stop


def receive(sock, vid):
    """1 if the next frame on sock is one of VLAN vid received, else 0."""
    frame, anc, _, addr = sock.recvmsg(65536, socket.CMSG_SPACE(AUXDATA.size))
    if addr[2] == socket.PACKET_OUTGOING:
        return 0
    return int(frame_vid(frame, anc) == vid)


def count(sock, vid, seconds):
    """Frames of VLAN vid received on sock within seconds, or until SIGTERM;
    then those already queued on the socket."""
    end = time.monotonic() + seconds
    n = 0
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            if select.select([sock], [], [], left)[0]:
                n += receive(sock, vid)
    except Stop:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while select.select([sock], [], [], 0)[0]:
        n += receive(sock, vid)
    return n


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ifname, vid, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    sock.bind((ifname, 0))
    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    print(count(sock, vid, seconds), flush=True)


if __name__ == "__main__":
    main()
