#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The A/B demo of 'make demo', in the VM (tools/demo.sh):
#   demo.sh PAIRS KIND...
# For each KIND (disk = async virtio-blk, zram = sync), one zswbctl ab of
# the prompt-free benchmark's workload (thrash, config/prompt-free.conf)
# in a memcg of its size: prompt freeing off (A) against on (B: async_free
# on disk, sync_free on zram), a warm-up run (the first after boot is the
# slow one), an A/A pair then PAIRS pairs, judged by the workload's time
# (wall_s). Prints ab's report as "# " lines and its runs
# as "DEMOCSV KIND LINE", from which tools/demo.sh reports again.
. "$(dirname "$0")/lib.sh"
bench_config prompt-free
pairs=${1:?pairs}
shift

modprobe zswap_wb || exit 1
zswap_on
rc=0
for kind in "$@"; do
	pol=async_free
	[ "$kind" = zram ] && pol=sync_free
	swap_on "$kind" 1000 || exit 1
	echo "# demo: $kind swap, $pol off (A) and on (B), $pairs pairs"
	zswbctl ab --warmup --pairs "$pairs" --metric wall_s --memory-max "$ZSWB_BENCH_CG_MAX" \
		--drop-caches --csv "/tmp/demo-$kind.csv" --a "$pol=N" --b "$pol=Y" -- \
		thrash --size "$ZSWB_BENCH_SIZE" --passes "$ZSWB_BENCH_PASSES" \
		> "/tmp/demo-$kind.txt" 2> "/tmp/demo-$kind.err" || rc=1
	grep -v '^pages' "/tmp/demo-$kind.err" | sed 's/^/# /'
	sed 's/^/# /' "/tmp/demo-$kind.txt"
	[ -f "/tmp/demo-$kind.csv" ] && sed "s/^/DEMOCSV $kind /" "/tmp/demo-$kind.csv"
	swap_off
done
exit $rc
