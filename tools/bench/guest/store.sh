#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Store-path benchmark, run in the VM by tools/bench/run.sh:
#   store.sh PAIRS
# WRITERS writers (thrash, SIZE MiB each: a fill, then PASSES walks that
# check and rewrite every page), started together, in one memcg with
# memory.max CG_MAX and a small memory.zswap.max ZMAX, so that most stores
# find the memcg at its zswap limit and call shrink_memcg() from
# zswap_store(), in the storing task, with the folio locked. One zswbctl
# ab: shrink_policy stock (A) against every other policy the module
# offers (B, C, ...), each at shrink_batch BATCH (1024: the largest, which
# the store path caps at SWAP_CLUSTER_MAX per node), an A/A pair then
# PAIRS pairs, each policy's run next to a stock run, each run in a fresh
# memcg of ab's after the page cache is dropped; disk swap (virtio), zswap's
# own shrinker off (every writeback is the store path's),
# max_pool_percent=50 (the global pool limit is never hit). The primary
# metric is a store's p99 duration (cmd.store_p99_us); every other metric
# and every side after B are secondary.
#
# Every run is traced the same way: the function_graph tracer on
# zswap_store() and the module's zswb_shrink_memcg() only
# (set_ftrace_filter), which gives each call's duration: its wall time,
# the waits off the CPU included (ZSWB_BENCH_SLEEP_TIME=0: its time on the
# CPU only). A run in which a writer failed, or nothing was written back,
# says so in "#" lines and fails (ab counts the failed runs and exits 1).
#
# Each run is "store.sh run", whose own figures (cmd.NAME) are:
#   stores           zswap_store() calls: stored (zswpout) + rejected
#                    (pswpout - zswpwb); stores_traced: the calls the
#                    trace saw (the same, or the trace lost some)
#   run_us_per_store the writers' time per store, in us
#   store_p50_us, store_p99_us, store_max_us, store_mean_us
#                    duration of a zswap_store() call (trace)
#   shrink_p50_us, shrink_p99_us, shrink_max_us
#                    duration of a zswb_shrink_memcg() call (all from
#                    zswap_store() here: shrink_calls_worker is 0)
#   stored, rejected, written_back  zswpout, pswpout - zswpwb, zswpwb;
#                    written_pct: written back of stored; rejected_pct:
#                    rejected of stores; written_per_call: pages the
#                    module's walk wrote back per call of the store path
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
WRITERS=$ZSWB_BENCH_WRITERS
SIZE=$ZSWB_BENCH_STORE_SIZE
PASSES=$ZSWB_BENCH_STORE_PASSES
BATCH=$ZSWB_BENCH_STORE_BATCH
SAMPLE_MS=$ZSWB_BENCH_SAMPLE_MS
SLEEP_TIME=$ZSWB_BENCH_SLEEP_TIME
P=/sys/module/zswap/parameters
TR=/sys/kernel/tracing
zs() { cat /sys/kernel/debug/zswap/"$1"; }

# pcts FILE: "count p50 p99 max mean" of the numbers in FILE, the
# percentiles by nearest rank.
pcts() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 } END {
		if (!NR) { print "0 0 0 0 0"; exit }
		printf "%d %.1f %.1f %.1f %.1f\n", NR, v[int((NR * 50 + 99) / 100)],
			v[int((NR * 99 + 99) / 100)], v[NR], s / NR }'
}

# run: one run, in the memcg ab made for it; fails, with what the writers
# printed, if one of them did not end its walk.
run() {
	local cg pids="" w=1 pid failed=0 ended wb zo rej cs wn t0 t1 spid line zmax k f a_rrf
	cg=$CG_ROOT$(sed -n 's|^0::||p' /proc/self/cgroup)
	zmax=$(cat "$cg/memory.zswap.max")
	echo > $TR/trace
	for k in zswpwb zswpout zswpin pswpout pswpin; do
		eval "a_$k=$(vmstat $k)"
	done
	a_rrf=$(zs reject_reclaim_fail)
	for k in shrink_calls_store shrink_calls_worker shrink_written_node0 shrink_written_node1 \
		shrink_scanned_node0 shrink_scanned_node1 store_rejects; do
		eval "b_$k=$(wbstat $k)"
	done
	rm -f /tmp/out.*
	# The writers start together: each stops itself, and all are
	# continued at once (starting 16 processes under TCG takes long
	# enough for the first ones to be done before the last one starts).
	while [ $w -le "$WRITERS" ]; do
		sh -c 'kill -STOP $$ && exec thrash "$@"' thrash \
			--size "$SIZE" --passes "$PASSES" > /tmp/out.$w 2>&1 &
		pids="$pids $!"
		w=$((w + 1))
	done
	for pid in $pids; do
		wait_stopped "$pid"
	done
	echo 1 > $TR/tracing_on
	cgsample "$cg/memory.zswap.current" "$zmax" "$SAMPLE_MS" > /tmp/sample.out &
	spid=$!
	t0=$(uptime_s)
	kill -CONT $pids
	for pid in $pids; do
		wait "$pid" || failed=$((failed + 1))
	done
	t1=$(uptime_s)
	kill -TERM $spid
	wait $spid
	echo 0 > $TR/tracing_on
	ended=$(grep -l "^pages .* mismatches 0 " /tmp/out.* | wc -l)
	wb=$(( $(vmstat zswpwb) - a_zswpwb ))
	zo=$(( $(vmstat zswpout) - a_zswpout ))
	rej=$(( $(vmstat pswpout) - a_pswpout - wb ))
	# Every variant writes back thousands of pages here: none means the
	# writers never pushed the memcg to its limits.
	if [ "$failed" != 0 ] || [ "$ended" != "$WRITERS" ] || [ "$wb" = 0 ]; then
		echo "# store: $failed writers failed, $ended of $WRITERS ended their walk, $wb pages written back"
		for f in /tmp/out.*; do
			echo "# $f: $(tr '\n' ' ' < "$f")"
		done
		echo "# memory.events: $(tr '\n' ' ' < "$cg/memory.events") peak $(cat "$cg/memory.peak")"
		echo "# swaps: $(tr '\n' ' ' < /proc/swaps) stored $zo pswpout $(( $(vmstat pswpout) - a_pswpout ))"
		return 1
	fi
	# Every store either stored the folio (zswpout) or rejected it, and
	# then the folio went to the swap device itself (pswpout - zswpwb).
	line="stores=$((zo + rej))"
	line="$line run_us_per_store=$(awk -v a="$t0" -v b="$t1" -v n=$((zo + rej)) 'BEGIN { printf "%.1f", n ? (b - a) * 1e6 / n : 0 }')"
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
	cs=$(( $(wbstat shrink_calls_store) - b_shrink_calls_store ))
	wn=$(( $(wbstat shrink_written_node0) + $(wbstat shrink_written_node1) - b_shrink_written_node0 - b_shrink_written_node1 ))
	line="$line stored=$zo rejected=$rej written_back=$wb"
	line="$line written_pct=$(awk -v w=$wb -v s=$zo 'BEGIN { printf "%.1f", s ? 100 * w / s : 0 }')"
	line="$line rejected_pct=$(awk -v r=$rej -v s=$zo 'BEGIN { printf "%.2f", r + s ? 100 * r / (r + s) : 0 }')"
	line="$line written_per_call=$(awk -v w=$wn -v c=$cs 'BEGIN { printf "%.2f", c ? w / c : 0 }')"
	line="$line wb_failed=$(( $(zs reject_reclaim_fail) - a_rrf ))"
	# samples N steady S over O over_max_kb X over_mean_kb M usage_mean_pct U usage_min_pct V
	line="$line $(awk '$1 == "samples" { printf "samples=%d over_pct=%.1f over_max_kb=%s over_mean_kb=%s usage_mean_pct=%s usage_min_pct=%s",
		$2, $4 ? 100 * $6 / $4 : 0, $8, $10, $12, $14 }' /tmp/sample.out)"
	ab_metrics $line
}

if [ "${1:-}" = run ]; then
	run
	exit
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
modprobe zswap_wb || exit 1
# Every shrink policy the loaded module offers, in its order (debugfs
# schema): a policy added to the module is benchmarked with no edit here.
POLICIES=$(param_schema shrink_policy values)
[ -n "$POLICIES" ] || { echo "no shrink_policy in the module's schema" >&2; exit 1; }
POLICIES=$(echo $POLICIES)
case " $POLICIES " in
*" stock "*) ;;
*) echo "no stock shrink_policy in the module's schema" >&2; exit 1 ;;
esac
POLICIES="stock $(echo " $POLICIES " | sed 's/ stock / /')"

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
echo "# store: $WRITERS writers x $SIZE MiB in memory.max $ZSWB_BENCH_STORE_CG_MAX, memory.zswap.max $ZSWB_BENCH_ZSWAP_MAX, $PASSES passes, shrink_batch $BATCH, sleep-time $SLEEP_TIME, traced: $(tr '\n' ' ' < $TR/set_ftrace_filter)"

swap_on disk || exit 1
zswap_on
echo N > $P/shrinker_enabled
echo 50 > $P/max_pool_percent
bench_ab_values store disk shrink_policy "$POLICIES" "shrink_batch=$BATCH" --pairs "$pairs" \
	--metric cmd.store_p99_us --memory-max "$ZSWB_BENCH_STORE_CG_MAX" \
	--zswap-max "$ZSWB_BENCH_ZSWAP_MAX" --drop-caches -- sh "$0" run
rc=$?
echo nop > $TR/current_tracer
echo 20 > $P/max_pool_percent
echo Y > $P/shrinker_enabled
set_param shrink_policy stock
set_param shrink_batch 32
swap_off
exit $rc
