#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the zswap_wb tests, sourced inside the test VM, beside the
# ones every guest script shares (tools/vm/guest.sh).

# Sourced by the tests of this directory and of its subdirectories (scope/).
if [ -f "$(dirname "$0")/guest.sh" ]; then
	. "$(dirname "$0")/guest.sh"
else
	. "$(dirname "$0")/../guest.sh"
fi

# free_kb: free memory in kB, counting the pages that sit on the per-CPU
# free lists (/proc/zoneinfo "count"): MemFree leaves them out, and their
# size is tuned at run time, by tens of MiB after a swap workload.
free_kb() {
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $(( $(meminfo MemFree) + pcp * 4 ))
}

# cg_stop NAME: ask every process in memcg NAME to end (SIGTERM: thrash
# stops its walk and prints what it verified) and wait up to 60 s for them,
# then kill what is left.
cg_stop() {
	for p in $(cat "$CG_ROOT/$1/cgroup.procs"); do
		kill -TERM "$p" 2>/dev/null
	done
	w=0
	while grep -q "populated 1" "$CG_ROOT/$1/cgroup.events" && [ $w -lt 600 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	cg_kill "$1"
}

# param_value NAME: the value of a zswap_wb parameter; of a policy, which
# reads as every choice with the current one in brackets, that one.
param_value() {
	sed 's/^.*\[\([^]]*\)\].*$/\1/' "$ZSWB_PARAMS/$1"
}

# choices NAME: the choices of policy NAME, as the loaded module's debugfs
# schema lists them, in its order (the first is the default).
choices() {
	awk -F'\t' -v n="$1" '$1 == "param" && $2 == n { print $4 }' "$ZSWB_DEBUGFS/schema"
}

# wb_resolved: folios written back whose fate is known: freed, put back
# (raced, write error, not marked) or left on the LRU by a policy that was
# off. Equals written_back once nothing is in flight.
wb_resolved() {
	echo $(( $(wbstat freed_sync) + $(wbstat freed_async) + $(wbstat raced) + \
		$(wbstat write_errors) + $(wbstat mark_failed) + $(wbstat fallbacks) ))
}

# cg_reclaim CG SIZE: memory.reclaim SIZE a few times (it gives up early).
cg_reclaim() {
	for try in 1 2 3 4; do
		echo "$2" > "$CG_ROOT/$1/memory.reclaim" 2>/dev/null
	done
	return 0
}

# test_cleanup: what any test may have set up, undone, so that a test that
# failed half-way leaves nothing to the next: its memcgs (and their
# processes), swap, injected faults, stalled devices, and zswap's and the
# module's parameters at their defaults.
test_cleanup() {
	for f in /sys/block/*/make-it-fail; do
		echo 0 > "$f" 2>/dev/null
	done
	for d in "$CG_ROOT"/*/*/; do
		case "$d" in "$CG_ROOT"/hostload/*) continue ;; esac
		[ -d "$d" ] && cg_del "${d#"$CG_ROOT"/}" 2>/dev/null
	done
	for d in "$CG_ROOT"/*/; do
		# The host load's tenant (hostload.sh) outlives each test.
		[ "$(basename "$d")" = hostload ] && continue
		[ -d "$d" ] && cg_del "$(basename "$d")" 2>/dev/null
	done
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl resume "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	swap_off >/dev/null 2>&1
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl remove "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	[ -d /sys/module/zswb_slowissue ] && rmmod zswb_slowissue
	if [ -d /sys/module/zswb_holdfree ]; then
		echo 0 > /sys/module/zswb_holdfree/parameters/hold
		rmmod zswb_holdfree
	fi
	command -v hostload_damon_resume >/dev/null && hostload_damon_resume
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo true > /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null
	if [ -d /sys/module/zswap_wb ]; then
		echo 0 > $ZSWB_PARAMS/sync_free
		echo 0 > $ZSWB_PARAMS/async_free
		echo stock > $ZSWB_PARAMS/shrink_policy
		echo 32 > $ZSWB_PARAMS/shrink_batch
		echo stock > $ZSWB_PARAMS/readahead_policy
	fi
	return 0
}

# unload: rmmod zswap_wb, retrying for up to 10 s: once async_free is off
# and its last folio resolved, a work item drops the module's reference
# on itself a moment later, and rmmod does not wait for it (O_NONBLOCK),
# as zswbctl unload retries too.
unload() {
	t=0
	while ! rmmod zswap_wb 2>/dev/null; do
		[ $t -lt 100 ] || { rmmod zswap_wb; return 1; }
		sleep 0.1
		t=$((t + 1))
	done
}
