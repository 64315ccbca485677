#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Readahead benchmark, run in the VM by tools/bench/run.sh:
#   readahead.sh ITERATIONS WORKLOAD...     WORKLOAD: heavy, light
# The seed's thrash scaled to the VM: zswap on, its shrinker off (as in the
# seed), async disk swap, 200 MiB walked once in order, then written at
# random pages for 10 s (a build mixes both); heavy in a 130M memcg
# (sustained thrash: zswap's own memory is charged to the memcg too), light
# in a 180M memcg. Each readahead_policy per
# iteration, the order rotating. One RESULT line per run: time_s the whole
# run, walk_s the fill and the walk in order (thrash's seconds less the
# random phase; so it holds that phase's overrun, up to one batch of 256
# writes), random_writes the pages the random phase wrote in its fixed
# time (under icount, a fixed number of guest instructions). A run whose
# thrash failed prints no RESULT line, only why.
. "$(dirname "$0")/lib.sh"
bench_config readahead
iters=${1:-$ZSWB_BENCH_ITER}
shift
POLICIES="stock skip_fault skip_zswap_slots"
P=/sys/module/zswap/parameters

modprobe zswap_wb || exit 1

one_run() {
	wl=$1 pol=$2 it=$3
	max=$ZSWB_RA_HEAVY_MAX
	[ "$wl" = light ] && max=$ZSWB_RA_LIGHT_MAX
	zswap_on
	echo N > $P/shrinker_enabled
	swap_on disk 1000 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	set_param readahead_policy "$pol"
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new bench "$max"
	for k in zswpin zswpout swap_ra swap_ra_hit pswpin pswpout; do
		eval "a_$k=$(vmstat $k)"
	done
	t0=$(uptime_s)
	failed=0
	cg_run bench thrash --size 200 --passes 1 --random "$ZSWB_RA_RANDOM_S" > /tmp/out 2>&1 ||
		{ echo "# thrash failed, run left out: $(cat /tmp/out)"; failed=1; }
	t1=$(uptime_s)
	line="RESULT $wl $pol $it time_s=$(elapsed "$t0" "$t1")"
	line="$line $(awk -v r="$ZSWB_RA_RANDOM_S" '$1 == "random" { printf "random_writes=%d ", $3 }
		$1 == "pages" { printf "walk_s=%.2f", $6 - r }' /tmp/out)"
	for k in swap_ra swap_ra_hit zswpin zswpout pswpin pswpout; do
		eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
	done
	for k in ra_faults_alone ra_windows_shrunk ra_zswap_slots_skipped ra_disk_slots; do
		line="$line $k=$(wbstat $k)"
	done
	[ "$failed" = 1 ] || echo "$line"
	cg_del bench
	set_param readahead_policy stock
	echo Y > $P/shrinker_enabled
	swap_off
}

bench_rounds "$iters" "$POLICIES" "$@"
