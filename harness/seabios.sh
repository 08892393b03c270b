#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's firmware: SeaBIOS 1.16.3 (the version Debian's QEMU 10.0.2
# ships) with harness/seabios/*.patch applied, built as QEMU's
# bios-256k.bin is (CONFIG_QEMU, a 256 KiB ROM). The stock build loses the
# q35 chipset's config window and ACPI PM base on every S3 resume (see the
# patch), so after one S3 a guest reports no AER error, sleeps no more and
# does not power off. Prints the image's path; builds it only when the
# source or a patch changed, one build at a time (boots started together,
# as make bench's two lanes are, each call this). Pinned by version and
# checksum; Debian's archive serves the upstream tarball.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TAR=seabios_1.16.3.orig.tar.gz
SHA=374dd8f6938e1673b084de4b2964514f7f9fd1b60eca1c12066c484d26286272
URL=http://deb.debian.org/debian/pool/main/s/seabios/$TAR
DIR=$BUILD/seabios
key=$( (echo "$SHA"; cat "$TOP"/harness/seabios/*.patch) | sha256sum | cut -c1-16)
BIN=$DIR/bios-$key.bin

[ -s "$BIN" ] && { echo "$BIN"; exit 0; }
mkdir -p "$DIR"
exec 9> "$DIR/.lock"
flock 9
[ -s "$BIN" ] && { echo "$BIN"; exit 0; }
if [ ! -f "$DIR/$TAR" ]; then
	log "fetching $TAR from Debian"
	curl -fsS -o "$DIR/$TAR.part" "$URL" || die "cannot fetch $URL"
	echo "$SHA  $DIR/$TAR.part" | sha256sum -c --quiet - || die "$TAR: checksum mismatch"
	mv "$DIR/$TAR.part" "$DIR/$TAR"
fi
log "building SeaBIOS 1.16.3 with $(ls "$TOP"/harness/seabios/*.patch | wc -l) patch(es)"
src=$DIR/src.$$
rm -rf "$src" "$DIR/out"
mkdir -p "$src" "$DIR/out"
tar -xzf "$DIR/$TAR" -C "$src" --strip-components=1
for p in "$TOP"/harness/seabios/*.patch; do
	patch -s -p1 -d "$src" < "$p" || die "$(basename "$p") does not apply"
done
printf 'CONFIG_QEMU=y\nCONFIG_ROM_SIZE=256\n' > "$DIR/out/.config"
make -s -C "$src" KCONFIG_CONFIG="$DIR/out/.config" OUT="$DIR/out/" oldnoconfig > /dev/null
make -s -C "$src" KCONFIG_CONFIG="$DIR/out/.config" OUT="$DIR/out/" "$DIR/out/bios.bin" \
	> "$DIR/build.log" 2>&1 || { tail -n 20 "$DIR/build.log" >&2; die "SeaBIOS build failed"; }
rm -f "$DIR"/bios-*.bin
mv "$DIR/out/bios.bin" "$BIN"
rm -rf "$src" "$DIR/out"
log "SeaBIOS: $BIN"
echo "$BIN"
