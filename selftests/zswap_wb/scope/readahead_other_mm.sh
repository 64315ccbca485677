#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: swapoff by a task outside a scoped cgroup follows the scope of the mm it reads for
#
# A scope with readahead_policy=skip_fault on a cgroup, global stock. The
# cgroup's memory is pushed into zswap, then swapoff, run from the test's
# shell in the root cgroup, reads it back: unuse_pte_range() faults each
# page through swapin_readahead() for the cgroup's mm, not for the task
# that runs it. The hook passes that mm, and the scope of its owner's
# memcg decides: the faults on zswap entries are read alone and count in
# the scope (ra_faults_alone). Asking the current task's memcg would find
# global, stock, and read the windows.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups raom
need_scopes || exit 1
FILL=${ZSWB_TEST_RA_MIB:-32}
zswap_on
echo N > /sys/module/zswap/parameters/shrinker_enabled
echo 50 > /sys/module/zswap/parameters/max_pool_percent
swap_on disk || exit 1
cg_mk raom || exit 1
scope_new ra /raom readahead_policy=skip_fault || exit 1
cg_run raom thrash --size "$FILL" --passes 0 --hold 600 > /tmp/raom.out 2>&1 &
pid=$!
wait_filled /tmp/raom.out $pid || exit 1
cg_reclaim raom "${FILL}M"
stored=$(( $(cgstat raom zswapped) / 4096 ))
echo 1 > "$ZSWB_DEBUGFS/reset"
a_ra=$(vmstat swap_ra)
swap_off
ra=$(( $(vmstat swap_ra) - a_ra ))
msg "$stored pages in zswap; swapoff from $(cat /proc/self/cgroup): swap_ra $ra; ra: ra_faults_alone $(sstat ra ra_faults_alone) ra_windows_shrunk $(sstat ra ra_windows_shrunk); global: ra_faults_alone $(sstat global ra_faults_alone)"
kill -0 $pid 2>/dev/null
alive=$?
check "the cgroup's memory was in zswap" "[ $stored -gt 1000 ]" &&
check "swapoff ran outside the cgroup" "! grep -q raom /proc/self/cgroup" &&
check "the scope read the zswap faults alone (ra_faults_alone > stored / 2)" \
	"[ $(sstat ra ra_faults_alone) -gt $((stored / 2)) ]" &&
check "swapoff read no windows around them (swap_ra < stored / 10)" "[ $ra -lt $((stored / 10)) ]" &&
check "the workload survived swapoff" "[ $alive -eq 0 ]" &&
check_sums ra
