#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: two sibling scopes with different settings of every family at once
#
# Scope one: async_free on, the other policies stock. Scope two:
# async_free off, readahead_policy skip_fault, shrink_policy carry with a
# batch of 64. Global: every default. Both cgroups have a small
# memory.zswap.max and zswap's own shrinker is off (as in the shrink
# tests), so that zswap_store() shrinks each memcg itself.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups s1 s2
need_scopes || exit 1
zswap_on
echo N > /sys/module/zswap/parameters/shrinker_enabled
echo 50 > /sys/module/zswap/parameters/max_pool_percent
swap_on disk || exit 1
cg_mk s1 "$CG_MAX" && cg_mk s2 "$CG_MAX" || exit 1
echo 8M > "$CG_ROOT/s1/memory.zswap.max"
echo 8M > "$CG_ROOT/s2/memory.zswap.max"
scope_new one /s1 async_free=Y || exit 1
scope_new two /s2 readahead_policy=skip_fault shrink_policy=carry shrink_batch=64 || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
cg_run s1 thrash --size "$SIZE" --passes "$PASSES" > /tmp/a.out 2>&1 &
pa=$!
cg_run s2 thrash --size "$SIZE" --passes "$PASSES" > /tmp/b.out 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
msg "one: $(tr '\n' ' ' < /tmp/a.out)"
msg "two: $(tr '\n' ' ' < /tmp/b.out)"
wait_quiet
check_identity one && check_identity two && check_identity global || exit 1
# Entries scanned per shrink_memcg() call, times 10, over the nodes.
scan10() {
	local s c
	s=$(awk '$1 ~ /^shrink_scanned_node/ { n += $2 } END { print n + 0 }' "$SCOPE_DEBUGFS/$1/stats")
	c=$(( $(sstat "$1" shrink_calls_store) + $(sstat "$1" shrink_calls_worker) ))
	[ "$c" -gt 0 ] || { echo 0; return; }
	echo $((s * 10 / c))
}
nodes=$(ls -d /sys/devices/system/node/node* | wc -l)
msg "scanned per call x10: one $(scan10 one), two $(scan10 two); $nodes nodes"
check "both workloads verified their data" "[ $ra -eq 0 ] && [ $rb -eq 0 ]" &&
check "one freed its folios" "[ $(sstat one freed_async) -gt 1000 ]" &&
check "two freed none (async_free off)" \
	"[ $(sstat two freed_async) -eq 0 ] && [ $(sstat two written_back) -gt 0 ]" &&
# Which faults find their entry still in zswap depends on how far its
# writeback has gone: under load none may. What does not: two's faults and
# neighbours are answered by its skip_fault (counted in its slot: alone, or
# a neighbour left in the window), one's by stock, which counts nothing.
ra_two=$(( $(sstat two ra_faults_alone) + $(sstat two ra_disk_slots) + $(sstat two ra_zswap_slots_skipped) ))
ra_one=$(( $(sstat one ra_faults_alone) + $(sstat one ra_disk_slots) + $(sstat one ra_zswap_slots_skipped) ))
msg "readahead questions answered: two $ra_two ($(sstat two ra_faults_alone) faults alone), one $ra_one"
check "two's readahead follows skip_fault, one's stock" "[ $ra_two -gt 0 ] && [ $ra_one -eq 0 ]" &&
check "both shrank their own memcg from zswap_store()" \
	"[ $(sstat one shrink_calls_store) -gt 0 ] && [ $(sstat two shrink_calls_store) -gt 0 ]" &&
check "one (stock) scanned at most one entry per node per call" "[ $(scan10 one) -le $((nodes * 10)) ]" &&
check "two (carry, 64) scanned batches" "[ $(scan10 two) -gt $((nodes * 10)) ]" &&
check_sums one two
