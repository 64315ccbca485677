#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: memcg removed while its folios are in flight, 5 times
#
# rmdir of a memcg whose folios are in flight: its writes are held by a
# suspended device while its processes are killed and the memcg removed;
# the folios end their writeback after it is gone and are uncharged from
# the offline memcg by the work item. Five times; then nothing is in
# flight, the accounting holds and the memory is back: the removed memcgs
# are children of one parent, whose memory.current still counts whatever
# is charged to them, so a folio never freed stays counted there. Beside
# the folios it counts kernel memory (memory.stat's "kernel", flushed
# every 2 s) and the per-CPU charge stock, up to a charge batch (64 pages)
# a CPU. (Free memory is printed too: the host load and the debug
# kernel's own allocations move it by more than the folios held.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

need_module || exit 1
dm=$(dmctl create zswbrmdir /dev/vda) || exit 1
sync
echo 3 > /proc/sys/vm/drop_caches
base=$(free_kb)
cg_del rmdirp || exit 1
mkdir $CG_ROOT/rmdirp && echo +memory > $CG_ROOT/rmdirp/cgroup.subtree_control || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
n=0 held=0 bad=0
while [ $n -lt 5 ]; do
	cg_new rmdirp/gone "$CG_MAX"
	cg_run rmdirp/gone thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
	wait_inflight 32 60
	dmctl suspend zswbrmdir &
	spid=$!
	sleep 1
	wait_inflight 1 10
	# Killed tasks may wait for a swap read held by the device:
	# give them 20 s, then let the device go.
	echo 1 > $CG_ROOT/rmdirp/gone/cgroup.kill
	poll 20 cg_empty rmdirp/gone
	q=$(wbstat inflight)
	if rmdir $CG_ROOT/rmdirp/gone 2>/dev/null; then
		[ "$q" -gt 0 ] && held=$((held + 1))
		msg "cycle $n: memcg removed with $q folios in flight"
	else
		msg "cycle $n: the memcg's tasks did not exit while the device was held"
	fi
	# After the suspend has returned: a resume before would be lost.
	wait $spid
	dmctl resume zswbrmdir
	wait
	cg_del rmdirp/gone || bad=1
	n=$((n + 1))
done
wait_drained 30
msg_stats
msg "dying memcgs: $(kv $CG_ROOT/rmdirp/cgroup.stat nr_dying_descendants)"
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbrmdir
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 3
free_now=$(free_kb)
msg "free (MemFree + per-CPU lists) before $base kB, after $free_now kB"
# What the removed memcgs still hold, in pages, beside kernel memory
# (slab objects, charged to them and reparented, that live on).
cur=$(($(cat $CG_ROOT/rmdirp/memory.current) / 4096))
kern=$(( $(cgstat rmdirp kernel) / 4096 ))
msg "charged to the removed memcgs: $cur pages, $kern of them kernel memory;" \
	"$(grep -E '^(anon|file|swapcached|shmem) ' $CG_ROOT/rmdirp/memory.stat | tr '\n' ' ')"
rmdir $CG_ROOT/rmdirp
check "every memcg was removed" "[ $bad -eq 0 ]" &&
check "a memcg was removed with its folios in flight" "[ $held -gt 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
# No write failed: a folio its task dirtied and unmapped while the
# device held the write is the task's (raced), not a write error.
check "no write error counted" "[ $(wbstat write_errors) -eq 0 ]" &&
check "no folio left charged to the removed memcgs" "[ $((cur - kern)) -le $((64 * $(nproc) + 4)) ]"
