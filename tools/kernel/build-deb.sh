#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build installable Debian packages (linux-image, linux-headers) of the
# hooked kernel with 'make bindeb-pkg': Debian's linux-source-6.12 with
# patches/6.12 applied, in a build directory of its own (the test kernel of
# 'make kernel' is not touched).
#
# ZSWB_DEB_CONFIG selects the kernel config:
#   test     (default) the test kernel's: tools/kernel/zswap_wb.config over
#            x86_64_defconfig, as tools/kernel/build.sh configures it. About
#            as long as 'make kernel'; good for trying the packages in a VM
#            or a private root, not for real hardware (no networking, USB,
#            SCSI/ATA, DRM).
#   debian   Debian's own config from linux-config-6.12, flavour
#            ZSWB_DEB_FLAVOUR (default amd64_none_amd64), with LOCALVERSION
#            -zswap-wb and Debian's signing keys dropped. This is the one for
#            a fleet; it builds every driver Debian ships (hours on 2 cores).
#
# Bindeb-pkg's headers package has no .config; DKMS needs it for
# BUILD_EXCLUSIVE_CONFIG (dkms.conf), so it is added to the package here.
# The .deb files are moved to $ZSWB_CACHE/kernel-deb/ and their paths are
# printed on the last lines.
#
# ZSWB_SUITE selects the Debian release the packages are for:
#   bookworm (default) Debian 12: this machine's linux-source-6.12 and gcc.
#   trixie   Debian 13: trixie's linux-source-6.12, built with trixie's
#            gcc-14 and dpkg in the trixie environment of
#            tools/kernel/in-suite.sh, whose cache is $ZSWB_CACHE/trixie:
#            the packages land in $ZSWB_CACHE/trixie/kernel-deb/.
#
# Environment: ZSWB_DEB_CONFIG, ZSWB_DEB_FLAVOUR, ZSWB_SUITE, ZSWB_CACHE,
# ZSWB_JOBS.
set -eu
. "$(dirname "$0")/common.sh"

mode=${ZSWB_DEB_CONFIG:-test}
case $mode in
test|debian) ;;
*) zswb_die "ZSWB_DEB_CONFIG=$mode: use 'test' (default) or 'debian'" ;;
esac
flavour=${ZSWB_DEB_FLAVOUR:-amd64_none_amd64}
suite=${ZSWB_SUITE:-bookworm}
case $suite in
bookworm|trixie) ;;
*) zswb_die "ZSWB_SUITE=$suite: use bookworm (default) or trixie" ;;
esac
# A trixie build on another release runs this script again in the trixie
# environment, where the release is trixie's own.
if [ "$suite" = trixie ] && [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" != trixie ]; then
	exec bash "$ZSWB_TOP/tools/kernel/in-suite.sh" trixie bash "$ZSWB_TOP/tools/kernel/build-deb.sh"
fi

# Sources, patches and build dependencies as for the test kernel.
ZSWB_BUILD_ONLY_SOURCE=1 bash "$ZSWB_TOP/tools/kernel/build.sh"
zswb_dirs
# Read the source under the cache's lock, shared, as build.sh does, so that
# no other tree patches it with another series while the packages build.
exec 7> "$ZSWB_CACHE/.build.lock"
flock -s 7
zswb_series_applied ||
	zswb_die "another build patched $ZSWB_SRC with another series meanwhile; run again"
# bindeb-pkg runs dpkg-buildpackage over a generated debian/ (debhelper).
zswb_need dpkg-dev debhelper rsync kmod cpio python3
[ "$mode" = debian ] && zswb_need linux-config-6.12 dwarves

obj=$ZSWB_CACHE/build-deb-$mode-${ZSWB_SRCVER//\~/-}
out=$ZSWB_CACHE/kernel-deb
mkdir -p "$obj" "$out"

config_test() {
	local frag=$ZSWB_TOP/tools/kernel/zswap_wb.config
	make -s -C "$ZSWB_SRC" O="$obj" x86_64_defconfig
	(cd "$obj" && "$ZSWB_SRC/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$frag" >/dev/null)
}

config_debian() {
	local cfg=/usr/src/linux-config-6.12/config.$flavour.xz
	[ -f "$cfg" ] || zswb_die "no Debian config $cfg (flavours: $(ls /usr/src/linux-config-6.12 | sed 's/config\.//; s/\.xz//' | tr '\n' ' '))"
	xz -dc "$cfg" > "$obj/.config"
	# Debian signs with its own keys, which are not in the source package.
	"$ZSWB_SRC/scripts/config" --file "$obj/.config" \
		--set-str LOCALVERSION "-zswap-wb" \
		--set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
		--enable ZSWAP
}

# Configure from scratch each time: the config is a pure function of the
# mode and the fragment, and olddefconfig over an unchanged .config keeps
# the build incremental.
config_$mode
"$ZSWB_SRC/scripts/config" --file "$obj/.config" --enable ZSWAP_WRITEBACK_HOOK
make -s -C "$ZSWB_SRC" O="$obj" olddefconfig
for sym in ZSWAP ZSWAP_WRITEBACK_HOOK MODULES; do
	grep -q "^CONFIG_$sym=y" "$obj/.config" ||
		zswb_die "CONFIG_$sym is not set in the $mode config: is patches/6.12 applied?"
done
what="$mode config"
[ "$mode" = debian ] && what="$what, flavour $flavour"
echo "building Debian packages from $ZSWB_SRCPKG $ZSWB_SRCVER ($what) in $obj"

# ccache through its compiler links, so that CC stays "gcc" (= HOSTCC) and
# the headers package keeps the host programs built with the kernel.
export PATH=/usr/lib/ccache:$PATH
export CCACHE_DIR=${CCACHE_DIR:-$ZSWB_CACHE/ccache}
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2024-01-01}
export KBUILD_BUILD_USER=zswap_wb KBUILD_BUILD_HOST=build
start=$(date +%s)
# The packages land in the parent of the build directory: clear old ones.
built="linux-image-*_*.deb linux-headers-*_*.deb linux-libc-dev_*.deb linux-upstream_*"
(cd "$ZSWB_CACHE" && rm -f $built)
make -s -C "$ZSWB_SRC" O="$obj" -j"$ZSWB_JOBS" bindeb-pkg
krel=$(cat "$obj/include/config/kernel.release")
echo "bindeb-pkg of $krel took $(( $(date +%s) - start )) s"

rm -f "$out"/linux-*.deb
(cd "$ZSWB_CACHE" && mv linux-image-*_*.deb linux-headers-*_*.deb linux-libc-dev_*.deb "$out"/ &&
	rm -f linux-upstream_*)

# Add the kernel .config to the headers package, where Debian's own
# linux-headers packages have it and DKMS looks for it.
hdr=$(ls "$out"/linux-headers-"$krel"_*.deb)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -R "$hdr" "$tmp/pkg"
cp "$obj/.config" "$tmp/pkg/usr/src/linux-headers-$krel/.config"
(cd "$tmp/pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
	sort -z | xargs -0 md5sum > DEBIAN/md5sums)
dpkg-deb --root-owner-group -Zxz -b "$tmp/pkg" "$hdr" >/dev/null
dpkg-deb -c "$hdr" | grep " \./usr/src/linux-headers-$krel/\.config$" >/dev/null ||
	zswb_die "$hdr lacks /usr/src/linux-headers-$krel/.config"

echo "kernel packages of $krel in $out:"
ls -1 "$out"/linux-*.deb
