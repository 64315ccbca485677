#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a real host runs beside zswap_wb, started by run_group.sh before a
# VM test group and stopped after it: the kernel's own walkers of
# physical memory and a tenant whose pages move, so that a word of struct
# page that zswap_wb leaves wrong is read by the kernel itself.
#
#   - /proc/kpageflags, kpagecount and kpagecgroup read a quarter at a
#     time, 2 s apart, all of memory in 4 rounds (kpageread, one process:
#     no fork a round): page_folio() and the flag tests on every pfn
#     (stable_page_flags()). ZSWB_TEST_HOSTLOAD_KPAGE_SLICES=M (below;
#     default 4 times the SLOW factor N) reads the next Mth of every file
#     a round instead, all of it in M rounds;
#   - compaction: /proc/sys/vm/compact_memory written every 3 s, and
#     kcompactd proactive (compaction_proactiveness=50); a test that
#     reads page frames across a window holds both off for it
#     (hostload_hold_compaction);
#   - THP collapse: khugepaged scanning every second, madvise mode (the
#     tests' own workloads are MADV_NOHUGEPAGE), and MADV_COLLAPSE;
#   - DAMON on the physical address space (paddr ops, a "stat" scheme over
#     the largest System RAM range: it samples and walks rmaps, changes
#     nothing);
#   - /sys/kernel/debug/page_owner read whole, only with
#     ZSWB_TEST_HOSTLOAD_PAGE_OWNER=1 on a kernel booted page_owner=on:
#     on the 6.12.117 debug kernel its read_page_owner() oopses by itself
#     (a GPF on an object cgroup's memcg pointer during a swap load in a
#     memcg, with zswap_wb not loaded), so by default it is not read;
#   - hostmem, in a memcg of its own that it never fills: huge pages
#     faulted, collapsed, split by copy on write, freed, twice a second.
#
# Under TCG the guest's vCPUs share one host thread: what the load runs is
# taken from the test's workload, so it is sized by its share of the VM
# (Documentation/running.rst, "The host load"; hostload_cost.sh measures
# it).
#
# ZSWB_TEST_HOSTLOAD_SLOW=N (default 1; make check-debug: 20) lightens
# the load for a slower kernel: each round of the page-flag files reads
# the next 4Nth of them unless ZSWB_TEST_HOSTLOAD_KPAGE_SLICES says
# otherwise (2 s apart, as at N=1: the whole of memory in 4N rounds),
# compact_memory and the tenant's rounds are N times further
# apart, DAMON's sampling and aggregation intervals N times longer;
# khugepaged and kcompactd's proactiveness are as at N=1.
#
# ZSWB_TEST_HOSTLOAD_KPAGE_SLICES=M (default 4N) reads the page-flag files
# in M slices instead: on the debug kernel a pfn costs many times the
# guest time it costs on the test kernel, so that 4N slices still keep a
# reader busy most of the time; make check-debug sets 200.
#
# ZSWB_TEST_HOSTLOAD=0 runs a group without it; ZSWB_TEST_HOSTLOAD_SKIP
# lists parts to leave out (kpage compact thp damon page_owner tenant),
# to find which one a test is sensitive to; the last test then fails.

HOSTLOAD_DIR=/tmp/hostload
HOSTLOAD_SLOW=${ZSWB_TEST_HOSTLOAD_SLOW:-1}
case "$HOSTLOAD_SLOW" in
''|*[!0-9]*|0*)
	echo "# ZSWB_TEST_HOSTLOAD_SLOW must be a positive integer, not '$HOSTLOAD_SLOW': 1 used" >&2
	HOSTLOAD_SLOW=1 ;;
esac
# The slices the page-flag files are read in (one a round, 2 s apart).
HOSTLOAD_KPAGE_DEFAULT=$((4 * HOSTLOAD_SLOW))
HOSTLOAD_KPAGE_SLICES=${ZSWB_TEST_HOSTLOAD_KPAGE_SLICES:-$HOSTLOAD_KPAGE_DEFAULT}
case "$HOSTLOAD_KPAGE_SLICES" in
''|*[!0-9]*|0*)
	echo "# ZSWB_TEST_HOSTLOAD_KPAGE_SLICES must be a positive integer, not '$HOSTLOAD_KPAGE_SLICES': $HOSTLOAD_KPAGE_DEFAULT used" >&2
	HOSTLOAD_KPAGE_SLICES=$HOSTLOAD_KPAGE_DEFAULT ;;
esac
HOSTLOAD_CG=hostload
DAMON_ADMIN=/sys/kernel/mm/damon/admin
THP=/sys/kernel/mm/transparent_hugepage

hostload_enabled() {
	[ "${ZSWB_TEST_HOSTLOAD:-1}" != 0 ]
}

# hostload_part NAME: NAME is not in ZSWB_TEST_HOSTLOAD_SKIP.
hostload_part() {
	case " ${ZSWB_TEST_HOSTLOAD_SKIP:-} " in *" $1 "*) return 1 ;; esac
}

# hostload_loop NAME SLEEP CMD...: run CMD, count it in $HOSTLOAD_DIR/NAME,
# sleep, again, until killed. The count is renamed into place: killed
# between a truncation and its write, the loop would leave NAME empty.
hostload_loop() {
	local name=$1 pause=$2 n=0
	shift 2
	while :; do
		"$@" >/dev/null 2>&1 && n=$((n + 1))
		echo $n > "$HOSTLOAD_DIR/$name.new" &&
			mv -f "$HOSTLOAD_DIR/$name.new" "$HOSTLOAD_DIR/$name"
		sleep "$pause"
	done
}

# hostload_kpage_blocks: how many 64 KiB blocks (8 bytes a pfn) the
# kpage files have, up to the end of the highest System RAM range.
hostload_kpage_blocks() {
	local e
	grep "System RAM" /proc/iomem | sed 's/^ *//; s/ : .*//; s/.*-//' |
		while read -r e; do echo $(( ((0x$e + 1) / 4096 * 8 + 65535) / 65536 )); done |
		sort -n | tail -1
}

# hostload_compact: one compaction, unless a test holds compaction off
# (hostload_hold_compaction): busy is marked before hold is looked at, so
# the test, which marks hold before it waits for busy to go, never runs
# beside one.
hostload_compact() {
	local rc=1
	: > $HOSTLOAD_DIR/compact.busy
	if [ ! -e $HOSTLOAD_DIR/compact.hold ]; then
		echo 1 > /proc/sys/vm/compact_memory
		rc=0
	fi
	rm -f $HOSTLOAD_DIR/compact.busy
	return $rc
}

# hostload_hold_compaction, hostload_release_compaction: the load's
# compaction (its compact_memory loop and kcompactd's proactive runs)
# held off while a test reads page frames across a window, where a page
# migrated would look like a page copied; nothing without the load.
# Other migrations (a THP allocation's compaction) still happen: such a
# test also counts pgmigrate_success.
hostload_hold_compaction() {
	[ -d $HOSTLOAD_DIR ] && [ ! -e $HOSTLOAD_DIR/compact.hold ] || return 0
	: > $HOSTLOAD_DIR/compact.hold
	cat /proc/sys/vm/compaction_proactiveness > $HOSTLOAD_DIR/compact.held
	echo 0 > /proc/sys/vm/compaction_proactiveness
	poll 120 hostload_compact_idle ||
		echo "# host load: a compaction still runs after 120 s" >&2
}
hostload_compact_idle() { [ ! -e $HOSTLOAD_DIR/compact.busy ]; }
hostload_release_compaction() {
	[ -e $HOSTLOAD_DIR/compact.hold ] || return 0
	cat $HOSTLOAD_DIR/compact.held > /proc/sys/vm/compaction_proactiveness
	rm -f $HOSTLOAD_DIR/compact.hold $HOSTLOAD_DIR/compact.held
}

hostload_page_owner() {
	cat /sys/kernel/debug/page_owner > /dev/null
}

# hostload_damon_start: a paddr monitor with a stat scheme over the
# largest System RAM range of /proc/iomem.
hostload_damon_start() {
	local k=$DAMON_ADMIN/kdamonds/0 range start end s e
	[ -d $DAMON_ADMIN ] || return 1
	range=$(grep "System RAM" /proc/iomem | sed 's/^ *//; s/ : .*//' |
		while IFS=- read -r s e; do
			echo "$(( (0x$e + 1) - 0x$s )) $((0x$s)) $((0x$e + 1))"
		done | sort -n | tail -1 | cut -d' ' -f2-)
	[ -n "$range" ] || return 1
	start=${range% *} end=${range#* }
	echo 1 > $DAMON_ADMIN/kdamonds/nr_kdamonds || return 1
	echo 1 > $k/contexts/nr_contexts &&
	echo paddr > $k/contexts/0/operations &&
	echo $((20000 * HOSTLOAD_SLOW)) > $k/contexts/0/monitoring_attrs/intervals/sample_us &&
	echo $((200000 * HOSTLOAD_SLOW)) > $k/contexts/0/monitoring_attrs/intervals/aggr_us &&
	echo 1 > $k/contexts/0/targets/nr_targets &&
	echo 1 > $k/contexts/0/targets/0/regions/nr_regions &&
	echo "$start" > $k/contexts/0/targets/0/regions/0/start &&
	echo "$end" > $k/contexts/0/targets/0/regions/0/end &&
	echo 1 > $k/contexts/0/schemes/nr_schemes &&
	echo stat > $k/contexts/0/schemes/0/action &&
	# Every region, whatever its size, accesses and age (the defaults are 0).
	echo $((end - start)) > $k/contexts/0/schemes/0/access_pattern/sz/max &&
	echo 4294967295 > $k/contexts/0/schemes/0/access_pattern/nr_accesses/max &&
	echo 4294967295 > $k/contexts/0/schemes/0/access_pattern/age/max &&
	echo on > $k/state
}

# hostload_damon_stop: the scheme's nr_tried (regions it looked at), then off.
hostload_damon_stop() {
	local k=$DAMON_ADMIN/kdamonds/0
	[ -d $k ] || { echo 0; return; }
	echo update_schemes_stats > $k/state 2>/dev/null
	cat $k/contexts/0/schemes/0/stats/nr_tried 2>/dev/null || echo 0
	echo off > $k/state 2>/dev/null
	echo 0 > $DAMON_ADMIN/kdamonds/nr_kdamonds 2>/dev/null
}

# hostload_start: start everything above in the background.
hostload_start() {
	local f
	hostload_enabled || return 0
	rm -rf $HOSTLOAD_DIR
	mkdir -p $HOSTLOAD_DIR
	for f in enabled defrag khugepaged/scan_sleep_millisecs \
		 khugepaged/alloc_sleep_millisecs khugepaged/pages_to_scan; do
		cat $THP/$f > "$HOSTLOAD_DIR/saved.$(basename $f)" 2>/dev/null
	done
	cat /proc/sys/vm/compaction_proactiveness > $HOSTLOAD_DIR/saved.proactiveness
	echo madvise > $THP/enabled
	echo madvise > $THP/defrag
	if hostload_part thp; then
		echo 1000 > $THP/khugepaged/scan_sleep_millisecs
		echo 1000 > $THP/khugepaged/alloc_sleep_millisecs
		echo 4096 > $THP/khugepaged/pages_to_scan
	fi
	hostload_part compact && echo 50 > /proc/sys/vm/compaction_proactiveness
	awk '$1 == "compact_migrate_scanned" || $1 == "thp_collapse_alloc" ||
	     $1 == "compact_isolated" { print $1, $2 }' /proc/vmstat > $HOSTLOAD_DIR/vmstat.start
	# Each part is started from a subshell that exits at once, so that it
	# is not a child of the test shell: a test's bare "wait" waits for its
	# own jobs only.
	: > $HOSTLOAD_DIR/pids
	hostload_kpage_blocks > $HOSTLOAD_DIR/kpage.blocks
	hostload_part kpage && (kpageread "$(cat $HOSTLOAD_DIR/kpage.blocks)" "$HOSTLOAD_KPAGE_SLICES" 2 \
		$HOSTLOAD_DIR/kpage > $HOSTLOAD_DIR/kpage.out 2>&1 & echo $! >> $HOSTLOAD_DIR/pids)
	hostload_part compact && (hostload_loop compact $((3 * HOSTLOAD_SLOW)) hostload_compact & echo $! >> $HOSTLOAD_DIR/pids)
	if [ "${ZSWB_TEST_HOSTLOAD_PAGE_OWNER:-0}" = 1 ] && hostload_part page_owner &&
	   [ -r /sys/kernel/debug/page_owner ] &&
	   head -c 1 /sys/kernel/debug/page_owner 2>/dev/null | grep -q .; then
		(hostload_loop page_owner 10 hostload_page_owner & echo $! >> $HOSTLOAD_DIR/pids)
	fi
	hostload_part damon && hostload_damon_start && echo on > $HOSTLOAD_DIR/damon
	if ! hostload_part tenant; then
		echo 1 > $HOSTLOAD_DIR/hostmem.rc
	elif [ -f $CG_ROOT/cgroup.subtree_control ] && grep -qw memory $CG_ROOT/cgroup.subtree_control; then
		mkdir -p $CG_ROOT/$HOSTLOAD_CG
		echo 96M > $CG_ROOT/$HOSTLOAD_CG/memory.max
		( (cg_run $HOSTLOAD_CG hostmem --region 4 --sleep-ms $((500 * HOSTLOAD_SLOW)) > $HOSTLOAD_DIR/hostmem.out 2>&1
		   echo $? > $HOSTLOAD_DIR/hostmem.rc) & )
	else
		# No memcg (cgroup_disable=memory): the tenant runs in the root.
		( (sh -c 'echo $$ > "$0"; exec hostmem --region 4 --sleep-ms $1' \
			$HOSTLOAD_DIR/hostmem.pid $((500 * HOSTLOAD_SLOW)) > $HOSTLOAD_DIR/hostmem.out 2>&1
		   echo $? > $HOSTLOAD_DIR/hostmem.rc) & )
	fi
	echo started > $HOSTLOAD_DIR/started
	return 0
}

# hostload_vmstat NAME: how much a /proc/vmstat counter moved under the load.
hostload_vmstat() {
	echo $(( $(vmstat "$1") - $(kv $HOSTLOAD_DIR/vmstat.start "$1") ))
}

# hostload_stop: stop it, put the settings back, say what it did; fails if
# a part of it did not run or the tenant saw a mismatch.
hostload_stop() {
	local pid kpage compact owner tried hm scanned collapsed f d
	hostload_enabled || return 4
	[ -f $HOSTLOAD_DIR/started ] || { echo "# the host load was not started"; return 1; }
	for pid in $(cat $HOSTLOAD_DIR/pids); do
		kill "$pid" 2>/dev/null
	done
	# The tenant ends on SIGTERM and prints what it checked.
	if [ -d $CG_ROOT/$HOSTLOAD_CG ]; then
		cg_stop $HOSTLOAD_CG
	else
		kill -TERM "$(cat $HOSTLOAD_DIR/hostmem.pid)" 2>/dev/null
	fi
	# One round of the tenant and its sleep at the most: 30 s a slowness.
	poll $((30 * HOSTLOAD_SLOW)) test -s $HOSTLOAD_DIR/hostmem.rc ||
		echo "# host load: the tenant did not end in $((30 * HOSTLOAD_SLOW)) s"
	hm=$(cat $HOSTLOAD_DIR/hostmem.rc 2>/dev/null || echo none)
	tried=0
	[ -f $HOSTLOAD_DIR/damon ] && tried=$(hostload_damon_stop)
	kpage=$(cat $HOSTLOAD_DIR/kpage 2>/dev/null || echo 0)
	[ -s $HOSTLOAD_DIR/kpage.out ] && sed 's/^/# /' $HOSTLOAD_DIR/kpage.out
	compact=$(cat $HOSTLOAD_DIR/compact 2>/dev/null || echo 0)
	owner=$(cat $HOSTLOAD_DIR/page_owner 2>/dev/null || echo -)
	scanned=$(hostload_vmstat compact_migrate_scanned)
	collapsed=$(hostload_vmstat thp_collapse_alloc)
	for f in enabled defrag scan_sleep_millisecs alloc_sleep_millisecs pages_to_scan; do
		case $f in enabled|defrag) d=$THP ;; *) d=$THP/khugepaged ;; esac
		[ -f $HOSTLOAD_DIR/saved.$f ] &&
			sed 's/.*\[\(.*\)\].*/\1/' $HOSTLOAD_DIR/saved.$f > $d/$f 2>/dev/null
	done
	cat $HOSTLOAD_DIR/saved.proactiveness > /proc/sys/vm/compaction_proactiveness
	[ -d $CG_ROOT/$HOSTLOAD_CG ] && cg_del $HOSTLOAD_CG
	echo "# host load: kpageflags/kpagecount/kpagecgroup read $kpage times" \
		"(1/$HOSTLOAD_KPAGE_SLICES of each a time)," \
		"compact_memory $compact times (compact_migrate_scanned +$scanned)," \
		"THP collapsed +$collapsed, DAMON paddr regions tried $tried," \
		"page_owner read $owner times; hostmem: $(tr '\n' ' ' < $HOSTLOAD_DIR/hostmem.out)"
	[ "$hm" = 0 ] && grep -q "^rounds [1-9]" $HOSTLOAD_DIR/hostmem.out &&
	[ "$kpage" -gt 0 ] && [ "$compact" -gt 0 ] && [ "$scanned" -gt 0 ] &&
	[ "$collapsed" -gt 0 ] && [ "$tried" -gt 0 ]
}
