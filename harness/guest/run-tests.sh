#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: run kselftest programs, each as [VAR=value,...:]path (path
# relative to the repository top), under its directory's settings timeout.
# KTAP output goes to the console and to /mnt/results/ktap/<name>.tap, the
# exit code to /mnt/results/ktap/<name>.rc.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export RESULTS=/mnt/results
mkdir -p "$RESULTS/ktap"

for spec in "$@"; do
	vars=(); path=$spec
	if [[ $spec == *:* ]]; then
		IFS=, read -r -a vars <<< "${spec%%:*}"
		path=${spec#*:}
	fi
	name=$(echo "$spec" | tr '/:=,' '____')
	dir=$TOP/$(dirname "$path")
	limit=$(sed -n 's/^timeout=//p' "$dir/settings" 2>/dev/null)
	echo "# I82574-HARNESS: running $spec"
	(cd "$dir" && env "${vars[@]}" timeout -k 10 "${limit:-300}" "./$(basename "$path")") \
		> "$RESULTS/ktap/$name.tap" 2>&1
	echo $? > "$RESULTS/ktap/$name.rc"
	sed 's/^/  /' "$RESULTS/ktap/$name.tap"
	echo "# I82574-HARNESS: $spec exit $(cat "$RESULTS/ktap/$name.rc")"
done
exit 0
