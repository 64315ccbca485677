#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build installable Debian packages of the hooked kernel for a real machine:
# Debian's own amd64 config (package linux-config-6.12), patches/6.12
# applied, LOCALVERSION -zswap-wb, 'make bindeb-pkg'. The .deb files land in
# $ZSWB_CACHE. A full Debian config takes hours on 2 cores; the test kernel
# (make kernel) uses a trimmed config instead.
#
# Environment: ZSWB_DEB_FLAVOUR (default amd64_none_amd64), ZSWB_JOBS.
set -eu
. "$(dirname "$0")/common.sh"

flavour=${ZSWB_DEB_FLAVOUR:-amd64_none_amd64}
# Sources, patches and build dependencies as for the test kernel.
ZSWB_BUILD_ONLY_SOURCE=1 bash "$ZSWB_TOP/tools/kernel/build.sh"
zswb_dirs
zswb_need linux-config-6.12 debhelper rsync dwarves python3
cfg=/usr/src/linux-config-6.12/config.$flavour.xz
[ -f "$cfg" ] || zswb_die "no Debian config $cfg (flavours: $(ls /usr/src/linux-config-6.12 | sed 's/config\.//; s/\.xz//' | tr '\n' ' '))"

obj=$ZSWB_CACHE/build-deb-${ZSWB_SRCVER//\~/-}
mkdir -p "$obj"
xz -dc "$cfg" > "$obj/.config"
# Debian signs with its own keys, which are not in the source package.
"$ZSWB_SRC/scripts/config" --file "$obj/.config" \
	--set-str LOCALVERSION "-zswap-wb" \
	--set-str SYSTEM_TRUSTED_KEYS "" \
	--set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
	--enable ZSWAP
make -s -C "$ZSWB_SRC" O="$obj" olddefconfig
grep -q "^CONFIG_ZSWAP_WRITEBACK_HOOK=y" "$obj/.config" ||
	zswb_die "CONFIG_ZSWAP_WRITEBACK_HOOK is not set: is patches/6.12 applied?"
echo "building Debian packages of $(make -s -C "$ZSWB_SRC" O="$obj" kernelrelease) from $ZSWB_SRCPKG $ZSWB_SRCVER ($flavour)"
export CCACHE_DIR=${CCACHE_DIR:-$ZSWB_CACHE/ccache}
make -C "$ZSWB_SRC" O="$obj" -j"$ZSWB_JOBS" CC="ccache gcc" bindeb-pkg
ls -1 "$ZSWB_CACHE"/linux-*zswap-wb*.deb "$obj"/../linux-*zswap-wb*.deb 2>/dev/null | sort -u
