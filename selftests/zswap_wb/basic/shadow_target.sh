#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: refault detection as stock with the limit on the parent (disk)
#
# Refault detection of the folios async_free frees, against stock's, with
# the limit on the workload memcg's parent: stock's reclaim names its
# target (the parent) in the shadow entry, and so must the module, or the
# leaf's refaults look recent and are activated. Alternated runs
# (ZSWB_TEST_WS_RUNS pairs; ZSWB_TEST_WS_WHERE="leaf parent" measures the
# limit on the leaf too); async_free may activate at most 0.1% of its
# refaults more than stock.
#
# The leaf's workingset_activate_anon also counts zswap's writebacks:
# the folio zswap_writeback_entry() allocates refaults the shadow entry
# that the zswap store left (__read_swap_cache_async()), and the shrinker
# early in a run writes back entries stored within the workingset's
# distance. Those come in bursts, in stock and async_free alike (in one
# boot, 190 in one second of one stock run, 0 to 24 in the nine other
# runs), and no shadow entry of the module's is read there, so they are counted apart: a kretprobe on
# workingset_test_recent() with its stack on each refault found recent,
# those under zswap_writeback_entry() subtracted; the rest are the
# refaults of faults and their readahead, which the check compares.
#
# A shadow entry that names the root instead of the parent activates
# where the root's workingset is large beside the refault distance, and
# in an idle VM it is not (a module that named the root for every free
# activated 4 of 355,584 refaults). So the root is given one: a file on
# ext4 twice the workload's size, read twice, in the page cache outside
# the workload's memcgs (anon refaults weigh the file LRUs too).
# The cause is checked directly as well: of the folios async_free frees,
# at most 1% may leave a shadow entry that names no memcg (shadow_root,
# which counts sync frees too: none on disk swap), where the parent sits
# at its limit the whole run.
. "$(dirname "$0")/../lib.sh"

TRACE=/sys/kernel/tracing
RECENT=$TRACE/events/kprobes/zswb_recent

# recent_on: the kretprobe, its stack recorded where the refault is recent.
recent_on() {
	[ -d $TRACE/events ] || mount -t tracefs nodev $TRACE || return 1
	echo 'r:zswb_recent workingset_test_recent ret=$retval:u8' >> $TRACE/kprobe_events &&
		echo 'stacktrace if ret==1' > $RECENT/trigger &&
		echo 'ret==1' > $RECENT/filter &&
		echo 4096 > $TRACE/buffer_size_kb &&
		echo 1 > $RECENT/enable
}

# On a mount of its own: swap_off unmounts /mnt/fs.
CACHE_MNT=/mnt/cache
CACHE=$CACHE_MNT/cache

test_cleanup_own() {
	is_mounted $CACHE_MNT && { rm -f $CACHE; umount $CACHE_MNT; }
	[ -d $RECENT ] || return 0
	echo 0 > $RECENT/enable
	echo '!stacktrace if ret==1' > $RECENT/trigger
	echo '-:zswb_recent' >> $TRACE/kprobe_events
	echo > $TRACE/trace
}

# recent_wb: of the recent refaults since the trace was last cleared, how
# many zswap_writeback_entry() allocated.
recent_wb() {
	awk '/<stack trace>/ { n++; wb[n] = 0 } / => zswap_writeback_entry/ { wb[n] = 1 }
		END { for (i in wb) c += wb[i]; print c + 0 }' $TRACE/trace
}

# recent_lost: the events the trace buffer lost since it was last cleared.
recent_lost() {
	awk '/^overrun:/ { s += $2 } END { print s + 0 }' $TRACE/per_cpu/cpu*/stats
}

# ws_run POLICY WHERE MIB MAX: one thrash run of MIB in memcg anc/leaf on
# disk swap, the limit MAX on the leaf or on its parent (WHERE: leaf or
# parent), async_free as POLICY says. Sets ws_refault, ws_activate (the
# leaf's memory.stat workingset_*_anon), ws_wb_act (of those, the
# activations of zswap's writeback folios) and ws_lost (the trace events
# lost: then ws_wb_act is short), ws_wb (zswpwb), ws_freed and ws_root
# (freed_async, shadow_root).
ws_run() {
	local pol=$1 where=$2 mib=$3 max=$4 wb0 freed0 root0
	zswap_on
	swap_on disk || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	mkdir $CG_ROOT/anc && echo +memory > $CG_ROOT/anc/cgroup.subtree_control &&
		mkdir $CG_ROOT/anc/leaf || return 1
	if [ "$where" = parent ]; then
		echo "$max" > $CG_ROOT/anc/memory.max
	else
		echo "$max" > $CG_ROOT/anc/leaf/memory.max
	fi
	echo > $TRACE/trace
	wb0=$(vmstat zswpwb) freed0=$(wbstat freed_async) root0=$(wbstat shadow_root)
	ws_out=$(run_thrash anc/leaf --size "$mib" --passes "$PASSES") || { echo "$ws_out"; return 1; }
	ws_wb=$(( $(vmstat zswpwb) - wb0 ))
	ws_refault=$(cgstat anc/leaf workingset_refault_anon)
	ws_activate=$(cgstat anc/leaf workingset_activate_anon)
	ws_wb_act=$(recent_wb) ws_lost=$(recent_lost)
	cg_del anc/leaf && cg_del anc || return 1
	# Waits until no folio is in flight: every one counted.
	set_param async_free 0 || return 1
	ws_freed=$(( $(wbstat freed_async) - freed0 )) ws_root=$(( $(wbstat shadow_root) - root0 ))
	swap_off
	msg "$pol, limit on the $where: zswpwb $ws_wb workingset_refault_anon $ws_refault activate $ws_activate" \
		"(of writebacks $ws_wb_act, $ws_lost trace events lost)" \
		"freed_async $ws_freed shadow_root $ws_root"
}

runs=${ZSWB_TEST_WS_RUNS:-1} mib=$((SIZE / 2)) max=$((${CG_MAX%M} / 2))M
need_module || exit 1
grep -q '^shadow_root ' "$ZSWB_DEBUGFS/stats" || { msg "no shadow_root in the module's stats"; exit 1; }
recent_on || { msg "no kretprobe on workingset_test_recent"; exit 1; }
# The root's workingset, read twice: on the active file list.
cache=$((2 * mib))
[ $cache -le 1000 ] || cache=1000
mkdir -p $CACHE_MNT
mount -t ext4 /dev/vdb $CACHE_MNT &&
	dd if=/dev/zero of=$CACHE bs=1M count=$cache 2>/dev/null &&
	cat $CACHE $CACHE > /dev/null || { msg "cannot write $CACHE"; exit 1; }
msg "page cache beside the workload: $(awk '/^(Active|Inactive)\(file\)/ { s += $2 } END { print int(s / 1024) }' /proc/meminfo) MiB"
for where in ${ZSWB_TEST_WS_WHERE:-parent}; do
	i=0 s_act=0 s_ref=0 s_wb=0 a_act=0 a_ref=0 a_wb=0 a_freed=0 a_root=0 lost=0
	while [ $i -lt "$runs" ]; do
		ws_run stock $where $mib $max || exit 1
		s_act=$((s_act + ws_activate - ws_wb_act)) s_ref=$((s_ref + ws_refault)) s_wb=$((s_wb + ws_wb_act))
		lost=$((lost + ws_lost))
		ws_run async $where $mib $max || exit 1
		a_act=$((a_act + ws_activate - ws_wb_act)) a_ref=$((a_ref + ws_refault)) a_wb=$((a_wb + ws_wb_act))
		a_freed=$((a_freed + ws_freed)) a_root=$((a_root + ws_root))
		lost=$((lost + ws_lost))
		i=$((i + 1))
	done
	msg "limit on the $where, $runs runs each: activated, of faults, stock $s_act of $s_ref refaults, async_free $a_act of $a_ref;" \
		"of writebacks, stock $s_wb, async_free $a_wb"
	msg "limit on the $where: async_free freed $a_freed, $a_root with a shadow entry naming no memcg"
	check "limit on the $where: async_free's shadow entries name the memcg at its limit (shadow_root at most 1%)" \
		"[ $a_freed -gt 0 ] && [ $a_root -le $((a_freed / 100)) ]" || exit 1
	check "limit on the $where: async_free activates refaults as stock (within 0.1%)" \
		"[ $a_act -le $((s_act + a_ref / 1000)) ]" || exit 1
	# Lost events leave writebacks' activations counted as faults'; a
	# module that activates as stock fills a fraction of the buffer.
	check "limit on the $where: no trace events lost" "[ $lost = 0 ]" || exit 1
done
