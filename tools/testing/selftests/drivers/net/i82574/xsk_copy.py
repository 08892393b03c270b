#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""AF_XDP in copy mode, with the standard library only (for xsk.sh).

  xsk_copy.py rx --ifname IF --queue Q[,Q...] --count N --map PIN
      one AF_XDP socket per receive queue, each with its own UMEM, fill,
      completion and RX rings, bound with XDP_COPY and put into the pinned
      XSKMAP at its queue's index (bpf(2): BPF_OBJ_GET, BPF_MAP_UPDATE_ELEM).
      Receives until N good frames have come and then --settle seconds more
      (so that one frame too many is seen), or --timeout. A good frame is
      IPv4 UDP to --port whose payload is what "send" writes, a sequence
      number not seen before included. Exits 0 only if exactly N good
      frames and no bad one came.
  xsk_copy.py tx --ifname IF --queue Q --count N --dst-mac MAC --src IP
          --dst IP
      builds N IPv4 UDP frames in the UMEM and sends them out of IF's queue
      Q through the TX ring (copy mode: sendto() kicks), then waits until
      the completion ring has returned every one. Exits 0 if it has.
  xsk_copy.py send --dst IP --count N
      the sender of the test frames: a UDP socket, N datagrams to --port.
  xsk_copy.py recv --count N
      a UDP socket on --port that takes what "send" or "tx" sent: exits 0
      only if exactly N good datagrams and no bad one came.
  xsk_copy.py counter --map PIN KEY...
      the u64 values at KEY... of the array map pinned at PIN.

Only for x86_64 (the bpf(2) number, and ring accesses that rely on x86's
ordering of loads and of stores: a producer index is read before the
descriptors it publishes, and written after the descriptors are).
"""
import argparse
import ctypes
import errno
import mmap
import os
import select
import socket
import struct
import sys
import time

AF_XDP = 44
SOL_XDP = 283
XDP_MMAP_OFFSETS = 1
XDP_RX_RING = 2
XDP_TX_RING = 3
XDP_UMEM_REG = 4
XDP_UMEM_FILL_RING = 5
XDP_UMEM_COMPLETION_RING = 6
XDP_STATISTICS = 7
XDP_OPTIONS = 8
XDP_OPTIONS_ZEROCOPY = 1
XDP_COPY = 1 << 1
XDP_ZEROCOPY = 1 << 2
XDP_PGOFF_RX_RING = 0
XDP_PGOFF_TX_RING = 0x80000000
XDP_UMEM_PGOFF_FILL_RING = 0x100000000
XDP_UMEM_PGOFF_COMPLETION_RING = 0x180000000

IP_RECVERR = 11
SO_RCVBUFFORCE = 33
NR_BPF = 321            # x86_64
BPF_MAP_LOOKUP_ELEM = 1
BPF_MAP_UPDATE_ELEM = 2
BPF_OBJ_GET = 7

FRAME = 2048            # UMEM chunk size
MAGIC = b"XSK0"
HDR = struct.Struct("!4sII")    # magic, sequence number, payload length

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def oserr(what):
    e = ctypes.get_errno()
    return OSError(e, "%s: %s" % (what, os.strerror(e)))


def payload(seq, size):
    """The test payload: header, then bytes that depend on the sequence."""
    head = HDR.pack(MAGIC, seq, size)
    body = bytes((seq + i) & 0xff for i in range(size - HDR.size))
    return head + body


def payload_ok(data):
    """The sequence number of a test payload, or None if it is not one."""
    if len(data) < HDR.size:
        return None
    magic, seq, size = HDR.unpack_from(data)
    if magic != MAGIC or size != len(data):
        return None
    if data[HDR.size:] != payload(seq, size)[HDR.size:]:
        return None
    return seq


def csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_frame(dmac, smac, sip, dip, sport, dport, data):
    """An Ethernet frame with an IPv4 UDP datagram, both checksums set."""
    ulen = 8 + len(data)
    s, d = socket.inet_aton(sip), socket.inet_aton(dip)
    ph = s + d + struct.pack("!BBH", 0, socket.IPPROTO_UDP, ulen)
    uc = csum(ph + struct.pack("!HHHH", sport, dport, ulen, 0) + data) or 0xffff
    udp = struct.pack("!HHHH", sport, dport, ulen, uc) + data
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0, 0x4000, 64,
                     socket.IPPROTO_UDP, 0, s, d)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + struct.pack("!H", 0x0800) + ip + udp


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    r = libc.syscall(NR_BPF, cmd, buf, len(buf))
    if r < 0:
        raise oserr("bpf(%d)" % cmd)
    return r


def map_get(pin):
    """A file descriptor of the map pinned at PIN."""
    path = ctypes.create_string_buffer(pin.encode())
    return bpf(BPF_OBJ_GET, struct.pack("=QII", ctypes.addressof(path), 0, 0))


def xskmap_set(pin, key, fd):
    """Put socket FD into the XSKMAP pinned at PIN, at KEY."""
    mfd = map_get(pin)
    try:
        k = ctypes.c_uint32(key)
        v = ctypes.c_uint32(fd)
        bpf(BPF_MAP_UPDATE_ELEM, struct.pack("=IIQQQ", mfd, 0, ctypes.addressof(k),
                                             ctypes.addressof(v), 0))
    finally:
        os.close(mfd)


class Ring:
    """One mmap()ed ring: producer, consumer, descriptors of DSIZE bytes."""

    def __init__(self, fd, off, pgoff, size, dsize):
        self.prod_off, self.cons_off, self.desc_off, _ = off
        self.size, self.mask, self.dsize = size, size - 1, dsize
        self.mm = mmap.mmap(fd, self.desc_off + size * dsize, mmap.MAP_SHARED,
                            mmap.PROT_READ | mmap.PROT_WRITE, offset=pgoff)

    def _get(self, off):
        return struct.unpack_from("=I", self.mm, off)[0]

    def _set(self, off, v):
        struct.pack_into("=I", self.mm, off, v & 0xffffffff)

    prod = property(lambda self: self._get(self.prod_off),
                    lambda self, v: self._set(self.prod_off, v))
    cons = property(lambda self: self._get(self.cons_off),
                    lambda self, v: self._set(self.cons_off, v))

    def slot(self, i):
        return self.desc_off + (i & self.mask) * self.dsize


class Xsk:
    """An AF_XDP socket with a UMEM of its own, bound in copy mode."""

    def __init__(self, ifname, queue, frames, rx=True, tx=False, mode="copy"):
        if mode != "copy":
            raise SystemExit("only --mode copy: the driver has no zero-copy")
        self.ifname, self.queue = ifname, queue
        self.sock = socket.socket(AF_XDP, socket.SOCK_RAW, 0)
        fd = self.sock.fileno()
        self.frames = frames
        self.umem = mmap.mmap(-1, frames * FRAME, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                              mmap.PROT_READ | mmap.PROT_WRITE)
        self.umem_addr = ctypes.addressof(ctypes.c_char.from_buffer(self.umem))
        # struct xdp_umem_reg as 5.4+ takes it: addr, len, chunk, headroom, flags
        reg = struct.pack("=QQIII4x", self.umem_addr, frames * FRAME, FRAME, 0, 0)
        self.sock.setsockopt(SOL_XDP, XDP_UMEM_REG, reg)
        ring = 1 << (frames - 1).bit_length()
        self.sock.setsockopt(SOL_XDP, XDP_UMEM_FILL_RING, struct.pack("=i", ring))
        self.sock.setsockopt(SOL_XDP, XDP_UMEM_COMPLETION_RING, struct.pack("=i", ring))
        if rx:
            self.sock.setsockopt(SOL_XDP, XDP_RX_RING, struct.pack("=i", ring))
        if tx:
            self.sock.setsockopt(SOL_XDP, XDP_TX_RING, struct.pack("=i", ring))
        offs = struct.unpack("=16Q", self.sock.getsockopt(SOL_XDP, XDP_MMAP_OFFSETS, 128))
        rx_off, tx_off, fr_off, cr_off = (offs[i:i + 4] for i in range(0, 16, 4))
        self.fill = Ring(fd, fr_off, XDP_UMEM_PGOFF_FILL_RING, ring, 8)
        self.comp = Ring(fd, cr_off, XDP_UMEM_PGOFF_COMPLETION_RING, ring, 8)
        self.rx = Ring(fd, rx_off, XDP_PGOFF_RX_RING, ring, 16) if rx else None
        self.tx = Ring(fd, tx_off, XDP_PGOFF_TX_RING, ring, 16) if tx else None
        if rx:
            self.refill(range(frames))
        idx = socket.if_nametoindex(ifname)
        sxdp = struct.pack("=HHIII", AF_XDP, XDP_COPY, idx, queue, 0)
        if libc.bind(fd, sxdp, len(sxdp)) < 0:
            raise oserr("bind %s queue %d, XDP_COPY" % (ifname, queue))
        opts = struct.unpack("=I", self.sock.getsockopt(SOL_XDP, XDP_OPTIONS, 4))[0]
        if opts & XDP_OPTIONS_ZEROCOPY:
            raise SystemExit("bound in zero-copy mode though XDP_COPY was asked")

    def refill(self, chunks):
        """Give the chunks (by index) to the kernel through the fill ring."""
        f = self.fill
        p = f.prod
        for c in chunks:
            struct.pack_into("=Q", f.mm, f.slot(p), c * FRAME)
            p += 1
        f.prod = p

    def receive(self):
        """The frames waiting in the RX ring, each returned to the fill ring."""
        r = self.rx
        c, p = r.cons, r.prod
        out, chunks = [], []
        while c != p:
            addr, length, _ = struct.unpack_from("=QII", r.mm, r.slot(c))
            out.append(bytes(self.umem[addr:addr + length]))
            chunks.append(addr // FRAME)
            c += 1
        r.cons = c
        self.refill(chunks)
        return out

    def stats(self):
        st = struct.unpack("=6Q", self.sock.getsockopt(SOL_XDP, XDP_STATISTICS, 48))
        return dict(zip(("rx_dropped", "rx_invalid_descs", "tx_invalid_descs",
                         "rx_ring_full", "rx_fill_ring_empty_descs",
                         "tx_ring_empty_descs"), st))


def parse_frame(data, port):
    """The test payload's sequence number of an IPv4 UDP frame to PORT,
    or (None, why) for anything else."""
    if len(data) < 42 or data[12:14] != b"\x08\x00":
        return None, "not IPv4"
    ihl = (data[14] & 0xf) * 4
    if data[23] != socket.IPPROTO_UDP or len(data) < 14 + ihl + 8:
        return None, "not UDP"
    sport, dport, ulen = struct.unpack_from("!HHH", data, 14 + ihl)
    if dport != port:
        return None, "UDP port %d" % dport
    end = 14 + ihl + ulen
    if ulen < 8 or end > len(data):
        return None, "UDP length %d in a %d-byte frame" % (ulen, len(data))
    seq = payload_ok(data[14 + ihl + 8:end])
    if seq is None:
        return None, "payload"
    return seq, None


def cmd_rx(a):
    queues = [int(q) for q in a.queue.split(",")]
    socks = [Xsk(a.ifname, q, a.frames, mode=a.mode) for q in queues]
    for x in socks:
        xskmap_set(a.map, x.queue, x.sock.fileno())
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    poll = select.poll()
    by_fd = {}
    for x in socks:
        poll.register(x.sock.fileno(), select.POLLIN)
        by_fd[x.sock.fileno()] = x
    seen = set()
    per_q = {x.queue: 0 for x in socks}
    good = nbytes = bad = 0
    t0 = time.monotonic()
    deadline = t0 + a.timeout
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        for fd, _ in poll.poll(min(deadline - now, 0.2) * 1000):
            x = by_fd[fd]
            for data in x.receive():
                seq, why = parse_frame(data, a.port)
                if seq is not None and seq in seen:
                    why = "sequence %d again" % seq
                if why:
                    bad += 1
                    if bad <= 5:
                        print("# queue %d: bad frame (%s), %d bytes: %s" %
                              (x.queue, why, len(data), data[:48].hex()))
                    continue
                seen.add(seq)
                good += 1
                nbytes += len(data)
                per_q[x.queue] += 1
                if good == a.count:
                    # a frame too many would come within the settle time
                    deadline = min(deadline, time.monotonic() + a.settle)
    el = time.monotonic() - t0
    for x in socks:
        st = x.stats()
        print("# queue %d: %d frames; %s" % (x.queue, per_q[x.queue],
              ", ".join("%s %d" % kv for kv in st.items() if kv[1]) or "no drops"))
    print("xsk rx %s: frames %d of %d, bytes %d, bad %d, queues %s, %.2f s" %
          (a.ifname, good, a.count, nbytes, bad,
           ",".join("%d:%d" % kv for kv in per_q.items()), el))
    return 0 if good == a.count and bad == 0 else 1


def cmd_tx(a):
    x = Xsk(a.ifname, int(a.queue), a.frames, rx=False, tx=True, mode=a.mode)
    with open("/sys/class/net/%s/address" % a.ifname) as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    dmac = bytes.fromhex(a.dst_mac.replace(":", ""))
    if a.count > a.frames:
        raise SystemExit("--count over --frames")
    t = x.tx
    p = t.prod
    for i in range(a.count):
        fr = udp_frame(dmac, smac, a.src, a.dst, a.sport, a.port,
                       payload(a.first + i, a.size))
        x.umem[i * FRAME:i * FRAME + len(fr)] = fr
        struct.pack_into("=QII", t.mm, t.slot(p), i * FRAME, len(fr), 0)
        p += 1
    t.prod = p
    done = kicks = 0
    errs = {}
    t0 = time.monotonic()
    cr = x.comp
    while done < a.count and time.monotonic() - t0 < a.timeout:
        kicks += 1
        try:
            x.sock.send(b"", socket.MSG_DONTWAIT)
        except OSError as e:
            # EAGAIN: the driver's queue was busy, the frame stays in the
            # TX ring; EBUSY: a frame was dropped (and completed) unsent
            if e.errno not in (errno.EAGAIN, errno.EBUSY, errno.ENOBUFS):
                raise
            name = errno.errorcode[e.errno]
            errs[name] = errs.get(name, 0) + 1
            time.sleep(0.001)
        c, pr = cr.cons, cr.prod
        done += (pr - c) & 0xffffffff
        cr.cons = pr
    st = x.stats()
    print("xsk tx %s queue %s: completed %d of %d, %d kicks%s; %s" %
          (a.ifname, a.queue, done, a.count, kicks,
           "".join(", %s %d" % kv for kv in errs.items()),
           ", ".join("%s %d" % kv for kv in st.items() if kv[1]) or "no drops"))
    return 0 if done == a.count and not errs.get("EBUSY") else 1


def cmd_send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # report ENOBUFS from a full qdisc instead of dropping in silence; a
    # send that fails so sent nothing (a pending ICMP error fails the next
    # send before it builds its datagram), so it is tried again
    s.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
    s.bind((a.src or "0.0.0.0", a.sport))
    gap = 1.0 / a.rate if a.rate else 0
    for i in range(a.count):
        data = payload(a.first + i, a.size)
        while True:
            try:
                s.sendto(data, (a.dst, a.port))
                break
            except OSError as e:
                if e.errno not in (errno.ENOBUFS, errno.EAGAIN,
                                   errno.ECONNREFUSED, errno.EHOSTUNREACH):
                    raise
                time.sleep(0.001)
        if gap:
            time.sleep(gap)
    print("# sent %d datagrams to %s:%d" % (a.count, a.dst, a.port))
    return 0


def cmd_counter(a):
    """Print the u64 values of an array map's keys (xsk.bpf.c's xsk_cnt)."""
    mfd = map_get(a.map)
    try:
        vals = []
        for key in a.key:
            k = ctypes.c_uint32(key)
            v = ctypes.c_uint64()
            bpf(BPF_MAP_LOOKUP_ELEM, struct.pack("=IIQQQ", mfd, 0, ctypes.addressof(k),
                                                 ctypes.addressof(v), 0))
            vals.append(str(v.value))
    finally:
        os.close(mfd)
    print(" ".join(vals))
    return 0


def cmd_recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # room for every datagram at once, whatever each buffer's truesize
    # (a page per frame on some drivers): FORCE passes rmem_max as root
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((a.bind, a.port))
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    seen = set()
    good = bad = 0
    t0 = time.monotonic()
    deadline = t0 + a.timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(min(left, 0.5))
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        seq = payload_ok(data)
        if seq is None or seq in seen:
            bad += 1
            continue
        seen.add(seq)
        good += 1
        if good == a.count:
            deadline = min(deadline, time.monotonic() + a.settle)
    print("udp recv port %d: datagrams %d of %d, bad %d, %.2f s" %
          (a.port, good, a.count, bad, time.monotonic() - t0))
    return 0 if good == a.count and bad == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("rx", "tx", "send", "recv"):
        p = sub.add_parser(name)
        p.add_argument("--count", type=int, default=100)
        p.add_argument("--port", type=int, default=7358, help="UDP destination port")
        p.add_argument("--size", type=int, default=200, help="UDP payload bytes")
        p.add_argument("--timeout", type=float, default=30)
        if name in ("rx", "tx"):
            p.add_argument("--ifname", required=True)
            p.add_argument("--queue", default="0",
                           help="queue (rx: a comma-separated list)")
            p.add_argument("--mode", default="copy", choices=("copy",))
            p.add_argument("--frames", type=int, default=2048,
                           help="UMEM chunks of %d bytes per socket" % FRAME)
    rx, tx, send, recv = (sub.choices[n] for n in ("rx", "tx", "send", "recv"))
    rx.add_argument("--map", required=True, help="pin path of the XSKMAP")
    for p in (rx, recv):
        p.add_argument("--ready", help="file written once receiving")
        p.add_argument("--settle", type=float, default=1.0,
                       help="seconds to wait for an extra frame after --count")
    recv.add_argument("--bind", default="0.0.0.0", help="local IPv4 address")
    for p in (tx, send):
        p.add_argument("--dst", required=True, help="destination IPv4 address")
        p.add_argument("--src", help="source IPv4 address")
        p.add_argument("--sport", type=int, default=7359)
    tx.add_argument("--dst-mac", required=True)
    send.add_argument("--rate", type=float, default=0, help="datagrams a second")
    for p in (tx, send):
        p.add_argument("--first", type=int, default=0, help="first sequence number")
    cnt = sub.add_parser("counter")
    cnt.add_argument("--map", required=True, help="pin path of an array map")
    cnt.add_argument("key", type=int, nargs="+")
    a = ap.parse_args()
    if a.cmd == "counter":
        return cmd_counter(a)
    if a.size < HDR.size or a.size > FRAME - 64:
        ap.error("--size out of range")
    if a.cmd == "tx" and not a.src:
        ap.error("tx needs --src")
    return {"rx": cmd_rx, "tx": cmd_tx, "send": cmd_send, "recv": cmd_recv}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
