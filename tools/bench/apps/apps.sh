#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Application benchmark, run in the Debian 12 guest by tools/bench/apps/run.sh
# from its payload directory (with lib.sh, guest.sh, config/, kbuild/ and
# redisgen beside it):
#
#   apps.sh ITERATIONS WORKLOAD...          WORKLOAD: build, redis, mariadb
#
# Workloads, each in a fresh memcg (memory.max and memory.zswap.max below),
# zswap on (lzo, zsmalloc, its shrinker on), THP madvise, on fresh swap:
#   build   make -j2 of part of the test kernel's own build (kbuild/, from
#           tools/bench/apps/kbuild.sh): gcc with kbuild's command lines,
#           the page cache dropped before each run; its result is build_s
#   redis   redis-server in the memcg loads KEYS values of SIZE bytes
#           (redisgen | redis-cli --pipe, load_s), then redis-benchmark,
#           outside the memcg, sends REQUESTS GETs of random keys from
#           CLIENTS connections: rps and its p50/p95/p99 latency in ms;
#           get_pswpin, get_zswpin, get_pswpout, get_zswpwb: the GETs' share
#           of the /proc/vmstat counters (with PIN=1 the server runs on
#           CPU 1, the clients on CPU 0; SETTLE s pass between the phases)
#   mariadb MariaDB (mariadbd, buffer pool DB_POOL) in the memcg; sysbench,
#           outside it, prepares DB_TABLES tables of DB_ROWS rows once a
#           boot; a run starts the server, fills the pool with DB_WARMUP s
#           of oltp_read_only (no limit yet), then times DB_TIME s of
#           oltp_read_write from DB_THREADS threads (fixed seed): tps,
#           avg_ms, p95_ms (latency of a transaction) and transactions
# Variants: on disk swap (virtio-blk) stock, async_free, skip_fault,
# skip_zswap_slots (readahead_policy), per_node (shrink_policy) and all
# (async_free, readahead_policy=skip_zswap_slots, shrink_policy=per_node);
# on zram zram-stock, zram-sync_free and zram-all (sync_free and per_node:
# readahead is never asked on zram). Every round runs each policy beside a
# stock run of its swap kind, the policy order rotating from round to round:
#   P1 stock P2 P3 stock P4 P5 stock    zP1 zram-stock zP2
# One "RESULT workload variant round key=value..." line per run:
#   build_s; load_s, rps, p50_ms, p95_ms, p99_ms; tps, avg_ms, p95_ms
#                the application's result
#   time_s       wall time of the measured part (build; load and GETs;
#                the read-write transactions)
#   cpu_s        guest CPU time of all CPUs from /proc/stat (user, nice,
#                system, irq, softirq, steal), user_s and sys_s its parts
#   psi_some_us, psi_full_us   the memcg's memory.pressure totals
#   peak_mb      the memcg's memory.peak, MiB
#   pgscan, pgsteal, zswpin, zswpout, ws_refault   the memcg's memory.stat
#   pgrotated, zswpwb, pswpin, pswpout, swap_ra, swap_ra_hit, thp_swpout
#                /proc/vmstat deltas
#   bypassed     pswpout - zswpwb: pages swapped out without zswap: large
#                folios (thp_swpout; 6.12's zswap takes none), stores over
#                memory.zswap.max that shrinking could not make room for
#                (store_rejects), poorly compressible pages (compress_poor)
#   freed, store_rejects, shrink_calls, ra_faults_alone  zswap_wb's counters
# Knobs: ZSWB_APPS_BUILD_*, _REDIS_*, _DB_* and _VARIANTS, in config/apps.conf
# (tools/bench/config/) with their defaults.
set -u
cd "$(dirname "$0")" || exit 1
here=$(pwd)
. ./lib.sh
bench_config apps

iters=${1:?iterations}
shift
BUILD_CG=$ZSWB_APPS_BUILD_CG
BUILD_ZSWAP=$ZSWB_APPS_BUILD_ZSWAP
REDIS_KEYS=$ZSWB_APPS_REDIS_KEYS
REDIS_SIZE=$ZSWB_APPS_REDIS_SIZE
REDIS_REQUESTS=$ZSWB_APPS_REDIS_REQUESTS
REDIS_CLIENTS=$ZSWB_APPS_REDIS_CLIENTS
REDIS_CG=$ZSWB_APPS_REDIS_CG
REDIS_ZSWAP=$ZSWB_APPS_REDIS_ZSWAP
REDIS_PIN=$ZSWB_APPS_REDIS_PIN
REDIS_SETTLE=$ZSWB_APPS_REDIS_SETTLE
DB_TABLES=$ZSWB_APPS_DB_TABLES
DB_ROWS=$ZSWB_APPS_DB_ROWS
DB_POOL=$ZSWB_APPS_DB_POOL
DB_THREADS=$ZSWB_APPS_DB_THREADS
DB_WARMUP=$ZSWB_APPS_DB_WARMUP
DB_TIME=$ZSWB_APPS_DB_TIME
DB_CG=$ZSWB_APPS_DB_CG
DB_ZSWAP=$ZSWB_APPS_DB_ZSWAP
DB_FLUSH=$ZSWB_APPS_DB_FLUSH
DB_SOCK=/run/mysqld/mysqld.sock
DISK_POLICIES="async_free skip_fault skip_zswap_slots per_node all"
ZRAM_POLICIES="zram-sync_free zram-all"
VMSTAT_KEYS="pgrotated zswpwb pswpin pswpout swap_ra swap_ra_hit thp_swpout"
failed=0

# cpu_delta "BEFORE" "AFTER": busy CPU seconds of all CPUs, and its parts.
cpu_delta() {
	echo "$1 $2" | awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '{
		for (i = 1; i <= 8; i++) d[i] = ($(i + 8) - $i) / hz
		printf "cpu_s=%.2f user_s=%.2f sys_s=%.2f",
			d[1] + d[2] + d[3] + d[6] + d[7] + d[8], d[1] + d[2], d[3] + d[6] + d[7]
	}'
}

zswap_stat() { cat "/sys/kernel/debug/zswap/$1" 2>/dev/null || echo 0; }

# variant_on VARIANT: the swap kind it runs on, its policies switched on.
variant_on() {
	case "$1" in
	stock|zram-stock) ;;
	async_free) set_param async_free 1 ;;
	skip_fault|skip_zswap_slots) set_param readahead_policy "$1" ;;
	per_node) set_param shrink_policy per_node ;;
	all)
		set_param async_free 1 && set_param readahead_policy skip_zswap_slots &&
			set_param shrink_policy per_node ;;
	zram-sync_free) set_param sync_free 1 ;;
	zram-all) set_param sync_free 1 && set_param shrink_policy per_node ;;
	*) echo "# unknown variant $1" >&2; return 1 ;;
	esac
}

# variants_off: every policy back to stock; the prompt-free ones wait for
# their folios in flight and leave a second for the writeback point to be
# disarmed (policy_off), so that no static key flips during the next run.
variants_off() {
	if [ "$(cat $ZSWB_PARAMS/async_free)" = Y ]; then policy_off async_free; fi
	if [ "$(cat $ZSWB_PARAMS/sync_free)" = Y ]; then policy_off sync_free; fi
	set_param readahead_policy stock
	set_param shrink_policy stock
}

# The workloads: set up (not measured), run (measured), clean up.
build_setup() {
	make -s -C "$here/kbuild/obj" clean
}

build_run() {
	local t0 t1
	t0=$(uptime_s)
	if ! cg_run bench make -s -C "$here/kbuild/obj" -j2 > /tmp/build.out 2>&1; then
		echo "# build failed:"
		tail -5 /tmp/build.out | sed 's/^/# /'
		failed=1
	fi
	t1=$(uptime_s)
	app="build_s=$(elapsed "$t0" "$t1")"
}

build_cleanup() { :; }

# pin N: the command prefix that runs on CPU N with ZSWB_APPS_REDIS_PIN=1
# (words, split on purpose where it is used unquoted).
pin() { [ "$REDIS_PIN" != 1 ] || echo "taskset -c $1"; }

redis_setup() {
	local i=0
	cg_run bench $(pin 1) redis-server --port 6379 --save '' --appendonly no \
		--protected-mode no --daemonize no > /tmp/redis.log 2>&1 &
	until redis-cli ping > /dev/null 2>&1; do
		[ $i -lt 300 ] || { echo "# redis-server did not start:"; sed 's/^/# /' /tmp/redis.log; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}

redis_run() {
	local t0 t1 t2 n csv g0 g1 g2 g3 g load
	t0=$(uptime_s)
	n=$("$here/redisgen" "$REDIS_KEYS" "$REDIS_SIZE" | $(pin 0) redis-cli --pipe 2>&1 |
		awk '/replies:/ { sub(/.*replies: */, ""); print $1 + 0 }')
	t1=$(uptime_s)
	load=$(elapsed "$t0" "$t1")
	[ "${n:-0}" = "$REDIS_KEYS" ] || { echo "# redis load: ${n:-no} replies, want $REDIS_KEYS"; failed=1; }
	[ "$REDIS_SETTLE" = 0 ] || sleep "$REDIS_SETTLE"
	# What the GETs alone swap in and out (get_*): the load's reclaim
	# still running in their time shows as get_pswpout and get_zswpwb.
	g0=$(vmstat pswpin) g1=$(vmstat zswpin) g2=$(vmstat pswpout) g3=$(vmstat zswpwb)
	t1=$(uptime_s)
	# --csv: "GET","rps","avg","min","p50","p95","p99","max" (ms).
	csv=$($(pin 0) redis-benchmark -t get -r "$REDIS_KEYS" -n "$REDIS_REQUESTS" -c "$REDIS_CLIENTS" --csv 2>/dev/null |
		awk -F'"' '$2 == "GET" { printf "rps=%s p50_ms=%s p95_ms=%s p99_ms=%s", $4, $10, $12, $14 }')
	t2=$(uptime_s)
	[ -n "$csv" ] || { echo "# redis-benchmark printed no GET result"; failed=1; }
	g="get_pswpin=$(( $(vmstat pswpin) - g0 )) get_zswpin=$(( $(vmstat zswpin) - g1 ))"
	g="$g get_pswpout=$(( $(vmstat pswpout) - g2 )) get_zswpwb=$(( $(vmstat zswpwb) - g3 ))"
	app="load_s=$load $csv get_s=$(elapsed "$t1" "$t2") $g"
}

redis_cleanup() {
	redis-cli shutdown nosave > /dev/null 2>&1
	return 0
}

# mariadb_start: mariadbd in memcg bench, its buffer pool DB_POOL, the
# binary log and performance schema off; returns when it answers.
mariadb_start() {
	local i=0
	mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
	cg_run bench mariadbd --no-defaults --user=mysql --datadir=/var/lib/mysql \
		--socket=$DB_SOCK --pid-file=/run/mysqld/mysqld.pid --skip-networking \
		--skip-log-bin --performance-schema=OFF --max-connections=64 \
		--innodb-buffer-pool-size="$DB_POOL" --innodb-buffer-pool-chunk-size=1M \
		--innodb-flush-log-at-trx-commit="$DB_FLUSH" \
		> /tmp/mariadb.log 2>&1 &
	until mariadb-admin --socket=$DB_SOCK ping > /dev/null 2>&1; do
		[ $i -lt 1200 ] || { echo "# mariadbd did not start:"; tail -5 /tmp/mariadb.log | sed 's/^/# /'; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}

mariadb_stop() {
	mariadb-admin --socket=$DB_SOCK shutdown > /dev/null 2>&1
	while [ -e /run/mysqld/mysqld.pid ]; do sleep 0.1; done
}

# sb TEST CMD [ARGS]: sysbench on the workload's tables, a fixed seed.
sb() {
	local t=$1
	shift
	sysbench "$t" --db-driver=mysql --mysql-socket=$DB_SOCK --mysql-user=root \
		--tables="$DB_TABLES" --table-size="$DB_ROWS" --rand-seed=1 "$@"
}

# mariadb_prepare: the tables, once a boot (not timed in a run).
mariadb_prepare() {
	local t0
	t0=$(uptime_s)
	cg_new bench max
	mariadb_start || return 1
	mariadb --socket=$DB_SOCK -e "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest" &&
		sb oltp_read_write --threads=2 prepare > /tmp/prepare.out 2>&1 ||
		{ echo "# sysbench prepare failed:"; tail -5 /tmp/prepare.out | sed 's/^/# /'; return 1; }
	mariadb_stop
	cg_del bench
	echo "# mariadb: $DB_TABLES tables of $DB_ROWS rows prepared in $(elapsed "$t0" "$(uptime_s)") s," \
		"$(du -sm /var/lib/mysql/sbtest | cut -f1) MiB"
}

# A run starts the server, fills its buffer pool with DB_WARMUP s of
# oltp_read_only (unlimited), then, the limit set, times DB_TIME s of
# oltp_read_write.
mariadb_setup() {
	mariadb_start || return 1
	sb oltp_read_only --threads="$DB_THREADS" --time="$DB_WARMUP" run > /tmp/warmup.out 2>&1 ||
		{ echo "# sysbench warm-up failed:"; tail -5 /tmp/warmup.out | sed 's/^/# /'; return 1; }
	echo "# mariadb: warm-up: $(awk '/transactions:/ { print $2 }' /tmp/warmup.out) transactions, memcg $(( $(cat "$CG_ROOT/bench/memory.current") >> 20 )) MiB"
}

# sysbench's report: "transactions: N (X per sec.)", "avg: MS",
# "95th percentile: MS".
mariadb_run() {
	sb oltp_read_write --threads="$DB_THREADS" --time="$DB_TIME" --percentile=95 run > /tmp/oltp.out 2>&1 ||
		{ echo "# sysbench run failed:"; tail -5 /tmp/oltp.out | sed 's/^/# /'; failed=1; }
	app=$(awk '/transactions:/ { sub(/\(/, "", $3); tx = $2; tps = $3 }
		/ avg:/ { avg = $2 } /95th percentile:/ { p95 = $3 }
		END { printf "tps=%s avg_ms=%s p95_ms=%s transactions=%s", tps, avg, p95, tx }' /tmp/oltp.out)
}

mariadb_cleanup() {
	mariadb_stop
}

one_run() {
	local wl=$1 variant=$2 it=$3 kind=disk cg zmax k line t0 t1 c0 c1
	case "$variant" in zram-*) kind=zram ;; esac
	case "$wl" in
	build) cg=$BUILD_CG zmax=$BUILD_ZSWAP ;;
	redis) cg=$REDIS_CG zmax=$REDIS_ZSWAP ;;
	mariadb) cg=$DB_CG zmax=$DB_ZSWAP ;;
	esac
	swap_on "$kind" 1000 || { echo "# $wl $variant $it: no $kind swap"; failed=1; return 1; }
	# Set up with no limit, then limit: every variant starts its
	# measured part from the same point.
	cg_new bench max
	"${wl}_setup" || { failed=1; cg_del bench; swap_off; return 1; }
	sync
	echo 3 > /proc/sys/vm/drop_caches
	variant_on "$variant" || { failed=1; cg_del bench; variants_off; swap_off; return 1; }
	echo 1 > $ZSWB_DEBUGFS/reset
	echo "$cg" > "$CG_ROOT/bench/memory.max"
	echo "$zmax" > "$CG_ROOT/bench/memory.zswap.max"
	for k in $VMSTAT_KEYS; do
		eval "a_$k=$(vmstat $k)"
	done
	a_poor=$(zswap_stat reject_compress_poor)
	c0=$(cpu_ticks)
	t0=$(uptime_s)
	"${wl}_run"
	t1=$(uptime_s)
	c1=$(cpu_ticks)
	line="RESULT $wl $variant $it $app time_s=$(elapsed "$t0" "$t1") $(cpu_delta "$c0" "$c1")"
	line="$line psi_some_us=$(psi bench some) psi_full_us=$(psi bench full)"
	line="$line peak_mb=$(( $(cat "$CG_ROOT/bench/memory.peak") >> 20 ))"
	for k in $VMSTAT_KEYS; do
		eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
	done
	line="$line bypassed=$(( $(vmstat pswpout) - a_pswpout - $(vmstat zswpwb) + a_zswpwb ))"
	line="$line compress_poor=$(( $(zswap_stat reject_compress_poor) - a_poor ))"
	for k in pgscan pgsteal zswpin zswpout pgmajfault; do
		line="$line $k=$(cgstat bench $k)"
	done
	line="$line ws_refault=$(cgstat bench workingset_refault_anon)"
	line="$line freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) )) raced=$(wbstat raced)"
	line="$line store_rejects=$(wbstat store_rejects)"
	line="$line shrink_calls=$(( $(wbstat shrink_calls_worker) + $(wbstat shrink_calls_store) ))"
	line="$line ra_faults_alone=$(wbstat ra_faults_alone) ra_zswap_slots_skipped=$(wbstat ra_zswap_slots_skipped)"
	echo "$line"
	"${wl}_cleanup"
	cg_del bench
	variants_off
	swap_off
}

# round WORKLOAD N: the runs of round N.
round() {
	local wl=$1 r=$2 seq="" i=0 p
	for p in $(rotate "$r" $DISK_POLICIES); do
		seq="$seq $p"
		# stock after the first of each pair, and last: P1 S P2 P3 S P4 P5 S
		case $i in 0|2|4) seq="$seq stock" ;; esac
		i=$((i + 1))
	done
	set -- $(rotate "$r" $ZRAM_POLICIES)
	seq="$seq $1 zram-stock $2"
	for p in $seq; do
		if [ -n "$ZSWB_APPS_VARIANTS" ]; then
			case " $ZSWB_APPS_VARIANTS " in *" $p "*) ;; *) continue ;; esac
		fi
		one_run "$wl" "$p" "$r"
	done
}

echo "# apps.sh: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo);" \
	"$(gcc --version | head -1); $(redis-server --version | cut -d' ' -f1-3)"
systemctl stop redis-server 2> /dev/null
modprobe zswap_wb || exit 1
zswap_on
# 6.12's zswap stores no large folio: with THP always (the test kernel's
# default), the build's huge pages would go to disk whole and the
# benchmark would measure disk swap. Redis asks for THP off too.
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo "# zswap: $(cat /sys/module/zswap/parameters/compressor) $(cat /sys/module/zswap/parameters/zpool)," \
	"THP $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)," \
	"max_pool_percent $(cat /sys/module/zswap/parameters/max_pool_percent); build: memory.max $BUILD_CG," \
	"zswap.max $BUILD_ZSWAP; redis: $REDIS_KEYS keys of $REDIS_SIZE B, $REDIS_REQUESTS GETs, memory.max $REDIS_CG," \
	"zswap.max $REDIS_ZSWAP; mariadb: $DB_TABLES x $DB_ROWS rows, pool $DB_POOL, $DB_THREADS threads," \
	"${DB_TIME} s, memory.max $DB_CG, zswap.max $DB_ZSWAP; $(mariadbd --version | cut -d' ' -f1-4); $(sysbench --version)"
for wl in "$@"; do
	case "$wl" in
	build|redis) ;;
	mariadb) mariadb_prepare || { failed=1; continue; } ;;
	*) echo "# unknown workload $wl" >&2; exit 64 ;;
	esac
	r=0
	while [ $r -lt "$iters" ]; do
		round "$wl" $r
		r=$((r + 1))
	done
done
exit $failed
