#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: run a command with the tools a make target fetched into
# $BUILD/tools (initramfs.py carries them) first on PATH, and refuse to run
# it when one it names is not there: a test would otherwise find Debian's
# older copy and fail, or skip, for a reason that is not its own.
#
# Usage: with-tools.sh TOOL... -- COMMAND...
set -u
tools=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	tools+=("$1")
	shift
done
[ "${1:-}" = -- ] || { echo "usage: $0 TOOL... -- COMMAND..." >&2; exit 2; }
shift
dir=${BUILD:?}/tools
for t in "${tools[@]}"; do
	[ -x "$dir/$t/$t" ] || { echo "with-tools: no $dir/$t/$t in the guest" >&2; exit 1; }
	PATH=$dir/$t:$PATH
done
export PATH
for t in "${tools[@]}"; do
	echo "with-tools: $t is $(command -v "$t"): $("$t" --version 2>&1 | head -n 1)"
done
exec "$@"
