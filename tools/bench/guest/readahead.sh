#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Readahead benchmark, run in the VM by tools/bench/run.sh:
#   readahead.sh PAIRS WORKLOAD...     WORKLOAD: heavy, light
# The seed's thrash scaled to the VM: zswap on, its shrinker off (as in the
# seed), async disk swap, 200 MiB walked once in order, then written at
# random pages for ZSWB_RA_RANDOM_S seconds (a build mixes both); heavy in
# a ZSWB_RA_HEAVY_MAX memcg (sustained thrash: zswap's own memory is
# charged to the memcg too), light in a ZSWB_RA_LIGHT_MAX one. For each
# WORKLOAD one zswbctl ab: readahead_policy stock (A) against skip_fault
# (B) and skip_zswap_slots (C), an A/A pair then PAIRS pairs, each run in
# a fresh memcg after the page cache is dropped, each policy's run next to
# a stock run; the primary metric is the walk's time (cmd.walk_s), where
# readahead acts; every other metric and side C are secondary. Each run is
# "readahead.sh run MEMCG_MAX", whose own figures (cmd.NAME) are walk_s,
# the fill and the walk in order (thrash's seconds less the random phase,
# so it holds that phase's overrun, up to one batch of 256 writes), and
# random_writes, the pages the random phase wrote in its fixed time (under
# icount, a fixed number of guest instructions). Prints what bench_ab
# (lib.sh) prints.
. "$(dirname "$0")/lib.sh"
bench_config readahead
P=/sys/module/zswap/parameters

if [ "${1:-}" = run ]; then
	thrash --size 200 --passes 1 --random "$ZSWB_RA_RANDOM_S" > /tmp/ra-out 2>&1
	rc=$?
	cat /tmp/ra-out
	[ $rc -eq 0 ] || exit 1
	ab_metrics $(awk -v r="$ZSWB_RA_RANDOM_S" '$1 == "random" { printf "random_writes=%d ", $3 }
		$1 == "pages" { printf "walk_s=%.2f", $6 - r }' /tmp/ra-out)
	exit 0
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
shift
modprobe zswap_wb || exit 1
zswap_on
echo N > $P/shrinker_enabled
swap_on disk 1000 || exit 1
rc=0
for wl in "$@"; do
	max=$ZSWB_RA_HEAVY_MAX
	[ "$wl" = light ] && max=$ZSWB_RA_LIGHT_MAX
	bench_ab_values "$wl" disk readahead_policy "stock skip_fault skip_zswap_slots" "" \
		--pairs "$pairs" --metric cmd.walk_s --memory-max "$max" --drop-caches -- \
		sh "$0" run || rc=1
done
set_param readahead_policy stock
echo Y > $P/shrinker_enabled
swap_off
exit $rc
