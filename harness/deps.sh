#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything the build, the VM and the guest tests need (Debian 12).
# Quiet and quick when all is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(build-essential bc bison flex libelf-dev libssl-dev ccache cpio kmod rsync
      xz-utils git python3 python3-yaml perl sparse coccinelle
      iperf3 sockperf ethtool iproute2 iputils-ping procps
      gnuplot-nox linux-perf python3-ply python3-git ocaml-nox ocaml-findlib
      socat udev pciutils
      clang libbpf-dev bpftool
      curl patch)

# QEMU 10.0 and the SeaBIOS built for it, from bookworm-backports, pinned:
# its e1000e model clears ICR on a read in MSI-X mode as the 82574L does,
# and its hub carries TSO as TCP segments. Only these packages come from
# that suite; with 7.2's SeaBIOS the firmware stage takes 36 s, not 4.
# The guests boot harness/seabios.sh's build of the same SeaBIOS version
# (its source fetched with curl, patched), whose S3 resume restores the
# chipset; the package's other ROMs are QEMU's own.
BPO_SOURCES=/etc/apt/sources.list.d/bookworm-backports.sources
QEMU_VER=1:10.0.2+ds-2+deb13u1~bpo12+1
declare -A PINNED=([qemu-system-x86]=$QEMU_VER [qemu-system-common]=$QEMU_VER
	[qemu-system-data]=$QEMU_VER [seabios]=1.16.3-2~bpo12+1)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
pinned=()
for p in "${!PINNED[@]}"; do
	[ "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)" = "${PINNED[$p]}" ] ||
		pinned+=("$p=${PINNED[$p]}")
done
have_src=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
have_cfg=$(dpkg-query -W -f='${Version}' linux-config-6.12 2>/dev/null || true)

[ ${#missing[@]} -eq 0 ] && [ ${#pinned[@]} -eq 0 ] && [ "$have_src" = "$KVER_PKG" ] &&
	[ "$have_cfg" = "$KVER_PKG" ] && exit 0

[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]} ${pinned[*]} linux-source-6.12=$KVER_PKG); run as root"
export DEBIAN_FRONTEND=noninteractive
if [ ${#pinned[@]} -gt 0 ] && [ ! -e "$BPO_SOURCES" ]; then
	log "adding bookworm-backports (for ${!PINNED[*]} only)"
	cat > "$BPO_SOURCES" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
log "apt-get update"
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#pinned[@]} -gt 0 ]; then
	log "installing from bookworm-backports: ${pinned[*]}"
	apt-get install -y -qq --no-install-recommends --allow-downgrades "${pinned[@]}" >/dev/null ||
		die "apt cannot serve ${pinned[*]} (is bookworm-backports in $BPO_SOURCES reachable?)"
fi
# the config first: installing linux-config-6.12 at another version pulls
# linux-source-6.12 to that version too, undoing a pinned source
for pkg in linux-config-6.12 linux-source-6.12; do
	have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	[ "$have" = "$KVER_PKG" ] && continue
	if ! apt-get install -y -qq --no-install-recommends --allow-downgrades \
		"$pkg=$KVER_PKG" >/dev/null; then
		cand=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
		cat >&2 <<WARN
###########################################################################
WARNING: apt cannot serve $pkg=$KVER_PKG.
WARNING: falling back to the candidate version $cand.
WARNING: patches and results are pinned to $KVER_PKG and may not apply.
###########################################################################
WARN
		apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
	fi
done
