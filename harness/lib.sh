# SPDX-License-Identifier: GPL-2.0
# Shared settings for the host-side harness. Sourced, never executed.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux
# The version Debian's security archive serves both linux-source-6.12 and
# linux-config-6.12 at (it dropped linux-config 6.12.117-1~deb12u1, so
# deps.sh fell back to 6.12.118 for both while this said 117)
KVER_PKG=6.12.118-1~deb12u1
KVER=6.12.118
TARBALL=/usr/src/linux-source-6.12.tar.xz
JOBS=${JOBS:-$(nproc)}
# Debian's python3 (with python3-yaml, -ply, -git from deps.sh), not any other on PATH.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
