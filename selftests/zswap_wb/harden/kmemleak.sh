#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: kmemleak: no leak from zswap_wb or the hook after unload
#
# kmemleak (debug kernel): every policy on under a workload, unload, then
# two scans must report no leak whose backtrace is the module's or the
# hook's.
. "$(dirname "$0")/../lib.sh"

km=/sys/kernel/debug/kmemleak
[ -e $km ] || { msg "no kmemleak (not a debug kernel)"; exit 4; }
need_module || exit 1
echo clear > $km
zswap_on
swap_on disk || exit 1
set_param async_free 1 && set_param shrink_policy per_node &&
	set_param readahead_policy skip_zswap_slots || exit 1
cg_new leak "$CG_MAX"
cg_run leak thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1
trc=$?
cg_del leak
set_param async_free 0
swap_off
unload || exit 1
echo scan > $km
sleep 5
echo scan > $km
grep -B2 -A20 "unreferenced object" $km > /tmp/leaks
ours=$(grep -c "zswap_wb\|zswb_\|zswap_entry_present\|zswap_shrink_node" /tmp/leaks)
msg "kmemleak: $(grep -c 'unreferenced object' /tmp/leaks) unreferenced objects, $ours frames of zswap_wb or the hook"
[ "$ours" -eq 0 ] || sed 's/^/# /' /tmp/leaks | head -60
modprobe zswap_wb
check "checksums hold" "[ $trc -eq 0 ]" &&
check "no leak from zswap_wb or the hook" "[ $ours -eq 0 ]"
