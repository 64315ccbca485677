#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: swapoff of the device while its folios are in flight, 5 times
#
# swapoff of the device whose folios are in flight (async_free), five
# times under load, a second device of lower priority taking the writes
# meanwhile. The device's writes are held (a suspended device-mapper
# device) when swapoff starts and let go 2 s later, so that their ends,
# the work item and try_to_unuse() run at once. A folio that
# try_to_unuse() maps or drops from the swap cache first must be put back
# (raced), one the work item frees first is read again from the device by
# swapoff; which comes first is timing, so the test requires
# only that folios were in flight, that every one is accounted for and
# that the data reads back intact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

need_module || exit 1
dm=$(dmctl create zswboff /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && mkswap /dev/nvme0n1 >/dev/null || { msg "mkswap failed"; exit 1; }
swapprio /dev/$dm 10 && swapprio /dev/nvme0n1 5 || { msg "swapon failed"; exit 1; }
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new swoff "$CG_MAX"
cg_run swoff thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
pid=$!
n=0 held=0 bad=0
while [ $n -lt 5 ] && kill -0 $pid 2>/dev/null; do
	wait_inflight 32 30
	dmctl suspend zswboff &
	spid=$!
	# The suspend first finishes the I/O in flight, which the work
	# item then frees: wait for writes it holds.
	sleep 1
	wait_inflight 1 10
	q=$(wbstat inflight)
	r0=$(wbstat raced)
	swapoff /dev/$dm > /tmp/swapoff.out 2>&1 &
	opid=$!
	sleep 2
	# The suspend returns once the writes it found have ended: a resume
	# before that would leave the device suspended for good (on a slow
	# kernel the suspend can take longer than these 3 s).
	wait $spid
	dmctl resume zswboff
	wait $opid || { msg "swapoff $n failed: $(cat /tmp/swapoff.out)"; bad=1; }
	msg "swapoff $n: started with $q folios in flight, raced +$(( $(wbstat raced) - r0 ))"
	[ "$q" -gt 0 ] && held=$((held + 1))
	swapprio /dev/$dm 10 || { msg "swapon $n failed"; bad=1; break; }
	n=$((n + 1))
done
cg_stop swoff
wait $pid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
cg_del swoff
set_param async_free 0
swap_off
dmctl remove zswboff
msg_stats
check "five swapoff/swapon cycles during the workload" "[ $bad -eq 0 ] && [ $n -eq 5 ]" &&
check "folios were in flight when a swapoff began" "[ $held -gt 0 ]" &&
check "the workload verified its data, no mismatch" "[ $trc -eq 0 ] && grep -q '^pages ' /tmp/thrash.out" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
check "no write error counted (no write failed)" "[ $(wbstat write_errors) -eq 0 ]"
