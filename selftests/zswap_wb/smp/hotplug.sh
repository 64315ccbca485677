#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: 8 vCPUs, CPUs offline and back, async_free toggled: the per-CPU sums add up
#
# Eight vCPUs: four workloads pinned to CPUs 0, 2, 4 and 6, async_free
# turned off and on under them (the percpu_ref of the folios in flight is
# killed, resurrected and reinited), CPUs 1 to 7 taken offline and back in
# turn. The counters are per CPU and summed when read: with the folios of
# one CPU's list freed by another (hotplug, migration), the sums must still
# give the identity exactly, and zswap's own count of writebacks.
. "$(dirname "$0")/../lib.sh"

ncpu=$(grep -c ^processor /proc/cpuinfo)
[ "$ncpu" -ge 8 ] || { msg "$ncpu CPUs: this test wants 8"; exit 4; }
need_module || exit 1
zswap_on
swap_on disk || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
snap a
pids=""
for i in 0 2 4 6; do
	cg_new smp$i "$(( ${CG_MAX%M} / 2 ))M"
	cg_run smp$i taskset -c $i thrash --size "$((SIZE / 3))" --passes "$PASSES" > /tmp/thrash.$i 2>&1 &
	pids="$pids $!"
done
n=0 bad=0
while [ $n -lt 14 ] && any_alive $pids; do
	cpu=$((n % 7 + 1))
	echo 0 > /sys/devices/system/cpu/cpu$cpu/online || bad=1
	[ $((n % 3)) = 1 ] && { echo 0 > $ZSWB_PARAMS/async_free || bad=1; }
	sleep 1
	echo 1 > /sys/devices/system/cpu/cpu$cpu/online || bad=1
	echo 1 > $ZSWB_PARAMS/async_free || bad=1
	sleep 0.5
	n=$((n + 1))
done
trc=0
for i in $pids; do
	wait "$i" || trc=1
done
for i in 0 2 4 6; do
	msg "cpu $i: $(tr '\n' ' ' < /tmp/thrash.$i)"
	cg_del smp$i
done
set_param async_free 0 || bad=1
snap b
swap_off
wb=$(delta zswpwb)
msg "$n hotplug steps; zswpwb $wb"
msg_stats
check "every hotplug step and parameter write succeeded" "[ $bad -eq 0 ] && [ $n -gt 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ]" &&
check "the policy freed folios" "[ $(wbstat freed_async) -gt 1000 ]" &&
check "the backend saw no more writebacks than zswap made" "[ $(wbstat written_back) -le $wb ]" &&
check "every folio written back was freed or put back" "[ $(wb_resolved) -eq $(wbstat written_back) ]" &&
check "nothing left in flight or queued" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
