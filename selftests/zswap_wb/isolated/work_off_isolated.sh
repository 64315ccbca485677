#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: folios that end on an isolated CPU are freed by work on the others
#
# The VM boots with isolcpus=1: CPU 1 is out of the scheduler's domains
# and of the unbound workqueues' CPUs. A workload pinned to CPU 1 writes
# back to disk swap with rq_affinity 2, so that its writes end on CPU 1
# and async_free queues their folios on CPU 1's list. The module's work
# items are unbound: every run of zswb_free_workfn must be on another CPU
# (the workqueue_execute_start event), while writes ended on CPU 1
# (block_rq_complete). A work item queued on the CPU of the end would wake
# a kworker on the isolated CPU a jiffy after its first end.
. "$(dirname "$0")/../lib.sh"

T=/sys/kernel/tracing
I=$T/instances/zswbiso
test_cleanup_own() {
	[ -d $I ] && { echo 0 > $I/tracing_on; rmdir $I; }
}

grep -qx 1 /sys/devices/system/cpu/isolated ||
	{ msg "CPU 1 is not isolated ($(cat /sys/devices/system/cpu/isolated)): boot with isolcpus=1"; exit 4; }
need_module || exit 1
[ -d $T/instances ] || mount -t tracefs nodev $T || exit 1
mkdir $I || exit 1
echo 8192 > $I/buffer_size_kb
echo 'function.function == zswb_free_workfn' > $I/events/workqueue/workqueue_execute_start/filter || exit 1
echo 'rwbs ~ "*W*"' > $I/events/block/block_rq_complete/filter || exit 1
echo 1 > $I/events/workqueue/workqueue_execute_start/enable
echo 1 > $I/events/block/block_rq_complete/enable
zswap_on
swap_on disk || exit 1
echo 2 > /sys/block/vda/queue/rq_affinity || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
echo 1 > $I/tracing_on
cg_new iso "$CG_MAX"
cg_run iso taskset -c 1 thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1
trc=$?
wait_drained 30
echo 0 > $I/tracing_on
# "[001]" is the CPU an event was recorded on.
percpu() { awk -v e="$1:" -v c="[00$2]" '$0 ~ e && index($0, c) { n++ } END { print n + 0 }' $I/trace; }
ends0=$(percpu block_rq_complete 0) ends1=$(percpu block_rq_complete 1)
runs0=$(percpu workqueue_execute_start 0) runs1=$(percpu workqueue_execute_start 1)
lost=$(awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }' $I/per_cpu/cpu*/stats)
msg "writes ended: CPU 0 $ends0, CPU 1 $ends1; zswb_free_workfn ran: CPU 0 $runs0, CPU 1 $runs1; $lost events lost"
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
msg_stats
cg_del iso
set_param async_free 0
swap_off
check "checksums hold" "[ $trc -eq 0 ]" &&
check "no trace event lost" "[ $lost -eq 0 ]" &&
check "writes ended on the isolated CPU" "[ $ends1 -gt 0 ]" &&
check "the work item freed folios" "[ $(wbstat freed_async) -gt 0 ] && [ $runs0 -gt 0 ]" &&
check "the work item never ran on the isolated CPU" "[ $runs1 -eq 0 ]" &&
check "every folio resolved" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
