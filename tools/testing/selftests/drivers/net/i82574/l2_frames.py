#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Test frames of one ethertype through a receive filter, counted at the
# far end by a packet socket (it sees only what the NIC let in).
#
#   l2_frames.py rx IFNAME PROTO OUTDIR READY
#	count the frames of each mark; at a mark's end marker write the
#	count to OUTDIR/MARK. Creates READY once bound. Survives the
#	interface going down (ENETDOWN); ends after 600 s.
#   l2_frames.py tx IFNAME PROTO END_DST
#	for each "DST MARK [END]" line on stdin: 20 frames to DST, then
#	three end markers to END (default END_DST), so the receiver knows
#	the mark is over.
#
# One process for each end for a whole test: interpreter start-up is slow
# under TCG.

import errno
import os
import socket
import sys
import time

FRAMES = 20


def receive(ifn, proto, outdir, ready):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
    s.bind((ifn, proto))
    open(ready, "w").close()
    counts, done = {}, set()
    end = time.time() + 600
    while time.time() < end:
        try:
            f = s.recv(2048)
        except OSError as e:
            if e.errno != errno.ENETDOWN:
                raise
            continue
        d = f[14:].split(b"\0", 1)[0].decode(errors="replace")
        if not d.startswith("l2-") or len(d) < 5:
            continue
        mark, tag = d[:-1], d[-1]
        if tag == "D":
            counts[mark] = counts.get(mark, 0) + 1
        elif tag == "E" and mark not in done:
            done.add(mark)
            tmp = os.path.join(outdir, mark + ".tmp")
            with open(tmp, "w") as out:
                out.write("%d\n" % counts.get(mark, 0))
            os.rename(tmp, os.path.join(outdir, mark))


def send(ifn, proto, end_dst):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifn, 0))
    src = s.getsockname()[4]

    def frame(dst, mark, tag):
        return (bytes.fromhex(dst.replace(":", "")) + src +
                proto.to_bytes(2, "big") + mark.encode() + tag).ljust(60, b"\0")

    for line in sys.stdin:
        dst, mark, end = (line.split() + [end_dst])[:3]
        for _ in range(FRAMES):
            s.send(frame(dst, mark, b"D"))
            time.sleep(0.005)
        time.sleep(0.2)
        for _ in range(3):
            s.send(frame(end, mark, b"E"))
            time.sleep(0.05)


def main():
    mode, ifn, proto = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    if mode == "rx":
        receive(ifn, proto, sys.argv[4], sys.argv[5])
    elif mode == "tx":
        send(ifn, proto, sys.argv[4])
    else:
        sys.exit("usage: l2_frames.py rx|tx IFNAME PROTO ...")


if __name__ == "__main__":
    main()
