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
echo "demo: booting the hooked kernel; each run takes about half a minute under TCG"
bash tools/vm/run.sh --timeout 1800 --cmd "/bench/prompt_free.sh $iter disk zram" > "$log" 2>&1 || {
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
