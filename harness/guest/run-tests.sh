#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: run kselftest programs, each as [VAR=value,...:]path, path
# relative to the applied kernel tree (or absolute) ($BUILD/linux, so the tests run with
# the kselftest helpers they were built against), under its directory's
# settings timeout (TEST_TIMEOUT=seconds, in the environment or among a
# spec's VARs, overrides it).
# KTAP output goes to the console and to /run/results/ktap/<name>.tap, the
# exit code to /run/results/ktap/<name>.rc.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TREE=${BUILD:-$TOP/build}/linux
export RESULTS=/run/results
mkdir -p "$RESULTS/ktap"

for spec in "$@"; do
	vars=(); path=$spec
	if [[ $spec == *:* ]]; then
		IFS=, read -r -a vars <<< "${spec%%:*}"
		path=${spec#*:}
	fi
	name=$(basename "$path")${vars[*]:+[${vars[*]}]}; name=${name// /,}; name=${name//\//_}
	case $path in
	/*) dir=$(dirname "$path") ;;
	*) dir=$TREE/$(dirname "$path") ;;
	esac
	limit=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$dir/settings" 2>/dev/null)}
	for v in "${vars[@]}"; do
		[[ $v == TEST_TIMEOUT=* ]] && limit=${v#TEST_TIMEOUT=}
	done
	echo "# I82574-HARNESS: running $spec"
	(cd "$dir" && env "${vars[@]}" timeout -k 10 "${limit:-300}" "./$(basename "$path")") \
		> "$RESULTS/ktap/$name.tap" 2>&1
	echo $? > "$RESULTS/ktap/$name.rc"
	sed 's/^/  /' "$RESULTS/ktap/$name.tap"
	echo "# I82574-HARNESS: $spec exit $(cat "$RESULTS/ktap/$name.rc")"
done
exit 0
