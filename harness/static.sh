#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks on what the series touches: a W=1 + sparse (C=1) build of
# every directory with a touched .c file (debug config, so KUnit code is
# included), failing on any diagnostic in a file the series adds; for
# upstream files it changes, only diagnostics that the pristine file does
# not have count. Then "make coccicheck" on the directories the series adds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TREE/out-static
KMAKE=(make -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")
g() { git -C "$TREE" "$@"; }

mapfile -t added < <(g diff --name-only --diff-filter=A pristine..HEAD)
mapfile -t changed < <(g diff --name-only --diff-filter=M pristine..HEAD)
mapfile -t dirs < <(printf '%s\n' "${added[@]}" "${changed[@]}" | grep '\.c$' |
	grep -v '^tools/' | xargs -r -n1 dirname | sort -u)
if [ ${#dirs[@]} -eq 0 ]; then
	echo "no kernel C files touched: nothing to build"
	exit 0
fi

mkdir -p "$OUT"
cp "$BUILD/debug/.config" "$OUT/.config"
"${KMAKE[@]}" -s olddefconfig prepare
bad=0
diags() {
	grep -E '^(\.\./)?[^ :]+:[0-9]+:[0-9]*:? ?(warning|error|note)?' "$1" |
		grep -E 'warning|error' | sed 's|^\.\./||' || true
}
log "W=1 C=1 build of: ${dirs[*]}"
# Force a rebuild of the touched objects so every file is compiled and checked.
for f in "${added[@]}" "${changed[@]}"; do
	[[ $f == *.c ]] && rm -f "$OUT/${f%.c}.o"
done
"${KMAKE[@]}" W=1 C=1 "${dirs[@]/%//}" > "$OUT/static.log" 2>&1 || bad=1
diags "$OUT/static.log" > "$OUT/diags.txt"
for f in "${added[@]}"; do
	grep -F "$f:" "$OUT/diags.txt" && bad=1
done
for f in "${changed[@]}"; do
	[[ $f == *.c ]] && grep -F "$f:" "$OUT/diags.txt" && bad=1
done
[ $bad = 0 ] && log "W=1 + sparse: no diagnostics in touched files"

mapfile -t newdirs < <(printf '%s\n' "${added[@]}" | grep '\.c$' | grep -v '^tools/' |
	xargs -r -n1 dirname | sort -u)
for d in "${newdirs[@]}"; do
	log "coccicheck $d"
	"${KMAKE[@]}" -s coccicheck MODE=report M="$d" > "$OUT/cocci.log" 2>&1 || bad=1
	if grep -E "^(\.\./)?$d/.*(WARNING|ERROR)" "$OUT/cocci.log"; then
		bad=1
	fi
done
exit $bad
