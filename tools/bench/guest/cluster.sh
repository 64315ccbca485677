#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Cluster-order benchmark, run in the VM by tools/bench/run.sh:
#   cluster.sh ROUNDS
# What the swap slot allocator's order does to the device's requests on
# 6.12, under the prompt-free workload (thrash: fill, then rewrite, so
# that write faults free slots and leave holes; then every page read back
# once). Variants, rotated from round to round:
#   disk stock     virtio-blk marked non-rotational, as every other disk
#                  test: 6.12's cluster allocator (a CPU's cluster, then a
#                  free cluster, then nonfull ones)
#   disk scan      the same disk marked rotational before swapon: no
#                  clusters, 6.12's linear scan from cluster_next
#   disk async     stock with async_free on
#   zram stock     zram (synchronous, non-rotational): the cluster allocator
#   zram sync      stock with sync_free on
# One "RESULT kind variant round key=value..." line per run: wr_req,
# wr_merged, wr_sectors, rd_req, rd_merged, rd_sectors, discards (the
# device's /sys/block/DEV/stat deltas over the run), wr_req_per_mib and
# rd_req_per_mib (requests per MiB moved), pswpout, pswpin, zswpwb,
# swap_ra, swap_ra_hit (/proc/vmstat), time_s; and where the region's
# pages sit in swap when the rewrites are done (swapmap): swapped,
# clusters, fill_pct, adjacent_pct, runs.
. "$(dirname "$0")/lib.sh"
bench_config cluster
rounds=${1:-$ZSWB_BENCH_ITER}
VMSTAT_KEYS="pswpout pswpin zswpwb swap_ra swap_ra_hit"

modprobe zswap_wb || exit 1
zswap_on

# blkstat DEV: the fields of /sys/block/DEV/stat, one line.
blkstat() { cat "/sys/block/$1/stat"; }

# blk_delta "BEFORE" "AFTER": the request figures of a run.
blk_delta() {
	echo "$1 $2" | awk '{
		n = NF / 2
		for (i = 1; i <= n; i++) d[i] = $(i + n) - $i
		printf "wr_req=%d wr_merged=%d wr_sectors=%d rd_req=%d rd_merged=%d rd_sectors=%d discards=%d",
			d[5], d[6], d[7], d[1], d[2], d[3], (n >= 12 ? d[12] : 0)
		printf " wr_req_per_mib=%.1f rd_req_per_mib=%.1f",
			d[7] ? d[5] * 2048 / d[7] : 0, d[3] ? d[1] * 2048 / d[3] : 0
	}'
}

# swapon_as KIND VARIANT: swap on KIND's device, rotational for "scan".
swapon_as() {
	if [ "$1" = disk ] && [ "$2" = scan ]; then
		echo 1 > /sys/block/vda/queue/rotational
		mkswap /dev/vda > /dev/null && swapon /dev/vda
	else
		swap_on "$1" 1000
	fi
}

one_run() {
	local kind=$1 variant=$2 it=$3 dev=vda pol="" b0 b1 t0 t1 job pid w map k line
	[ "$kind" = zram ] && dev=zram0
	case "$variant" in
	async) pol=async_free ;;
	sync) pol=sync_free ;;
	esac
	swapon_as "$kind" "$variant" || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ -n "$pol" ] && set_param $pol 1
	cg_new bench "$ZSWB_BENCH_CLUSTER_CG_MAX"
	for k in $VMSTAT_KEYS; do
		eval "a_$k=$(vmstat $k)"
	done
	b0=$(blkstat $dev)
	t0=$(uptime_s)
	cg_run bench thrash --size "$ZSWB_BENCH_CLUSTER_SIZE" --passes "$ZSWB_BENCH_CLUSTER_PASSES" \
		--hold 3600 > /tmp/cluster.out 2>&1 &
	job=$!
	w=0
	until grep -q '^filled' /tmp/cluster.out; do
		kill -0 $job 2>/dev/null && [ $w -lt 36000 ] ||
			{ echo "# thrash did not fill: $(cat /tmp/cluster.out)"; return 1; }
		sleep 0.1
		w=$((w + 1))
	done
	# thrash itself: the one process of the memcg (the job is its shell).
	pid=$(head -1 "$CG_ROOT/bench/cgroup.procs")
	map=$(swapmap "$pid") || map=""
	# SIGTERM ends the hold; thrash then reads every page back to check it.
	kill -TERM "$pid"
	wait $job || echo "# thrash failed: $(cat /tmp/cluster.out)"
	t1=$(uptime_s)
	b1=$(blkstat $dev)
	line="RESULT $kind $variant $it time_s=$(elapsed "$t0" "$t1") $(blk_delta "$b0" "$b1")"
	for k in $VMSTAT_KEYS; do
		eval "line=\"\$line $k=\$(( \$(vmstat $k) - a_$k ))\""
	done
	line="$line $(echo "$map" | awk '{ printf "swapped=%s clusters=%s fill_pct=%s adjacent_pct=%s runs=%s", $6, $8, $10, $12, $14 }')"
	echo "$line"
	cg_del bench
	[ -n "$pol" ] && policy_off $pol
	swap_off
	echo 0 > /sys/block/vda/queue/rotational
}

bench_rounds "$rounds" "stock scan async" disk
bench_rounds "$rounds" "stock sync" zram
