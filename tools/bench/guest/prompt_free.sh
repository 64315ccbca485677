#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prompt-free benchmark, run in the VM by tools/bench/run.sh:
#   prompt_free.sh ITERATIONS KIND...
# For each KIND (disk = async virtio-blk, zram = sync, file = swap file on
# ext4), the same workload runs with the policy off and on, alternated
# (off, on, on, off, ...), each on fresh swap and a fresh memcg. One
# "RESULT kind variant iteration key=value..." line per run.
. /selftests/lib.sh
iters=${1:-3}
shift
SIZE=${ZSWB_BENCH_SIZE:-300}
CG_MAX=${ZSWB_BENCH_CG_MAX:-100M}
PASSES=${ZSWB_BENCH_PASSES:-2}

modprobe zswap_wb || exit 1
zswap_on

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
	for k in pgrotated zswpwb pswpout pswpin workingset_refault_anon workingset_activate_anon; do
		eval "a_$k=$(vmstat $k)"
	done
	t0=$(cut -d' ' -f1 /proc/uptime)
	cg_run bench thrash --size "$SIZE" --passes "$PASSES" > /tmp/out 2>&1 || echo "# thrash failed: $(cat /tmp/out)"
	t1=$(cut -d' ' -f1 /proc/uptime)
	swapcached=$(meminfo SwapCached)
	line="RESULT $kind $variant $it time_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	for k in pgrotated zswpwb pswpout pswpin workingset_refault_anon workingset_activate_anon; do
		eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
	done
	line="$line pgscan=$(cgstat bench pgscan) pgsteal=$(cgstat bench pgsteal) swapcached_kb=$swapcached"
	line="$line freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) )) raced=$(wbstat raced) free_p99_us=$(wbstat free_latency_p99_us)"
	echo "$line"
	cg_del bench
	set_param $pol 0
	swap_off
}

bench_rounds "$iters" "off on" "$@"
