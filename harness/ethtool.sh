#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An ethtool with JSON ring output (-g --json) for the upstream
# drivers/net/hw/pp_alloc_fail.py: Debian 12's ethtool 6.1 has none, and
# bookworm-backports carries no newer one. Debian 13's 6.14.2 package runs
# on Debian 12's libc (it needs glibc 2.34 and libmnl0); it is unpacked into
# $BUILD/tools/ethtool, never installed. Pinned by version and checksum.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEB=ethtool_6.14.2-1_amd64.deb
SHA=5c592ac6e65c3863c5ba9c9b8380f913a35f39803aa89ccc59c11c5c953a46ef
URL=http://deb.debian.org/debian/pool/main/e/ethtool/$DEB
DIR=$BUILD/tools/ethtool

[ -x "$DIR/ethtool" ] && exit 0
mkdir -p "$DIR"
log "fetching $DEB from Debian"
curl -fsS -o "$DIR/$DEB.part" "$URL" ||
	die "cannot fetch $URL (Debian 13 may have moved past 6.14.2-1)"
echo "$SHA  $DIR/$DEB.part" | sha256sum -c --quiet - || die "$DEB: checksum mismatch"
mv "$DIR/$DEB.part" "$DIR/$DEB"
dpkg-deb --fsys-tarfile "$DIR/$DEB" | tar -xO ./usr/sbin/ethtool > "$DIR/ethtool.part"
chmod +x "$DIR/ethtool.part"
"$DIR/ethtool.part" --version | grep -q 'version 6.14.2' || die "unpacked ethtool does not run"
mv "$DIR/ethtool.part" "$DIR/ethtool"
log "ethtool 6.14.2: $DIR/ethtool"
