#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The A/B demo of 'make demo': one VM boot, the module loaded, the
# prompt-free benchmark's workload (tools/bench/config/prompt-free.conf:
# 100 MiB walked twice in a 34M memcg) with zswap and its shrinker on;
# prompt freeing off vs on, alternated, 2 iterations each, on async disk
# swap and on zram. Prints the table: pgrotated is what prompt freeing
# removes.
set -eu
. "$(dirname "$0")/kernel/common.sh"
zswb_need python3
cd "$ZSWB_TOP"
iter=${ZSWB_DEMO_ITER:-2}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
total=$(( iter * 2 * 2 ))
echo "demo: booting the hooked kernel; $total runs (2 swap kinds, off and on, $iter each), about half a minute each under TCG"
bash tools/vm/run.sh --timeout 1800 --cmd "ZSWB_BENCH_AA=0 /bench/prompt_free.sh $iter disk zram" > "$log" 2>&1 &
vm=$!
# A line as each run finishes, while the VM goes on.
n=0
while read -r kind variant _ t; do
	n=$((n + 1))
	echo "demo: $n of $total done: $kind swap, prompt freeing $variant, $t s"
done < <(tail -n +1 -f --pid=$vm "$log" 2>/dev/null | python3 tools/bench/report.py --each time_s)
wait $vm || {
	tail -30 "$log"
	zswb_die "the demo VM run failed"
}
python3 tools/bench/report.py demo "$log"
