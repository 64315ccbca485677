#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: queue_depth reads the folios held after 1,000 toggles of async_free
#
# A writeback whose folio alloc_off_lru() allocated off the LRU while
# async_free was on, and that finds it off when writeback_prepare() runs
# (or zswb_live already killed), is not marked: it must count neither as
# queued nor as in flight. async_free turned on and off 1,000 times under
# the workload turns it off inside that window many times. Then N folios
# are held on the lists: 16 MiB pushed to zswap and written back while a
# suspended device-mapper device holds the writes, the work item held
# back by zswb_holdfree, the device let go with nothing else writing back
# (the writer frees its CPU's list only before its next writeback):
# queue_depth and inflight must both read N, the folios written back
# while the device was held.
. "$(dirname "$0")/../lib.sh"

TOGGLES=1000

need_module || exit 1
dm=$(dmctl create zswbqd /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new qdtoggle "$CG_MAX"
# Stopped (SIGTERM) once the toggles are done.
cg_run qdtoggle thrash --size "$SIZE" --passes 1000 > /tmp/thrash.out 2>&1 &
pid=$!
poll "$WORKLOAD_SECONDS" or_ended $pid vmstat_at_least zswpwb 1000 ||
	msg "zswpwb $(vmstat zswpwb) after $WORKLOAD_SECONDS s"
# Written directly, not through set_param: off does not wait here for
# the folios in flight, so that the next on finds some still in flight.
n=0 bad=0 wb0=$(wbstat written_back)
while [ $n -lt $TOGGLES ]; do
	echo 1 > $ZSWB_PARAMS/async_free || bad=$((bad + 1))
	sleep 0.05
	echo 0 > $ZSWB_PARAMS/async_free || bad=$((bad + 1))
	sleep 0.02
	n=$((n + 1))
done
toggled_wb=$(( $(wbstat written_back) - wb0 ))
alive=0
kill -0 $pid 2>/dev/null && alive=1
cg_stop qdtoggle
wait $pid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
msg "$n toggles, $bad writes refused, $toggled_wb folios written back meanwhile"
set_param async_free 0 || exit 1
cg_del qdtoggle
after=$(wbstat queue_depth)

# N folios held on the lists.
cg_new qdhold max
cg_start_stopped qdhold /tmp/swapinrace.out swapinrace 16 write || exit 1
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim qdhold 20M
echo Y > /sys/module/zswap/parameters/shrinker_enabled
set_param async_free 1 || exit 1
dmctl suspend zswbqd || exit 1
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
wb0=$(wbstat written_back)
cg_reclaim qdhold 20M
cg_reclaim qdhold 20M
held=$(( $(wbstat written_back) - wb0 ))
dmctl resume zswbqd
poll 10 no_writeback
sleep 1
# Both gauges from one read of the stats file.
cp $ZSWB_DEBUGFS/stats /tmp/qd.stats
queue_depth=$(kv /tmp/qd.stats queue_depth) inflight=$(kv /tmp/qd.stats inflight)
msg "held $held folios: queue_depth $queue_depth, inflight $inflight (queue_depth after the toggles, nothing held: $after)"
echo 0 > /sys/module/zswb_holdfree/parameters/hold
wait_drained 30
rmmod zswb_holdfree
msg_stats
resolved=$(wb_resolved)
cg_del qdhold
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbqd
check "$TOGGLES toggles, every write accepted" "[ $n -eq $TOGGLES ] && [ $bad -eq 0 ]" &&
check "the workload ran through the toggles and wrote back" "[ $alive -eq 1 ] && [ $toggled_wb -gt 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ] && ! grep -q 'mismatches [1-9]' /tmp/thrash.out" &&
check "1,024 folios or more held" "[ $held -ge 1024 ]" &&
check "inflight reads the folios held" "[ $inflight -eq $held ]" &&
check "queue_depth reads the folios held" "[ $queue_depth -eq $held ]" &&
check "every folio resolved once let go" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $resolved -eq $(wbstat written_back) ]"
