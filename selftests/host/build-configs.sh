#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite build-configs (selftests/run.sh build-configs); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# config_tree NAME OPTION [SELECTOR...]: a tree of the test kernel's
# config with OPTION off (and the SELECTORs, options of the test config
# that select it), beside the test kernel's ($ZSWB_CACHE/NAME-build-*),
# prepared for modules (modules_prepare only); its path on stdout, its log
# in $out/NAME.log. Fails if olddefconfig turned OPTION on again (y or m).
config_tree() {
	local name=$1 opt=$2 obj o
	shift 2
	obj=$(dirname "$ZSWB_OBJ")/$name-$(basename "$ZSWB_OBJ")
	mkdir -p "$obj"
	cp "$ZSWB_OBJ/.config" "$obj/.config.new"
	for o in "$opt" "$@"; do
		"$ZSWB_SRC/scripts/config" --file "$obj/.config.new" -d "$o"
	done
	cmp -s "$obj/.config.new" "$obj/.config.base" || {
		cp "$obj/.config.new" "$obj/.config"
		cp "$obj/.config.new" "$obj/.config.base"
	}
	echo "$obj"
	make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" olddefconfig > "$out/$name.log" 2>&1 &&
		! grep -q "^CONFIG_$opt=[ym]" "$obj/.config" &&
		make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" modules_prepare \
			>> "$out/$name.log" 2>&1
}

# config_module NAME TREE DESC: the module with W=1 against TREE, in a copy
# of its sources of its own ($out/NAME-module), and then, since modpost
# cannot tell a missing kernel symbol there (no vmlinux, so no
# Module.symvers), that nothing of scopes is in it and none of the
# module's own symbols is undefined: two tests.
config_module() {
	local name=$1 obj=$2 desc=$3 m=$out/$1-module
	mkdir -p "$m"
	cp -r Kbuild module "$m/"
	rm -f "$m"/module/*.o "$m"/module/*.ko "$m"/module/.*.cmd
	make -s -C "$obj" M="$m" CC="ccache gcc" W=1 KBUILD_MODPOST_WARN=1 modules > "$out/$name-m.log" 2>&1
	if [ $? = 0 ] && [ -f "$m/module/zswap_wb.ko" ] && ! grep -q "warning:\|error:" "$out/$name-m.log"; then
		ktap_test_pass "the module builds with $desc, W=1, no warning"
	else
		sed 's/^/# /' "$out/$name-m.log" | tail -30
		ktap_test_fail "the module builds with $desc, W=1, no warning"
	fi
	if [ -f "$m/module/zswap_wb.ko" ] &&
	   ! nm "$m/module/zswap_wb.ko" | grep -q "configfs_\|zswb_scope_of\|zswb_scope_srcu\|mem_cgroup_from_task" &&
	   ! nm -u "$m/module/zswap_wb.ko" | grep " zswb_"; then
		ktap_test_pass "with $desc the module has no scopes and leaves none of its symbols undefined"
	else
		ktap_test_fail "with $desc the module has no scopes and leaves none of its symbols undefined"
	fi
}

# The hook and the module build on a kernel without the memory controller
# (CONFIG_MEMCG=n; the test kernel's config otherwise): the hook's files
# with W=1 in a tree of their own, the module with W=1 against it, without
# scopes; and the module on a kernel without configfs (CONFIG_CONFIGFS_FS=n,
# where the scopes live), also without them. modpost's unresolved-symbol
# warnings are expected: those trees have no vmlinux.
ZSWB_HOOK_OBJS="mm/zswap.o mm/vmscan.o mm/page_io.o mm/swap_state.o mm/memory.o mm/swapfile.o"
suite_build_configs() {
	local obj
	export CCACHE_DIR=${CCACHE_DIR:-$ZSWB_CACHE/ccache}
	ktap_print_header
	ktap_set_plan 6
	if obj=$(config_tree nomemcg MEMCG) &&
	   make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" W=1 $ZSWB_HOOK_OBJS \
		>> "$out/nomemcg.log" 2>&1 && ! grep -q "warning:" "$out/nomemcg.log"; then
		ktap_test_pass "the hook's files build with CONFIG_MEMCG=n, W=1, no warning"
	else
		sed 's/^/# /' "$out/nomemcg.log" | tail -30
		ktap_test_fail "the hook's files build with CONFIG_MEMCG=n, W=1, no warning"
	fi
	config_module nomemcg "$obj" CONFIG_MEMCG=n
	# null_blk (the test config's, for the slow-device tests) selects configfs.
	if obj=$(config_tree noconfigfs CONFIGFS_FS BLK_DEV_NULL_BLK) &&
	   ! grep -q "warning:" "$out/noconfigfs.log"; then
		ktap_test_pass "a kernel tree with CONFIG_CONFIGFS_FS=n prepares for modules"
	else
		sed 's/^/# /' "$out/noconfigfs.log" | tail -30
		ktap_test_fail "a kernel tree with CONFIG_CONFIGFS_FS=n prepares for modules"
	fi
	config_module noconfigfs "$obj" CONFIG_CONFIGFS_FS=n
}

suite_build_configs
