#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks: each boots the VM once and compares its variants in that
# boot. prompt-free and readahead compare through zswbctl ab (an A/A pair,
# then ZSWB_BENCH_PAIRS pairs adjacent in time; ab's CSV of each
# comparison is kept as bench-results/NAME-...csv and report.py prints
# ab's estimates, intervals and verdicts); the others run each variant
# once per iteration, the order rotating, and print medians. Each writes
# bench-results/NAME.json.
#
#   tools/bench/run.sh [NAME...]      default: every benchmark
#
# prompt-free: sync_free/async_free off (A) against on (B), one zswbctl
#   ab per swap kind (async disk swap, sync zram swap and a swap file),
#   judged by the workload's time (wall_s). 100 MiB walked twice in a 34M
#   memcg. The guest runs with QEMU's icount (run.sh --icount 3):
#   its clock counts the instructions both vCPUs execute, so time and CPU
#   time measure the work done, not what the host's other jobs left of a
#   core (Documentation/results.rst has the data).
# profile (not part of the default run): the prompt-free workload (150 MiB
#   in a 50M memcg) off and on under the kernel's function profiler, on
#   disk swap (ZSWB_PROFILE_KINDS), functions by self time and entry points by
#   time with callees; bench-results/profile.log.
# shrinker (not part of the default run): the
#   seed's test cases 1, 2a and 2b scaled to the VM (no icount), one
#   zswbctl ab per case: stock (A) against each shrink_policy, judged
#   by the share of stores rejected (cmd.reject_rate_pct), from 6 pairs
#   until its interval is +-5% (ZSWB_BENCH_SHRINK_PRECISION) or 10 pairs
#   (case1: a trickle at the pool limit until 8,000 pages have been
#   written back; case2a/2b: 12 s of random writers; zswap's shrinker
#   off, 32 idle memcgs beside the test's).
# readahead: a heavy and a light swap thrash, one zswbctl ab each: stock
#   (A) against each readahead_policy, judged by the time of the walk in
#   order (cmd.walk_s), under icount (its
#   random phase lasts a fixed guest time: in host time it did the less
#   work the more the host was loaded).
# store: zswap_store() at memory.zswap.max: 16 writers started together
#   (3 MiB each, one fill and one walk) in a 36M memcg with
#   memory.zswap.max 2M, one zswbctl ab: stock (A) against each
#   shrink_policy (shrink_batch 1024), judged by a store's p99 duration
#   (cmd.store_p99_us) from the function_graph tracer; with each
#   store-path shrink's duration, the memcg's zswap usage against its
#   limit sampled every 10 ms, pages written back, the module's counters.
#   With icount, as prompt-free.
# scope-cost (not part of the default run): the prompt-free workload on
#   disk swap, async_free on, with no scope, a scope covering it and a
#   scope that does not, under icount: instructions per folio written
#   back; bench-results/scope-cost.log.
# cluster (not part of the default run): the swap slot allocator's order
#   and the device's requests under the prompt-free workload with
#   rewrites: disk with 6.12's clusters (non-rotational), the same disk
#   marked rotational (linear scan), and with async_free; zram stock and
#   with sync_free; requests and merges from /sys/block/*/stat and where
#   the pages sit in swap (swapmap); under icount.
# throttle (not part of the default run): reclaim beside writeback on a
#   swap disk whose writes dm-delay holds 200 ms, stock (A) against
#   async_free (B), in a memcg at its limit and under global pressure
#   (hugetlb pages taking the VM's memory), judged by the file refaults of
#   a reader beside the workload (cmd.refault_file); scans, steals,
#   reclaim_throttle() calls and OOM kills beside it.
# apps (not part of the default run; make bench-apps): real applications
#   from Debian packages (a kernel build with gcc, Redis with
#   redis-benchmark) in the Debian 12 guest, stock against each policy;
#   tools/bench/apps/run.sh says how.
# With more than one benchmark asked and two host cores, two run at a time
# (ZSWB_BENCH_JOBS=1: one after the other).
# Knobs: tools/bench/config/, make bench's own (ZSWB_BENCH_JOBS, _ITER,
# _ICOUNT) in common.conf and each benchmark's in NAME.conf, with their
# defaults; Documentation/running.rst has the table. Every knob of a
# benchmark's file goes on to its guest script, which reads the same file.
set -eu
. "$(dirname "$0")/../kernel/common.sh"
zswb_need python3
cd "$ZSWB_TOP"
ALL="prompt-free readahead store"
EXTRA="shrinker profile apps scope-cost cluster throttle"
names=${*:-$ALL}
mkdir -p bench-results
conf=tools/bench/config
. "$conf/common.conf"
icount="--icount $ZSWB_BENCH_ICOUNT"
[ "$ZSWB_BENCH_ICOUNT" != off ] || icount=""

# knobs NAME: every knob of config/NAME.conf (sourced first, by run_one) as
# NAME='value' words for the guest's command line.
knobs() {
	local v
	for v in $(sed -n 's/^\(ZSWB_[A-Z0-9_]*\)=.*/\1/p' "$conf/$1.conf"); do
		printf "%s='%s' " "$v" "${!v}"
	done
}

prompt_free() {
	local log=bench-results/prompt-free.log
	# 3 kinds of a warm-up, an A/A pair and PAIRS pairs of 2 runs, at most a minute each
	bash tools/vm/run.sh $icount --timeout $((600 + 3 * (3 + 2 * ZSWB_BENCH_PAIRS) * 60)) \
		--cmd "$(knobs prompt-free)/bench/prompt_free.sh $ZSWB_BENCH_PAIRS disk zram file" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py prompt-free "$log" bench-results/prompt-free.json
}

profile() {
	local log=bench-results/profile.log
	local k cmd="" args
	args=$(knobs profile)
	for k in $ZSWB_PROFILE_KINDS; do
		cmd="$cmd $args/bench/profile.sh $k off on;"
	done
	bash tools/vm/run.sh --timeout 3600 --cmd "$cmd" |
		tee "$log" | grep --line-buffered -E "^RESULT|^#"
	python3 tools/bench/report.py profile "$log"
	grep "^PROFILE" "$log" | tr -d '\r' | wc -l | sed 's/$/ PROFILE lines in bench-results\/profile.log/'
}

shrinker() {
	local log=bench-results/shrinker.log
	# 3 cases of a warm-up, an A/A pair and at most PAIRS pairs of 7 runs (A B C A D E A),
	# a minute each at most
	bash tools/vm/run.sh --timeout $((600 + 3 * (3 + 7 * ZSWB_BENCH_PAIRS) * 60)) \
		--cmd "$(knobs shrinker)/bench/shrinker.sh $ZSWB_BENCH_PAIRS case1 case2a case2b" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py shrinker "$log" bench-results/shrinker.json
}

readahead() {
	local log=bench-results/readahead.log
	# 2 workloads of a warm-up, an A/A pair and PAIRS pairs of 4 runs (A B C A)
	bash tools/vm/run.sh $icount --timeout $((600 + 2 * (3 + 4 * ZSWB_BENCH_PAIRS) * 60)) \
		--cmd "$(knobs readahead)/bench/readahead.sh $ZSWB_BENCH_PAIRS heavy light" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py readahead "$log" bench-results/readahead.json
}

store() {
	local log=bench-results/store.log
	# a warm-up, an A/A pair and PAIRS pairs of 7 runs (A B C A D E A), 40 s each at most
	bash tools/vm/run.sh $icount --timeout $((600 + (3 + 7 * ZSWB_BENCH_PAIRS) * 40)) \
		--cmd "$(knobs store)/bench/store.sh $ZSWB_BENCH_PAIRS" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py store "$log" bench-results/store.json
}

# The cost of the scopes' lookup (not part of the default run): the
# prompt-free workload, async_free on, with no scope, with a scope covering
# it, with one that does not; instructions per folio under icount.
scope_cost() {
	local log=bench-results/scope-cost.log
	# a warm-up, an A/A pair and PAIRS pairs of 4 runs (A B C A), a minute each at most
	bash tools/vm/run.sh $icount --timeout $((600 + (3 + 4 * ZSWB_BENCH_PAIRS) * 60)) \
		--cmd "$(knobs scope-cost)ZSWB_ICOUNT_SHIFT=$ZSWB_BENCH_ICOUNT /bench/scope_cost.sh $ZSWB_BENCH_PAIRS" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py scope-cost "$log" bench-results/scope-cost.json
}

# The swap slot allocator's order on 6.12 (not part of the default run).
cluster() {
	local log=bench-results/cluster.log
	# disk: a warm-up, an A/A pair and PAIRS pairs of 4 runs; zram: of 2; 90 s each at most
	bash tools/vm/run.sh $icount --timeout $((600 + (6 + 6 * ZSWB_BENCH_PAIRS) * 90)) \
		--cmd "$(knobs cluster)/bench/cluster.sh $ZSWB_BENCH_PAIRS" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py cluster "$log" bench-results/cluster.json
}

# Reclaim beside writeback on a slow swap device (not part of the default
# run).
throttle() {
	local log=bench-results/throttle.log
	# 2 cases of a warm-up, an A/A pair and PAIRS pairs of 2 runs; 3 minutes each at most
	bash tools/vm/run.sh --timeout $((600 + 2 * (3 + 2 * ZSWB_BENCH_PAIRS) * 180)) \
		--cmd "$(knobs throttle)/bench/throttle.sh $ZSWB_BENCH_PAIRS" |
		tee "$log" | grep --line-buffered -E "^ABSIDES|^#"
	python3 tools/bench/report.py throttle "$log" bench-results/throttle.json
}

# run_one NAME: the benchmark, with its knobs in a shell of its own
# (prompt-free and profile give the same knobs defaults of their own).
run_one() {
	(
		. "$conf/$1.conf"
		case "$1" in
		prompt-free) prompt_free ;;
		shrinker) shrinker ;;
		readahead) readahead ;;
		store) store ;;
		profile) profile ;;
		apps) bash tools/bench/apps/run.sh ;;
		scope-cost) scope_cost ;;
		cluster) cluster ;;
		throttle) throttle ;;
		esac
	)
}

# Minutes of one host core each benchmark takes, as last measured or
# estimated from its runs' count, to share them out between the lanes,
# longest first (apps as it runs in one VM inside a lane).
minutes() {
	case "$1" in
	prompt-free) echo 48 ;; shrinker) echo 70 ;; readahead) echo 47 ;;
	store) echo 30 ;; apps) echo 74 ;; cluster) echo 23 ;; profile) echo 10 ;;
	*) echo 4 ;;
	esac
}

for n in $names; do
	case " $ALL $EXTRA " in
	*" $n "*) ;;
	*) zswb_die "unknown benchmark '$n' (benchmarks: $ALL $EXTRA)" ;;
	esac
done

jobs=$(zswb_bench_jobs) || exit 1
set -- $names
if [ "$jobs" -eq 1 ] || [ $# -eq 1 ]; then
	for n in $names; do
		run_one "$n"
	done
	exit 0
fi

# Two benchmarks at a time, one VM per host core: each VM compares its
# own variants in its own boot, so the other VM's load falls on baseline
# and policy alike (and not at all on the icount benchmarks' figures).
# Longest first, each to the lane with less work so far; progress lines
# are prefixed with the benchmark's name, the tables printed at the end
# in the order asked.
lane1="" lane2="" w1=0 w2=0
for n in $(for n in $names; do echo "$(minutes "$n") $n"; done | sort -rn | cut -d' ' -f2); do
	if [ "$w1" -le "$w2" ]; then
		lane1="$lane1 $n"; w1=$((w1 + $(minutes "$n")))
	else
		lane2="$lane2 $n"; w2=$((w2 + $(minutes "$n")))
	fi
done
out=$(mktemp -d /tmp/zswb-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
lane() {
	local n
	# A lane is one core: apps runs one VM in it, not two.
	export ZSWB_BENCH_JOBS=1
	for n in "$@"; do
		run_one "$n" 2>&1 | tee "$out/$n" | sed -u "s/^/$n: /"
		[ "${PIPESTATUS[0]}" -eq 0 ] || echo "$n" >> "$out/failed"
	done
}
echo "# two at a time:$lane1 |$lane2"
lane $lane1 &
p1=$!
lane $lane2 &
p2=$!
wait $p1 $p2
for n in $names; do
	echo
	sed -n '/^== /,$p' "$out/$n"
done
if [ -s "$out/failed" ]; then
	zswb_die "failed:" $(cat "$out/failed") "(their logs: bench-results/)"
fi
