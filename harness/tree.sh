#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the patched kernel tree in $BUILD/linux:
#   commit 1   the pristine Debian linux-source-6.12 tarball (tag "pristine")
#   then       one commit per entry of patches/series
#
# A series entry is "<patch> [new-path ...]": <patch> is a mail-format patch
# (From/Subject headers, body, optional diff against upstream files); the
# new paths are copied from this repository at the same in-tree location.
# Each entry's state is hashed; a re-run keeps the longest unchanged prefix
# of commits and re-applies only what changed after it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SERIES=${SERIES:-$TOP/patches/series}
STATE=$TREE/.git/project-series

# The pristine commit is the tarball's; each patch commit carries its From.
export GIT_AUTHOR_NAME="Debian linux-source-6.12" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
# Fixed dates keep commit ids (and so format-patch output) reproducible.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
g() { git -C "$TREE" -c core.autocrlf=false -c advice.detachedHead=false "$@"; }

if [ ! -d "$TREE/.git" ] || ! g rev-parse -q --verify pristine >/dev/null; then
	[ -r "$TARBALL" ] || die "$TARBALL missing (run harness/deps.sh)"
	have=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	[ "$have" = "$KVER_PKG" ] ||
		echo "WARNING: linux-source-6.12 is $have, not the pinned $KVER_PKG" >&2
	log "unpacking $TARBALL ($have)"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$TARBALL" -C "$TREE.tmp" --strip-components=1
	git init -q -b master "$TREE.tmp"
	mv "$TREE.tmp" "$TREE"
	g add -A -f .
	g commit -q --no-verify -m "Linux $KVER (Debian linux-source-6.12 $have)"
	g tag pristine
	: > "$STATE"
fi

# Hash of one series entry: its line, its patch, every new file under it and
# this script (so a change to how entries are applied re-applies them).
entry_hash() {
	local prev=$1 patch=$2; shift 2
	{
		echo "$prev $patch $*"
		cat "$0"
		cat "$TOP/patches/$patch"
		for p in "$@"; do
			[ -e "$TOP/$p" ] || die "series: $p does not exist"
			(cd "$TOP" && find "$p" -type f -print0 | sort -z | xargs -0 sha256sum)
		done
	} | sha256sum | cut -c1-16
}

mapfile -t entries < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES")
mapfile -t done_state < "$STATE"

base=$(g rev-parse pristine)
prev=pristine
keep=0
hashes=()
for e in "${entries[@]}"; do
	# shellcheck disable=SC2086
	set -- $e
	h=$(entry_hash "$prev" "$@")
	hashes+=("$h")
	prev=$h
done
for i in "${!hashes[@]}"; do
	st=${done_state[$i]:-}
	[ "${st%% *}" = "${hashes[$i]}" ] || break
	base=${st#* }
	keep=$((i + 1))
done

if [ "$(g rev-parse HEAD)" != "$base" ] || [ -n "$(g status --porcelain)" ]; then
	g reset -q --hard "$base"
	g clean -fdq
fi
head -n "$keep" "$STATE" > "$STATE.new"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = keep; i < ${#entries[@]}; i++)); do
	# shellcheck disable=SC2086
	set -- ${entries[$i]}
	patch=$1; shift
	git mailinfo "$tmp/msg" "$tmp/diff" < "$TOP/patches/$patch" > "$tmp/info"
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	[ -n "$subject" ] || die "$patch: no Subject"
	GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$tmp/info")
	GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$tmp/info")
	[ -n "$GIT_AUTHOR_EMAIL" ] || die "$patch: no From"
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	if [ -s "$tmp/diff" ]; then
		g apply --index --whitespace=error-all "$tmp/diff" ||
			die "$patch does not apply"
	fi
	for p in "$@"; do
		if [ -d "$TOP/$p" ]; then
			mkdir -p "$TREE/$p"
			rsync -rlpD --checksum --delete --exclude='*.o' --exclude='.*.cmd' --exclude='.checkpatch-camelcase.*' "$TOP/$p/" "$TREE/$p/"
		else
			mkdir -p "$(dirname "$TREE/$p")"
			cmp -s "$TOP/$p" "$TREE/$p" || cp "$TOP/$p" "$TREE/$p"
		fi
		g add -A -f -- "$p"
	done
	{ echo "$subject"; echo; cat "$tmp/msg"; } | g commit -q --no-verify --allow-empty -F -
	echo "${hashes[$i]} $(g rev-parse HEAD)" >> "$STATE.new"
	log "applied $patch"
done
mv "$STATE.new" "$STATE"
log "tree at $(g rev-parse --short HEAD): $(g rev-list --count pristine..HEAD) patches on pristine"
