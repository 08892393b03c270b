#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one lean kernel: kbuild.sh perf|debug [extra make args...]
# Out of tree in $TREE/out-<flavour> (linked as $BUILD/<flavour>), through
# ccache. A direct subdirectory of the source tree makes Kbuild use relative
# paths, so the ccache is shared by every checkout wherever it lives. The
# config is regenerated only when a fragment changes; every fragment line
# must survive olddefconfig.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?perf|debug}; shift
OUT=$TREE/out-$flavour
frags=("$TOP/harness/configs/base.config" "$TOP/harness/configs/$flavour.config")
[ -f "${frags[1]}" ] || die "no config fragment for $flavour"
mkdir -p "$OUT"
ln -sfn "linux/out-$flavour" "$BUILD/$flavour"
KMAKE=(make -s -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")

sum=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$OUT/.fragsum" 2>/dev/null)" != "$sum" ]; then
	log "configuring $flavour kernel"
	"${KMAKE[@]}" tinyconfig >/dev/null
	(cd "$OUT" && KCONFIG_CONFIG=.config "$TREE/scripts/kconfig/merge_config.sh" \
		-m -O "$OUT" .config "${frags[@]}" >/dev/null)
	"${KMAKE[@]}" olddefconfig >/dev/null
	bad=0
	while read -r line; do
		opt=${line%%=*}; val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$OUT/.config" && { echo "config: $opt is set, wanted n" >&2; bad=1; }
		else
			grep -qx "$line" "$OUT/.config" || { echo "config: $line did not stick" >&2; bad=1; }
		fi
	done < <(grep -h '^CONFIG_' "${frags[@]}")
	[ $bad = 0 ] || die "$flavour config is not what the fragments ask for"
	echo "$sum" > "$OUT/.fragsum"
fi
log "building $flavour kernel"
"${KMAKE[@]}" "$@" bzImage
log "$flavour kernel: $OUT/arch/x86/boot/bzImage"
