#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: prompt free on $1: CPU 1 offline and back 10 times under load
#
# CPU 1 goes offline and back, 10 times, while folios are queued: its list
# is drained by the hotplug callback and the work item; nothing is lost.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/prompt.lib"

kind=$1
pol=$(prompt_policy "$kind") || exit 1
cpu=/sys/devices/system/cpu/cpu1/online
[ -w $cpu ] || { msg "CPU 1 cannot go offline"; exit 4; }
need_module || exit 1
zswap_on
swap_on "$kind" || exit 1
set_param "$pol" 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new hotplug "$CG_MAX"
cg_run hotplug taskset -c 0 thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
pid=$!
n=0 bad=0
while [ $n -lt 10 ] && kill -0 $pid 2>/dev/null; do
	sleep 1
	echo 0 > $cpu || bad=1
	sleep 0.5
	echo 1 > $cpu || bad=1
	n=$((n + 1))
done
wait_workload $pid
trc=$?
msg "$n offline/online cycles; $(tr '\n' ' ' < /tmp/thrash.out)"
cg_del hotplug
set_param "$pol" 0
swap_off
msg_stats
resolved=$(wb_resolved)
check "every hotplug step succeeded" "[ $bad -eq 0 ] && [ $n -gt 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ]" &&
check "every folio written back was freed or put back" "[ $resolved -eq $(wbstat written_back) ]" &&
check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
