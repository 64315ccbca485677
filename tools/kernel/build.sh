#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the hooked test kernel: install Debian's linux-source-6.12 and the
# build dependencies, extract the source into a cache outside the repository,
# apply patches/6.12/*.patch, merge tools/kernel/zswap_wb.config over
# x86_64_defconfig and build bzImage and modules incrementally with ccache.
#
# Environment: ZSWB_CACHE (cache directory), ZSWB_JOBS (parallel jobs),
# ZSWB_EXTRA_CONFIG (another fragment merged last, e.g. the debug one).
set -eu
. "$(dirname "$0")/common.sh"

PKGS="$ZSWB_SRCPKG build-essential bc bison flex libelf-dev libssl-dev ccache cpio kmod rsync xz-utils"

extract() {
	[ -f "$ZSWB_SRC/Makefile" ] && return 0
	local tmp
	tmp=$(mktemp -d "$ZSWB_CACHE/extract.XXXXXX")
	echo "extracting /usr/src/$ZSWB_SRCPKG.tar.xz into $ZSWB_SRC"
	tar -C "$tmp" -xf "/usr/src/$ZSWB_SRCPKG.tar.xz"
	mv "$tmp/$ZSWB_SRCPKG" "$ZSWB_SRC"
	rmdir "$tmp"
}

# revert_series FILE: revert the series concatenated in FILE, last patch
# first (one patch -R over the whole file would revert the first patch
# before the later ones that changed its lines). Dry runs first: a series
# that does not revert whole leaves the tree as it is.
revert_series() {
	local dir n p
	dir=$(mktemp -d)
	awk -v d="$dir" '/^From [0-9a-f]+ Mon Sep 17 00:00:00 2001$/ { n++ } { print > sprintf("%s/%04d.patch", d, n) }' "$1"
	n=$(ls "$dir" | sort -r)
	for p in $n; do
		(cd "$ZSWB_SRC" && patch -p1 -R -s --dry-run --no-backup-if-mismatch < "$dir/$p" >/dev/null) || {
			rm -rf "$dir"
			return 1
		}
		(cd "$ZSWB_SRC" && patch -p1 -R -s --no-backup-if-mismatch < "$dir/$p") || {
			rm -rf "$dir"
			return 1
		}
	done
	rm -rf "$dir"
}

# Keep the applied series in the tree; swap it for the new one when it
# changes, so only the files the patches touch are rebuilt.
apply_patches() {
	local applied=$ZSWB_SRC/.zswap_wb-applied new
	new=$(mktemp)
	cat "$ZSWB_TOP"/patches/6.12/*.patch > "$new"
	if [ -f "$applied" ] && cmp -s "$applied" "$new"; then
		rm -f "$new"
		return 0
	fi
	if [ -f "$applied" ]; then
		echo "reverting the previously applied patches"
		revert_series "$applied" ||
			zswb_die "cannot revert the old series; remove $ZSWB_SRC and retry"
		rm -f "$applied"
	fi
	for p in "$ZSWB_TOP"/patches/6.12/*.patch; do
		echo "applying $(basename "$p")"
		(cd "$ZSWB_SRC" && patch -p1 -s --no-backup-if-mismatch --dry-run < "$p" >/dev/null) ||
			zswb_die "$(basename "$p") does not apply to $ZSWB_SRCPKG $ZSWB_SRCVER"
		(cd "$ZSWB_SRC" && patch -p1 -s --no-backup-if-mismatch < "$p")
	done
	mv "$new" "$applied"
}

configure() {
	local frag=$ZSWB_TOP/tools/kernel/zswap_wb.config stamp=$ZSWB_OBJ/.zswap_wb-config
	[ "${ZSWB_FLAVOUR:-}" = debug ] &&
		ZSWB_EXTRA_CONFIG="$ZSWB_TOP/tools/kernel/debug.config ${ZSWB_EXTRA_CONFIG:-}"
	local want
	want=$(cat "$frag" ${ZSWB_EXTRA_CONFIG:-} | sha256sum | cut -c1-16)
	if [ -f "$ZSWB_OBJ/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	echo "configuring: x86_64_defconfig + $(basename "$frag") ${ZSWB_EXTRA_CONFIG:-}"
	make -s -C "$ZSWB_SRC" O="$ZSWB_OBJ" x86_64_defconfig
	(cd "$ZSWB_OBJ" && "$ZSWB_SRC/scripts/kconfig/merge_config.sh" -m -O "$ZSWB_OBJ" \
		"$ZSWB_OBJ/.config" "$frag" ${ZSWB_EXTRA_CONFIG:-} >/dev/null)
	make -s -C "$ZSWB_SRC" O="$ZSWB_OBJ" olddefconfig
	for sym in ZSWAP ZSWAP_WRITEBACK_HOOK ZRAM VIRTIO_BLK VIRTIO_NET BLK_DEV_NVME EXT4_FS MEMCG NUMA DEBUG_FS DEBUG_VM MODULES; do
		grep -q "^CONFIG_$sym=y" "$ZSWB_OBJ/.config" || zswb_die "CONFIG_$sym is not set in the merged config"
	done
	if [ "${ZSWB_FLAVOUR:-}" = debug ]; then
		for sym in KASAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP DEBUG_VM_PGFLAGS DEBUG_LIST \
			   DEBUG_OBJECTS_WORK DEBUG_OBJECTS_RCU_HEAD DEBUG_KMEMLEAK PAGE_OWNER UBSAN \
			   FAILSLAB FAIL_PAGE_ALLOC; do
			grep -q "^CONFIG_$sym=y" "$ZSWB_OBJ/.config" ||
				zswb_die "CONFIG_$sym is not set in the debug config"
		done
	fi
	echo "$want" > "$stamp"
}

mkdir -p "$ZSWB_CACHE"
zswb_need $PKGS
zswb_dirs
# Two trees (or make targets) building against one cache take turns where
# they meet. The source is read under the cache's lock, shared, for as long
# as a kernel builds, and patched (or extracted) only under it held
# exclusively; each build directory (the test kernel's, the debug
# kernel's) is built and its modules reinstalled under a lock of its own,
# which mkinitramfs.sh and mkrootfs.sh take shared to copy them. So the
# two flavours build at once, and one's initramfs is made while the other
# builds.
source_ready() {
	[ -f "$ZSWB_SRC/Makefile" ] && zswb_series_applied
}
exec 7> "$ZSWB_CACHE/.build.lock"
flock -s 7
mkdir -p "$ZSWB_OBJ"
echo "kernel source: Debian $ZSWB_SRCPKG $ZSWB_SRCVER"
if ! source_ready; then
	flock 7
	extract
	apply_patches
	flock -s 7
	# flock converts a lock by dropping it first: another build may have
	# patched the source with another series in between.
	source_ready ||
		zswb_die "another build patched $ZSWB_SRC with another series meanwhile; run again"
fi
[ -n "${ZSWB_BUILD_ONLY_SOURCE:-}" ] && exit 0
exec 8> "$ZSWB_OBJ/.build.lock"
flock 8
configure

export CCACHE_DIR=${CCACHE_DIR:-$ZSWB_CACHE/ccache}
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2024-01-01}
export KBUILD_BUILD_USER=zswap_wb KBUILD_BUILD_HOST=build
start=$(date +%s)
make -s -C "$ZSWB_SRC" O="$ZSWB_OBJ" -j"$ZSWB_JOBS" CC="ccache gcc" bzImage modules
rm -rf "$ZSWB_MODINST"
make -s -C "$ZSWB_SRC" O="$ZSWB_OBJ" INSTALL_MOD_PATH="$ZSWB_MODINST" INSTALL_MOD_STRIP=1 modules_install
echo "built $(zswb_kernelrelease) in $(( $(date +%s) - start )) s: $ZSWB_OBJ/arch/x86/boot/bzImage"
