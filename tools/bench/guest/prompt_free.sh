#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prompt-free benchmark, run in the VM by tools/bench/run.sh:
#   prompt_free.sh PAIRS KIND...
# For each KIND (disk = async virtio-blk, zram = sync, file = swap file on
# ext4), the same workload runs with the policy off and on, in PAIRS
# alternated pairs (off on, on off, ...), each run on fresh swap and a fresh
# memcg. An A/A pair (variant "aa", the policy off twice) runs first, to
# size the noise, unless ZSWB_BENCH_AA=0. One "RESULT kind variant iteration
# key=value..." line per run:
#   time_s                 wall time of the workload
#   cpu_s                  guest CPU time, all CPUs (/proc/stat user + nice +
#                          system + irq + softirq), and its parts user_s,
#                          sys_s, softirq_s, irq_s, idle_s, iowait_s
#   psi_some_us, psi_full_us  the memcg's memory.pressure totals
#   events_max             memory.events "max" of the memcg
#   pgscan, pgsteal, pgmajfault, zswpin, zswpout, ws_*  the memcg's
#                          memory.stat; the other counters are /proc/vmstat
#                          deltas and zswap_wb's debugfs counters
#   free_lat_lt_Nus        the module's free-latency histogram
#                          (free_latency_us): folios freed less than N us
#                          (and N/2 or more, but for N=2) after their
#                          writeback ended
. "$(dirname "$0")/lib.sh"
bench_config prompt-free
iters=${1:-$ZSWB_BENCH_PAIRS}
shift
SIZE=$ZSWB_BENCH_SIZE
CG_MAX=$ZSWB_BENCH_CG_MAX
PASSES=$ZSWB_BENCH_PASSES
VMSTAT_KEYS="pgrotated zswpwb pswpout pswpin workingset_refault_anon workingset_activate_anon swap_ra swap_ra_hit"

modprobe zswap_wb || exit 1
zswap_on

# cpu_delta "BEFORE" "AFTER": the CPU time figures of a run, in seconds.
cpu_delta() {
	echo "$1 $2" | awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '{
		for (i = 1; i <= 8; i++) d[i] = ($(i + 8) - $i) / hz
		printf "cpu_s=%.2f user_s=%.2f sys_s=%.2f irq_s=%.2f softirq_s=%.2f idle_s=%.2f iowait_s=%.2f",
			d[1] + d[2] + d[3] + d[6] + d[7] + d[8], d[1] + d[2], d[3], d[6], d[7], d[4], d[5]
	}'
}

cgevent() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$CG_ROOT/$1/memory.events"
}

one_run() {
	kind=$1 variant=$2 it=$3
	pol=async_free
	[ "$kind" = zram ] && pol=sync_free
	swap_on "$kind" 1000 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ "$variant" = on ] && set_param $pol 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new bench "$CG_MAX"
	for k in $VMSTAT_KEYS; do
		eval "a_$k=$(vmstat $k)"
	done
	c0=$(cpu_ticks)
	t0=$(uptime_s)
	failed=0
	cg_run bench thrash --size "$SIZE" --passes "$PASSES" > /tmp/out 2>&1 ||
		{ echo "# thrash failed, run left out: $(cat /tmp/out)"; failed=1; }
	t1=$(uptime_s)
	c1=$(cpu_ticks)
	swapcached=$(meminfo SwapCached)
	line="RESULT $kind $variant $it time_s=$(elapsed "$t0" "$t1")"
	line="$line $(cpu_delta "$c0" "$c1")"
	line="$line psi_some_us=$(psi bench some) psi_full_us=$(psi bench full) events_max=$(cgevent bench max)"
	for k in $VMSTAT_KEYS; do
		eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
	done
	line="$line pgscan=$(cgstat bench pgscan) pgsteal=$(cgstat bench pgsteal) swapcached_kb=$swapcached"
	line="$line pgmajfault=$(cgstat bench pgmajfault) zswpin=$(cgstat bench zswpin) zswpout=$(cgstat bench zswpout)"
	line="$line ws_refault=$(cgstat bench workingset_refault_anon) ws_activate=$(cgstat bench workingset_activate_anon) ws_restore=$(cgstat bench workingset_restore_anon)"
	line="$line freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) )) raced=$(wbstat raced)"
	line="$line work_runs=$(wbstat work_runs) requeued=$(wbstat requeued) queue_depth_max=$(wbstat queue_depth_max)"
	line="$line free_p50_us=$(wbstat free_latency_p50_us) free_p99_us=$(wbstat free_latency_p99_us) free_max_us=$(wbstat free_latency_max_us)"
	line="$line $(awk '{ printf "free_lat_lt_%dus=%d ", $1, $2 }' $ZSWB_DEBUGFS/free_latency_us)"
	[ "$failed" = 1 ] || echo "$line"
	cg_del bench
	policy_off $pol
	swap_off
}

if [ "$ZSWB_BENCH_AA" = 1 ]; then
	for kind in "$@"; do
		one_run "$kind" aa 0
		one_run "$kind" aa 1
		bench_rounds "$iters" "off on" "$kind"
	done
else
	bench_rounds "$iters" "off on" "$@"
fi
