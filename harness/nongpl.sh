#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Linkage check: a module with a GPL-incompatible licence that calls
# netif_tx_start_queue(), netif_start_queue() and netif_tx_start_all_queues()
# (harness/nongpl/) must pass modpost against the patched tree built with
# Debian's config, as it does against 6.12. Run by distro.sh after it built
# net/core/ in $TREE/out-distro; standalone it prepares only what it needs.
#
# No vmlinux is linked: modpost reads the export table (and its GPL marks)
# of net/core/dev.o, where every symbol those inlines can reference is
# defined, relinked as a stand-in vmlinux.o. Any other symbol the module
# references is left unresolved and only warned about.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TREE/out-distro
KMAKE=(make -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")
[ -f "$OUT/.config" ] || die "no distro config in $OUT (run harness/distro.sh)"
if [ ! -x "$OUT/scripts/mod/modpost" ]; then
	log "modules_prepare with the Debian config"
	"${KMAKE[@]}" -s modules_prepare
fi
"${KMAKE[@]}" -s net/core/dev.o

work=$OUT/nongpl-check
rm -rf "$work"
mkdir -p "$work/mod"
cp "$TOP"/harness/nongpl/{Kbuild,nongpl.c} "$work/mod/"
ld -r -o "$work/vmlinux.o" "$OUT/net/core/dev.o"
# modpost knows vmlinux by its name, relative to where it runs
(cd "$work" && "$OUT/scripts/mod/modpost" -M -w -o Module.symvers vmlinux.o) \
	2>/dev/null || true
grep -q 'netif_tx_wake_queue' "$work/Module.symvers" ||
	die "modpost found no exports in net/core/dev.o"
log "building a non-GPL module that starts TX queues"
if ! "${KMAKE[@]}" M="$work/mod" KBUILD_MODPOST_WARN=1 \
	KBUILD_EXTRA_SYMBOLS="$work/Module.symvers" modules 2> "$work/err"; then
	grep -E 'GPL|error' "$work/err" >&2 || cat "$work/err" >&2
	die "a non-GPL module calling netif_tx_start_queue() does not link"
fi
used=$(nm -u "$work/mod/nongpl.o" | awk '{print $2}' |
	grep -Fx -f <(cut -f2 "$work/Module.symvers") | paste -sd' ')
echo "ok: the non-GPL module links; it uses ${used:-no export} of net/core/dev.o"
