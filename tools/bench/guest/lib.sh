#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the benchmarks, sourced inside the test VM (and by apps.sh in
# the Debian guest) from the directory of the script that sources it,
# beside the ones every guest script shares (tools/vm/guest.sh).

. "$(dirname "$0")/guest.sh"

# bench_config NAME: the knobs of make bench (config/common.conf) and of
# the benchmark NAME (config/NAME.conf), as the environment sets them or at
# their defaults; the host driver reads the same files.
bench_config() {
	. "$(dirname "$0")/config/common.conf"
	. "$(dirname "$0")/config/$1.conf"
}

# uptime_s: seconds since boot, to time a run.
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# elapsed T0 T1: the seconds from T0 to T1 (uptime_s), to two decimals.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# psi CG some|full: the total stall time in us of a memcg's memory.pressure.
psi() {
	awk -v k="$2" '$1 == k { for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { sub(/total=/, "", $i); print $i } }' \
		"$CG_ROOT/$1/memory.pressure" 2>/dev/null || echo 0
}

# bench_ab GROUP KIND "VARIANT..." AB_OPTION... -- CMD...: one zswbctl ab
# of CMD, the benchmark's comparison in GROUP on swap KIND: the first
# VARIANT names side A, the next B and so on, their settings given by the
# AB_OPTIONs (--a SETTINGS --b SETTINGS ...), after a warm-up run (the
# first run after boot is the slow one) that the report leaves out. Prints
# "ABSIDES GROUP KIND A=VARIANT B=VARIANT...", ab's words and the
# command's output as "# " lines as they come, ab's report as "# " lines,
# and each line of its --csv as "ABCSV GROUP KIND LINE": tools/bench/
# report.py reports on those again, with zswbctl ab --from-csv. Returns
# ab's exit code.
bench_ab() {
	local group=$1 kind=$2 names=$3 out=/tmp/ab-$1-$2 sides="" n=0 v rc
	shift 3
	for v in $names; do
		n=$((n + 1))
		sides="$sides $(echo A B C D E F G H | cut -d' ' -f$n)=$v"
	done
	echo "ABSIDES $group $kind$sides"
	rm -f "$out.csv"
	{
		zswbctl ab --warmup --csv "$out.csv" "$@" 2>&1 > "$out.txt"
		echo $? > "$out.rc"
	} | sed 's/^\([^#]\)/# \1/'
	rc=$(cat "$out.rc")
	echo "# zswbctl ab $group $kind: exit $rc"
	sed 's/^/# /' "$out.txt"
	[ -f "$out.csv" ] && sed "s/^/ABCSV $group $kind /" "$out.csv"
	return "$rc"
}

# bench_ab_values GROUP KIND PARAM "VALUE..." EXTRA AB_OPTION... -- CMD...:
# bench_ab with a side per VALUE of the module parameter PARAM, the first
# VALUE side A, each side's settings "PARAM=VALUE EXTRA".
bench_ab_values() {
	local group=$1 kind=$2 param=$3 values=$4 extra=$5 v n=0
	shift 5
	for v in $values; do
		n=$((n + 1))
		set -- "--$(echo a b c d e f g h | cut -d' ' -f$n)" "$param=$v${extra:+ $extra}" "$@"
	done
	bench_ab "$group" "$kind" "$values" "$@"
}

# ab_metrics NAME=VALUE...: the run's own figures for zswbctl ab, one
# "NAME VALUE" line each in $ZSWBCTL_AB_METRICS (nothing outside ab).
ab_metrics() {
	[ -n "${ZSWBCTL_AB_METRICS:-}" ] || return 0
	echo "$@" | tr ' ' '\n' | sed -n 's/^\([a-z0-9_]*\)=\(..*\)$/\1 \2/p' > "$ZSWBCTL_AB_METRICS"
}

# policy_off POL: turn POL off; set_param waits until the folios in flight
# are resolved, then the writeback point is disarmed within a second (a
# work item retries that), so that no static key flips during the next
# timed run of a benchmark.
policy_off() {
	set_param "$1" 0 || return 1
	sleep 2
}

# mariadb_up SOCKET: mariadbd answers on SOCKET (the application
# benchmark's, tools/bench/apps: its prepare and its runs).
mariadb_up() {
	mariadb-admin --socket="$1" ping > /dev/null 2>&1
}
