#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one lean kernel: kbuild.sh perf|debug|stock [extra make args...]
# Out of tree in $TREE/out-<flavour> (linked as $BUILD/<flavour>), through
# ccache. A direct subdirectory of the source tree makes Kbuild use relative
# paths, so the ccache is shared by every checkout wherever it lives. The
# config is regenerated only when a fragment changes; every fragment line
# must survive olddefconfig.
#
# stock: the pristine 6.12 tree (a git worktree of tag "pristine" in
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
KMAKE=(make -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")

sum=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$OUT/.fragsum" 2>/dev/null)" != "$sum" ]; then
	log "configuring $flavour kernel"
	"${KMAKE[@]}" -s tinyconfig >/dev/null
	(cd "$OUT" && KCONFIG_CONFIG=.config "$TREE/scripts/kconfig/merge_config.sh" \
		-m -O "$OUT" .config "${frags[@]}" >/dev/null)
	"${KMAKE[@]}" -s olddefconfig >/dev/null
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
# Kbuild's one line per step (CC, AS, LD, ...) is counted, not shown: a
# progress line a minute, against the last build's count of this flavour
# (or, on a fresh machine, the count measured when the configs last
# changed). Anything else make prints (warnings, errors) passes through.
steps_file=$OUT/.kbuild-steps
case $flavour in
perf|stock) guess=2150 ;;
debug) guess=2240 ;;
*) guess=0 ;;
esac
total=$(cat "$steps_file" 2>/dev/null || echo "$guess")
if [ "$total" -gt 0 ]; then
	log "building $flavour kernel (about $total build steps when nothing is up to date)"
else
	log "building $flavour kernel (no step count known for this flavour yet)"
fi
set +e
# mawk (Debian's awk) reads a pipe in blocks unless told to take lines
"${KMAKE[@]}" "$@" bzImage 2>&1 | mawk -W interactive -v name="$flavour" -v total="$total" \
	-v out="$steps_file.new" -v last="$(date +%s)" '
	function stamp() { return strftime("[%H:%M:%S]") }
	/^  [A-Z][A-Z0-9_-]* +[^ ]/ {
		n++
		if (systime() - last >= 60) {
			last = systime()
			if (total > 0)
				printf "%s %s kernel: %d of about %d steps\n", stamp(), name, n, total > "/dev/stderr"
			else
				printf "%s %s kernel: %d steps\n", stamp(), name, n > "/dev/stderr"
		}
		next
	}
	/^make(\[[0-9]+\])?: (Entering|Leaving) directory/ { next }
	{ print; fflush() }
	END { print n + 0 > out }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || die "$flavour kernel build failed"
# only a build that ran more than half the expected steps is a useful total
steps=$(cat "$steps_file.new"); rm -f "$steps_file.new"
[ "${steps:-0}" -gt $((total / 2)) ] && echo "$steps" > "$steps_file"
log "$flavour kernel: $OUT/arch/x86/boot/bzImage"
