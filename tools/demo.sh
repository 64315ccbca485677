#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The A/B demo of 'make demo': one VM boot, the module loaded, a 300 MiB
# workload walked twice in a 100M memcg with zswap and its shrinker on;
# prompt freeing off vs on, alternated, 2 iterations each, on async disk
# swap and on zram. Prints the table: pgrotated is what prompt freeing
# removes.
set -eu
. "$(dirname "$0")/kernel/common.sh"
zswb_need python3
cd "$ZSWB_TOP"
iter=${ZSWB_DEMO_ITER:-2}
log=$(mktemp)
trap 'rm -f "$log" "$log.derived"' EXIT
total=$(( iter * 2 * 2 ))
echo "demo: booting the hooked kernel; $total runs (2 swap kinds, off and on, $iter each), about half a minute each under TCG"
bash tools/vm/run.sh --timeout 1800 --cmd "/bench/prompt_free.sh $iter disk zram" > "$log" 2>&1 &
vm=$!
# A line as each run finishes, while the VM goes on.
n=0
while read -r tag kind variant _ rest; do
	[ "$tag" = RESULT ] || continue
	n=$((n + 1))
	t=$(echo "${rest%$'\r'}" | tr ' ' '\n' | sed -n 's/^time_s=//p')
	echo "demo: $n of $total done: $kind swap, prompt freeing $variant, ${t:-?} s"
done < <(tail -n +1 -f --pid=$vm "$log" 2>/dev/null)
wait $vm || {
	tail -30 "$log"
	zswb_die "the demo VM run failed"
}
awk '{ sub(/\r$/, "") } $1 == "RESULT" {
	sub(/^disk$/, "async (virtio-blk)", $2); sub(/^zram$/, "sync (zram)", $2)
	gsub(/ /, "_", $2)
	for (i = 5; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "%s freed_prompt_pct=%.3f\n", $0, v["zswpwb"] ? 100.0 * v["freed"] / v["zswpwb"] : 0
	}' "$log" > "$log.derived"
python3 tools/bench/report.py "demo: zswap_wb prompt freeing, off vs on" "$log.derived"
