#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reclaim beside writeback on a slow swap device, run in the VM by
# tools/bench/run.sh:
#   throttle.sh PAIRS
# Stock's written-back folios wait on the inactive list under writeback
# with PG_reclaim, where shrink_folio_list() counts them (nr_writeback,
# nr_immediate) and reclaim may throttle on them; async_free keeps them
# off the LRU, where reclaim does not see them. Does reclaim then scan
# harder, and take other pages instead? The swap disk is a dm-delay device
# over /dev/vda that holds each write ZSWB_BENCH_THROTTLE_DELAY ms (reads
# are not held). A run: thrash walks ANON MiB of anonymous memory (fill,
# PASSES rewrites, RANDOM seconds of random writes, a read back), zswap
# writing back all along (the run's memory.zswap.max is small), while a
# reader reads FILE MiB of the NVMe disk (buffered: file pages of the run's
# memcg) over and over until thrash is done. One zswbctl ab per case,
# stock (A, async_free=N) against async_free=Y (B), an A/A pair then PAIRS
# pairs, each run in a fresh memcg of ab's:
#   memcg   memory.max ZSWB_BENCH_THROTTLE_CG_MAX: memcg reclaim
#   global  no memory.max, hugetlb pages taking all but FREE MiB of the
#           VM's free memory: kswapd and direct reclaim
# judged by the file refaults (cmd.refault_file: the file pages reclaim
# took that the reader needed again); every other metric is secondary.
# The run's own figures (cmd.NAME, /proc/vmstat deltas over the run):
# refault_file, refault_anon, pgscan_kswapd, pgscan_direct, pgsteal_file,
# pgsteal_anon, allocstall, oom_kill, zswpwb, pgrotated, nr_throttled
# (the run's reclaim_throttle() calls, from the vmscan:mm_vmscan_throttled
# tracepoint), file_rounds (the reader's passes over its file), time_s;
# ab adds the memcg's memory.events (oom, oom_kill), memory.stat and PSI.
. "$(dirname "$0")/lib.sh"
bench_config throttle
TRACE=/sys/kernel/tracing

# vmstat_line: the /proc/vmstat figures a run reports, one line.
VMKEYS="workingset_refault_file workingset_refault_anon pgscan_kswapd pgscan_direct pgsteal_file pgsteal_anon allocstall_normal allocstall_dma32 oom_kill zswpwb pgrotated"
vmstat_line() {
	awk -v keys="$VMKEYS" 'BEGIN { n = split(keys, k); for (i = 1; i <= n; i++) want[k[i]] = i }
		$1 in want { v[want[$1]] = $2 }
		END { for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), v[i] }' /proc/vmstat
}

# throttled: the vmscan:mm_vmscan_throttled events since the trace was
# cleared (a run clears it as it starts).
throttled() {
	grep -c mm_vmscan_throttled $TRACE/trace 2>/dev/null || echo 0
}

# run CASE: one run, in the memcg ab made for it.
run() {
	local anon=$ZSWB_BENCH_THROTTLE_ANON file=$ZSWB_BENCH_THROTTLE_FILE cg v0 v1 t0 t1 th job reader rounds
	if [ "$1" = memcg ]; then
		anon=$ZSWB_BENCH_THROTTLE_CG_ANON file=$ZSWB_BENCH_THROTTLE_CG_FILE
	fi
	cg=$CG_ROOT$(sed -n 's/^0:://p' /proc/self/cgroup)
	echo "$ZSWB_BENCH_THROTTLE_ZSWAP_MAX" > "$cg/memory.zswap.max" || return 1
	rm -f /tmp/throttle.rounds
	: > $TRACE/trace
	v0=$(vmstat_line)
	t0=$(uptime_s)
	(
		n=0
		while :; do
			dd if=/dev/nvme0n1 of=/dev/null bs=1M count="$file" 2>/dev/null
			n=$((n + 1))
			echo $n > /tmp/throttle.rounds
		done
	) &
	reader=$!
	thrash --size "$anon" --passes "$ZSWB_BENCH_THROTTLE_PASSES" \
		--random "$ZSWB_BENCH_THROTTLE_RANDOM" > /tmp/throttle.out 2>&1
	job=$?
	kill $reader 2>/dev/null
	wait $reader 2>/dev/null
	t1=$(uptime_s)
	v1=$(vmstat_line)
	th=$(throttled)
	rounds=$(cat /tmp/throttle.rounds 2>/dev/null || echo 0)
	if [ $job -ne 0 ] || grep -q 'mismatches [1-9]' /tmp/throttle.out; then
		echo "# thrash failed ($job): $(cat /tmp/throttle.out)"
		return 1
	fi
	ab_metrics $(echo "$v0 $v1" | awk -v th="$th" -v r="$rounds" -v t="$(elapsed "$t0" "$t1")" '{
		n = NF / 2
		for (i = 1; i <= n; i++) d[i] = $(i + n) - $i
		printf "refault_file=%d refault_anon=%d pgscan_kswapd=%d pgscan_direct=%d pgsteal_file=%d pgsteal_anon=%d allocstall=%d oom_kill=%d zswpwb=%d pgrotated=%d nr_throttled=%d file_rounds=%d time_s=%s",
			d[1], d[2], d[3], d[4], d[5], d[6], d[7] + d[8], d[9], d[10], d[11], th, r, t
	}')
}

if [ "${1:-}" = run ]; then
	run "$2"
	exit
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
modprobe zswap_wb || exit 1
modprobe dm-delay 2>/dev/null
zswap_on
swap_off
dm=$(dmctl create zswbslow /dev/vda "$ZSWB_BENCH_THROTTLE_DELAY") || exit 1
mkswap /dev/$dm > /dev/null && swapon /dev/$dm || exit 1
echo "# swap: /dev/$dm, dm-delay over /dev/vda, writes held $ZSWB_BENCH_THROTTLE_DELAY ms"
mount -t tracefs nodev $TRACE 2>/dev/null
echo 1 > $TRACE/events/vmscan/mm_vmscan_throttled/enable
echo 4096 > $TRACE/buffer_size_kb
rc=0
bench_ab throttle memcg "stock async" --a async_free=N --b async_free=Y \
	--pairs "$pairs" --metric cmd.refault_file --memory-max "$ZSWB_BENCH_THROTTLE_CG_MAX" \
	--drop-caches -- sh "$0" run memcg || rc=1
# The global case: hugetlb pages leave FREE MiB free.
free=$(( $(meminfo MemAvailable) / 1024 ))
echo $(( (free - ZSWB_BENCH_THROTTLE_FREE) / 2 )) > /proc/sys/vm/nr_hugepages
echo "# global: $(cat /proc/sys/vm/nr_hugepages) hugetlb pages of 2 MiB taken, $(( $(meminfo MemAvailable) / 1024 )) MiB available"
bench_ab throttle global "stock async" --a async_free=N --b async_free=Y \
	--pairs "$pairs" --metric cmd.refault_file \
	--drop-caches -- sh "$0" run global || rc=1
echo 0 > /proc/sys/vm/nr_hugepages
echo 0 > $TRACE/events/vmscan/mm_vmscan_throttled/enable
swapoff /dev/$dm
dmctl remove zswbslow
exit $rc
