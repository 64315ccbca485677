#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prompt-free benchmark, run in the VM by tools/bench/run.sh:
#   prompt_free.sh PAIRS KIND...
# For each KIND (disk = async virtio-blk, zram = sync, file = swap file on
# ext4), one zswbctl ab of the same workload (thrash, ZSWB_BENCH_SIZE MiB
# walked ZSWB_BENCH_PASSES times in a memcg of ZSWB_BENCH_CG_MAX): prompt
# freeing off (A) against on (B: async_free on disk and file, sync_free on
# zram); ab runs an A/A pair, then PAIRS pairs, each run in a fresh memcg
# after the page cache is dropped, and judges B by the workload's time
# (wall_s, the primary metric); every other metric is secondary. Each run
# is "prompt_free.sh run", which adds its own figures (cmd.NAME in ab's
# report) to what ab reads around it:
#   bypassed            pages swapped out without going through zswap
#                       (pswpout - zswpwb)
#   freed_prompt_pct    the share of the written-back folios that were
#                       freed promptly (freed_sync + freed_async over
#                       zswpwb)
#   free_p50_us, free_p99_us  the upper bound of the free-latency bucket
#                       (free_latency_us) that holds the run's median and
#                       99th percentile folio
#   free_lat_lt_Nus     the run's folios freed less than N us (and N/2 or
#                       more, but for N=2) after their writeback ended
# Prints what bench_ab (lib.sh) prints.
. "$(dirname "$0")/lib.sh"
bench_config prompt-free

# hist: the free-latency histogram, "N COUNT" lines.
hist() { cat "$ZSWB_DEBUGFS/free_latency_us"; }

if [ "${1:-}" = run ]; then
	h0=$(hist)
	for k in pswpout zswpwb; do
		eval "a_$k=$(vmstat $k)"
	done
	f0=$(($(wbstat freed_sync) + $(wbstat freed_async)))
	thrash --size "$ZSWB_BENCH_SIZE" --passes "$ZSWB_BENCH_PASSES" || exit 1
	wb=$(($(vmstat zswpwb) - a_zswpwb))
	freed=$(($(wbstat freed_sync) + $(wbstat freed_async) - f0))
	line="bypassed=$(($(vmstat pswpout) - a_pswpout - wb))"
	line="$line freed_prompt_pct=$(awk -v f="$freed" -v w="$wb" 'BEGIN { printf "%.3f", w ? 100 * f / w : 0 }')"
	line="$line $( (echo "$h0" | sed 's/^/0 /'; hist | sed 's/^/1 /') | awk '
		$1 == 0 { a[$2] = $3; next }
		{ n[++m] = $2; d[m] = $3 - a[$2]; t += d[m] }
		END {
			for (i = 1; i <= m; i++) {
				c += d[i]
				if (t && !p50 && c >= 0.5 * t) p50 = n[i]
				if (t && !p99 && c >= 0.99 * t) p99 = n[i]
				printf "free_lat_lt_%dus=%d ", n[i], d[i]
			}
			printf "free_p50_us=%d free_p99_us=%d", p50, p99
		}')"
	ab_metrics $line
	exit 0
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
shift
modprobe zswap_wb || exit 1
zswap_on
rc=0
for kind in "$@"; do
	pol=async_free
	[ "$kind" = zram ] && pol=sync_free
	swap_on "$kind" 1000 || exit 1
	bench_ab prompt-free "$kind" "off on" --a "$pol=N" --b "$pol=Y" --pairs "$pairs" \
		--metric wall_s --memory-max "$ZSWB_BENCH_CG_MAX" --drop-caches -- \
		sh "$0" run || rc=1
	policy_off $pol
	swap_off
done
exit $rc
