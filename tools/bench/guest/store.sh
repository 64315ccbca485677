#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Store-path benchmark, run in the VM by tools/bench/run.sh:
#   store.sh ITERATIONS
# WRITERS writers (thrash, SIZE MiB each: a fill, then PASSES walks that
# check and rewrite every page), started together, in one memcg with
# memory.max CG_MAX and a small memory.zswap.max ZMAX, so that most stores
# find the memcg at its zswap limit and call shrink_memcg() from
# zswap_store(), in the storing task, with the folio locked. Once per
# policy in every iteration, the order
# rotating, on fresh swap (virtio disk) and a fresh memcg; zswap's own
# shrinker off (every writeback is the store path's), max_pool_percent=50
# (the global pool limit is never hit), shrink_batch BATCH (1024: the
# largest, which the store path caps at SWAP_CLUSTER_MAX per node).
#
# Every variant runs under the same tracer: the function_graph tracer on
# zswap_store() and the module's zswb_shrink_memcg() only
# (set_ftrace_filter), which gives each call's duration: its wall time,
# the waits off the CPU included (ZSWB_BENCH_SLEEP_TIME=0: its time on the
# CPU only).
# One run of the stock policy without the tracer ("untraced") ends the
# boot, to size what the tracer costs the workload. A run in which a writer
# failed, or nothing was written back, is shown in "#" lines and run once
# more.
#
# One "RESULT store policy iteration key=value..." line per run:
#   time_s           wall time of the writers, a fixed amount of work
#   stores           zswap_store() calls: stored (zswpout) + rejected
#                    (pswpout - zswpwb); stores_traced: the calls the
#                    trace saw (the same, or the trace lost some)
#   run_us_per_store time_s per store, in us: the writers' swap traffic
#                    varies from run to run, this is the run's cost per
#                    store
#   store_p50_us, store_p99_us, store_max_us, store_mean_us
#                    duration of a zswap_store() call (trace)
#   shrink_p50_us, shrink_p99_us, shrink_max_us
#                    duration of a zswb_shrink_memcg() call (all from
#                    zswap_store() here: shrink_calls_worker is 0)
#   written_back     zswpwb; written_pct: of stored; written_per_call:
#                    pages the module's walk wrote back per call of the
#                    store path (shrink_calls_store)
#   shrink_*, store_rejects  the module's counters (debugfs)
#   peak_mib         memory.peak of the memcg
#   wb_failed        zswap's reject_reclaim_fail: entries whose writeback
#                    failed (in the swap cache already, say)
#   over_*, usage_*  memory.zswap.current sampled every SAMPLE_MS
#                    (cgsample.c), from the first to the last sample at
#                    or over the limit: the largest and the mean excess
#                    over ZMAX in KiB, the share of samples over it, and
#                    the mean and smallest usage in percent of ZMAX
#   trace_overrun    events the trace buffer lost (0, or the percentiles
#                    are of a sample)
. "$(dirname "$0")/lib.sh"
bench_config store
iters=${1:-$ZSWB_BENCH_ITER}
WRITERS=$ZSWB_BENCH_WRITERS
SIZE=$ZSWB_BENCH_STORE_SIZE
CG_MAX=$ZSWB_BENCH_STORE_CG_MAX
ZMAX=$ZSWB_BENCH_ZSWAP_MAX
PASSES=$ZSWB_BENCH_STORE_PASSES
BATCH=$ZSWB_BENCH_STORE_BATCH
SAMPLE_MS=$ZSWB_BENCH_SAMPLE_MS
UNTRACED=$ZSWB_BENCH_UNTRACED
SLEEP_TIME=$ZSWB_BENCH_SLEEP_TIME
P=/sys/module/zswap/parameters
TR=/sys/kernel/tracing

modprobe zswap_wb || exit 1
# Every shrink policy the loaded module offers, in its order (debugfs
# schema): a policy added to the module is benchmarked with no edit here.
POLICIES=$(awk -F'\t' '$1 == "param" && $2 == "shrink_policy" { print $4 }' \
	/sys/kernel/debug/zswap_wb/schema)
[ -n "$POLICIES" ] || { echo "no shrink_policy in the module's schema" >&2; exit 1; }
zs() { cat /sys/kernel/debug/zswap/"$1"; }

[ -e $TR/trace ] || mount -t tracefs tracefs $TR || exit 1
echo 0 > $TR/tracing_on
echo nop > $TR/current_tracer
echo 16384 > $TR/buffer_size_kb
echo zswap_store > $TR/set_ftrace_filter &&
	echo zswb_shrink_memcg >> $TR/set_ftrace_filter || {
	echo "# cannot trace zswap_store and zswb_shrink_memcg"
	exit 1
}
echo function_graph > $TR/current_tracer || exit 1
# The closing line of a call that was not a leaf names its function.
echo 1 > $TR/options/funcgraph-tail
# sleep-time 1: a call's duration is its wall time, with the time its task
# waited off the CPU (preempted, blocked); 0: its time on the CPU only.
echo "$SLEEP_TIME" > $TR/options/sleep-time
echo "# store: $WRITERS writers x $SIZE MiB in memory.max $CG_MAX, memory.zswap.max $ZMAX, $PASSES passes, shrink_batch $BATCH, sleep-time $SLEEP_TIME, traced: $(tr '\n' ' ' < $TR/set_ftrace_filter)"

# pcts FILE: "count p50 p99 max mean" of the numbers in FILE, the
# percentiles by nearest rank.
pcts() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 } END {
		if (!NR) { print "0 0 0 0 0"; exit }
		printf "%d %.1f %.1f %.1f %.1f\n", NR, v[int((NR * 50 + 99) / 100)],
			v[int((NR * 99 + 99) / 100)], v[NR], s / NR }'
}

# run_once GROUP VARIANT ITERATION: one run; fails, with what the writers
# printed, if one of them did not end its walk.
run_once() {
	group=$1 variant=$2 it=$3
	pol=$variant tracer=function_graph
	[ "$variant" = untraced ] && pol=stock tracer=nop
	swap_on disk || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	zswap_on
	echo N > $P/shrinker_enabled
	echo 50 > $P/max_pool_percent
	set_param shrink_policy "$pol" || return 1
	set_param shrink_batch "$BATCH" || return 1
	cg_new bench "$CG_MAX" || return 1
	echo "$ZMAX" > $CG_ROOT/bench/memory.zswap.max
	zmax=$(cat $CG_ROOT/bench/memory.zswap.max)
	echo $tracer > $TR/current_tracer
	echo > $TR/trace
	echo 1 > $ZSWB_DEBUGFS/reset
	for k in zswpwb zswpout zswpin pswpout pswpin; do
		eval "a_$k=$(vmstat $k)"
	done
	a_rrf=$(zs reject_reclaim_fail)
	rm -f /tmp/out.*
	# The writers start together: each stops itself in the memcg, and all
	# are continued at once (starting 16 processes under TCG takes long
	# enough for the first ones to be done before the last one starts).
	pids="" w=1
	while [ $w -le "$WRITERS" ]; do
		cg_run bench sh -c 'kill -STOP $$ && exec thrash "$@"' thrash \
			--size "$SIZE" --passes "$PASSES" > /tmp/out.$w 2>&1 &
		pids="$pids $!"
		w=$((w + 1))
	done
	n=0
	while [ "$(wc -l < $CG_ROOT/bench/cgroup.procs)" -lt "$WRITERS" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	for pid in $(cat $CG_ROOT/bench/cgroup.procs); do
		wait_stopped "$pid"
	done
	echo 1 > $TR/tracing_on
	cgsample $CG_ROOT/bench/memory.zswap.current "$zmax" "$SAMPLE_MS" > /tmp/sample.out &
	spid=$!
	t0=$(uptime_s)
	kill -CONT $(cat $CG_ROOT/bench/cgroup.procs)
	failed=0
	for pid in $pids; do
		wait "$pid" || failed=$((failed + 1))
	done
	t1=$(uptime_s)
	kill -TERM $spid
	wait $spid
	echo 0 > $TR/tracing_on
	ended=$(grep -l "^pages .* mismatches 0 " /tmp/out.* | wc -l)
	wb=$(( $(vmstat zswpwb) - a_zswpwb ))
	# Every variant writes back thousands of pages here: none means the
	# writers never pushed the memcg to its limits.
	if [ "$failed" != 0 ] || [ "$ended" != "$WRITERS" ] || [ "$wb" = 0 ]; then
		echo "# store: $variant $it: $failed writers failed, $ended of $WRITERS ended their walk, $wb pages written back; run left out"
		for f in /tmp/out.*; do
			echo "# $f: $(tr '\n' ' ' < "$f")"
		done
		echo "# memory.events: $(tr '\n' ' ' < $CG_ROOT/bench/memory.events) peak $(cat $CG_ROOT/bench/memory.peak) max $(cat $CG_ROOT/bench/memory.max)"
		echo "# swaps: $(tr '\n' ' ' < /proc/swaps) stored $(( $(vmstat zswpout) - a_zswpout )) pswpout $(( $(vmstat pswpout) - a_pswpout ))"
		run_cleanup
		return 1
	fi

	line="RESULT $group $variant $it time_s=$(elapsed "$t0" "$t1")"
	zo=$(( $(vmstat zswpout) - a_zswpout ))
	rej=$(( $(vmstat pswpout) - a_pswpout - wb ))
	# Every store either stored the folio (zswpout) or rejected it, and
	# then the folio went to the swap device itself (pswpout - zswpwb).
	line="$line stores=$((zo + rej))"
	line="$line run_us_per_store=$(awk -v a="$t0" -v b="$t1" -v n=$((zo + rej)) 'BEGIN { printf "%.1f", n ? (b - a) * 1e6 / n : 0 }')"
	if [ $tracer = function_graph ]; then
		# The duration is on the line that ends a call: a leaf
		# ("zswap_store();") or a closing brace ("} /* zswap_store */").
		awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us") break
			if (i >= NF) next
			if (index($0, "zswb_shrink_memcg")) print $i > "/tmp/shrink.us"
			else if (index($0, "zswap_store")) print $i > "/tmp/store.us" }' $TR/trace
		touch /tmp/store.us /tmp/shrink.us
		set -- $(pcts /tmp/store.us)
		line="$line stores_traced=$1 store_p50_us=$2 store_p99_us=$3 store_max_us=$4 store_mean_us=$5"
		set -- $(pcts /tmp/shrink.us)
		line="$line shrink_p50_us=$2 shrink_p99_us=$3 shrink_max_us=$4"
		line="$line trace_overrun=$(awk '$1 == "overrun:" { n += $2 } END { print n + 0 }' $TR/per_cpu/cpu*/stats)"
		rm -f /tmp/store.us /tmp/shrink.us
	fi
	cs=$(wbstat shrink_calls_store)
	wn=$(( $(wbstat shrink_written_node0) + $(wbstat shrink_written_node1) ))
	line="$line stored=$zo rejected=$rej written_back=$wb"
	line="$line written_pct=$(awk -v w=$wb -v s=$zo 'BEGIN { printf "%.1f", s ? 100 * w / s : 0 }')"
	line="$line written_per_call=$(awk -v w=$wn -v c=$cs 'BEGIN { printf "%.2f", c ? w / c : 0 }')"
	line="$line shrink_calls_store=$cs shrink_calls_worker=$(wbstat shrink_calls_worker)"
	line="$line shrink_scanned=$(( $(wbstat shrink_scanned_node0) + $(wbstat shrink_scanned_node1) ))"
	line="$line store_rejects=$(wbstat store_rejects) wb_failed=$(( $(zs reject_reclaim_fail) - a_rrf ))"
	line="$line zswpin=$(( $(vmstat zswpin) - a_zswpin )) pswpin=$(( $(vmstat pswpin) - a_pswpin ))"
	line="$line peak_mib=$(( $(cat $CG_ROOT/bench/memory.peak) >> 20 ))"
	# samples N steady S over O over_max_kb X over_mean_kb M usage_mean_pct U usage_min_pct V
	line="$line $(awk '$1 == "samples" { printf "samples=%d over_pct=%.1f over_max_kb=%s over_mean_kb=%s usage_mean_pct=%s usage_min_pct=%s",
		$2, $4 ? 100 * $6 / $4 : 0, $8, $10, $12, $14 }' /tmp/sample.out)"
	echo "$line"
	run_cleanup
}

run_cleanup() {
	cg_del bench
	echo nop > $TR/current_tracer
	echo > $TR/trace
	echo 20 > $P/max_pool_percent
	echo Y > $P/shrinker_enabled
	set_param shrink_policy stock
	set_param shrink_batch 32
	swap_off
}

# one_run GROUP VARIANT ITERATION: a run, run again once if it failed.
one_run() {
	run_once "$@" || run_once "$@"
}

bench_rounds "$iters" "$POLICIES" store
r=0
while [ $r -lt "$UNTRACED" ]; do
	one_run store untraced $r
	r=$((r + 1))
done
