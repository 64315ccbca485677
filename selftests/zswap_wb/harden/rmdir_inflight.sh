#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: memcg removed while its folios are in flight, 5 times
#
# rmdir of a memcg whose folios are in flight: its writes are held by a
# suspended device while its processes are killed and the memcg removed;
# the folios end their writeback after it is gone and are uncharged from
# the offline memcg by the work item. Five times; then nothing is in
# flight, the accounting holds and the memory is back.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
dm=$(dmctl create zswbrmdir /dev/vda) || exit 1
sync
echo 3 > /proc/sys/vm/drop_caches
base=$(free_kb)
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
n=0 held=0 bad=0
while [ $n -lt 5 ]; do
	cg_new gone "$CG_MAX"
	cg_run gone thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
	wait_inflight 32 60
	dmctl suspend zswbrmdir &
	spid=$!
	sleep 1
	wait_inflight 1 10
	# Killed tasks may wait for a swap read held by the device:
	# give them 20 s, then let the device go.
	echo 1 > $CG_ROOT/gone/cgroup.kill
	w=0
	while grep -q "populated 1" $CG_ROOT/gone/cgroup.events && [ $w -lt 200 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	q=$(wbstat inflight)
	if rmdir $CG_ROOT/gone 2>/dev/null; then
		[ "$q" -gt 0 ] && held=$((held + 1))
		msg "cycle $n: memcg removed with $q folios in flight"
	else
		msg "cycle $n: the memcg's tasks did not exit while the device was held"
	fi
	dmctl resume zswbrmdir
	wait $spid
	wait
	cg_del gone || bad=1
	n=$((n + 1))
done
wait_drained 30
msg_stats
msg "dying memcgs: $(awk '$1 == "nr_dying_descendants" { print $2 }' $CG_ROOT/cgroup.stat)"
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbrmdir
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 1
free_now=$(free_kb)
msg "free (MemFree + per-CPU lists) before $base kB, after $free_now kB"
check "every memcg was removed" "[ $bad -eq 0 ]" &&
check "a memcg was removed with its folios in flight" "[ $held -gt 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
# No write failed: a folio its task dirtied and unmapped while the
# device held the write is the task's (raced), not a write error.
check "no write error counted" "[ $(wbstat write_errors) -eq 0 ]" &&
check "free memory back within 16 MiB of its baseline" "[ $((base - free_now)) -lt 16384 ]"
