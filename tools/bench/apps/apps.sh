#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Application benchmark, run in the Debian 12 guest by tools/bench/apps/run.sh
# from its payload directory (with lib.sh, guest.sh, config/, kbuild/,
# redisgen, zswbctl and workload.sh beside it):
#
#   apps.sh PAIRS COMPARISON...
#
# COMPARISON is WORKLOAD:KIND (WORKLOAD build, redis or mariadb; KIND disk
# or zram), or WORKLOAD for both kinds; run in the order given (run.sh
# splits them over two VMs). Each is one zswbctl ab (the tool users run):
# stock is side A, each policy of the kind a side after it; ab runs an
# A/A pair of stock, then PAIRS pairs in which every side runs once, each
# next to a stock run that is its partner (A B C A D E A F, then mirrored),
# after a warm-up run of stock that the report leaves out (the first MariaDB run
# after the tables are prepared was 16 to 24% slower than the others). Each
# run is workload.sh WORKLOAD KIND (which says what is run and measured)
# in a fresh cgroup of ab's, the side's settings set by ab. zswap is on
# (lzo, zsmalloc, its shrinker on), THP madvise.
# Variants (sides): on disk swap (virtio-blk) stock, async_free,
# skip_fault, skip_zswap_slots (readahead_policy), per_node (shrink_policy)
# and all (async_free, readahead_policy=skip_zswap_slots,
# shrink_policy=per_node); on zram zram-stock, zram-sync_free and zram-all
# (sync_free and per_node: readahead is never asked on zram).
# Printed per comparison: "ABSIDES WORKLOAD KIND LETTER=VARIANT...", ab's
# report (as "# " lines), and each line of its --csv as "ABCSV WORKLOAD
# KIND LINE", which tools/bench/report.py turns into the table.
# Knobs: ZSWB_APPS_BUILD_*, _REDIS_*, _DB_* and _VARIANTS, in config/apps.conf
# (tools/bench/config/) with their defaults.
set -u
cd "$(dirname "$0")" || exit 1
here=$(pwd)
. ./lib.sh
bench_config apps

pairs=${1:?pairs}
shift
failed=0
comps=$(apps_comparisons "$@") || exit 64
set -- $comps

# settings VARIANT: the zswbctl ab settings of a variant. Stock names every
# parameter a policy of its swap kind sets, so that A is stock whatever the
# module was left at.
settings() {
	case "$1" in
	stock) echo "async_free=N readahead_policy=stock shrink_policy=stock" ;;
	async_free) echo "async_free=Y" ;;
	skip_fault|skip_zswap_slots) echo "readahead_policy=$1" ;;
	per_node) echo "shrink_policy=per_node" ;;
	all) echo "async_free=Y readahead_policy=skip_zswap_slots shrink_policy=per_node" ;;
	zram-stock) echo "sync_free=N shrink_policy=stock" ;;
	zram-sync_free) echo "sync_free=Y" ;;
	zram-all) echo "sync_free=Y shrink_policy=per_node" ;;
	esac
}

# mariadb_prepare: the tables, once a boot (not timed in a run).
mariadb_prepare() {
	local t0 sock=/run/mysqld/mysqld.sock
	t0=$(uptime_s)
	cg_new bench max
	mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
	cg_run bench mariadbd --no-defaults --user=mysql --datadir=/var/lib/mysql \
		--socket=$sock --pid-file=/run/mysqld/mysqld.pid --skip-networking \
		--skip-log-bin --performance-schema=OFF > /tmp/mariadb.log 2>&1 &
	poll 120 mariadb_up $sock ||
		{ echo "# mariadbd did not start:"; tail -5 /tmp/mariadb.log | sed 's/^/# /'; return 1; }
	mariadb --socket=$sock -e "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest" &&
		sysbench oltp_read_write --db-driver=mysql --mysql-socket=$sock --mysql-user=root \
			--tables="$ZSWB_APPS_DB_TABLES" --table-size="$ZSWB_APPS_DB_ROWS" --rand-seed=1 \
			--threads=2 prepare > /tmp/prepare.out 2>&1 ||
		{ echo "# sysbench prepare failed:"; tail -5 /tmp/prepare.out | sed 's/^/# /'; return 1; }
	mariadb-admin --socket=$sock shutdown > /dev/null 2>&1
	poll 60 test ! -e /run/mysqld/mysqld.pid || echo "# mariadbd did not stop in 60 s"
	cg_del bench
	echo "# mariadb: $ZSWB_APPS_DB_TABLES tables of $ZSWB_APPS_DB_ROWS rows prepared in" \
		"$(elapsed "$t0" "$(uptime_s)") s, $(du -sm /var/lib/mysql/sbtest | cut -f1) MiB"
}

# primary WORKLOAD: the figure zswbctl ab judges each policy by, the one
# the application's users feel: the build's time, Redis's requests per
# second, MariaDB's transactions per second. The rest are secondary.
primary() {
	case "$1" in
	build) echo cmd.build_s ;;
	redis) echo cmd.rps ;;
	mariadb) echo cmd.tps ;;
	esac
}

# compare WORKLOAD KIND STOCK VARIANT...: one zswbctl ab, STOCK as side A
# and after it the VARIANTs that ZSWB_APPS_VARIANTS names; none when it
# names no VARIANT, or not STOCK (each policy is compared with stock); its
# report and runs on standard output. Sets failed (the script's exit
# status) when ab fails.
compare() {
	local wl=$1 kind=$2 v l n=0 sides="" out=/tmp/ab-$1-$2 rc
	local letters="a b c d e f g h"
	shift 2
	case " $ZSWB_APPS_VARIANTS " in
	*" $1 "*) ;;
	*) echo "# $wl $kind: ZSWB_APPS_VARIANTS leaves out $1: no comparison on $kind"; return 0 ;;
	esac
	set -- $(for v in "$@"; do
		case " $ZSWB_APPS_VARIANTS " in *" $v "*) echo "$v" ;; esac
	done)
	[ $# -ge 2 ] || return 0
	local args=()
	for v in "$@"; do
		n=$((n + 1))
		l=$(echo $letters | cut -d' ' -f$n)
		args+=("--$l" "$(settings "$v")")
		sides="$sides $(echo "$l" | tr a-z A-Z)=$v"
	done
	echo "ABSIDES $wl $kind$sides"
	# ab's stderr (the command's output and ab's own words) as it comes,
	# as comments; its report, on its stdout, after it.
	{
		"$here/zswbctl" ab --warmup --pairs "$pairs" --metric "$(primary "$wl")" \
			--csv "$out.csv" "${args[@]}" -- \
			bash "$here/workload.sh" "$wl" "$kind" 2>&1 > "$out.txt"
		echo $? > "$out.rc"
	} | sed -u 's/^\([^#]\)/# \1/'
	rc=$(cat "$out.rc")
	echo "# zswbctl ab $wl $kind: exit $rc"
	sed 's/^/# /' "$out.txt"
	[ -f "$out.csv" ] && sed "s/^/ABCSV $wl $kind /" "$out.csv"
	[ $rc -eq 0 ] || failed=1
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
	"max_pool_percent $(cat /sys/module/zswap/parameters/max_pool_percent); build: memory.max $ZSWB_APPS_BUILD_CG," \
	"zswap.max $ZSWB_APPS_BUILD_ZSWAP; redis: $ZSWB_APPS_REDIS_KEYS keys of $ZSWB_APPS_REDIS_SIZE B, $ZSWB_APPS_REDIS_REQUESTS GETs, memory.max $ZSWB_APPS_REDIS_CG," \
	"zswap.max $ZSWB_APPS_REDIS_ZSWAP; mariadb: $ZSWB_APPS_DB_TABLES x $ZSWB_APPS_DB_ROWS rows, pool $ZSWB_APPS_DB_POOL, $ZSWB_APPS_DB_THREADS threads," \
	"${ZSWB_APPS_DB_TIME} s, memory.max $ZSWB_APPS_DB_CG, zswap.max $ZSWB_APPS_DB_ZSWAP; $(mariadbd --version | cut -d' ' -f1-4); $(sysbench --version)"
# workload.sh leaves the memcg for this cgroup, where the clients run.
ZSWB_APPS_HOME_CG=$(sed -n 's|^0::/||p' /proc/self/cgroup)
export ZSWB_APPS_HOME_CG
prepared=0
for c in "$@"; do
	wl=${c%:*} kind=${c#*:}
	# The tables are prepared once a boot, before the first MariaDB run.
	if [ "$wl" = mariadb ] && [ $prepared = 0 ]; then
		mariadb_prepare || { failed=1; continue; }
		prepared=1
	fi
	sides=APPS_SIDES_$kind
	compare "$wl" "$kind" ${!sides}
done
exit $failed
