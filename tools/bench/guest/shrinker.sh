#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shrinker benchmark, run in the VM by tools/bench/run.sh:
#   shrinker.sh PAIRS CASE...     CASE: case1, case2a, case2b
# For each CASE one zswbctl ab: shrink_policy stock (A) against every other
# policy the module offers (B, C, ...), an A/A pair then PAIRS pairs (with
# ZSWB_BENCH_SHRINK_PRECISION but off, 6 pairs and more until the primary
# metric's interval is that narrow, at most PAIRS), each
# policy's run next to a stock run, each run in a fresh memcg of ab's after
# the page cache is dropped, on disk swap. The primary metric is the
# share of stores rejected (cmd.reject_rate_pct: zswap_store() calls that
# returned false, of all); every other metric and every side after B are
# secondary. The seed's test cases, scaled to a 2 GiB VM:
#   case1   pool limit (max_pool_percent=1): 100 MiB pushed into zswap
#           by memory.reclaim fills the pool, then one page every 2 ms
#           is pushed out; measured from the end of the first shrink
#           (or, with ZSWB_BENCH_CASE1_START=push, from right after the
#           push) until CASE1_PAGES pages have been written back (at most
#           TRICKLE seconds), so that every variant does the same work
#           (the seed's 40,212 and 40,241 pages)
#   case2a  pool limit (max_pool_percent=1): 4 random writers over
#           4 x 64 MiB in a 128M memcg for DURATION seconds
#   case2b  memory.zswap.max=32M (max_pool_percent=50): the same writers
# As in the seed, every case runs with zswap's own shrinker off (so that
# every writeback comes from shrink_memcg()) and accept_threshold_percent=50,
# beside 32 idle memcgs, which shrink_worker() walks round
# robin as it walks a host's services (see idle_memcgs in tools/vm/guest.sh).
# Each run is "shrinker.sh run CASE", whose own figures (cmd.NAME) are
# those of its measured part: time_s, written_back, zswpout, pswpout,
# pswpin, shrink_worker_runs (a kprobe's hits), the module's shrink_*
# counters, calls_per_written and node_share_pct. Rejected stores are
# counted where they happen: zswap_rejects is the number of zswap_store()
# calls that returned false (a kretprobe's events, filtered on the return
# value, in a trace instance of their own), with zswap's reject_* and
# pool_limit_hit counters beside it (pool_limit_hit counts the stores over
# the limit; those rejected between the limit and the accept threshold
# have no counter of their own) and the module's store_rejects (stores
# rejected because shrink_memcg() failed).
. "$(dirname "$0")/lib.sh"
bench_config shrinker
DURATION=$ZSWB_BENCH_DURATION
TRICKLE=$ZSWB_BENCH_TRICKLE
CASE1_PAGES=$ZSWB_BENCH_CASE1_PAGES
ZS_REJECTS="reject_reclaim_fail reject_alloc_fail reject_kmemcache_fail reject_compress_fail reject_compress_poor"
P=/sys/module/zswap/parameters
TR=/sys/kernel/tracing
# zswap_store() returning false, in an instance with its own buffer.
TI=$TR/instances/zswb_rejects
# The module's counters a run reports as its own, over its measured part.
WB_KEYS="shrink_calls_worker shrink_calls_store store_rejects shrink_enoent shrink_eagain shrink_written_node0 shrink_written_node1"

# The counters are read from these files: the live ones, or case1's copies
# of them taken at the moment it stopped (wbuntil). live sets S_VM, S_WB,
# S_ZS, S_KP and S_UP to the live ones; run, to the copies.
live() {
	S_VM=/proc/vmstat S_WB=$ZSWB_DEBUGFS/stats S_ZS=/sys/kernel/debug/zswap
	S_KP=$TR/kprobe_profile S_UP=/proc/uptime
}
zs() { cat "$S_ZS/$1"; }
vm() { kv "$S_VM" "$1"; }
wbs() { kv "$S_WB" "$1"; }
# pool_below BYTES: zswap's pool is smaller than BYTES.
pool_below() { [ "$(zs pool_total_size)" -lt "$1" ]; }
worker_runs() { kv "$S_KP" shrink_worker; }

# store_rejected: the zswap_store() calls that returned false since the
# snapshot; -1 if the buffer overran (some were lost).
store_rejected() {
	if grep -q "overrun: [1-9]" $TI/per_cpu/cpu*/stats; then
		echo -1
	else
		grep -c "store_ret:" $TI/trace
	fi
}

# snapshot: the start of the measurement: sets t0, and the a_ and b_
# counters that result subtracts.
snapshot() {
	local k
	for k in zswpwb zswpout zswpin pswpout pswpin; do
		eval "a_$k=$(vm $k)"
	done
	for k in $WB_KEYS; do
		eval "b_$k=$(wbs $k)"
	done
	a_plh=$(zs pool_limit_hit)
	for k in $ZS_REJECTS; do
		eval "a_$k=$(zs $k)"
	done
	[ $rejects = 0 ] || { : > $TI/trace; echo 1 > $TI/tracing_on; }
	[ $runs = 0 ] || a_runs=$(worker_runs)
	t0=$(uptime_s)
}

# result: the run's figures for ab, its counters read now (t1 set).
result() {
	local line wb zo po plh rej=0 w0 w1 cw cs k
	[ $rejects = 0 ] || echo 0 > $TI/tracing_on
	wb=$(( $(vm zswpwb) - a_zswpwb ))
	zo=$(( $(vm zswpout) - a_zswpout ))
	po=$(( $(vm pswpout) - a_pswpout ))
	plh=$(( $(zs pool_limit_hit) - a_plh ))
	[ $rejects = 0 ] || rej=$(store_rejected)
	line="time_s=$(elapsed "$t0" "$t1")"
	[ $runs = 0 ] || line="$line shrink_worker_runs=$(( $(worker_runs) - a_runs ))"
	line="$line written_back=$wb zswpout=$zo pswpout=$po pswpin=$(( $(vm pswpin) - a_pswpin ))"
	if [ $rejects = 1 ] && [ "$rej" -ge 0 ]; then
		line="$line zswap_rejects=$rej reject_rate_pct=$(awk -v r="$rej" -v s=$zo 'BEGIN { printf "%.2f", r + s ? 100 * r / (r + s) : 0 }')"
	fi
	[ "$rej" -ge 0 ] || echo "# $case: the reject trace overran, zswap_rejects left out"
	line="$line pool_limit_hit=$plh"
	for k in $ZS_REJECTS; do
		eval "line=\"\$line $k=\$(( \$(zs $k) - a_$k ))\""
	done
	w0=$(( $(wbs shrink_written_node0) - b_shrink_written_node0 ))
	w1=$(( $(wbs shrink_written_node1) - b_shrink_written_node1 ))
	cw=$(( $(wbs shrink_calls_worker) - b_shrink_calls_worker ))
	cs=$(( $(wbs shrink_calls_store) - b_shrink_calls_store ))
	line="$line shrink_calls=$((cw + cs)) shrink_calls_worker=$cw shrink_calls_store=$cs"
	for k in store_rejects shrink_enoent shrink_eagain; do
		eval "line=\"\$line $k=\$(( \$(wbs $k) - b_$k ))\""
	done
	line="$line node0_written=$w0 node1_written=$w1"
	# Calls per page written back: the cost of the writeback, whatever
	# amount each variant got done in the same time.
	line="$line calls_per_written=$(awk -v c=$((cw + cs)) -v w=$((w0 + w1)) 'BEGIN { printf "%.3f", w ? c / w : 0 }')"
	line="$line node_share_pct=$(awk -v a=$w0 -v b=$w1 'BEGIN { m = a < b ? a : b; printf "%.1f", a + b ? 100 * m / (a + b) : 0 }')"
	ab_metrics $line
}

# run CASE: one run of CASE, in the memcg ab made for it (with its
# memory.max and memory.zswap.max); the zswap parameters are the case's.
# Sets case, runs and rejects (the trace events on), t1 and the S_ files
# (live), which snapshot and result read.
run() {
	local cg fill trickle near files stop w k
	case=$1
	cg=$CG_ROOT$(sed -n 's|^0::||p' /proc/self/cgroup)
	runs=0 rejects=0
	[ "$(cat $TR/events/zswb/shrink_worker/enable 2>/dev/null)" != 1 ] || runs=1
	[ "$(cat $TI/events/zswb/store_ret/enable 2>/dev/null)" != 1 ] || rejects=1
	live
	if [ "$case" != case1 ]; then
		snapshot
		for w in 1 2 3 4; do
			thrash --size 64 --passes 0 --random "$DURATION" > /tmp/out.$w 2>&1 &
		done
		wait
		grep -h mismatches /tmp/out.* | grep -v "mismatches 0" | sed 's/^/# thrash: /'
		t1=$(uptime_s)
		result
		return
	fi
	# The seed's setup: 100 MiB pushed out at once fills the pool past
	# its limit; then one page every 2 ms, each compressing to about
	# 3.5 KiB (the seed's pages were incompressible, which 6.12's zswap
	# rejects), keeps it at the limit.
	rm -f /tmp/fill.out
	thrash --size 100 --passes 0 --hold 3600 > /tmp/fill.out 2>&1 &
	fill=$!
	thrash_filled /tmp/fill.out $fill 600 ||
		{ echo "# $case: thrash did not fill its memory in 600 s: $(cat /tmp/fill.out)"; kill $fill; return 1; }
	echo 100M > "$cg/memory.reclaim" 2>/dev/null
	trickle $((TRICKLE + 120)) 2000 "$cg/memory.reclaim" 3584 > /tmp/out 2>&1 &
	trickle=$!
	# Measure the steady state only: from the end of the first shrink
	# (the pool back near the accept threshold), when every variant is
	# at the same point of the cycle.
	near=$(awk -v max=$(cat $P/max_pool_percent) \
		-v acc=$(cat $P/accept_threshold_percent) '/^MemTotal/ {
		printf "%d", $2 * 1024 * max / 100 * (acc + 5) / 100 }' /proc/meminfo)
	[ "$ZSWB_BENCH_CASE1_START" != shrink ] || poll 60 pool_below "$near" ||
		echo "# $case: no shrink in 60 s"
	snapshot
	# Then until CASE1_PAGES pages have been written back: wbuntil polls
	# zswpwb every millisecond and copies the counters the moment it gets
	# there (a batched policy writes back a pool's worth within a shell
	# loop's poll).
	rm -rf /tmp/stop && mkdir /tmp/stop
	stop=/dev/null
	[ $rejects = 0 ] || stop=$TI/tracing_on
	files="/proc/uptime /proc/vmstat $ZSWB_DEBUGFS/stats"
	[ $runs = 0 ] || files="$files $TR/kprobe_profile"
	for k in pool_limit_hit $ZS_REJECTS; do
		files="$files /sys/kernel/debug/zswap/$k"
	done
	wbuntil "$CASE1_PAGES" "$TRICKLE" $stop /tmp/stop $files > /tmp/wbuntil.out ||
		echo "# $case: $(cat /tmp/wbuntil.out) of $CASE1_PAGES pages in $TRICKLE s"
	S_VM=/tmp/stop/vmstat S_WB=/tmp/stop/stats S_ZS=/tmp/stop
	S_KP=/tmp/stop/kprobe_profile S_UP=/tmp/stop/uptime
	t1=$(cut -d' ' -f1 $S_UP)
	result
	live
	kill $trickle $fill
	wait
}

if [ "${1:-}" = run ]; then
	run "$2"
	exit
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
shift
# The cases are checked before anything is set up.
[ $# -gt 0 ] || { echo "shrinker.sh: no case (ZSWB_BENCH_SHRINK_CASES: case1, case2a, case2b)" >&2; exit 64; }
for c in "$@"; do
	case $c in
	case1|case2a|case2b) ;;
	*) echo "ZSWB_BENCH_SHRINK_CASES: no case $c (case1, case2a, case2b)" >&2; exit 64 ;;
	esac
done
modprobe zswap_wb || exit 1
# Every shrink policy the loaded module offers, in its order (debugfs
# schema): a policy added to the module is benchmarked with no edit here.
POLICIES=$(param_schema shrink_policy values)
[ -n "$POLICIES" ] || { echo "no shrink_policy in the module's schema" >&2; exit 1; }
POLICIES=$(echo $POLICIES)
want=$(echo $ZSWB_BENCH_SHRINK_POLICIES)
if [ -n "$want" ]; then
	seen=" "
	for p in $want; do
		case " $POLICIES " in
		*" $p "*) ;;
		*) echo "ZSWB_BENCH_SHRINK_POLICIES: no shrink_policy $p (the module has: $POLICIES)" >&2; exit 64 ;;
		esac
		case "$seen" in
		*" $p "*) echo "ZSWB_BENCH_SHRINK_POLICIES: $p named twice" >&2; exit 64 ;;
		esac
		seen="$seen$p "
	done
	POLICIES=$want
elif [ -n "$ZSWB_BENCH_SHRINK_POLICIES" ]; then
	echo "ZSWB_BENCH_SHRINK_POLICIES: no policy in '$ZSWB_BENCH_SHRINK_POLICIES'" >&2; exit 64
fi
# stock is side A, whatever the order asked.
case " $POLICIES " in
*" stock "*) POLICIES="stock $(echo " $POLICIES " | sed 's/ stock / /')" ;;
*) echo "ZSWB_BENCH_SHRINK_POLICIES: stock is the baseline, and is not in '$POLICIES'" >&2; exit 64 ;;
esac
POLICIES=$(echo $POLICIES)
[ "$POLICIES" != stock ] || { echo "ZSWB_BENCH_SHRINK_POLICIES: stock alone compares nothing" >&2; exit 64; }
case $ZSWB_BENCH_CASE1_START in
shrink|push) ;;
*) echo "ZSWB_BENCH_CASE1_START: shrink or push, not $ZSWB_BENCH_CASE1_START" >&2; exit 64 ;;
esac
echo "# shrinker.sh: policies $POLICIES; case1 from the $ZSWB_BENCH_CASE1_START, until $CASE1_PAGES pages or $TRICKLE s"
idle_memcgs 32 || exit 1

# shrink_worker() runs (the seed's "shrink_worker wakeups") are the hit
# count of a kprobe on it; without kprobe events, the figure is left out.
[ -e $TR/kprobe_events ] || mount -t tracefs tracefs $TR 2>/dev/null
if echo 'p:zswb/shrink_worker shrink_worker' >> $TR/kprobe_events 2>/dev/null; then
	echo 0 > $TR/tracing_on
	echo 1 > $TR/events/zswb/shrink_worker/enable
fi
if ! { echo 'r:zswb/store_ret zswap_store ret=$retval:u8' >> $TR/kprobe_events 2>/dev/null &&
	mkdir -p $TI && echo 8192 > $TI/buffer_size_kb &&
	echo 'ret == 0' > $TI/events/zswb/store_ret/filter &&
	echo 1 > $TI/events/zswb/store_ret/enable && echo 0 > $TI/tracing_on; }; then
	echo "# no kretprobe on zswap_store(): zswap_rejects and reject_rate_pct left out"
fi

swap_on disk 1500 || exit 1
zswap_on
echo 50 > $P/accept_threshold_percent
echo N > $P/shrinker_enabled
rc=0
for c in "$@"; do
	set --
	case $c in
	case1) echo 1 > $P/max_pool_percent; set -- "$@" --memory-max max ;;
	case2a) echo 1 > $P/max_pool_percent; set -- "$@" --memory-max 128M ;;
	case2b) echo 50 > $P/max_pool_percent; set -- "$@" --memory-max 128M --zswap-max 32M ;;
	esac
	if [ "$ZSWB_BENCH_SHRINK_PRECISION" != off ] && [ "$pairs" -gt 6 ]; then
		set -- "$@" --pairs 6 --precision "$ZSWB_BENCH_SHRINK_PRECISION%" --max-pairs "$pairs"
	else
		set -- "$@" --pairs "$pairs"
	fi
	bench_ab_values "$c" disk shrink_policy "$POLICIES" "" "$@" --metric cmd.reject_rate_pct \
		--drop-caches -- sh "$0" run "$c" || rc=1
done
echo 20 > $P/max_pool_percent
echo 90 > $P/accept_threshold_percent
echo Y > $P/shrinker_enabled
set_param shrink_policy stock
swap_off
exit $rc
