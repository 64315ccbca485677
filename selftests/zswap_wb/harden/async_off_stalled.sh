#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: async_free off on a stalled device: bounded, others not blocked
#
# Turning async_free off while the swap device is stalled (a suspended
# device-mapper device: its writes are held): the write must return while
# the device is still stalled, other parameters must stay readable and writable (the kernel holds
# one lock over all of a module's parameters), and once the device resumes
# every folio in flight is freed and the point disarmed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

need_module || exit 1
dm=$(dmctl create zswbstall /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new stall "$CG_MAX"
cg_run stall thrash --size "$SIZE" --passes 2 > /tmp/thrash.out 2>&1 &
pid=$!
poll "$WORKLOAD_SECONDS" or_ended $pid written_back_at_least 2000 ||
	msg "written_back $(wbstat written_back) after $WORKLOAD_SECONDS s"
dmctl suspend zswbstall &
spid=$!
sleep 2
held=$(wbstat inflight)
echo 0 > $ZSWB_PARAMS/async_free &
epid=$!
sleep 1
# Other parameters, read and written meanwhile, must not wait for it
# (the kernel holds one lock over all of a module's parameters).
( echo per_node > $ZSWB_PARAMS/shrink_policy && echo stock > $ZSWB_PARAMS/shrink_policy &&
  cat $ZSWB_PARAMS/sync_free > /dev/null ) &
opid=$!
# Both must be done before the device is resumed, whatever the time they
# took; the device is resumed when both are, or after 40 s at the most.
poll 40 none_alive $epid $opid
kill -0 $epid 2>/dev/null && setter_done=0 || setter_done=1
kill -0 $opid 2>/dev/null && others_done=0 || others_done=1
# A setter still stuck holds every parameter: read them after resume.
# After the suspend has returned: a resume before would be lost.
wait $spid
dmctl resume zswbstall
wait $epid
wait $opid
state=$(cat $ZSWB_PARAMS/async_free)
wait $pid
trc=$?
wait_drained 30
# Disarmed once drained: a second workload is not offered to the module.
sleep 2
w0=$(wbstat written_back)
cg_run stall thrash --size 200 --passes 1 > /dev/null 2>&1
w1=$(wbstat written_back)
msg "held $held folios; before the resume the setter had returned: $setter_done, the other parameters were done: $others_done; async_free=$state; after resume: $(tr '\n' ' ' < /tmp/thrash.out)"
msg_stats
cg_del stall
swapoff /dev/$dm
dmctl remove zswbstall
check "folios were held by the stalled device" "[ $held -gt 0 ]" &&
check "the setter returned before the device was resumed" "[ $setter_done -eq 1 ]" &&
check "other parameters were done before the device was resumed" "[ $others_done -eq 1 ]" &&
check "async_free reads N" "[ $state = N ]" &&
# With its swap device stalled the memcg can run out of memory and kill
# the workload (137), as on stock; whatever it read back must be right.
check "checksums hold" "[ $trc -eq 0 ] || { [ $trc -eq 137 ] && ! grep -q 'mismatches [1-9]' /tmp/thrash.out; }" &&
check "every folio resolved after resume" "[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
check "the writeback point was disarmed" "[ $w1 -eq $w0 ]"
