#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a memcg at its memory.max: async_free OOMs no more often than stock
#
# A memcg that sits at its memory.max: queued folios are charged to it
# but out of reclaim's reach until they are freed. Runs alternate stock
# and async_free; async_free must not OOM more often than stock. In 8M
# (the default), beside the host load, stock was OOM-killed in each of
# three runs and async_free in none (design.rst, "A memcg at its limit").
. "$(dirname "$0")/../lib.sh"

# oom_runs POLICY RUNS MAX SIZE: RUNS runs of thrash (SIZE MiB, data
# checked) in a memcg of memory.max MAX on disk swap, async_free as
# POLICY says; sets oom_events and oom_kills (memory.events, summed),
# oom_failed (runs whose thrash did not end with status 0).
oom_runs() {
	local pol=$1 runs=$2 max=$3 mib=$4 r
	oom_events=0 oom_kills=0 oom_failed=0
	zswap_on
	swap_on disk || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	r=0
	while [ $r -lt "$runs" ]; do
		cg_new oomcg "$max"
		cg_run oomcg thrash --size "$mib" --passes 2 > /tmp/thrash.out 2>&1 || oom_failed=$((oom_failed + 1))
		oom_events=$((oom_events + $(kv $CG_ROOT/oomcg/memory.events oom)))
		oom_kills=$((oom_kills + $(kv $CG_ROOT/oomcg/memory.events oom_kill)))
		cg_del oomcg
		r=$((r + 1))
	done
	msg "$pol: $runs runs of $mib MiB in $max: oom $oom_events, oom_kill $oom_kills, failed runs $oom_failed; $(tr '\n' ' ' < /tmp/thrash.out)"
	set_param async_free 0
	swap_off
}

runs=${ZSWB_TEST_OOM_RUNS:-3} s_ev=0 s_kill=0 s_fail=0 a_ev=0 a_kill=0 a_fail=0
need_module || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
i=0
while [ $i -lt "$runs" ]; do
	oom_runs stock 1 "${ZSWB_TEST_OOM_MAX:-8M}" "${ZSWB_TEST_OOM_SIZE:-48}" || exit 1
	s_ev=$((s_ev + oom_events)) s_kill=$((s_kill + oom_kills)) s_fail=$((s_fail + oom_failed))
	oom_runs async 1 "${ZSWB_TEST_OOM_MAX:-8M}" "${ZSWB_TEST_OOM_SIZE:-48}" || exit 1
	a_ev=$((a_ev + oom_events)) a_kill=$((a_kill + oom_kills)) a_fail=$((a_fail + oom_failed))
	i=$((i + 1))
done
msg "over $runs runs each: stock oom $s_ev oom_kill $s_kill failed $s_fail; async_free oom $a_ev oom_kill $a_kill failed $a_fail"
msg_stats
check "async_free OOM-killed no more often than stock" "[ $a_kill -le $s_kill ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
