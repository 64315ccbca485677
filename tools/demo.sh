#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The A/B demo of 'make demo': one VM boot under QEMU's icount (as make
# bench: the guest's clock counts instructions, so times compare the work
# done and not what the host's other jobs left of a core), the module
# loaded, the prompt-free benchmark's workload (tools/bench/config/
# prompt-free.conf: 100 MiB walked twice in a 34M memcg) with zswap and its
# shrinker on, on async disk swap and on zram: per swap kind one zswbctl ab
# in the guest (tools/bench/guest/demo.sh), prompt freeing off (A) against
# on (B), a warm-up run, an A/A pair then ZSWB_DEMO_PAIRS (8) pairs: 6 is
# the fewest that can reach p <= 0.05 on the workload's time, and 8 let the
# counters that move with it (pgrotated, the module's frees) pass the
# adjustment of two dozen secondary metrics on disk swap too. Prints, per
# swap kind, zswbctl ab's report on the runs:
# the workload's time judged, with its interval and p, and the other
# metrics that differ (pgrotated, the module's frees, reclaim, PSI).
#
#   tools/demo.sh [--all]     --all: every metric
#
# The log stays in bench-results/demo.log and each kind's runs in
# bench-results/demo-KIND.csv: 'zswbctl ab --from-csv
# bench-results/demo-disk.csv' reports on them again.
set -eu
. "$(dirname "$0")/kernel/common.sh"
cd "$ZSWB_TOP"
all=""
case "${1:-}" in
--all) all=--all ;;
"") ;;
*) zswb_die "usage: tools/demo.sh [--all]" ;;
esac
. tools/bench/config/common.conf
pairs=${ZSWB_DEMO_PAIRS:-8}
case "$pairs" in
''|*[!0-9]*|0) zswb_die "ZSWB_DEMO_PAIRS must be a positive number, not '$pairs'" ;;
esac
icount="--icount $ZSWB_BENCH_ICOUNT"
[ "$ZSWB_BENCH_ICOUNT" != off ] || icount=""
make -s -C tools/zswbctl
mkdir -p bench-results
log=bench-results/demo.log
total=$(( 2 * (3 + pairs * 2) ))
echo "demo: booting the hooked kernel; $total runs (2 swap kinds: a warm-up, an A/A pair, then $pairs pairs of off and on), about 25 s each"
bash tools/vm/run.sh $icount --timeout $(( 600 + total * 90 )) \
	--cmd "/bench/demo.sh $pairs disk zram" > "$log" 2>&1 || {
	tail -30 "$log"
	zswb_die "the demo VM run failed (its log: $log)"
}
for kind in disk zram; do
	csv=bench-results/demo-$kind.csv
	tr -d '\r' < "$log" | sed -n "s/^DEMOCSV $kind //p" > "$csv"
	[ -s "$csv" ] || zswb_die "no runs of $kind swap in $log"
	echo
	echo "== $kind swap: prompt freeing off (A) against on (B) =="
	tools/zswbctl/zswbctl ab $all --metric wall_s --from-csv "$csv"
done
