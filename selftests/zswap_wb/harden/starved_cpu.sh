#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: folios queued on a CPU that a SCHED_FIFO task holds are freed elsewhere
#
# async_free queues a folio, locked, on the list of the CPU where its
# write ended, and a swapin of it waits for that lock. On a host that runs
# a real-time task with RT throttling off (sched_rt_runtime_us = -1) and,
# on 6.12, the deadline server that runs SCHED_OTHER tasks 50 ms a second
# beside it off too, nothing of SCHED_OTHER runs on that task's CPU: if
# only that CPU's kworker could free its list, every task that faults one
# of those pages would wait until the real-time task stops (with the
# deadline server on, up to a second at a time). Here 16 MiB are pushed
# to zswap and written back while a suspended device-mapper device holds
# the writes; the device is let go from CPU 1, so that the writes are
# sent, and (rq_affinity 2) end, on CPU 1; the work item is held back
# meanwhile (zswb_holdfree), so that the folios stay queued until rtspin
# holds CPU 1 at SCHED_FIFO 99. Then the work item is let go and the
# region's owner, on CPU 0, writes every page of it: the folios must be
# freed and the owner done while CPU 1 is still held: within LIMIT
# seconds, a little less than the SPIN seconds rtspin holds it for (a
# folio left to CPU 1's kworker would keep the owner waiting until then).
# Both scale with SCALE: the owner's faults, from CPU 0 alone, are slow on
# the debug kernel.
. "$(dirname "$0")/../lib.sh"

SPIN=$((20 * SCALE))
LIMIT=$((SPIN - 4))

FAIR=/sys/kernel/debug/sched/fair_server/cpu1/runtime
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
fair_runtime=$(cat $FAIR) || exit 1
test_cleanup_own() {
	[ -z "${spin:-}" ] || kill "$spin" 2>/dev/null
	echo "$rt_runtime" > /proc/sys/kernel/sched_rt_runtime_us
	echo "$fair_runtime" > $FAIR
}

need_module || exit 1
[ "$(nproc)" -ge 2 ] || { msg "needs 2 CPUs"; exit 4; }
# This script, and what it starts, on CPU 0.
taskset -p 1 $$ > /dev/null || exit 1
dm=$(dmctl create zswbrt /dev/vda) || exit 1
zswap_on
echo 2 > /sys/block/vda/queue/rq_affinity || exit 1
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
cg_new rthold max
cg_start_stopped rthold /tmp/swapinrace.out swapinrace 16 write || exit 1
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim rthold 20M
echo Y > /sys/module/zswap/parameters/shrinker_enabled
echo 1 > $ZSWB_DEBUGFS/reset
dmctl suspend zswbrt || exit 1
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
wb0=$(wbstat written_back)
cg_reclaim rthold 20M
cg_reclaim rthold 20M
held=$(( $(wbstat written_back) - wb0 ))
# dm sends what it held from its kdmflush worker on the resuming CPU.
taskset 2 dmctl resume zswbrt || exit 1
poll 10 no_writeback
sleep 1
queued=$(wbstat queue_depth)

echo -1 > /proc/sys/kernel/sched_rt_runtime_us || exit 1
# 6.12's deadline server gives SCHED_OTHER 50 ms a second beside a
# real-time task; a host that gives that task the whole CPU turns it off.
echo 0 > $FAIR || exit 1
rtspin 1 $SPIN > /tmp/rtspin.out 2>&1 &
spin=$!
poll 10 grep -q spinning /tmp/rtspin.out
t0=$(cut -d" " -f1 /proc/uptime)
echo 0 > /sys/module/zswb_holdfree/parameters/hold
kill -CONT $pid
# Until the queue is empty and the owner has written every page (it
# prints its figures, then stops itself again), LIMIT seconds at most.
tq=
while :; do
	t1=$(cut -d" " -f1 /proc/uptime)
	left=$(wbstat queue_depth)
	[ "$left" -eq 0 ] && [ -z "$tq" ] && tq=$t1
	[ "$left" -eq 0 ] && grep -q mismatches /tmp/swapinrace.out && break
	awk -v a="$t0" -v b="$t1" -v l=$LIMIT 'BEGIN { exit !(b - a >= l) }' && break
	sleep 0.1
done
owner=waiting
grep -q mismatches /tmp/swapinrace.out && owner=done
spun=held
grep -q done /tmp/rtspin.out && spun=ended
since() { awk -v a="$t0" -v b="$1" 'BEGIN { printf "%.2f", b - a }'; }
emptied="more than $LIMIT s"
[ -z "$tq" ] || emptied="$(since "$tq") s"
msg "held $held folios, $queued queued on the lists; CPU 1 at SCHED_FIFO 99 ($spun): the queue empty after $emptied, the owner $owner after $(since "$t1") s"
kill $spin 2>/dev/null
wait $spin
spin=
wait_stopped $pid
kill -CONT $pid
wait $job
rc=$?
msg "$(tr '\n' ' ' < /tmp/swapinrace.out)"
wait_drained 30
rmmod zswb_holdfree
msg_stats
resolved=$(wb_resolved)
cg_del rthold
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbrt
check "1,024 folios or more held" "[ $held -ge 1024 ]" &&
check "the folios were queued when CPU 1 was taken" "[ $queued -gt 0 ]" &&
check "CPU 1 still held at the end of the wait" "[ $spun = held ]" &&
check "the queue freed within $LIMIT s" "[ $left -eq 0 ]" &&
check "the owner's writes done within $LIMIT s" "[ $owner = done ]" &&
check "checksums hold" "[ $rc -eq 0 ] && ! grep -q 'mismatches [1-9]' /tmp/swapinrace.out" &&
check "every folio resolved" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $resolved -eq $(wbstat written_back) ]"
