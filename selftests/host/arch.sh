#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswap_wb refuses a 32-bit kernel (Documentation/design.rst, "32-bit
# kernels") and a zswap writeback hook of another version, checked on the
# host without building a kernel: the module's
# Kbuild evaluated by the test kernel's kbuild with CONFIG_64BIT unset
# on the command line (a command-line variable overrides auto.conf's, so
# the Kbuild reads it as on a 32-bit kernel, and nothing is compiled
# before it refuses), and dkms against a kernel tree whose .config lacks
# CONFIG_64BIT, in private dkms/source/install trees: build refused with
# dkms's BUILD_EXCLUSIVE message and dkms.conf's reason, autoinstall
# skipping it with that reason. Prints KTAP.
. "$(dirname "$0")/lib.sh"
KREL=$(zswb_kernelrelease)
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ZSWB_TOP/dkms.conf")
WHY="zswap_wb needs a 64-bit kernel (CONFIG_64BIT)"
SKIP="zswap_wb: skipped for kernel $KREL: its config has no CONFIG_64BIT, zswap_wb needs a 64-bit kernel"
t=$out

ktap_print_header
ktap_set_plan 6
log() { sed 's/^/# /' "$1" | tail -20; }

# objects: the objects compiled from the module's sources (kbuild's own
# .module-common.o, built for any external module before its Kbuild is
# read, is not one).
objects() { find "$t/m" -name '*.o' ! -name .module-common.o; }

# The module's sources, in a directory of their own (kbuild writes there).
mkdir -p "$t/m"
cp -r "$ZSWB_TOP/Kbuild" "$ZSWB_TOP/module" "$t/m/"
rm -f "$t"/m/module/*.o "$t"/m/module/*.ko "$t"/m/module/.*.cmd "$t"/m/module/*.mod*

make -s -C "$ZSWB_OBJ" M="$t/m" CONFIG_64BIT= modules > "$t/k32.log" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "$WHY" "$t/k32.log" && [ ! -e "$t/m/module/zswap_wb.ko" ] &&
   [ -z "$(objects)" ]; then
	res 0 "Kbuild refuses a kernel without CONFIG_64BIT before compiling, saying why"
else
	echo "# make: $rc"
	log "$t/k32.log"
	res 1 "Kbuild refuses a kernel without CONFIG_64BIT before compiling, saying why"
fi
# A hook of another version, or one from before the version was named
# (the header given on the command line), is refused the same way.
HOOK="needs version 1 of the zswap writeback hook"
for v in "#define ZSWAP_WB_HOOK_VERSION 0" ""; do
	sed '/^#define ZSWAP_WB_HOOK_VERSION /d' "$ZSWB_SRC/include/linux/zswap.h" > "$t/zswap.h"
	[ -n "$v" ] && echo "$v" >> "$t/zswap.h"
	make -s -C "$ZSWB_OBJ" M="$t/m" ZSWB_HOOK_HEADER="$t/zswap.h" modules > "$t/hook.log" 2>&1
	rc=$?
	d="Kbuild refuses a hook without a version before compiling, saying why"
	[ -n "$v" ] && d="Kbuild refuses a hook of version 0 before compiling, saying why"
	if [ $rc != 0 ] && grep -q "$HOOK" "$t/hook.log" && [ -z "$(objects)" ]; then
		res 0 "$d"
	else
		echo "# make: $rc"
		log "$t/hook.log"
		res 1 "$d"
	fi
done
# With the kernel's own CONFIG_64BIT=y and hook the same build goes through.
make -s -C "$ZSWB_OBJ" M="$t/m" modules > "$t/k64.log" 2>&1
if ! grep -q "$WHY" "$t/k64.log" && [ -e "$t/m/module/zswap_wb.ko" ]; then
	res 0 "Kbuild builds the module for the 64-bit test kernel"
else
	log "$t/k64.log"
	res 1 "Kbuild builds the module for the 64-bit test kernel"
fi

# dkms, in private trees, against a tree whose .config has the hook and
# not CONFIG_64BIT (a 32-bit kernel's, as far as dkms reads it).
mkdir -p "$t/dkms" "$t/src" "$t/lib/$KREL" "$t/k32"
git -C "$ZSWB_TOP" ls-files -z --cached --others --exclude-standard |
	(cd "$ZSWB_TOP" && xargs -0 tar -cf -) | (mkdir -p "$t/src/zswap_wb-$VER" && tar -C "$t/src/zswap_wb-$VER" -xf -)
grep -v "^CONFIG_64BIT=" "$ZSWB_OBJ/.config" > "$t/k32/.config"
echo "# CONFIG_64BIT is not set" >> "$t/k32/.config"
dk() { dkms "$@" --dkmstree "$t/dkms" --sourcetree "$t/src" --installtree "$t/lib" --no-depmod; }
dk add -m zswap_wb -v "$VER" > "$t/add.log" 2>&1 || log "$t/add.log"
dk build -m zswap_wb -v "$VER" -k "$KREL" --kernelsourcedir "$t/k32" --force > "$t/build.log" 2>&1
rc=$?
if [ $rc = 77 ] && grep -q "BUILD_EXCLUSIVE" "$t/build.log" && grep -q "$SKIP" "$t/build.log"; then
	res 0 "dkms build refuses a kernel without CONFIG_64BIT, saying why"
else
	echo "# dkms build: $rc"
	log "$t/build.log"
	res 1 "dkms build refuses a kernel without CONFIG_64BIT, saying why"
fi
dk autoinstall -k "$KREL" --kernelsourcedir "$t/k32" > "$t/auto.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "$SKIP" "$t/auto.log" && [ -z "$(find "$t/lib" -name 'zswap_wb.ko*')" ]; then
	res 0 "dkms autoinstall skips a kernel without CONFIG_64BIT, saying why"
else
	echo "# dkms autoinstall: $rc"
	log "$t/auto.log"
	res 1 "dkms autoinstall skips a kernel without CONFIG_64BIT, saying why"
fi
ktap_finished
