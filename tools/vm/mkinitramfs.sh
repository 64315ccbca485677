#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs: static busybox, /init, the kernel's
# modules with zswap_wb in updates/, the static guest programs, the
# selftests in /selftests (run_group.sh and a directory per group) and the
# benchmarks' guest scripts in /bench (with their knobs in /bench/config),
# each directory with its copy of the helpers they share
# (tools/vm/guest.sh), and the kernel's .config in /etc/zswb-kernel.config
# for run_group.sh to check the groups' config fragments against when the
# kernel has no /proc/config.gz.
# Output: $ZSWB_OBJ/zswb-initramfs.cpio.gz, or $ZSWB_INITRD (path
# printed). ZSWB_KO puts another zswap_wb.ko in it.
set -eu
. "$(dirname "$0")/../kernel/common.sh"
zswb_dirs
KREL=$(zswb_kernelrelease)
[ -n "$KREL" ] || zswb_die "no built kernel in $ZSWB_OBJ: run 'make kernel'"
zswb_need busybox-static cpio kmod gzip gcc libc6-dev make
KO=${ZSWB_KO:-$ZSWB_TOP/module/zswap_wb.ko}
[ -f "$KO" ] || zswb_die "no $KO: run 'make module'"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,lib/modules,selftests,etc,root}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$ZSWB_TOP/tools/vm/init" "$root/init"
# Not while tools/kernel/build.sh reinstalls them.
flock -s "$ZSWB_OBJ/.build.lock" cp -a "$ZSWB_MODINST/lib/modules/$KREL" "$root/lib/modules/"
rm -f "$root/lib/modules/$KREL/build" "$root/lib/modules/$KREL/source"
kodir=$root/lib/modules/$KREL/${ZSWB_KO_DIR:-updates}
mkdir -p "$kodir" "$root/lib/modules/$KREL/updates"
cp "$KO" "$kodir/"
for extra in "$ZSWB_TOP"/selftests/zswap_wb/modules/*.ko; do
	[ -f "$extra" ] && cp "$extra" "$root/lib/modules/$KREL/updates/"
done
depmod -b "$root" "$KREL"

bin=$ZSWB_OBJ/zswb-guest-bin
mkdir -p "$bin"
for src in "$ZSWB_TOP"/tools/vm/vmexit.c "$ZSWB_TOP"/selftests/zswap_wb/*.c; do
	out=$bin/$(basename "$src" .c)
	# modschema.c includes the module's rows.
	[ "$out" -nt "$src" ] && [ "$out" -nt "$ZSWB_TOP/module/zswap_wb_params.h" ] &&
		[ "$out" -nt "$ZSWB_TOP/module/zswap_wb_stats.h" ] ||
		gcc -O2 -Wall -Wextra -Werror -static -o "$out" "$src"
done
make -s -C "$ZSWB_TOP/tools/zswbctl" >/dev/null
cp "$bin"/* "$ZSWB_TOP/tools/zswbctl/zswbctl" "$root/usr/bin/"
cp -r "$ZSWB_TOP"/selftests/zswap_wb/. "$root/selftests/"
rm -rf "$root/selftests/modules" "$root"/selftests/*.c
cp "$ZSWB_SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/selftests/"
cp "$ZSWB_TOP/Documentation/zswap_wb.rst" "$root/selftests/"
mkdir -p "$root/bench" && cp "$ZSWB_TOP"/tools/bench/guest/*.sh "$root/bench/"
cp -r "$ZSWB_TOP/tools/bench/config" "$root/bench/"
for d in selftests bench; do
	cp "$ZSWB_TOP/tools/vm/guest.sh" "$root/$d/"
done
echo "$KREL" > "$root/etc/zswb-kernelrelease"
cp "$ZSWB_OBJ/.config" "$root/etc/zswb-kernel.config"

out=${ZSWB_INITRD:-$ZSWB_OBJ/zswb-initramfs.cpio.gz}
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
