#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS on the host, against the hooked kernel's build tree, in private
# dkms/source/install trees (the machine's own kernel is not touched):
# add, build and install must succeed; a kernel without the hook must be
# refused with a clear message. Then tools/vm boots an initramfs holding
# the DKMS-installed module and modprobes it. Prints KTAP.
. "$(dirname "$0")/lib.sh"
KREL=$(zswb_kernelrelease)
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ZSWB_TOP/dkms.conf")
t=$out
mkdir -p "$t/dkms" "$t/src" "$t/lib/$KREL"
# The package source as dkms.conf describes it: the tree without git/build output.
git -C "$ZSWB_TOP" ls-files -z --cached --others --exclude-standard |
	(cd "$ZSWB_TOP" && xargs -0 tar -cf -) | (mkdir -p "$t/src/zswap_wb-$VER" && tar -C "$t/src/zswap_wb-$VER" -xf -)
dk() { dkms "$@" --dkmstree "$t/dkms" --sourcetree "$t/src" --installtree "$t/lib" --no-depmod; }

ktap_print_header
ktap_set_plan 5
log() { sed 's/^/# /' "$1"; }

dk add -m zswap_wb -v "$VER" > "$t/add.log" 2>&1; rc=$?
[ $rc = 0 ] || log "$t/add.log"
res $rc "dkms add"
dk build -m zswap_wb -v "$VER" -k "$KREL" --kernelsourcedir "$ZSWB_OBJ" > "$t/build.log" 2>&1; rc=$?
[ $rc = 0 ] || { log "$t/build.log"; cat "$t"/dkms/zswap_wb/"$VER"/build/make.log 2>/dev/null | sed 's/^/# /' | tail -30; }
res $rc "dkms build against $KREL"
dk install -m zswap_wb -v "$VER" -k "$KREL" --kernelsourcedir "$ZSWB_OBJ" > "$t/install.log" 2>&1; rc=$?
ko=$(find "$t/lib/$KREL" -name zswap_wb.ko | head -1)
[ $rc = 0 ] && [ -n "$ko" ] || { rc=1; log "$t/install.log"; }
res $rc "dkms install (${ko#"$t"/lib/})"

# A kernel without CONFIG_ZSWAP_WRITEBACK_HOOK: a tree whose .config lacks it.
mkdir -p "$t/unhooked"
grep -v ZSWAP_WRITEBACK_HOOK "$ZSWB_OBJ/.config" > "$t/unhooked/.config"
dk build -m zswap_wb -v "$VER" -k "$KREL" --kernelsourcedir "$t/unhooked" --force > "$t/unhooked.log" 2>&1
if grep -q "BUILD_EXCLUSIVE" "$t/unhooked.log"; then rc=0; else rc=1; log "$t/unhooked.log"; fi
res $rc "dkms refuses a kernel without the hook, saying why"

rc=1
if [ -n "$ko" ]; then
	ZSWB_KO="$ko" ZSWB_KO_DIR=updates/dkms bash "$ZSWB_TOP/tools/vm/mkinitramfs.sh" > /dev/null &&
	# Only the module's load: no host load beside it.
	bash "$ZSWB_TOP/tools/vm/run.sh" --timeout "$(sed -n 's/^timeout=//p' "$ZSWB_TOP/selftests/zswap_wb/dkms/settings")" \
		--cmd "ZSWB_TEST_HOSTLOAD=0 /selftests/run_group.sh dkms" > "$t/vm.log" 2>&1
	rc=$?
	grep -E "^(not )?ok|^# " "$t/vm.log" | sed 's/^/# /'
	[ $rc = 0 ] || tail -20 "$t/vm.log" | sed 's/^/# /'
	# Put the module from the tree back for the other tests.
	bash "$ZSWB_TOP/tools/vm/mkinitramfs.sh" > /dev/null
fi
res $rc "modprobe loads the DKMS-installed module in the VM"
ktap_finished
