#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: switching readahead_policy under load is safe
#
# readahead_policy cycled through every choice while the workload faults
# its memory back: every write taken, the data intact.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
zswap_on
swap_on disk || exit 1
cg_new raswitch "$CG_MAX"
cg_run raswitch thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
pid=$!
n=0 bad=0
while kill -0 $pid 2>/dev/null; do
	for pol in $(choices readahead_policy); do
		set_param readahead_policy $pol || bad=1
		n=$((n + 1))
		sleep 0.05
	done
done
wait $pid
trc=$?
msg "$n switches; $(tr '\n' ' ' < /tmp/thrash.out)"
cg_del raswitch
swap_off
set_param readahead_policy stock
check "every switch accepted" "[ $bad -eq 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ]"
