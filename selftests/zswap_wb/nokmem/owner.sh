#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: with kernel memory accounting off, a cgroup's entries are freed as its scope says
#
# Booted with cgroup.memory=nokmem: zswap gives its entries no objcg, so
# the hook names each entry's owner from its swap record instead. A scope
# on the workload's cgroup frees (async_free), global does not. Without
# kernel memory accounting the memcg's own reclaim writes nothing back
# (zswap's shrinker is skipped), so the pool limit does: max_pool_percent=1
# makes zswap's shrink_worker write back from the lists every memcg
# shares. Were the owner taken from the objcg alone, the hook would pass
# none and global would decide every entry: the scope would free nothing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../scope/scope.lib"
scope_cgroups nk
need_scopes || exit 1
grep -qw "cgroup.memory=nokmem" /proc/cmdline ||
	{ msg "not booted with cgroup.memory=nokmem: $(cat /proc/cmdline)"; exit 1; }
zswap_on
echo 1 > /sys/module/zswap/parameters/max_pool_percent
swap_on disk || exit 1
cg_mk nk "$CG_MAX" || exit 1
scope_new nks /nk async_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
wb0=$(vmstat zswpwb)
cg_run nk thrash --size "$SIZE" --passes "$PASSES" > /tmp/nk.out 2>&1
rc=$?
wait_quiet
wb=$(( $(vmstat zswpwb) - wb0 ))
msg "thrash (exit $rc): $(cat /tmp/nk.out); written back: $wb"
msg "nks: written_back $(sstat nks written_back) freed_async $(sstat nks freed_async) fallbacks $(sstat nks fallbacks); global: written_back $(sstat global written_back) fallbacks $(sstat global fallbacks)"
check_identity nks && check_identity global || exit 1
check "the workload ran" "[ $rc -eq 0 ]" &&
check "the pool limit wrote back (zswpwb > 1000)" "[ $wb -gt 1000 ]" &&
check "the scope freed most of it (freed_async > written back / 2)" \
	"[ $(sstat nks freed_async) -gt $((wb / 2)) ]" &&
check "global decided little of it (its written_back < written back / 2)" \
	"[ $(sstat global written_back) -lt $((wb / 2)) ]" &&
check_sums nks
