#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: writes ending before writeback_issued(): no tail-page bit, walkers beside
#
# The window in which a write has ended before zswap_writeback_entry()
# handed its folio to the backend (counted by "requeued"): the folio sits
# unlocked in the swap cache, and the backend keeps its end time in
# folio->lru.next, page->compound_head's word, whose bit 0 means "tail
# page". zswb_slowissue spins 200 us before writeback_issued() so that
# thousands of writes end in it, and reads that bit after the spin; the
# host load reads /proc/kpageflags and compacts meanwhile, and an odd
# word there oopses them (page_folio() follows it).
. "$(dirname "$0")/../lib.sh"

sp=/sys/module/zswb_slowissue/parameters
need_module || exit 1
zswap_on
swap_on disk || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
modprobe zswb_slowissue delay_us=200 || { msg "cannot load zswb_slowissue"; exit 1; }
cg_new window "$CG_MAX"
# Two thirds of the workload: the spin makes each writeback 200 us longer.
run_thrash window --size "$((SIZE / 3 * 2))" --passes "$PASSES"
trc=$?
calls=$(cat $sp/calls) tails=$(cat $sp/tail_words)
rmmod zswb_slowissue
cg_del window
set_param async_free 0
swap_off
rq=$(wbstat requeued)
msg "writeback_issued() delayed $calls times; $rq folios ended first (requeued); $tails with bit 0 of compound_head set"
msg_stats
check "checksums hold" "[ $trc -eq 0 ]" &&
check "thousands of writes ended before writeback_issued()" "[ $rq -gt 1000 ]" &&
check "no folio looked like a tail page" "[ $tails -eq 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
