#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Distro check: the series compiles with Debian's own 6.12 amd64 config
# (linux-config-6.12, config.amd64_none_amd64.xz), the i82574 driver as a
# module. Builds only what the series touches, after modules_prepare.
# Then, in the same output directory, the other combination a distro may
# pick: e1000e and i82574 built in, with e1000e leaving the 82574L to
# i82574 (E1000E=y, E1000E_82574=n, I82574=y); only what depends on those
# symbols is rebuilt, and the next run goes back to the first config.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$TREE/out-distro
CFG=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -r "$CFG" ] || die "$CFG missing (package linux-config-6.12)"
KMAKE=(make -C "$TREE" O="$OUT" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")

# configure OPTION...: Debian's config, then scripts/config OPTIONs
configure() {
	xz -dc "$CFG" > "$OUT/.config"
	# Debian's signing keys and BTF need files and tools a source build
	# does not have; neither changes what the compiler sees of our code.
	"$TREE/scripts/config" --file "$OUT/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL --disable DEBUG_INFO_BTF \
		--disable DEBUG_INFO_DWARF5 --enable DEBUG_INFO_NONE "$@"
	"${KMAKE[@]}" -s olddefconfig
}

mkdir -p "$OUT"
sum=$( (cat "$CFG"; git -C "$TREE" rev-parse HEAD) | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/.cfgsum" 2>/dev/null)" != "$sum" ]; then
	configure --module I82574
	echo "$sum" > "$OUT/.cfgsum"
fi
if grep -q '^config I82574$' "$TREE/drivers/net/ethernet/intel/Kconfig"; then
	grep -qx 'CONFIG_I82574=m' "$OUT/.config" || die "CONFIG_I82574=m did not stick"
fi
log "modules_prepare with the Debian config"
"${KMAKE[@]}" -s modules_prepare

mapfile -t files < <(git -C "$TREE" diff --name-only pristine..HEAD -- '*.c' |
	grep -v '^tools/' || true)
[ ${#files[@]} -gt 0 ] || { echo "no kernel C files touched"; exit 0; }
mapfile -t dirs < <(printf '%s\n' "${files[@]}" | xargs -n1 dirname | sort -u)
log "building ${dirs[*]}"
"${KMAKE[@]}" "${dirs[@]/%//}"
if [ -d "$TREE/drivers/net/ethernet/intel/i82574" ]; then
	"${KMAKE[@]}" KBUILD_MODPOST_WARN=1 drivers/net/ethernet/intel/i82574/i82574.ko
	modinfo "$OUT/drivers/net/ethernet/intel/i82574/i82574.ko" | grep -E '^(alias|depends|vermagic)'
fi

# a non-GPL module that starts TX queues still links (issue 29, #3)
"$TOP/harness/nongpl.sh"

INTEL=drivers/net/ethernet/intel
grep -q '^config E1000E_82574$' "$TREE/$INTEL/Kconfig" || exit 0
log "e1000e and i82574 built in, the 82574L left to i82574"
# the module config is rebuilt on the next run, even if this one fails
rm -f "$OUT/.cfgsum"
configure --enable E1000E --disable E1000E_82574 --enable I82574
for want in CONFIG_E1000E=y '# CONFIG_E1000E_82574 is not set' CONFIG_I82574=y; do
	grep -qx "$want" "$OUT/.config" || die "'$want' did not stick"
done
"${KMAKE[@]}" "$INTEL/e1000e/" "$INTEL/i82574/"
