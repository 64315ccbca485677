#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: entries of a removed child are freed by the scope of the parent they reparent to
#
# A scope on the parent frees (async_free), global does not. A child's
# memory is pushed into zswap (zswap's shrinker off: nothing written back
# yet), its task moved out to the root (v2 leaves the charges behind) and
# the child removed: its zswap entries reparent to the parent, while their
# swap records still name the removed child. memory.reclaim on the parent
# then writes them back, from the test's shell in the root cgroup.
# __read_swap_cache_async() cannot charge the folios to the offline child
# and charges them to the writer's memcg; the hook names the entries'
# owner, the parent, and the parent's scope frees them. Deciding by the
# folio's memcg would count them as global's and leave them on the LRU.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups rp
need_scopes || exit 1
FILL=${ZSWB_TEST_REPARENT_MIB:-48}
zswap_on
echo N > /sys/module/zswap/parameters/shrinker_enabled
echo 50 > /sys/module/zswap/parameters/max_pool_percent
swap_on disk || exit 1
cg_mk rp/kid || exit 1
scope_new par /rp async_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
cg_run rp/kid thrash --size "$FILL" --passes 0 --hold 600 > /tmp/rp.out 2>&1 &
pid=$! held=
# Moved to the root below: the cgroups' cleanup would not find it.
test_cleanup_own() {
	kill $pid $held 2>/dev/null
	scope_cleanup
}
wait_filled /tmp/rp.out $pid || exit 1
cg_reclaim rp/kid "${FILL}M"
stored=$(( $(cgstat rp/kid zswapped) / 4096 ))
# $pid is the shell that started it; the workload is its child, in rp/kid.
for p in $(cat "$CG_ROOT/rp/kid/cgroup.procs"); do
	echo "$p" > "$CG_ROOT/cgroup.procs" || exit 1
	held="$held $p"
done
poll 10 cg_empty rp/kid
rmdir "$CG_ROOT/rp/kid" || { msg "cannot remove rp/kid"; exit 1; }
msg "child removed with $stored pages in zswap; parent: zswapped $(( $(cgstat rp zswapped) / 4096 )) pages"
echo Y > /sys/module/zswap/parameters/shrinker_enabled
wb0=$(vmstat zswpwb)
cg_reclaim rp "${FILL}M"
cg_reclaim rp "${FILL}M"
wb=$(( $(vmstat zswpwb) - wb0 ))
wait_quiet
msg "written back from the parent: $wb; par: written_back $(sstat par written_back) freed_async $(sstat par freed_async) fallbacks $(sstat par fallbacks); global: written_back $(sstat global written_back) fallbacks $(sstat global fallbacks)"
check_identity par && check_identity global || exit 1
check "the child's entries were in zswap when it was removed" "[ $stored -gt 1000 ]" &&
check "memory.reclaim on the parent wrote them back" "[ $wb -gt 1000 ]" &&
check "the parent's scope freed most of them (freed_async > written back / 2)" \
	"[ $(sstat par freed_async) -gt $((wb / 2)) ]" &&
check "global did not get them (its written_back < written back / 2)" \
	"[ $(sstat global written_back) -lt $((wb / 2)) ]" &&
check_sums par
