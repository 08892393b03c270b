#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the applied series as numbered git format-patch files with a cover
# letter (first line of patches/cover-letter.txt is its subject, the rest its
# body) into $BUILD/patches. With --verify, also check that "git am" of the
# export onto the pristine tree reproduces the applied tree exactly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/patches
rm -rf "$OUT"
git -C "$TREE" format-patch -q --cover-letter --no-signature -o "$OUT" pristine..HEAD
cover=$(ls "$OUT"/0000-cover-letter.patch)
subject=$(head -n 1 "$TOP/patches/cover-letter.txt")
python3 - "$cover" "$TOP/patches/cover-letter.txt" <<'PY'
import sys
cover, src = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n", 1)
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", lines[0].strip())
text = text.replace("*** BLURB HERE ***", lines[1].strip() if len(lines) > 1 else "")
open(cover, "w").write(text)
PY
log "exported $(ls "$OUT" | wc -l) files to $OUT ($subject)"

[ "${1:-}" = --verify ] || exit 0
wt=$BUILD/am-check
git -C "$TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
git -C "$TREE" worktree prune
# A sparse worktree holding only the files the series touches: git am works
# the same on it and it checks out in seconds instead of minutes.
git -C "$TREE" worktree add -q --no-checkout --detach "$wt" pristine
trap 'git -C "$TREE" worktree remove --force "$wt"' EXIT
git -C "$TREE" diff --name-only pristine..HEAD | sed 's|^|/|' > "$BUILD/am-paths"
git -C "$wt" sparse-checkout set --no-cone --stdin < "$BUILD/am-paths"
git -C "$wt" checkout -q --detach pristine
mapfile -t series < <(ls "$OUT"/[0-9]*.patch | grep -v 0000-cover-letter)
if [ ${#series[@]} -gt 0 ]; then
	git -C "$wt" -c user.name=am -c user.email=am@localhost am -q --whitespace=error-all \
		"${series[@]}"
fi
want=$(git -C "$TREE" rev-parse 'HEAD^{tree}')
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
[ "$want" = "$got" ] || die "git am of the export gives tree $got, the applied tree is $want"
log "git am of ${#series[@]} patches onto pristine $KVER reproduces the applied tree"
