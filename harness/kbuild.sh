#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one lean kernel: kbuild.sh perf|debug|stock [extra make args...]
# Out of tree in $TREE/out-<flavour> (linked as $BUILD/<flavour>), through
# ccache. A direct subdirectory of the source tree makes Kbuild use relative
# paths, so the ccache is shared by every checkout wherever it lives. The
# config is regenerated only when a fragment changes; every fragment line
# must survive olddefconfig.
#
# stock: the pristine 6.12.117 tree (a git worktree of tag "pristine" in
# $BUILD/linux-stock) with the perf config minus the options the series
# adds, for benchmarks against the unpatched kernel. Same relative paths,
# so every object the series does not change comes out of the ccache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?perf|debug|stock}; shift
cfg=$flavour
if [ "$flavour" = stock ]; then
	cfg=perf
	[ -d "$TREE/.git" ] || die "no tree in $TREE (run harness/tree.sh)"
	STOCK=$BUILD/linux-stock
	want=$(git -C "$TREE" rev-parse pristine)
	if [ "$(git -C "$STOCK" rev-parse HEAD 2>/dev/null)" != "$want" ] ||
	   [ -n "$(git -C "$STOCK" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		log "checking out the pristine tree in $STOCK"
		git -C "$TREE" worktree remove --force "$STOCK" 2>/dev/null || rm -rf "$STOCK"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$STOCK" pristine
	fi
	TREE=$STOCK
fi
OUT=$TREE/out-$flavour
frags=("$TOP/harness/configs/base.config" "$TOP/harness/configs/$cfg.config")
[ -f "${frags[1]}" ] || die "no config fragment for $flavour"
mkdir -p "$OUT"
ln -sfn "$(basename "$TREE")/out-$flavour" "$BUILD/$flavour"
if [ "$flavour" = stock ]; then
	# Drop the options only the series defines ("+config FOO" in a patch).
	added=$(sed -n 's/^+config \([A-Z0-9_]*\)$/\1/p' "$TOP"/patches/*.patch | sort -u)
	for f in "${frags[@]}"; do
		grep -v -x -E "CONFIG_($(echo $added | tr ' ' '|'))=.*" "$f" > "$OUT/$(basename "$f")" || true
	done
	frags=("$OUT/base.config" "$OUT/perf.config")
fi
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
