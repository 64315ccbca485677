#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shrinker benchmark, run in the VM by tools/bench/run.sh:
#   shrinker.sh ITERATIONS CASE...     CASE: case1, case2a, case2b
# Each case runs once per policy in every iteration, the policy order
# rotating between iterations, on fresh swap and a fresh memcg. The seed's
# test cases, scaled to a 2 GiB VM:
#   case1   pool limit (max_pool_percent=1): 100 MiB pushed into zswap
#           by memory.reclaim fills the pool, then one page every 2 ms
#           is pushed out; measured for TRICKLE seconds from the end of
#           the first shrink, so that every variant writes back about the
#           same (the seed's 40,212 and 40,241 pages)
#   case2a  pool limit (max_pool_percent=1): 4 random writers over
#           4 x 64 MiB in a 128M memcg for DURATION seconds
#   case2b  memory.zswap.max=32M (max_pool_percent=50): the same writers
# As in the seed, every case runs with zswap's own shrinker off (so that
# every writeback comes from shrink_memcg()) and accept_threshold_percent=50,
# beside 32 idle memcgs, which shrink_worker() walks round
# robin as it walks a host's services (see idle_memcgs in tools/vm/guest.sh).
# One "RESULT case policy iteration key=value..." line per run.
. "$(dirname "$0")/lib.sh"
bench_config shrinker
iters=${1:-$ZSWB_BENCH_ITER}
shift
DURATION=$ZSWB_BENCH_DURATION
TRICKLE=$ZSWB_BENCH_TRICKLE
POLICIES="stock carry split per_node local_first"
P=/sys/module/zswap/parameters

modprobe zswap_wb || exit 1
idle_memcgs 32 || exit 1

zs() { cat /sys/kernel/debug/zswap/"$1"; }

# shrink_worker() runs (the seed's "shrink_worker wakeups") are the hit
# count of a kprobe on it; without kprobe events, the column is left out.
TR=/sys/kernel/tracing
[ -e $TR/kprobe_events ] || mount -t tracefs tracefs $TR 2>/dev/null
runs=0
if echo 'p:zswb/shrink_worker shrink_worker' >> $TR/kprobe_events 2>/dev/null; then
	echo 0 > $TR/tracing_on
	echo 1 > $TR/events/zswb/shrink_worker/enable && runs=1
fi
worker_runs() { awk '$1 == "shrink_worker" { print $2 }' $TR/kprobe_profile; }

# snapshot: the start of the measurement.
snapshot() {
	echo 1 > $ZSWB_DEBUGFS/reset
	for k in zswpwb zswpout zswpin pswpout pswpin; do
		eval "a_$k=$(vmstat $k)"
	done
	a_plh=$(zs pool_limit_hit)
	[ $runs = 0 ] || a_runs=$(worker_runs)
	t0=$(uptime_s)
}

one_run() {
	case=$1 pol=$2 it=$3
	swap_on disk 1500 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	zswap_on
	echo 50 > $P/accept_threshold_percent
	echo N > $P/shrinker_enabled
	set_param shrink_policy "$pol"
	cg_new bench max
	case $case in
	case1)
		echo 1 > $P/max_pool_percent ;;
	case2a)
		echo 1 > $P/max_pool_percent
		echo 128M > $CG_ROOT/bench/memory.max ;;
	case2b)
		echo 50 > $P/max_pool_percent
		echo 128M > $CG_ROOT/bench/memory.max
		echo 32M > $CG_ROOT/bench/memory.zswap.max ;;
	esac
	if [ $case = case1 ]; then
		# The seed's setup: 100 MiB pushed out at once fills the pool
		# past its limit; then one page every 2 ms, each compressing to
		# about 3.5 KiB (the seed's pages were incompressible, which
		# 6.12's zswap rejects), keeps it at the limit.
		cg_run bench thrash --size 100 --passes 0 --hold 3600 > /tmp/fill.out 2>&1 &
		while ! grep -q filled /tmp/fill.out; do sleep 0.2; done
		echo 100M > $CG_ROOT/bench/memory.reclaim 2>/dev/null
		cg_run bench trickle $((TRICKLE + 120)) 2000 $CG_ROOT/bench/memory.reclaim 3584 > /tmp/out 2>&1 &
		# Measure the steady state only: from the end of the first
		# shrink (the pool back near the accept threshold), when every
		# variant is at the same point of the cycle.
		near=$(awk -v max=$(cat $P/max_pool_percent) \
			-v acc=$(cat $P/accept_threshold_percent) '/^MemTotal/ {
			printf "%d", $2 * 1024 * max / 100 * (acc + 5) / 100 }' /proc/meminfo)
		n=0
		while [ "$(zs pool_total_size)" -ge "$near" ]; do
			[ $n -lt 600 ] || { echo "# $case $pol $it: no shrink in 60 s"; break; }
			sleep 0.1
			n=$((n + 1))
		done
		snapshot
		sleep "$TRICKLE"
		cg_kill bench
		wait
	else
		snapshot
		for w in 1 2 3 4; do
			cg_run bench thrash --size 64 --passes 0 --random "$DURATION" > /tmp/out.$w 2>&1 &
		done
		wait
		grep -h mismatches /tmp/out.* | grep -v "mismatches 0" | sed 's/^/# thrash: /'
	fi
	t1=$(uptime_s)
	w0=$(wbstat shrink_written_node0) w1=$(wbstat shrink_written_node1)
	cw=$(wbstat shrink_calls_worker) cs=$(wbstat shrink_calls_store)
	line="RESULT $case $pol $it time_s=$(elapsed "$t0" "$t1")"
	line="$line shrink_calls=$((cw + cs)) shrink_calls_worker=$cw shrink_calls_store=$cs"
	[ $runs = 0 ] || line="$line shrink_worker_runs=$(( $(worker_runs) - a_runs ))"
	wb=$(( $(vmstat zswpwb) - a_zswpwb ))
	zo=$(( $(vmstat zswpout) - a_zswpout ))
	po=$(( $(vmstat pswpout) - a_pswpout ))
	rej=$((po - wb))
	line="$line written_back=$wb zswpout=$zo pswpout=$po pswpin=$(( $(vmstat pswpin) - a_pswpin ))"
	line="$line store_rejects=$rej reject_rate_pct=$(awk -v r=$rej -v s=$zo 'BEGIN { printf "%.2f", r + s ? 100 * r / (r + s) : 0 }')"
	line="$line pool_limit_hit=$(( $(zs pool_limit_hit) - a_plh )) shrink_store_rejects=$(wbstat store_rejects)"
	line="$line shrink_enoent=$(wbstat shrink_enoent) shrink_eagain=$(wbstat shrink_eagain)"
	line="$line node0_written=$w0 node1_written=$w1"
	# Calls per page written back: the cost of the writeback, whatever
	# amount each variant got done in the same time.
	line="$line calls_per_written=$(awk -v c=$((cw + cs)) -v w=$((w0 + w1)) 'BEGIN { printf "%.3f", w ? c / w : 0 }')"
	line="$line node_share_pct=$(awk -v a=$w0 -v b=$w1 'BEGIN { m = a < b ? a : b; printf "%.1f", a + b ? 100 * m / (a + b) : 0 }')"
	echo "$line"
	cg_del bench
	echo 20 > $P/max_pool_percent
	echo 90 > $P/accept_threshold_percent
	echo Y > $P/shrinker_enabled
	set_param shrink_policy stock
	swap_off
}

bench_rounds "$iters" "$POLICIES" "$@"
