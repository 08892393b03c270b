#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# RSS by behaviour: TCP/IPv4 flows from the peer land on the receive queue
# that the hash key and indirection table (as ethtool -x reads them back)
# give through the Toeplitz hash over source address, destination address,
# source port and destination port.
#
#   rss_flows.py IFNAME PEER_NS PEER_IFNAME YNL_DIR NETDEV_SPEC [FLOWS]
#
# Picks FLOWS (default 3) flows the hash puts on each of the first two
# queues; for each sends 10 SYNs to a closed port from PEER_IFNAME (a
# packet socket in PEER_NS) and reads IFNAME's per-queue RX packets
# (netdev qstats) before and after. A flow passes when its queue took all
# 10 and the other fewer than 10 (the frames other than ours it may see).
# Prints one line per flow; exits 1 if any flow went elsewhere.

import ctypes
import ipaddress
import re
import socket
import subprocess
import sys
import time

SYNS = 10


def toeplitz(key, data):
    k, klen, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            h ^= (k >> (klen - 32 - i)) & 0xffffffff
    return h


def rss_config(ifn):
    out = subprocess.run(["ethtool", "-x", ifn], capture_output=True,
                         text=True, check=True).stdout
    table = []
    for m in re.finditer(r"^\s*\d+:((?:\s+\d+)+)\s*$", out, re.M):
        table += [int(x) for x in m.group(1).split()]
    key = re.search(r"RSS hash key:\s*\n\s*([0-9a-f:]+)", out)
    if not table or not key:
        sys.exit("cannot read the RSS table and key of %s:\n%s" % (ifn, out))
    return bytes.fromhex(key.group(1).replace(":", "")), table


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s & 0xffff).to_bytes(2, "big")


def syn(dst_mac, src_mac, src, dst, sport, dport):
    tcp = (sport.to_bytes(2, "big") + dport.to_bytes(2, "big") +
           (1).to_bytes(4, "big") + bytes(4) + bytes([0x50, 0x02]) +
           (1024).to_bytes(2, "big") + bytes(4))
    pseudo = src + dst + bytes([0, 6]) + len(tcp).to_bytes(2, "big")
    tcp = tcp[:16] + csum(pseudo + tcp) + tcp[18:]
    ip = bytes([0x45, 0]) + (20 + len(tcp)).to_bytes(2, "big") + bytes(2) + \
        bytes([0x40, 0, 64, 6]) + bytes(2) + src + dst
    ip = ip[:10] + csum(ip) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + tcp


def rx_packets(ynl, ifindex):
    got = {}
    for q in ynl.dump("qstats-get", {"scope": "queue", "ifindex": ifindex}):
        if q["queue-type"] == "rx":
            got[q["queue-id"]] = q.get("rx-packets", 0)
    return got


def read(path):
    with open(path) as f:
        return f.read().strip()


def setns(name):
    with open("/run/netns/" + name) as ns:
        if ctypes.CDLL(None, use_errno=True).setns(ns.fileno(), 0x40000000):
            sys.exit("setns %s: errno %d" % (name, ctypes.get_errno()))


def addr4(ifn):
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", ifn],
                         capture_output=True, text=True, check=True).stdout
    return ipaddress.ip_interface(out.split()[3]).ip.packed


def main():
    ifn, peer_ns, peer_ifn, ynl_dir, spec = sys.argv[1:6]
    flows = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    sys.path.insert(0, ynl_dir)
    from lib import YnlFamily  # pylint: disable=import-outside-toplevel

    key, table = rss_config(ifn)
    ifindex = int(read("/sys/class/net/%s/ifindex" % ifn))
    mac = bytes.fromhex(read("/sys/class/net/%s/address" % ifn).replace(":", ""))
    dst = addr4(ifn)
    # the netlink socket stays in this namespace; the sender is the peer's
    ynl = YnlFamily(spec, "")
    setns(peer_ns)
    src = addr4(peer_ifn)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((peer_ifn, 0))
    src_mac = s.getsockname()[4]

    picked = {0: [], 1: []}
    for sport in range(40000, 41000):
        h = toeplitz(key, src + dst + sport.to_bytes(2, "big") + (9).to_bytes(2, "big"))
        q = table[h % len(table)]
        if q in picked and len(picked[q]) < flows:
            picked[q].append((sport, h))
    print("key %s, table of %d: %s" % (key.hex(), len(table), " ".join(map(str, table))))
    rc = 0
    for q, lst in picked.items():
        if len(lst) < flows:
            print("fewer than %d of 1,000 flows hash to queue %d" % (flows, q))
            rc = 1
        for sport, h in lst:
            pre = rx_packets(ynl, ifindex)
            for _ in range(SYNS):
                s.send(syn(mac, src_mac, src, dst, sport, 9))
            time.sleep(0.3)
            post = rx_packets(ynl, ifindex)
            d = {k: post[k] - pre.get(k, 0) for k in post}
            ok = d.get(q, 0) >= SYNS and d.get(1 - q, 0) < SYNS
            rc |= not ok
            print("sport %d hash %08x entry %d -> rx-%d: rx-0 +%d rx-1 +%d %s" %
                  (sport, h, h % len(table), q, d.get(0, 0), d.get(1, 0),
                   "ok" if ok else "WRONG"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
