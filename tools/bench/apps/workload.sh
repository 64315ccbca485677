#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One run of an application workload: the command that apps.sh has
# zswbctl ab run, in the Debian guest, from the payload directory:
#
#   workload.sh WORKLOAD KIND          WORKLOAD: build, redis, mariadb
#                                      KIND: disk (virtio-blk) or zram
#
# zswbctl ab starts it in a fresh cgroup of its own, with the side's
# policy settings already set. The script takes that cgroup for the
# workload's memcg and moves itself (and so the clients it starts) back to
# the cgroup apps.sh runs in ($ZSWB_APPS_HOME_CG), so that only the
# application is charged and limited, as a server on a host is:
#   build   make -jBUILD_JOBS of part of the test kernel's build (kbuild/,
#           from tools/bench/apps/kbuild.sh), in the memcg: gcc with
#           kbuild's command lines, the page cache dropped before the run;
#           its result is build_s; overlap_s is the time two or more
#           compilers ran at once, and each object's start and end (s from
#           the build's start) go to the log as "# build schedule: OBJ
#           START END..."
#   redis   redis-server in the memcg loads KEYS values of SIZE bytes
#           (redisgen | redis-cli --pipe, load_s), then redis-benchmark,
#           outside the memcg, sends REQUESTS GETs of random keys from
#           CLIENTS connections: rps and its p50/p95/p99 latency in ms;
#           get_pswpin, get_zswpin, get_pswpout, get_zswpwb: the GETs' share
#           of the /proc/vmstat counters (with PIN=1 the server runs on
#           CPU 1, the clients on CPU 0; SETTLE s pass between the phases)
#   mariadb MariaDB (mariadbd, buffer pool DB_POOL) in the memcg, on the
#           tables apps.sh prepared; the run starts the server, fills the
#           pool with DB_WARMUP s of oltp_read_only from sysbench (outside
#           the memcg, no limit yet), then times DB_TIME s of
#           oltp_read_write from DB_THREADS threads (fixed seed): tps,
#           avg_ms, p95_ms (latency of a transaction) and transactions
# Each run swaps on fresh swap of KIND and sets its workload up with no
# limit; then, the page cache dropped, it sets the memcg's memory.max and
# memory.zswap.max (config/apps.conf) and measures, so that every side
# starts its measured part from the same point.
#
# What it measures goes to $ZSWBCTL_AB_METRICS, one "NAME VALUE" line each
# (zswbctl ab's metrics cmd.NAME), and, as "# WORKLOAD KIND: NAME=VALUE...",
# to standard output (the log):
#   build_s; load_s, rps, p50_ms, p95_ms, p99_ms; tps, avg_ms, p95_ms
#                the application's result
#   time_s       wall time of the measured part (build; load and GETs;
#                the read-write transactions)
#   cpu_s        guest CPU time of all CPUs from /proc/stat (user, nice,
#                system, irq, softirq, steal), user_s and sys_s its parts
#   psi_some_us, psi_full_us   the memcg's memory.pressure totals
#   peak_mb      the memcg's memory.peak, MiB
#   pgscan, pgsteal, zswpin, zswpout, pgmajfault, ws_refault   the memcg's
#                memory.stat
#   pgrotated, zswpwb, pswpin, pswpout, swap_ra, swap_ra_hit, thp_swpout
#                /proc/vmstat deltas of the measured part
#   bypassed     pswpout - zswpwb: pages swapped out without zswap: large
#                folios (thp_swpout; 6.12's zswap takes none), stores over
#                memory.zswap.max that shrinking could not make room for
#                (store_rejects), poorly compressible pages (compress_poor)
#   freed, raced, store_rejects, shrink_calls, ra_faults_alone,
#   ra_zswap_slots_skipped     zswap_wb's counters, deltas of the measured
#                part (from after the limit is set, as the vmstat deltas;
#                the reclaim the limit itself causes is in neither)
# Exits 0, or 1 when the workload failed (said on standard output).
set -u
cd "$(dirname "$0")" || exit 1
here=$(pwd)
. ./lib.sh
bench_config apps

wl=${1:?workload}
kind=${2:?swap kind}
REDIS_KEYS=$ZSWB_APPS_REDIS_KEYS
REDIS_PIN=$ZSWB_APPS_REDIS_PIN
DB_SOCK=/run/mysqld/mysqld.sock
VMSTAT_KEYS="pgrotated zswpwb pswpin pswpout swap_ra swap_ra_hit thp_swpout"
WB_KEYS="freed_sync freed_async raced store_rejects shrink_calls_worker shrink_calls_store"
WB_KEYS="$WB_KEYS ra_faults_alone ra_zswap_slots_skipped"
failed=0

# The memcg zswbctl ab made for this run, as a name under $CG_ROOT.
cg=$(sed -n 's|^0::/||p' /proc/self/cgroup)
case "$cg" in
zswbctl-ab.*/run-*) ;;
*) echo "# workload.sh: run by zswbctl ab, in a cgroup of its own (not '$cg')"; exit 1 ;;
esac
echo $$ > "$CG_ROOT/${ZSWB_APPS_HOME_CG:-}/cgroup.procs" ||
	{ echo "# workload.sh: cannot leave the memcg for '${ZSWB_APPS_HOME_CG:-}'"; exit 1; }

# cpu_delta "BEFORE" "AFTER": busy CPU seconds of all CPUs, and its parts.
cpu_delta() {
	echo "$1 $2" | awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '{
		for (i = 1; i <= 8; i++) d[i] = ($(i + 8) - $i) / hz
		printf "cpu_s=%.2f user_s=%.2f sys_s=%.2f",
			d[1] + d[2] + d[3] + d[6] + d[7] + d[8], d[1] + d[2], d[3] + d[6] + d[7]
	}'
}

zswap_stat() { cat "/sys/kernel/debug/zswap/$1" 2>/dev/null || echo 0; }

# pin N: the command prefix that runs on CPU N with ZSWB_APPS_REDIS_PIN=1
# (words, split on purpose where it is used unquoted).
pin() { [ "$REDIS_PIN" != 1 ] || echo "taskset -c $1"; }

# The workloads: set up (not measured), run (measured), clean up; each
# sets $app to its own results; a run that fails sets failed (the
# script's exit status) to 1.
build_setup() {
	make -s -C "$here/kbuild/obj" clean
	# make's shell for the build's recipes: runs each as /bin/sh would
	# and appends "OBJECT START END" (uptime) to /tmp/build.times.
	cat > /tmp/build.sh <<-'EOF'
	#!/bin/sh
	o=$(printf '%s\n' "$2" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
	read -r t0 _ < /proc/uptime
	/bin/sh "$@"
	rc=$?
	read -r t1 _ < /proc/uptime
	echo "${o:-?} $t0 $t1" >> /tmp/build.times
	exit $rc
	EOF
	chmod +x /tmp/build.sh
	: > /tmp/build.times
}

build_run() {
	local t0 t1
	t0=$(uptime_s)
	if ! cg_run "$cg" make -s -C "$here/kbuild/obj" -j"$ZSWB_APPS_BUILD_JOBS" \
			SHELL=/tmp/build.sh > /tmp/build.out 2>&1; then
		echo "# build failed:"
		tail -5 /tmp/build.out | sed 's/^/# /'
		failed=1
	fi
	t1=$(uptime_s)
	# overlap_s: the union of the instants when two or more objects were
	# being compiled.
	app="build_s=$(elapsed "$t0" "$t1") overlap_s=$(awk '{ print $2, 1; print $3, -1 }' /tmp/build.times |
		sort -k1,1n -k2,2n |
		awk '{ if (run >= 2) o += $1 - last; run += $2; last = $1 } END { printf "%.2f", o }')"
	echo "# build schedule:" $(awk -v t0="$t0" '{ printf "%s %.2f %.2f ", $1, $2 - t0, $3 - t0 }' /tmp/build.times)
}

build_cleanup() { :; }

# redis_up: redis-server answers.
redis_up() {
	redis-cli ping > /dev/null 2>&1
}

redis_setup() {
	cg_run "$cg" $(pin 1) redis-server --port 6379 --save '' --appendonly no \
		--protected-mode no --daemonize no > /tmp/redis.log 2>&1 &
	poll 30 redis_up ||
		{ echo "# redis-server did not start:"; sed 's/^/# /' /tmp/redis.log; return 1; }
}

redis_run() {
	local t0 t1 t2 n csv g0 g1 g2 g3 g load
	t0=$(uptime_s)
	n=$("$here/redisgen" "$REDIS_KEYS" "$ZSWB_APPS_REDIS_SIZE" | $(pin 0) redis-cli --pipe 2>&1 |
		awk '/replies:/ { sub(/.*replies: */, ""); print $1 + 0 }')
	t1=$(uptime_s)
	load=$(elapsed "$t0" "$t1")
	[ "${n:-0}" = "$REDIS_KEYS" ] || { echo "# redis load: ${n:-no} replies, want $REDIS_KEYS"; failed=1; }
	[ "$ZSWB_APPS_REDIS_SETTLE" = 0 ] || sleep "$ZSWB_APPS_REDIS_SETTLE"
	# What the GETs alone swap in and out (get_*): the load's reclaim
	# still running in their time shows as get_pswpout and get_zswpwb.
	g0=$(vmstat pswpin) g1=$(vmstat zswpin) g2=$(vmstat pswpout) g3=$(vmstat zswpwb)
	t1=$(uptime_s)
	# --csv: "GET","rps","avg","min","p50","p95","p99","max" (ms).
	csv=$($(pin 0) redis-benchmark -t get -r "$REDIS_KEYS" -n "$ZSWB_APPS_REDIS_REQUESTS" \
		-c "$ZSWB_APPS_REDIS_CLIENTS" --csv 2>/dev/null |
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

# mariadb_start: mariadbd in the memcg, its buffer pool DB_POOL, the
# binary log and performance schema off; returns when it answers.
mariadb_start() {
	mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
	cg_run "$cg" mariadbd --no-defaults --user=mysql --datadir=/var/lib/mysql \
		--socket=$DB_SOCK --pid-file=/run/mysqld/mysqld.pid --skip-networking \
		--skip-log-bin --performance-schema=OFF --max-connections=64 \
		--innodb-buffer-pool-size="$ZSWB_APPS_DB_POOL" --innodb-buffer-pool-chunk-size=1M \
		--innodb-flush-log-at-trx-commit="$ZSWB_APPS_DB_FLUSH" \
		> /tmp/mariadb.log 2>&1 &
	poll 120 mariadb_up $DB_SOCK ||
		{ echo "# mariadbd did not start:"; tail -5 /tmp/mariadb.log | sed 's/^/# /'; return 1; }
}

# mariadb_stop: a clean shutdown, waited for up to 60 s (the memcg is
# killed after the workload's cleanup in any case).
mariadb_stop() {
	mariadb-admin --socket=$DB_SOCK shutdown > /dev/null 2>&1
	poll 60 test ! -e /run/mysqld/mysqld.pid || echo "# mariadbd did not stop in 60 s"
}

# sb TEST CMD [ARGS]: sysbench on the workload's tables, a fixed seed.
sb() {
	local t=$1
	shift
	sysbench "$t" --db-driver=mysql --mysql-socket=$DB_SOCK --mysql-user=root \
		--tables="$ZSWB_APPS_DB_TABLES" --table-size="$ZSWB_APPS_DB_ROWS" --rand-seed=1 "$@"
}

mariadb_setup() {
	mariadb_start || return 1
	sb oltp_read_only --threads="$ZSWB_APPS_DB_THREADS" --time="$ZSWB_APPS_DB_WARMUP" run \
		> /tmp/warmup.out 2>&1 ||
		{ echo "# sysbench warm-up failed:"; tail -5 /tmp/warmup.out | sed 's/^/# /'; return 1; }
	echo "# mariadb: warm-up: $(awk '/transactions:/ { print $2 }' /tmp/warmup.out) transactions," \
		"memcg $(( $(cat "$CG_ROOT/$cg/memory.current") >> 20 )) MiB"
}

# sysbench's report: "transactions: N (X per sec.)", "avg: MS",
# "95th percentile: MS".
mariadb_run() {
	sb oltp_read_write --threads="$ZSWB_APPS_DB_THREADS" --time="$ZSWB_APPS_DB_TIME" \
		--percentile=95 run > /tmp/oltp.out 2>&1 ||
		{ echo "# sysbench run failed:"; tail -5 /tmp/oltp.out | sed 's/^/# /'; failed=1; }
	app=$(awk '/transactions:/ { sub(/\(/, "", $3); tx = $2; tps = $3 }
		/ avg:/ { avg = $2 } /95th percentile:/ { p95 = $3 }
		END { printf "tps=%s avg_ms=%s p95_ms=%s transactions=%s", tps, avg, p95, tx }' /tmp/oltp.out)
}

mariadb_cleanup() {
	mariadb_stop
}

case "$wl" in
build) max=$ZSWB_APPS_BUILD_CG zmax=$ZSWB_APPS_BUILD_ZSWAP ;;
redis) max=$ZSWB_APPS_REDIS_CG zmax=$ZSWB_APPS_REDIS_ZSWAP ;;
mariadb) max=$ZSWB_APPS_DB_CG zmax=$ZSWB_APPS_DB_ZSWAP ;;
*) echo "# workload.sh: unknown workload '$wl'"; exit 1 ;;
esac
case "$kind" in
disk|zram) ;;
*) echo "# workload.sh: unknown swap kind '$kind'"; exit 1 ;;
esac
# finish: the workload's cleanup, then whatever is left in the memcg
# killed (a server that did not start or stop), so that the next run
# starts clean and ab can remove the cgroup; then the swap off.
finish() {
	"${wl}_cleanup"
	cg_kill "$cg"
	[ "$wl" != mariadb ] || rm -f /run/mysqld/mysqld.pid
	swap_off
}

swap_on "$kind" 1000 || { echo "# $wl: no $kind swap"; exit 1; }
if ! "${wl}_setup"; then
	finish
	exit 1
fi
sync
echo 3 > /proc/sys/vm/drop_caches
echo "$max" > "$CG_ROOT/$cg/memory.max" && echo "$zmax" > "$CG_ROOT/$cg/memory.zswap.max" ||
	failed=1
for k in $VMSTAT_KEYS; do
	eval "a_$k=$(vmstat $k)"
done
for k in $WB_KEYS; do
	eval "w_$k=$(wbstat $k)"
done
a_poor=$(zswap_stat reject_compress_poor)
c0=$(cpu_ticks)
t0=$(uptime_s)
"${wl}_run"
t1=$(uptime_s)
c1=$(cpu_ticks)
for k in $WB_KEYS; do
	eval "w_$k=\$(( \$(wbstat $k) - w_$k ))"
done
line="$app time_s=$(elapsed "$t0" "$t1") $(cpu_delta "$c0" "$c1")"
line="$line psi_some_us=$(psi "$cg" some) psi_full_us=$(psi "$cg" full)"
line="$line peak_mb=$(( $(cat "$CG_ROOT/$cg/memory.peak") >> 20 ))"
for k in $VMSTAT_KEYS; do
	eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
done
line="$line bypassed=$(( $(vmstat pswpout) - a_pswpout - $(vmstat zswpwb) + a_zswpwb ))"
line="$line compress_poor=$(( $(zswap_stat reject_compress_poor) - a_poor ))"
for k in pgscan pgsteal zswpin zswpout pgmajfault; do
	line="$line $k=$(cgstat "$cg" $k)"
done
line="$line ws_refault=$(cgstat "$cg" workingset_refault_anon)"
line="$line freed=$((w_freed_sync + w_freed_async)) raced=$w_raced store_rejects=$w_store_rejects"
line="$line shrink_calls=$((w_shrink_calls_worker + w_shrink_calls_store))"
line="$line ra_faults_alone=$w_ra_faults_alone ra_zswap_slots_skipped=$w_ra_zswap_slots_skipped"
finish
echo "# $wl $kind: $line"
if [ -n "${ZSWBCTL_AB_METRICS:-}" ]; then
	echo "$line" | tr ' ' '\n' | sed -n 's/^\([a-z0-9_]*\)=\(..*\)$/\1 \2/p' > "$ZSWBCTL_AB_METRICS"
fi
exit $failed
