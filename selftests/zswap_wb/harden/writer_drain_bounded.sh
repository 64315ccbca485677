#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a writer frees at most 32 folios of a backlog before its writeback
#
# The writer frees its CPU's list before each async writeback, from
# alloc_off_lru(), where it does not yield: of a long list it must free
# ZSWB_WRITER_DRAIN (32) folios at most and leave the rest to the work
# item, which yields between batches. A backlog: 16 MiB pushed to zswap
# and written back while a suspended device-mapper device holds the
# writes, the work item held back by zswb_holdfree, the device let go:
# the region's folios end on the lists with nothing writing back. Then a
# second memcg's zswap entries are written back by a task on each CPU in
# turn (memory.reclaim), so that a writer meets the backlog whichever CPU
# its writes ended on. queue_depth_max, the most folios one drain took
# since the reset before the backlog, is then the writers' (the work item
# is held): at most 32, and more than 0 (the writers did free some), and
# the writers freed at most 32 folios a writeback. Once the work item is
# let go it frees the rest.
. "$(dirname "$0")/../lib.sh"

BOUND=32

need_module || exit 1
dm=$(dmctl create zswbwd /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
cg_new wdback max
cg_start_stopped wdback /tmp/swapinrace.out swapinrace 16 write || exit 1
cg_new wdwriter max
cg_start_stopped wdwriter /tmp/swapinrace2.out swapinrace 4 write || exit 1
# Both regions into zswap, none written back yet.
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim wdback 20M
cg_reclaim wdwriter 8M
echo Y > /sys/module/zswap/parameters/shrinker_enabled
echo 1 > $ZSWB_DEBUGFS/reset
dmctl suspend zswbwd || exit 1
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
cg_reclaim wdback 20M
cg_reclaim wdback 20M
dmctl resume zswbwd
poll 10 no_writeback
sleep 1
backlog=$(wbstat queue_depth)
freed0=$(wbstat freed_async)
max0=$(wbstat queue_depth_max)
wb0=$(wbstat written_back)
for cpu in 0 1; do
	taskset -c $cpu sh -c "echo 256K > $CG_ROOT/wdwriter/memory.reclaim" 2>/dev/null
done
written=$(( $(wbstat written_back) - wb0 ))
drain_max=$(wbstat queue_depth_max)
freed=$(wbstat freed_async)
left=$(wbstat queue_depth)
msg "backlog $backlog folios (before the writers: freed $freed0, longest drain $max0); the writers wrote back $written, freed $freed, the longest drain took $drain_max, $left left queued"
echo 0 > /sys/module/zswb_holdfree/parameters/hold
wait_drained 60
rmmod zswb_holdfree
msg_stats
resolved=$(wb_resolved)
cg_del wdback
cg_del wdwriter
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbwd
check "a backlog of 1,024 folios or more" "[ $backlog -ge 1024 ]" &&
check "the writers wrote back" "[ $written -gt 0 ]" &&
check "nothing freed before the writers" "[ $freed0 -eq 0 ] && [ $max0 -eq 0 ]" &&
check "the writers freed part of the backlog" "[ $drain_max -gt 0 ] && [ $freed -gt 0 ]" &&
check "no drain of a writer took more than $BOUND folios" "[ $drain_max -le $BOUND ]" &&
check "the writers freed $BOUND folios a writeback at most" "[ $freed -le $((written * BOUND)) ]" &&
check "every folio resolved once the work item is let go" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $resolved -eq $(wbstat written_back) ]"
