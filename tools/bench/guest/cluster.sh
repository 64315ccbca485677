#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Cluster-order benchmark, run in the VM by tools/bench/run.sh:
#   cluster.sh PAIRS
# What the swap slot allocator's order does to the device's requests on
# 6.12, under the prompt-free workload (thrash: fill, rewrite it whole
# PASSES times and random pages for RANDOM seconds, then read every page
# back once) on a swap area only SWAP MiB large: over half of it is in
# use, so vm_swap_full() holds and every swap-in frees its slot (a read
# fault too: should_try_to_free_swap()), leaving holes in clusters still
# in use, and the free clusters can run out, so that the allocator reaches
# its nonfull clusters. One zswbctl ab per kind, its first variant side
# A, an A/A pair then PAIRS pairs, each variant's run next to an A run,
# each on fresh swap made by the run itself (swapon, the workload,
# swapoff) in a fresh memcg of ab's, judged by the write requests per MiB
# (cmd.wr_req_per_mib); every other metric and side are secondary:
#   disk stock     virtio-blk marked non-rotational, as every other disk
#                  test: 6.12's cluster allocator (the CPU's cluster, then
#                  a free cluster, then nonfull ones)
#   disk scan      the same disk marked rotational before swapon: 6.12 gives
#                  it no clusters, only the linear scan from cluster_next
#   disk async     stock with async_free on
#   zram stock     zram (synchronous, non-rotational): the cluster allocator
#   zram sync      stock with sync_free on
# A rotational swap device turns VMA readahead off for every device
# (swap_use_vma_readahead()), so every disk variant runs with
# vma_ra_enabled off: all three read ahead by swap cluster alike. "scan"
# is not a setting of the module: the run, "cluster.sh run KIND", swaps on
# the disk as rotational when it runs as side B ($ZSWBCTL_AB_SIDE). Its
# own figures (cmd.NAME): wr_req,
# wr_merged, wr_sectors, rd_req, rd_merged, rd_sectors, discards (the
# device's /sys/block/DEV/stat deltas over the run), wr_req_per_mib and
# rd_req_per_mib (requests per MiB moved), pswpout, pswpin, zswpwb,
# swap_ra, swap_ra_hit (/proc/vmstat), time_s; and where the region's
# pages sit in swap when the rewrites are done (swapmap): swapped,
# clusters, fill_pct, adjacent_pct, slot_runs. On zram every bio is one
# request of one page (no merging, no readahead): its request figures are
# 256 per MiB by construction, and what can differ there is the layout.
. "$(dirname "$0")/lib.sh"
bench_config cluster
SWAP=$ZSWB_BENCH_CLUSTER_SWAP

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

# swapon_as KIND VARIANT: SWAP MiB of swap on KIND's device, the disk
# marked rotational for "scan" (read at swapon only).
swapon_as() {
	case "$1" in
	zram) swap_on zram "$SWAP" ;;
	disk)
		if [ "$2" = scan ]; then
			echo 1 > /sys/block/vda/queue/rotational
		else
			echo 0 > /sys/block/vda/queue/rotational
		fi
		mkswap /dev/vda $((SWAP * 1024)) > /dev/null && swapon /dev/vda ;;
	esac
}

# run_cleanup: what run set up, undone on every path. swapoff first: it
# undoes a rotational swapon's count (nr_rotate_swap) only while the disk
# still reads as rotational.
run_cleanup() {
	swap_off
	echo 0 > /sys/block/vda/queue/rotational
}

# run KIND: one run, in the memcg ab made for it, the side's swap made
# here.
run() {
	local kind=$1 variant=stock dev=vda b0 b1 t0 t1 job pid map line
	[ "$kind" = zram ] && dev=zram0
	[ "$kind" = disk ] && [ "${ZSWBCTL_AB_SIDE:-}" = B ] && variant=scan
	swapon_as "$kind" "$variant" || { echo "# swapon of $kind failed"; run_cleanup; return 1; }
	b0=$(blkstat $dev)
	t0=$(uptime_s)
	thrash --size "$ZSWB_BENCH_CLUSTER_SIZE" --passes "$ZSWB_BENCH_CLUSTER_PASSES" \
		--random "$ZSWB_BENCH_CLUSTER_RANDOM" --hold 3600 > /tmp/cluster.out 2>&1 &
	job=$!
	if ! thrash_filled /tmp/cluster.out $job 3600; then
		echo "# thrash did not fill: $(cat /tmp/cluster.out)"
		run_cleanup
		return 1
	fi
	map=$(swapmap "$job") || map=""
	# SIGTERM ends the hold; thrash then reads every page back to check it.
	kill -TERM "$job"
	if ! wait $job || [ -z "$map" ]; then
		echo "# thrash or swapmap failed: $(cat /tmp/cluster.out)"
		run_cleanup
		return 1
	fi
	t1=$(uptime_s)
	b1=$(blkstat $dev)
	line="time_s=$(elapsed "$t0" "$t1") $(blk_delta "$b0" "$b1")"
	line="$line $(echo "$map" | awk '{ printf "swapped=%s clusters=%s fill_pct=%s adjacent_pct=%s slot_runs=%s", $6, $8, $10, $12, $14 }')"
	run_cleanup
	ab_metrics $line
}

if [ "${1:-}" = run ]; then
	run "$2"
	exit
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
modprobe zswap_wb || exit 1
zswap_on
swap_off
rc=0
echo false > /sys/kernel/mm/swap/vma_ra_enabled
bench_ab cluster disk "stock scan async" --a async_free=N --b async_free=N --c async_free=Y \
	--pairs "$pairs" --metric cmd.wr_req_per_mib --memory-max "$ZSWB_BENCH_CLUSTER_CG_MAX" \
	--drop-caches -- sh "$0" run disk || rc=1
echo true > /sys/kernel/mm/swap/vma_ra_enabled
bench_ab cluster zram "stock sync" --a sync_free=N --b sync_free=Y \
	--pairs "$pairs" --metric cmd.wr_req_per_mib --memory-max "$ZSWB_BENCH_CLUSTER_CG_MAX" \
	--drop-caches -- sh "$0" run zram || rc=1
exit $rc
