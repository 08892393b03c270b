#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bad frames from the wire, mixed with good UDP checked end to end.

  badframes.py recv PORT COUNT IDLE_S
      UDP receiver: every datagram carries a sequence number and the CRC32
      of its body; prints JSON {"good", "corrupt", "dup", "missing"} once
      COUNT datagrams arrived or nothing came for IDLE_S seconds (120 s
      before the first).
  badframes.py send IFNAME DST_MAC DST_IP PORT ROUNDS [BIG]
      From IFNAME: ROUNDS rounds of one good UDP datagram (kernel socket)
      and one bad frame of each kind (AF_PACKET); BIG adds frames longer
      than 1522 bytes (IFNAME needs a large enough MTU). Prints JSON with
      the number of frames sent per kind.
"""
import json
import os
import random
import select
import socket
import struct
import sys
import time
import zlib

ETH_P_IP = 0x0800


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, proto, payload, ident, ihl=5, bad_csum=False, tot=None):
    opts = b"\x01" * (4 * ihl - 20)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot or 4 * ihl + len(payload),
                      ident, 0x4000, 64, proto, 0, src, dst) + opts
    c = csum(hdr) ^ (0x5a5a if bad_csum else 0)
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def l4(src, dst, proto, seg):
    return csum(src + dst + struct.pack("!BBH", 0, proto, len(seg)) + seg)


def udp(src, dst, sport, dport, data, bad_csum=False, ulen=None):
    seg = struct.pack("!HHHH", sport, dport, ulen or 8 + len(data), 0) + data
    c = (l4(src, dst, 17, seg) or 0xffff) ^ (0x0101 if bad_csum else 0)
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def tcp(src, dst, sport, dport, bad_csum=False, doff=5):
    seg = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, doff << 4, 0x02, 65535, 0, 0)
    c = l4(src, dst, 6, seg) ^ (0x0101 if bad_csum else 0)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def bad_frames(eth, src, dst, port, big, rnd):
    """One frame of every bad kind, as (kind, bytes)."""
    ip = lambda proto, p, **kw: eth + ipv4(src, dst, proto, p, rnd.getrandbits(16), **kw)
    junk = bytes(rnd.getrandbits(8) for _ in range(32))
    # no runt: the sender's driver pads every frame to 60 bytes
    # (skb_put_padto() in i82574_xmit_frame()), so none leaves this NIC
    out = [
        ("ip_csum", ip(17, udp(src, dst, 4000, port + 1, junk), bad_csum=True)),
        ("udp_csum", ip(17, udp(src, dst, 4000, port + 1, junk, bad_csum=True))),
        ("tcp_csum", ip(6, tcp(src, dst, 4000, port + 1, bad_csum=True))),
        ("trunc_ip", eth + ipv4(src, dst, 17, b"", 1)[:12]),
        ("ip_totlen", ip(17, udp(src, dst, 4000, port + 1, junk), tot=1000)),
        ("ip_ihl", ip(17, b"", ihl=15)[:14 + 24]),
        ("udp_len", ip(17, udp(src, dst, 4000, port + 1, junk, ulen=900))),
        ("tcp_doff", ip(6, tcp(src, dst, 4000, port + 1, doff=15))),
        ("random", eth[:12] + bytes(rnd.getrandbits(8) for _ in range(rnd.randint(2, 1500)))),
        ("vlan", eth[:12] + struct.pack("!HH", 0x8100, 5) + eth[12:14] +
         ipv4(src, dst, 17, udp(src, dst, 4000, port + 1, junk), 7)),
        ("llc_8023", eth[:12] + struct.pack("!H", 46) + b"\x42\x42\x03" + junk[:43]),
        ("over_mtu", ip(17, udp(src, dst, 4000, port + 1, bytes(1480)))[:1518]),
    ]
    if big:
        out.append(("over_1522", ip(17, udp(src, dst, 4000, port + 1, bytes(1600)))))
    return out


def send(ifname, dst_mac, dst_ip, port, rounds, big=False):
    rnd = random.Random(5)
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((ifname, 0))
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.connect((dst_ip, port))
    src = socket.inet_aton(us.getsockname()[0])
    dst = socket.inet_aton(dst_ip)
    with open("/sys/class/net/%s/address" % ifname) as f:
        src_mac = bytes.fromhex(f.read().strip().replace(":", ""))
    eth = bytes.fromhex(dst_mac.replace(":", "")) + src_mac + struct.pack("!H", ETH_P_IP)
    sent = {"good": 0}
    for seq in range(rounds):
        body = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 1400)))
        us.send(struct.pack("!QI", seq, zlib.crc32(body)) + body)
        sent["good"] += 1
        for kind, frame in bad_frames(eth, src, dst, port, big, rnd):
            raw.send(frame)
            sent[kind] = sent.get(kind, 0) + 1
        if seq % 8 == 7:
            time.sleep(0.002)
    print(json.dumps(sent))


def recv(port, count, idle):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", port))
    seen, corrupt, dup = set(), 0, 0
    # ready for the sender
    print("ready", flush=True)
    # IDLE seconds without a datagram end the count, but only once the
    # first one is in: a sender started after "ready" can take longer than
    # that to get going on a loaded debug kernel, and a receiver gone by
    # then makes it fail with ECONNREFUSED
    first = True
    while len(seen) < count:
        if not select.select([s], [], [], 120 if first else idle)[0]:
            break
        first = False
        d = s.recv(65536)
        if len(d) < 12:
            corrupt += 1
            continue
        seq, crc = struct.unpack("!QI", d[:12])
        if zlib.crc32(d[12:]) != crc or seq >= count:
            corrupt += 1
        elif seq in seen:
            dup += 1
        else:
            seen.add(seq)
    print(json.dumps({"good": len(seen), "corrupt": corrupt, "dup": dup,
                      "missing": count - len(seen)}), flush=True)


def main():
    a = sys.argv[1:]
    if a[:1] == ["recv"] and len(a) == 4:
        recv(int(a[1]), int(a[2]), float(a[3]))
    elif a[:1] == ["send"] and len(a) in (6, 7):
        send(a[1], a[2], a[3], int(a[4]), int(a[5]), len(a) == 7 and a[6] == "big")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
