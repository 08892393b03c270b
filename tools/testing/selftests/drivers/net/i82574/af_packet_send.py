#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Send COUNT IPv4/UDP frames out of IFNAME through an AF_PACKET socket with
# PACKET_QDISC_BYPASS (dev_direct_xmit()), to DST_MAC / DST_IP. A send the
# driver refuses (ENOBUFS, EAGAIN) is retried. Prints the number of frames
# the kernel accepted, which must equal COUNT.
#
# Usage: af_packet_send.py IFNAME DST_MAC SRC_IP DST_IP COUNT

import errno
import socket
import struct
import sys
import time

SOL_PACKET = 263
PACKET_QDISC_BYPASS = 20
ETH_P_IP = 0x0800


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(src_mac, dst_mac, src_ip, dst_ip, seq):
    payload = struct.pack('!I', seq) + bytes(14)
    udp = struct.pack('!HHHH', 9, 9, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), seq & 0xffff,
                     0, 64, socket.IPPROTO_UDP, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return dst_mac + src_mac + struct.pack('!H', ETH_P_IP) + ip + udp


def main():
    if len(sys.argv) != 6:
        sys.exit('usage: af_packet_send.py IFNAME DST_MAC SRC_IP DST_IP COUNT')
    ifname, count = sys.argv[1], int(sys.argv[5])
    dst_mac = bytes.fromhex(sys.argv[2].replace(':', ''))
    src_ip = socket.inet_aton(sys.argv[3])
    dst_ip = socket.inet_aton(sys.argv[4])
    if len(dst_mac) != 6 or count <= 0:
        sys.exit('bad destination MAC or count')

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    s.bind((ifname, 0))
    src_mac = s.getsockname()[4]

    sent = retries = 0
    while sent < count:
        try:
            s.send(frame(src_mac, dst_mac, src_ip, dst_ip, sent))
        except OSError as e:
            if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise
            retries += 1
            if retries > 100000:
                break
            time.sleep(0.0005)
            continue
        sent += 1
    print(sent, retries)


if __name__ == '__main__':
    main()
