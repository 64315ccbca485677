#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a folio queued past the sighting's hold names the memcg it was written under
#
# A folio async_free frees names in its shadow entry the memcg last seen
# at its limit when its write ended within ZSWB_SEEN_HOLD (a second) of
# that sighting, however long it then waits queued: from its write's end
# stock's folio waits on the LRU for that memcg's next reclaim, and the
# time in the queue is the module's. Here a workload at its memcg's limit
# on disk swap is stopped while zswb_holdfree holds the free work item,
# so that the folios whose writes ended after the workload's last
# writeback stay queued; the memcg is taken well below its limit by
# memory.reclaim with zswap's shrinker off (pages stored, none written
# back: no lookup of the target meanwhile); after 3 s the work item is
# let go. Those folios must name the memcg: held against the lookup's
# time, the sighting would be 3 s old, the usage far below the limit,
# and they would name the root (shadow_root).
. "$(dirname "$0")/../lib.sh"

test_cleanup_own() {
	[ -n "${pid:-}" ] && kill -CONT "$pid" 2>/dev/null
	return 0
}

need_module || exit 1
zswap_on
swap_on disk || exit 1
set_param async_free 1 || exit 1
max=40
cg_new sq ${max}M
cg_run sq thrash --size 80 --passes 1000 > /tmp/sq.out 2>&1 &
job=$!
poll 30 grep -q . $CG_ROOT/sq/cgroup.procs || { msg "thrash did not start"; exit 1; }
pid=$(cat $CG_ROOT/sq/cgroup.procs)
wb0=$(wbstat written_back)
poll $((60 * SCALE)) written_back_at_least $((wb0 + 2000)) ||
	{ msg "written back: $(( $(wbstat written_back) - wb0 ))"; exit 1; }
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
sleep 1
kill -STOP "$pid"
poll 10 no_writeback
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim sq 16M
usage=$(( $(cat $CG_ROOT/sq/memory.current) / 4096 ))
queued=$(wbstat queue_depth)
sleep 3
root0=$(wbstat shadow_root) freed0=$(wbstat freed_async)
echo 0 > /sys/module/zswb_holdfree/parameters/hold
poll 10 none_inflight
root=$(( $(wbstat shadow_root) - root0 )) freed=$(( $(wbstat freed_async) - freed0 ))
msg "queued $queued with the memcg at $usage of $((max * 256)) pages; freed $freed after 3 s, $root naming no memcg"
kill -KILL "$pid"
kill -CONT "$pid"
wait $job
check "folios were held queued" "[ $queued -gt 0 ] && [ $freed -ge $queued ]" &&
check "the memcg was taken below its limit" "[ $usage -lt $(((max - 1) * 256)) ]" &&
check "each names the memcg its write ended at the limit of" "[ $root = 0 ]"
