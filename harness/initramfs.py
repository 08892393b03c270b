#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Build the test guest's root file system: an initramfs the kernel
unpacks into RAM, so that the guest's programs survive a system suspend
(virtio-9p cannot freeze and restore its queues) and start without a round
trip to the host per file.

Two uncompressed newc cpio archives, concatenated (the kernel unpacks one
after the other):

  base   the host's own Debian packages the tests use (PACKAGES: their
         files, less documentation and Python's own test suites), every
         shared library their ELF files load (ldd), and a few files of
         /etc. Cached under build/initramfs/ by the installed versions of
         those packages and this script; rebuilt only when one changes.
  job    the checkout (git ls-files) and, from the applied kernel tree, what
         the tests read (the selftests they run and source, ynl and its
         specs), at the same absolute paths as on the host, and
         harness/guest/init.sh as /init, and each BPF object the tests
         load: every *.bpf.c of those tree parts compiled with clang into
         build/initramfs/bpf/ (cached by its source, flags and compiler)
         and placed next to its source, where a kselftest install puts it.
         Cached by every input's path, size and modification time.

Prints the path of the image to boot (`-initrd`). Exits 1, saying what is
missing, when a package is not installed or a file cannot be read.
"""
import hashlib
import os
import re
import stat
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
OUT = os.path.join(BUILD, "initramfs")

# What the guest runs: the shell and its tools, the network tools the
# tests drive, python3 with yaml (drivers/net/lib/py, ynl).
PACKAGES = [
    "bash", "dash", "coreutils", "util-linux", "mount", "bsdutils", "procps", "grep",
    "sed", "mawk", "findutils", "libc-bin", "hostname", "sysvinit-utils", "diffutils",
    "debianutils", "gzip",
    "iproute2", "ethtool", "iperf3", "libiperf0", "socat", "iputils-ping", "sockperf",
    "pciutils", "python3", "python3-minimal", "python3.11", "python3.11-minimal",
    "libpython3.11-minimal", "libpython3.11-stdlib", "python3-yaml",
    # xdp.sh: fills and reads the maps of its XDP programs
    "bpftool",
]
# files of those packages the guest never reads
SKIP = re.compile(
    r"^/usr/share/(doc|doc-base|man|info|locale|lintian|bash-completion|zsh|"
    r"pixmaps|applications|menu|bug)/"
    r"|^/usr/lib/python3\.11/(test|idlelib|tkinter|turtledemo|ensurepip|"
    r"lib2to3|pydoc_data|unittest/test|ctypes/test|sqlite3/test|"
    r"distutils/tests|config-3\.11-x86_64-linux-gnu)/"
    r"|\.opt-[12]\.pyc$")
# programs from packages not taken whole: udevadm (udev; upstream's
# NetdevSimDev runs "udevadm settle")
EXTRA = ["/usr/bin/udevadm"]
ETC = ["/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/protocols",
       "/etc/services", "/etc/hosts", "/etc/ld.so.cache", "/etc/ld.so.conf",
       "/etc/mtab", "/usr/lib/locale/C.utf8",
       # /var/run/netns is where ip netns keeps its namespaces
       "/var/run", "/var/lock"]
# the merged /usr's top-level links, and the directories init.sh mounts on
DIRS = ["/proc", "/sys", "/dev", "/run", "/tmp", "/root", "/var", "/var/tmp",
        "/var/log", "/mnt"]
TREE_PARTS = ["tools/testing/selftests/kselftest",
              "tools/testing/selftests/net/lib",
              "tools/testing/selftests/drivers/net",
              "tools/net/ynl", "Documentation/netlink/specs"]


def fail(msg):
    sys.exit("initramfs: " + msg)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        fail("%s: %s" % (" ".join(cmd[:3]), r.stderr.strip() or "exit %d" % r.returncode))
    return r.stdout


def versions():
    out = run(["dpkg-query", "-W", "-f", "${Package} ${Version} ${db:Status-Status}\n"]
              + PACKAGES)
    missing = [ln.split()[0] for ln in out.splitlines() if not ln.endswith(" installed")]
    if missing:
        fail("not installed: %s (harness/deps.sh installs them)" % " ".join(missing))
    return out


class Image:
    """The paths of one archive, with every parent directory and symlink
    target (resolved on the host) added."""

    def __init__(self):
        self.paths = {}

    def add(self, path):
        """PATH at its place on the host with the directories above it
        resolved (/lib/x is /usr/lib/x in the image, /lib the link)"""
        if path in ("", "/") or re.match(r"/(proc|sys|dev)(/|$)", path):
            return
        path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if path in self.paths:
            return
        try:
            st = os.lstat(path)
        except OSError as e:
            fail("cannot read %s: %s" % (path, e.strerror))
        self.paths[path] = path
        self.add(os.path.dirname(path))
        if stat.S_ISLNK(st.st_mode):
            target = os.path.join(os.path.dirname(path), os.readlink(path))
            self.add(os.path.normpath(target))

    def add_tree(self, root):
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files) + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
                p = os.path.join(d, name)
                if not SKIP.search(p):
                    self.add(p)


def package_files():
    files = []
    for line in run(["dpkg", "-L"] + PACKAGES).splitlines():
        if line.startswith("/") and not SKIP.search(line) and line not in ("/.",):
            files.append(line)
    return files


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def libraries(paths):
    """Every library the ELF files among PATHS load, as ldd resolves it."""
    elves = [p for p in paths if os.path.isfile(p) and not os.path.islink(p) and is_elf(p)]
    libs = set()
    for i in range(0, len(elves), 200):
        r = subprocess.run(["ldd"] + elves[i:i + 200], capture_output=True, text=True)
        for m in re.finditer(r"(?:=> )?(/\S+) \(0x", r.stdout):
            libs.add(m.group(1))
    return sorted(libs)


def build_base(img):
    files = package_files() + EXTRA
    for p in files:
        if os.path.lexists(p) and not os.path.isdir(p) or os.path.islink(p):
            img.add(p)
    for p in libraries(files):
        img.add(p)
    for p in ETC:
        if os.path.isdir(p) and not os.path.islink(p):
            img.add_tree(p)
        elif os.path.lexists(p):
            img.add(p)
    # the byte code Debian compiled at installation: without it every
    # python3 process compiles what it imports
    for d in ("/usr/lib/python3.11", "/usr/lib/python3/dist-packages/yaml"):
        img.add_tree(d)
    for p in ("/bin", "/sbin", "/lib", "/lib64"):
        if os.path.islink(p):
            img.add(p)
    # the commands Debian's alternatives give those packages' programs
    # (awk -> /etc/alternatives/awk -> mawk, which, ...)
    for d in ("/usr/bin", "/usr/sbin"):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if (os.path.islink(p) and os.readlink(p).startswith("/etc/alternatives/")
                    and os.path.realpath(p) in img.paths):
                img.add(p)


def job_inputs():
    out = run(["git", "-C", TOP, "ls-files", "-z", "--cached", "--others",
               "--exclude-standard"])
    files = [os.path.join(TOP, f) for f in out.split("\0") if f]
    tree = os.path.join(BUILD, "linux")
    for part in TREE_PARTS:
        root = os.path.join(tree, part)
        if not os.path.isdir(root):
            fail("no %s (run harness/tree.sh)" % root)
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            files += [os.path.join(d, n) for n in sorted(names)]
    # tools a make target fetched into $BUILD/tools (harness/ethtool.sh's
    # ethtool 6.14 for make ppfail): each one's executables, at the same
    # path in the guest
    tools = os.path.join(BUILD, "tools")
    if os.path.isdir(tools):
        for d, dirs, names in os.walk(tools):
            dirs.sort()
            files += [os.path.join(d, n) for n in sorted(names)
                      if os.access(os.path.join(d, n), os.X_OK)]
    return [f for f in files if os.path.lexists(f)]


# BPF objects for the guest (xdp.sh's programs): uapi headers and libbpf's
# bpf_helpers.h (libbpf-dev) from the host; -g for the BTF that libbpf
# needs to read BTF-defined maps (the guest kernels have no BTF of their
# own, and need none for this)
BPF_CFLAGS = ["-target", "bpf", "-O2", "-g", "-Wall", "-Werror"]


def bpf_objects(inputs):
    """(path in the image, compiled object) for each *.bpf.c among INPUTS
    from the applied tree: the object's name is the source's less ".c"."""
    srcs = [f for f in inputs if f.endswith(".bpf.c")
            and f.startswith(os.path.join(BUILD, "linux") + "/")]
    if not srcs:
        return []
    try:
        cc = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
        arch = run(["gcc", "-print-multiarch"]).strip()
    except OSError as e:
        fail("no clang or gcc (harness/deps.sh installs them): %s" % e)
    flags = BPF_CFLAGS + ["-I/usr/include/" + arch]
    objs = []
    os.makedirs(os.path.join(OUT, "bpf"), exist_ok=True)
    for src in srcs:
        with open(src) as f:
            text = f.read()
        obj = os.path.join(OUT, "bpf", "%s-%s.o" % (
            os.path.basename(src)[:-6], digest(text + cc + " ".join(flags))))
        if not os.path.exists(obj):
            tmp = "%s.%d.tmp" % (obj, os.getpid())
            r = subprocess.run(["clang"] + flags + ["-c", src, "-o", tmp],
                               capture_output=True, text=True)
            if r.returncode:
                fail("clang %s:\n%s" % (src, r.stderr.strip()))
            os.replace(tmp, obj)
        objs.append((src[:-2] + ".o", obj))
    # those of older sources
    keep = {os.path.basename(o) for _, o in objs}
    bases = {n.rsplit("-", 1)[0] for n in keep}
    for n in os.listdir(os.path.join(OUT, "bpf")):
        if n.endswith(".o") and n not in keep and n.rsplit("-", 1)[0] in bases:
            try:
                os.unlink(os.path.join(OUT, "bpf", n))
            except OSError:
                pass
    return objs


def cpio_entry(out, name, st, data):
    fields = (0, st.st_mode, 0, 0, 1, int(st.st_mtime), len(data), 0, 0, 0, 0,
              len(name) + 1, 0)
    hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
    out.write(hdr + name.encode() + b"\0")
    out.write(b"\0" * (-(110 + len(name) + 1) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def write_cpio(path, entries):
    """ENTRIES: (name in the image, path on the host); DIRS made empty."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as out:
        seen = set()
        for d in DIRS:
            cpio_entry(out, d.lstrip("/"), os.stat("/tmp"), b"")
            seen.add(d)
        for dest, src in sorted(entries):
            st = os.lstat(src)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(src).encode()
            elif stat.S_ISREG(st.st_mode):
                with open(src, "rb") as f:
                    data = f.read()
            elif stat.S_ISDIR(st.st_mode):
                data = b""
            else:
                continue
            if dest not in seen:
                cpio_entry(out, dest.lstrip("/"), st, data)
                seen.add(dest)
        cpio_entry(out, "TRAILER!!!", os.stat("/"), b"")
    os.replace(tmp, path)


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main():
    os.makedirs(OUT, exist_ok=True)
    vers = versions()
    with open(os.path.abspath(__file__)) as f:
        me = f.read()
    # the packages' versions and this script (what it takes from them)
    base = os.path.join(OUT, "base-%s.cpio" % digest(vers + me))
    if not os.path.exists(base):
        img = Image()
        build_base(img)
        write_cpio(base, img.paths.items())
        for n in os.listdir(OUT):
            if n.startswith("base-") and n.endswith(".cpio") and n != os.path.basename(base):
                os.unlink(os.path.join(OUT, n))
    inputs = job_inputs()
    objs = bpf_objects(inputs)
    init = os.path.join(TOP, "harness/guest/init.sh")
    key = "".join("%s %d %d\n" % (f, os.lstat(f).st_size, os.lstat(f).st_mtime_ns)
                  for f in inputs + [o for _, o in objs])
    image = os.path.join(OUT, "root-%s-%s.cpio" % (os.path.basename(base)[5:-5], digest(key)))
    if not os.path.exists(image):
        img = Image()
        for f in inputs:
            img.add(f)
        img.paths["/init"] = init
        for dest, obj in objs:
            img.paths[dest] = obj
        # boots started together (make bench's two lanes) build it each,
        # under names of their own, and the last rename wins
        job = "%s.%d.job" % (image, os.getpid())
        write_cpio(job, img.paths.items())
        tmp = "%s.%d.tmp" % (image, os.getpid())
        with open(tmp, "wb") as out:
            for part in (base, job):
                with open(part, "rb") as f:
                    while True:
                        chunk = f.read(1 << 20)
                        if not chunk:
                            break
                        out.write(chunk)
        os.unlink(job)
        os.replace(tmp, image)
        # keep the newest few images
        old = sorted((os.path.join(OUT, n) for n in os.listdir(OUT)
                      if n.startswith("root-") and n.endswith(".cpio")),
                     key=os.path.getmtime)
        for p in old[:-4]:
            os.unlink(p)
    print(image)


if __name__ == "__main__":
    main()
