#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: prompt free on $1: 100 toggles under load lose nothing
#
# The policy turned on and off 100 times under the workload (the points
# armed and disarmed, async_free's drain waited for): no write refused,
# the data intact, every folio written back freed or put back, nothing
# left queued.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/prompt.lib"

kind=$1
pol=$(prompt_policy "$kind") || exit 1
need_module || exit 1
zswap_on
swap_on "$kind" || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new toggle "$CG_MAX"
cg_run toggle thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
pid=$!
n=0 bad=0
while [ $n -lt 100 ]; do
	set_param "$pol" 1 || bad=1
	sleep 0.1
	set_param "$pol" 0 || bad=1
	sleep 0.05
	n=$((n + 1))
done
wait_workload $pid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
cg_del toggle
swap_off
msg_stats
resolved=$(wb_resolved)
check "100 toggles succeeded" "[ $bad -eq 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ]" &&
check "the policy did free folios" "[ $(wb_freed) -gt 0 ]" &&
check "every folio written back was freed or put back" "[ $resolved -eq $(wbstat written_back) ]" &&
check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
