#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the host load (hostload.sh) costs, with no test beside it: the
# guest's busy share of its vCPUs over 40 s with no load, with each part
# alone and with all of it, one "LOADCOST PART busy_pct=N" line each. Run
# it under icount, so that busy time is the work done and not what the
# host left of a core (Documentation/running.rst has the figures):
#
#   tools/vm/run.sh --icount 3 --cmd /selftests/hostload_cost.sh
#   tools/vm/run.sh --icount 3 --cmd 'ZSWB_TEST_HOSTLOAD_SLOW=20 ZSWB_TEST_HOSTLOAD_KPAGE_SLICES=200 /selftests/hostload_cost.sh'
#
# Each window lasts 40 s, or 3N + 5 s with ZSWB_TEST_HOSTLOAD_SLOW=N, so
# that it holds a compaction; the page-flag files' slices start from the
# first again in each window.
. "$(dirname "$0")/lib.sh"

PARTS="kpage compact thp damon tenant"
window=$((3 * HOSTLOAD_SLOW + 5))
[ $window -ge 40 ] || window=40

# measure NAME SKIP: the load without the parts in SKIP, a window of it.
measure() {
	local a b
	ZSWB_TEST_HOSTLOAD_SKIP="$2" hostload_start
	sleep 5
	a=$(cpu_busy_idle)
	sleep $window
	b=$(cpu_busy_idle)
	echo "$a $b" | awk -v n="$1" '{ bz = $3 - $1; id = $4 - $2
		printf "LOADCOST %s busy_pct=%.1f\n", n, 100 * bz / (bz + id) }'
	ZSWB_TEST_HOSTLOAD_SKIP="$2" hostload_stop > /dev/null
	sleep 3
}

measure none "$PARTS"
for p in $PARTS; do
	measure $p "$(echo $PARTS | tr ' ' '\n' | grep -vx $p | tr '\n' ' ')"
done
measure all ""
