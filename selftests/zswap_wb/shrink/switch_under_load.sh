#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: switching shrink policy and batch under load is safe
#
# shrink_policy cycled through every choice and shrink_batch through
# 1 to 1024 while the store path shrinks: every write taken, the data
# intact, and writeback goes on.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/shrink.lib"

need_module || exit 1
shrink_setup zswap_max || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
shrink_load 15 &
load=$!
n=0 bad=0
while kill -0 $load 2>/dev/null; do
	for pol in $(choices shrink_policy); do
		set_param shrink_policy $pol || bad=1
		set_param shrink_batch $(( (n * 37) % 1024 + 1 )) || bad=1
		n=$((n + 1))
		sleep 0.05
	done
done
wait $load
lrc=$?
msg "$n switches; $(calls) calls, $(written_nodes) written back"
shrink_teardown
check "every switch accepted" "[ $bad -eq 0 ]" &&
check "checksums hold" "[ $lrc -eq 0 ]" &&
check "shrinking went on" "[ $(written_nodes) -gt 0 ]"
