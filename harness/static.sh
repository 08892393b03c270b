#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks on what the series touches, in a separate build directory
# with the debug config (so KUnit code is included):
#  - a W=1 + sparse (C=1) build of every directory the series adds, failing
#    on any warning or error there;
#  - the same for every upstream .c file the series changes, failing only on
#    diagnostics the pristine version of that file does not have;
#  - "make coccicheck MODE=report" on the directories the series adds;
#  - the i82574 driver's files calling each other one way (layers.py).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TREE/out-static
KMAKE=(make -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")
g() { git -C "$TREE" "$@"; }

mapfile -t changed < <(g diff --name-only --diff-filter=M pristine..HEAD -- '*.c' |
	grep -v '^tools/' || true)
# New files in existing upstream directories (a KUnit test, say) are
# checked as single objects.
mapfile -t newfiles < <(g diff --name-only --diff-filter=A pristine..HEAD -- '*.c' |
	grep -v '^tools/' || true)
if [ ${#newfiles[@]} -eq 0 ] && [ ${#changed[@]} -eq 0 ]; then
	echo "no kernel C files touched: nothing to build"
	exit 0
fi

mkdir -p "$OUT"
cp "$BUILD/debug/.config" "$OUT/.config"
"${KMAKE[@]}" -s olddefconfig prepare

# diags LOG: "file: warning: text" lines, line numbers dropped, sorted
diags() {
	grep -E '^(\.\./)?[^ :]+\.[ch]:[0-9]+(:[0-9]+)?: (warning|error)' "$1" |
		sed -E 's|^\.\./||; s/:[0-9]+(:[0-9]+)?: /: /' | sort || true
}
objs=()
cocci_dirs=()
for f in "${newfiles[@]}" "${changed[@]}"; do
	objs+=("${f%.c}.o")
	rm -f "$OUT/${f%.c}.o"
done
bad=0
log "W=1 C=1: ${objs[*]}"
"${KMAKE[@]}" W=1 C=1 "${objs[@]}" > "$OUT/static.log" 2>&1 || bad=1
diags "$OUT/static.log" > "$OUT/diags.txt"

if [ ${#changed[@]} -gt 0 ]; then
	# The pristine versions of the changed files, same flags, same headers.
	for f in "${changed[@]}"; do
		g show "pristine:$f" > "$TREE/$f"
		rm -f "$OUT/${f%.c}.o"
	done
	"${KMAKE[@]}" W=1 C=1 "${changed[@]/%.c/.o}" > "$OUT/static-pristine.log" 2>&1 || true
	g checkout -q HEAD -- "${changed[@]}"
	diags "$OUT/static-pristine.log" > "$OUT/diags-pristine.txt"
else
	: > "$OUT/diags-pristine.txt"
fi
for f in "${newfiles[@]}"; do
	grep -F "$f: " "$OUT/diags.txt" && bad=1
done
for f in "${changed[@]}"; do
	comm -23 <(grep -F "$f: " "$OUT/diags.txt" || true) \
		<(grep -F "$f: " "$OUT/diags-pristine.txt" || true) | grep . && bad=1
done
[ $bad = 0 ] && log "W=1 + sparse: no new diagnostics in touched files" ||
	echo "new diagnostics (full log: $OUT/static.log)"

# coccicheck: directories the series creates as a whole, and single new
# files in existing directories (C=2 CHECK=scripts/coccicheck per object).
cocci_files=()
for f in "${newfiles[@]}"; do
	d=$(dirname "$f")
	if g cat-file -e "pristine:$d" 2>/dev/null; then
		cocci_files+=("${f%.c}.o")
	else
		while ! g cat-file -e "pristine:$(dirname "$d")" 2>/dev/null; do d=$(dirname "$d"); done
		cocci_dirs+=("$d")
	fi
done
: > "$OUT/cocci.log"
for d in $(printf '%s\n' "${cocci_dirs[@]}" | sort -u); do
	log "coccicheck M=$d"
	"${KMAKE[@]}" -s coccicheck MODE=report M="$d" >> "$OUT/cocci.log" 2>&1 || bad=1
done
if [ ${#cocci_files[@]} -gt 0 ]; then
	log "coccicheck ${cocci_files[*]}"
	rm -f "${cocci_files[@]/#/$OUT/}"
	"${KMAKE[@]}" -s C=2 CHECK="$TREE/scripts/coccicheck" MODE=report \
		"${cocci_files[@]}" >> "$OUT/cocci.log" 2>&1 || bad=1
fi
if grep -E '(WARNING|ERROR)' "$OUT/cocci.log" | grep -v '^coccicheck failed'; then
	bad=1
fi
# the driver's files call each other one way (harness/layers.py)
mapfile -t drv < <(printf '%s\n' "${objs[@]}" |
	grep '^drivers/net/ethernet/intel/i82574/i82574_' || true)
python3 "$TOP/harness/layers.py" "${drv[@]/#/$OUT/}" || bad=1
exit $bad
