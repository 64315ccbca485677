#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the zswap_wb tests, sourced inside the test VM.

ZSWB_PARAMS=/sys/module/zswap_wb/parameters
ZSWB_DEBUGFS=/sys/kernel/debug/zswap_wb
CG_ROOT=/sys/fs/cgroup

# vmstat NAME: the current value of a /proc/vmstat counter.
vmstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat
}

# wbstat NAME: a zswap_wb counter from the debugfs stats file.
wbstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$ZSWB_DEBUGFS/stats"
}

# cgstat CG NAME: a memory.stat value of a cgroup.
cgstat() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$CG_ROOT/$1/memory.stat"
}

meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# free_kb: free memory in kB, counting the pages that sit on the per-CPU
# free lists (/proc/zoneinfo "count"): MemFree leaves them out, and their
# size is tuned at run time, by tens of MiB after a swap workload.
free_kb() {
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $(( $(meminfo MemFree) + pcp * 4 ))
}

# zswap_on: enable zswap with its shrinker, lzo and zsmalloc.
zswap_on() {
	echo lzo > /sys/module/zswap/parameters/compressor
	echo 1 > /sys/module/zswap/parameters/enabled
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
}

# swap_on KIND [MiB]: swap on zram, disk (virtio-blk), nvme or file (ext4).
swap_on() {
	kind=$1 size=${2:-1000}
	case "$kind" in
	zram)
		[ -e /sys/block/zram0 ] || cat /sys/class/zram-control/hot_add >/dev/null
		echo 1 > /sys/block/zram0/reset
		echo "${size}M" > /sys/block/zram0/disksize
		SWAPDEV=/dev/zram0 ;;
	disk)
		echo 0 > /sys/block/vda/queue/rotational
		SWAPDEV=/dev/vda ;;
	nvme)
		SWAPDEV=/dev/nvme0n1 ;;
	file)
		mkdir -p /mnt/fs
		is_mounted /mnt/fs || mount -t ext4 /dev/vdb /mnt/fs || return 1
		rm -f /mnt/fs/swapfile
		dd if=/dev/zero of=/mnt/fs/swapfile bs=1M count="$size" 2>/dev/null || return 1
		chmod 600 /mnt/fs/swapfile
		SWAPDEV=/mnt/fs/swapfile ;;
	*)
		echo "swap_on: unknown kind $kind" >&2
		return 1 ;;
	esac
	mkswap "$SWAPDEV" >/dev/null && swapon "$SWAPDEV"
}

is_mounted() {
	awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts
}

swap_off() {
	for dev in $(awk 'NR > 1 { print $1 }' /proc/swaps); do
		swapoff "$dev"
	done
	[ -e /sys/block/zram0 ] && echo 1 > /sys/block/zram0/reset
	is_mounted /mnt/fs && { rm -f /mnt/fs/swapfile; umount /mnt/fs; }
	return 0
}

# cg_new NAME MAX: a fresh memcg with memory.max MAX (e.g. 100M).
cg_new() {
	cg_del "$1" || return 1
	mkdir "$CG_ROOT/$1" && echo "$2" > "$CG_ROOT/$1/memory.max"
}

# cg_run NAME CMD...: run CMD inside memcg NAME.
cg_run() {
	cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG_ROOT/$cg" "$@"
}

# cg_kill NAME: kill every process in memcg NAME (a job started with
# "cg_run ... &" is a subshell: killing $! leaves its command running) and
# wait until they are gone.
cg_kill() {
	echo 1 > "$CG_ROOT/$1/cgroup.kill"
	while grep -q "populated 1" "$CG_ROOT/$1/cgroup.events"; do
		sleep 0.1
	done
}

# cg_stop NAME: ask every process in memcg NAME to end (SIGTERM: thrash
# stops its walk and prints what it verified) and wait up to 60 s for them,
# then kill what is left.
cg_stop() {
	for p in $(cat "$CG_ROOT/$1/cgroup.procs"); do
		kill -TERM "$p" 2>/dev/null
	done
	w=0
	while grep -q "populated 1" "$CG_ROOT/$1/cgroup.events" && [ $w -lt 600 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	cg_kill "$1"
}

# cg_del NAME: kill what is left in memcg NAME and remove it.
cg_del() {
	[ -d "$CG_ROOT/$1" ] || return 0
	cg_kill "$1"
	rmdir "$CG_ROOT/$1" || { echo "# cannot remove memcg $1" >&2; return 1; }
}

# idle_memcgs N: N empty memcgs (idle1..idleN), or none with N=0.
# shrink_worker() walks every online memcg round robin and calls
# shrink_memcg() on each; a fleet host runs its services in memcgs of
# their own, the VM has only the root and the test's. Empty memcgs stand in
# for them, so that the worker's walk is as long as on a host.
idle_memcgs() {
	for d in "$CG_ROOT"/idle*; do
		[ -d "$d" ] && rmdir "$d"
	done
	i=1
	while [ "$i" -le "$1" ]; do
		mkdir "$CG_ROOT/idle$i" || return 1
		i=$((i + 1))
	done
}

# rotate N WORD...: the words rotated left by N, so that the variants of a
# benchmark take turns at running first.
rotate() {
	r=$1
	shift
	echo "$@" | awk -v r="$r" '{ for (j = 0; j < NF; j++) printf "%s ", $((j + r) % NF + 1) }'
}

# bench_rounds ITERATIONS "VARIANTS" GROUP...: for each group, ITERATIONS
# rounds of one_run GROUP VARIANT ROUND over every variant, the variant
# order rotating from round to round (off on, on off, ...).
bench_rounds() {
	rounds=$1 variants=$2
	shift 2
	for group in "$@"; do
		round=0
		while [ $round -lt "$rounds" ]; do
			for variant in $(rotate $round $variants); do
				one_run "$group" "$variant" $round
			done
			round=$((round + 1))
		done
	done
}

# param_value NAME: the value of a zswap_wb parameter; of a policy, which
# reads as every choice with the current one in brackets, that one.
param_value() {
	sed 's/^.*\[\([^]]*\)\].*$/\1/' "$ZSWB_PARAMS/$1"
}

# choices NAME: the choices of policy NAME, as the loaded module's debugfs
# schema lists them, in its order (the first is the default).
choices() {
	awk -F'\t' -v n="$1" '$1 == "param" && $2 == n { print $4 }' "$ZSWB_DEBUGFS/schema"
}

# set_param NAME VALUE: set a zswap_wb parameter, failing loudly.
# Turning async_free off does not wait for the folios in flight; like
# zswbctl, this waits (up to 60 s) until none is left.
set_param() {
	echo "$2" > "$ZSWB_PARAMS/$1" || { echo "# cannot set $1=$2" >&2; return 1; }
	[ "$1" = async_free ] && [ "$(cat "$ZSWB_PARAMS/$1")" = N ] || return 0
	w=0
	while [ "$(wbstat inflight)" -gt 0 ]; do
		[ $w -lt 600 ] || { echo "# $(wbstat inflight) folios still in flight" >&2; return 1; }
		sleep 0.1
		w=$((w + 1))
	done
}

# wb_resolved: folios written back whose fate is known: freed, put back
# (raced, write error, not marked) or left on the LRU by a policy that was
# off. Equals written_back once nothing is in flight.
wb_resolved() {
	echo $(( $(wbstat freed_sync) + $(wbstat freed_async) + $(wbstat raced) + \
		$(wbstat write_errors) + $(wbstat mark_failed) + $(wbstat fallbacks) ))
}

# wait_stopped PID: wait until PID has stopped itself (SIGSTOP); fails if
# it exits first.
wait_stopped() {
	while [ "$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)" != T ]; do
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
}

# cg_reclaim CG SIZE: memory.reclaim SIZE a few times (it gives up early).
cg_reclaim() {
	for try in 1 2 3 4; do
		echo "$2" > "$CG_ROOT/$1/memory.reclaim" 2>/dev/null
	done
	return 0
}

# test_cleanup: what any test may have set up, undone, so that a test that
# failed half-way leaves nothing to the next: its memcgs (and their
# processes), swap, injected faults, stalled devices, and zswap's and the
# module's parameters at their defaults.
test_cleanup() {
	for f in /sys/block/*/make-it-fail; do
		echo 0 > "$f" 2>/dev/null
	done
	for d in "$CG_ROOT"/*/*/; do
		case "$d" in "$CG_ROOT"/hostload/*) continue ;; esac
		[ -d "$d" ] && cg_del "${d#"$CG_ROOT"/}" 2>/dev/null
	done
	for d in "$CG_ROOT"/*/; do
		# The host load's tenant (hostload.sh) outlives each test.
		[ "$(basename "$d")" = hostload ] && continue
		[ -d "$d" ] && cg_del "$(basename "$d")" 2>/dev/null
	done
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl resume "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	swap_off >/dev/null 2>&1
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl remove "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	[ -d /sys/module/zswb_slowissue ] && rmmod zswb_slowissue
	if [ -d /sys/module/zswb_holdfree ]; then
		echo 0 > /sys/module/zswb_holdfree/parameters/hold
		rmmod zswb_holdfree
	fi
	command -v hostload_damon_resume >/dev/null && hostload_damon_resume
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo true > /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null
	if [ -d /sys/module/zswap_wb ]; then
		echo 0 > $ZSWB_PARAMS/sync_free
		echo 0 > $ZSWB_PARAMS/async_free
		echo stock > $ZSWB_PARAMS/shrink_policy
		echo 32 > $ZSWB_PARAMS/shrink_batch
		echo stock > $ZSWB_PARAMS/readahead_policy
	fi
	return 0
}

# unload: rmmod zswap_wb, retrying for up to 10 s: once async_free is off
# and its last folio resolved, a work item drops the module's reference
# on itself a moment later, and rmmod does not wait for it (O_NONBLOCK),
# as zswbctl unload retries too.
unload() {
	t=0
	while ! rmmod zswap_wb 2>/dev/null; do
		[ $t -lt 100 ] || { rmmod zswap_wb; return 1; }
		sleep 0.1
		t=$((t + 1))
	done
}

# policy_off POL: turn POL off; set_param waits until the folios in flight
# are resolved, then the writeback point is disarmed within a second (a
# work item retries that), so that no static key flips during the next
# timed run of a benchmark.
policy_off() {
	set_param "$1" 0 || return 1
	sleep 2
}
