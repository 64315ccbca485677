#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks (make bench): each boots the VM once and compares its
# variants in that boot, each comparison one zswbctl ab (an A/A pair, then
# ZSWB_BENCH_PAIRS pairs adjacent in time); ab's CSV of each comparison is
# kept as bench-results/NAME-...csv, and report.py prints ab's estimates,
# intervals and verdicts and writes bench-results/NAME.json.
#
#   tools/bench/run.sh [NAME...]          default: the default run
#   tools/bench/run.sh --list             every benchmark, "NAME default"
#                                         or "NAME extra"
#   tools/bench/run.sh --plan [NAME...]   "SECONDS NAME" in the order the
#                                         lanes take them, and stops
#
# A benchmark is its file tools/bench/config/NAME.conf and the guest
# script it names: the file says what the benchmark measures, holds its
# knobs and declares its guest command, icount, VM timeout, whether it is
# part of the default run and an estimate of its time (common.conf says
# how); run.sh finds the benchmarks from the files, with no list to edit.
# Every knob of a benchmark's file goes on to its guest script, which
# reads the same file; Documentation/running.rst has the knobs' tables.
#
# With more than one benchmark asked and two host cores, two run at a time
# (ZSWB_BENCH_JOBS=1: one after the other, in the order asked), longest
# first by their times as last measured on this machine (tools/lib/lanes.sh;
# kept in $ZSWB_CACHE/bench-seconds), each to the first lane that is free.
set -eu
. "$(dirname "$0")/../kernel/common.sh"
. "$ZSWB_TOP/tools/lib/lanes.sh"
zswb_need python3
cd "$ZSWB_TOP"
conf=tools/bench/config
TIMES=$ZSWB_CACHE/bench-seconds

# bench_load NAME: the knobs and declarations of config/NAME.conf (after
# common.conf's), each declaration checked. A knob that does not evaluate
# (ZSWB_APPS_ROUNDS=x) fails here, with the shell's error and the file
# named; only the benchmarks asked are loaded, so it fails those alone.
bench_load() {
	local bad=""
	unset BENCH_CMD BENCH_RUN BENCH_ICOUNT BENCH_TIMEOUT BENCH_DEFAULT BENCH_ESTIMATE
	(. "$conf/common.conf" && . "$conf/$1.conf") > /dev/null ||
		zswb_die "$conf/$1.conf: a knob is not valid (the shell says which above)"
	. "$conf/common.conf"
	. "$conf/$1.conf"
	if [ -n "${BENCH_RUN:-}" ]; then
		[ -f "$BENCH_RUN" ] || bad="$bad BENCH_RUN (a script, not '$BENCH_RUN')"
	elif [ -n "${BENCH_CMD:-}" ]; then
		case "${BENCH_ICOUNT:-}" in
		yes|no) ;;
		*) bad="$bad BENCH_ICOUNT (yes or no)" ;;
		esac
		case "${BENCH_TIMEOUT:-}" in
		''|*[!0-9]*|0) bad="$bad BENCH_TIMEOUT (seconds)" ;;
		esac
	else
		bad="$bad BENCH_CMD (or BENCH_RUN)"
	fi
	case "${BENCH_DEFAULT:-}" in
	yes|no) ;;
	*) bad="$bad BENCH_DEFAULT (yes or no)" ;;
	esac
	# apps has no BENCH_ESTIMATE: its estimate is its own plan
	# (bench_estimate).
	case "$1:${BENCH_ESTIMATE:-}" in
	apps:) ;;
	*:|*:*[!0-9]*) bad="$bad BENCH_ESTIMATE (seconds)" ;;
	esac
	[ -z "$bad" ] || zswb_die "$conf/$1.conf: no valid$bad"
}

# bench_estimate NAME: the seconds config/NAME.conf's BENCH_ESTIMATE
# gives, its file loaded and checked. apps': its --plan in one VM, as a
# lane runs it (its errors shown), or its VM's timeout if that plan fails.
bench_estimate() {
	(
		bench_load "$1"
		if [ "$1" = apps ] && [ -z "${BENCH_ESTIMATE:-}" ]; then
			BENCH_ESTIMATE=$(ZSWB_BENCH_JOBS=1 bash "$BENCH_RUN" --plan |
				sed -n 's/^vm1: .*(\([0-9]*\) s)$/\1/p')
			: "${BENCH_ESTIMATE:=$ZSWB_APPS_TIMEOUT}"
		fi
		echo "$BENCH_ESTIMATE"
	)
}

# bench_default NAME: config/NAME.conf's BENCH_DEFAULT as written (yes or
# no, no $), read without loading the file: the default run and --list
# load no benchmark's knobs.
bench_default() {
	local d
	d=$(sed -n 's/^BENCH_DEFAULT=//p' "$conf/$1.conf" | tail -n 1)
	case "$d" in
	yes|no) echo "$d" ;;
	*) zswb_die "$conf/$1.conf: no valid BENCH_DEFAULT (yes or no, as written)" ;;
	esac
}

# knobs NAME: an export of every knob of config/NAME.conf (loaded first,
# by bench_load), to begin the guest's command line; nothing if it has none.
knobs() {
	local v k=""
	for v in $(sed -n 's/^\(ZSWB_[A-Z0-9_]*\)=.*/\1/p' "$conf/$1.conf"); do
		k="$k $v='${!v}'"
	done
	[ -z "$k" ] || echo "export$k; "
}

# run_one NAME: the benchmark, with its knobs in a shell of its own; its
# console in bench-results/NAME.log, the lines that tell how it goes as
# they come, then its report.
run_one() {
	(
		local log=bench-results/$1.log icount=""
		bench_load "$1"
		if [ -n "${BENCH_RUN:-}" ]; then
			bash "$BENCH_RUN"
			exit
		fi
		[ "$BENCH_ICOUNT" = no ] || [ "$ZSWB_BENCH_ICOUNT" = off ] ||
			icount="--icount $ZSWB_BENCH_ICOUNT"
		bash tools/vm/run.sh $icount --timeout "$BENCH_TIMEOUT" --cmd "$(knobs "$1")$BENCH_CMD" |
			tee "$log" | grep --line-buffered -E "^ABSIDES|^RESULT|^#"
		# profile is not a comparison: report.py prints its RESULT lines
		# and writes no JSON; the PROFILE lines stay in its log.
		if [ "$1" = profile ]; then
			python3 tools/bench/report.py profile "$log"
			echo "$(grep -c "^PROFILE" "$log") PROFILE lines in $log"
		else
			python3 tools/bench/report.py "$1" "$log" "bench-results/$1.json"
		fi
	)
}

# Every benchmark: a file of config/ each, but common.conf.
ALL=$(for f in "$conf"/*.conf; do
	[ "$f" = "$conf/common.conf" ] || basename "$f" .conf
done | tr '\n' ' ')
list=0 plan=0
case "${1:-}" in
--list) list=1; shift ;;
--plan) plan=1; shift ;;
esac
for n in $ALL; do
	d=$(bench_default "$n") || exit 1
	[ "$list" = 0 ] || echo "$n $([ "$d" = yes ] && echo default || echo extra)"
	[ "$d" = no ] || DEFAULT="${DEFAULT:-} $n"
done
[ "$list" = 0 ] || exit 0
names=${*:-${DEFAULT:-}}
[ -n "$names" ] || zswb_die "no benchmark asked, and none is part of the default run"
for n in $names; do
	case " $ALL " in
	*" $n "*) ;;
	*) zswb_die "unknown benchmark '$n' (benchmarks: ${ALL% }; default:${DEFAULT:-})" ;;
	esac
done
# The benchmarks asked, and those alone, loaded and checked.
declare -A ESTIMATE
for n in $names; do
	ESTIMATE[$n]=$(bench_estimate "$n") || exit 1
done

. "$conf/common.conf"
jobs=$(zswb_bench_jobs) || exit 1
set -- $names
[ $# -gt 1 ] || jobs=1
out=$(mktemp -d /tmp/zswb-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
# One lane: in the order asked. Two: longest first.
for n in $names; do
	echo "$n ${ESTIMATE[$n]}"
done > "$out/items"
if [ "$jobs" -gt 1 ]; then
	lanes_order "$TIMES" < "$out/items"
else
	lanes_weigh "$TIMES" < "$out/items"
fi > "$out/order"
if [ "$plan" = 1 ]; then
	cat "$out/order"
	exit 0
fi
cut -d' ' -f2 "$out/order" > "$out/queue"
mkdir -p bench-results

# bench_lane LANE NAME: the benchmark in a lane; with two lanes, its
# progress lines prefixed with its name and its output kept for the end.
# A lane is one core: apps runs one VM in it, not two.
bench_lane() {
	if [ "$jobs" = 1 ]; then
		run_one "$2"
		return
	fi
	export ZSWB_BENCH_JOBS=1
	run_one "$2" 2>&1 | tee "$out/$2.out" | sed -u "s/^/$2: /"
	return "${PIPESTATUS[0]}"
}

# Two at a time, one VM per host core: each VM compares its own variants
# in its own boot, so the other VM's load falls on baseline and policy
# alike (and not at all on the icount benchmarks' figures).
[ "$jobs" = 1 ] || echo "# two at a time, longest first:" $(cat "$out/queue")
lanes_run "$jobs" "$out" bench_lane
lanes_save "$TIMES" < "$out/seconds" || echo "# cannot save the times in $TIMES" >&2
if [ "$jobs" -gt 1 ]; then
	# The tables, in the order asked.
	for n in $names; do
		echo
		sed -n '/^== /,$p' "$out/$n.out"
	done
fi
if [ -s "$out/failed" ]; then
	zswb_die "failed:" $(cat "$out/failed") "(their logs: bench-results/)"
fi
