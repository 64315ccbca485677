#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The A/B demo of 'make demo': one VM boot under QEMU's icount (as make
# bench: the guest's clock counts instructions, so times compare the work
# done and not what the host's other jobs left of a core), the module
# loaded, the prompt-free benchmark's workload (tools/bench/config/
# prompt-free.conf: 100 MiB walked twice in a 34M memcg) with zswap and its
# shrinker on, on async disk swap and on zram: an A/A pair (prompt freeing
# off twice) to size the noise, then ZSWB_DEMO_ITER (2) alternated off/on
# pairs. Prints the rows that decide (time, CPU, PSI, pgrotated, pgscan,
# pgsteal, the share freed promptly) and a verdict per swap kind.
#
#   tools/demo.sh [--all]     --all: the whole table after them
#
# The log stays in bench-results/demo.log:
# 'tools/bench/report.py demo bench-results/demo.log --all' prints it again.
set -eu
. "$(dirname "$0")/kernel/common.sh"
zswb_need python3
cd "$ZSWB_TOP"
all=""
case "${1:-}" in
--all) all=--all ;;
"") ;;
*) zswb_die "usage: tools/demo.sh [--all]" ;;
esac
. tools/bench/config/common.conf
iter=${ZSWB_DEMO_ITER:-2}
case "$iter" in
''|*[!0-9]*|0) zswb_die "ZSWB_DEMO_ITER must be a positive number, not '$iter'" ;;
esac
icount="--icount $ZSWB_BENCH_ICOUNT"
[ "$ZSWB_BENCH_ICOUNT" != off ] || icount=""
mkdir -p bench-results
log=bench-results/demo.log
total=$(( 2 * (2 + iter * 2) ))
echo "demo: booting the hooked kernel; $total runs (2 swap kinds: an A/A pair, then off and on $iter times each), about 25 s each"
bash tools/vm/run.sh $icount --timeout 1800 \
	--cmd "ZSWB_BENCH_AA=1 /bench/prompt_free.sh $iter disk zram" > "$log" 2>&1 &
vm=$!
# A line as each run finishes, while the VM goes on.
n=0
while read -r kind variant _ t; do
	n=$((n + 1))
	[ "$variant" != aa ] || variant="off (A/A pair)"
	echo "demo: $n of $total done: $kind swap, prompt freeing $variant, $t s of guest time"
done < <(tail -n +1 -f --pid=$vm "$log" 2>/dev/null | python3 tools/bench/report.py --each time_s)
wait $vm || {
	tail -30 "$log"
	zswb_die "the demo VM run failed (its log: $log)"
}
python3 tools/bench/report.py demo "$log" $all
