#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite hot-paths (selftests/run.sh hot-paths); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# The hot paths write no shared global with a locked instruction: every
# counter and gauge is per CPU (this_cpu ops carry no lock prefix). A lock
# prefix (or xchg, locked implicitly) on a %rip-relative operand is an
# atomic on a global of the module or the kernel; the ones left work on
# the folio being handled or on a per-CPU llist head. Read off the built
# module and vmlinux (design.rst, "Per CPU").
ZSWB_HOT_MODULE="zswb_writeback_end zswb_writeback_prepare zswb_writeback_issued zswb_alloc_off_lru zswb_queue zswb_finish zswb_drain zswb_free_workfn zswb_shrink_memcg zswb_walk zswb_readahead_skip"
ZSWB_HOT_KERNEL="__zswap_wb_end_writeback __zswap_wb_readahead_skip folio_end_writeback"
hot_locked_globals() {
	local obj=$1 fn
	shift
	for fn in "$@"; do
		objdump -d --no-show-raw-insn --disassemble="$fn" "$obj" 2>/dev/null |
			grep -E "^ +[0-9a-f]+:" | grep -E "(lock |xchg ).*\(%rip\)" | sed "s/^/$fn: /"
	done
}
suite_hot_paths() {
	local ko=$ZSWB_TOP/module/zswap_wb.ko found fn
	ktap_print_header
	ktap_set_plan 2
	found=0
	for fn in $ZSWB_HOT_MODULE; do
		objdump -d --disassemble="$fn" "$ko" 2>/dev/null | grep -q "<$fn>:" && found=$((found + 1))
	done
	hot_locked_globals "$ko" $ZSWB_HOT_MODULE > "$out/hot.log"
	if [ "$found" -ge 5 ] && [ ! -s "$out/hot.log" ]; then
		ktap_test_pass "module hot paths: no locked instruction on a global ($found functions)"
	else
		sed 's/^/# /' "$out/hot.log"
		ktap_test_fail "module hot paths: no locked instruction on a global ($found functions)"
	fi
	hot_locked_globals "$ZSWB_OBJ/vmlinux" $ZSWB_HOT_KERNEL > "$out/hotk.log"
	if [ -f "$ZSWB_OBJ/vmlinux" ] && [ ! -s "$out/hotk.log" ]; then
		ktap_test_pass "hook hot paths in vmlinux: no locked instruction on a global"
	else
		sed 's/^/# /' "$out/hotk.log"
		ktap_test_fail "hook hot paths in vmlinux: no locked instruction on a global"
	fi
}

suite_hot_paths
