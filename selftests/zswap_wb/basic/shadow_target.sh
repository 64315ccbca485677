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
# refaults more than stock. Activation is the outcome, and a shadow entry
# that names the root instead of the parent activates only when the root's
# workingset happens to be large beside the refault distance (266 of
# 176,421 refaults in one run, none in most), so the cause is checked
# directly too: of the folios async_free frees, at most 1% may leave a
# shadow entry that names no memcg (shadow_root, which counts sync frees
# too: none on disk swap), where the parent sits at its limit the whole
# run.
. "$(dirname "$0")/../lib.sh"

# ws_run POLICY WHERE MIB MAX: one thrash run of MIB in memcg anc/leaf on
# disk swap, the limit MAX on the leaf or on its parent (WHERE: leaf or
# parent), async_free as POLICY says. Sets ws_refault, ws_activate (the
# leaf's memory.stat workingset_*_anon), ws_wb (zswpwb), ws_freed and
# ws_root (freed_async, shadow_root).
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
	wb0=$(vmstat zswpwb) freed0=$(wbstat freed_async) root0=$(wbstat shadow_root)
	run_thrash anc/leaf --size "$mib" --passes "$PASSES" > /dev/null || return 1
	ws_wb=$(( $(vmstat zswpwb) - wb0 ))
	ws_refault=$(cgstat anc/leaf workingset_refault_anon)
	ws_activate=$(cgstat anc/leaf workingset_activate_anon)
	cg_del anc/leaf && cg_del anc || return 1
	# Waits until no folio is in flight: every one counted.
	set_param async_free 0 || return 1
	ws_freed=$(( $(wbstat freed_async) - freed0 )) ws_root=$(( $(wbstat shadow_root) - root0 ))
	swap_off
	msg "$pol, limit on the $where: zswpwb $ws_wb workingset_refault_anon $ws_refault activate $ws_activate" \
		"freed_async $ws_freed shadow_root $ws_root"
}

runs=${ZSWB_TEST_WS_RUNS:-1} mib=$((SIZE / 2)) max=$((${CG_MAX%M} / 2))M
need_module || exit 1
grep -q '^shadow_root ' "$ZSWB_DEBUGFS/stats" || { msg "no shadow_root in the module's stats"; exit 1; }
for where in ${ZSWB_TEST_WS_WHERE:-parent}; do
	i=0 s_act=0 s_ref=0 a_act=0 a_ref=0 a_freed=0 a_root=0
	while [ $i -lt "$runs" ]; do
		ws_run stock $where $mib $max || exit 1
		s_act=$((s_act + ws_activate)) s_ref=$((s_ref + ws_refault))
		ws_run async $where $mib $max || exit 1
		a_act=$((a_act + ws_activate)) a_ref=$((a_ref + ws_refault))
		a_freed=$((a_freed + ws_freed)) a_root=$((a_root + ws_root))
		i=$((i + 1))
	done
	msg "limit on the $where, $runs runs each: activated stock $s_act of $s_ref refaults, async_free $a_act of $a_ref"
	msg "limit on the $where: async_free freed $a_freed, $a_root with a shadow entry naming no memcg"
	check "limit on the $where: async_free's shadow entries name the memcg at its limit (shadow_root at most 1%)" \
		"[ $a_freed -gt 0 ] && [ $a_root -le $((a_freed / 100)) ]" || exit 1
	check "limit on the $where: async_free activates refaults as stock (within 0.1%)" \
		"[ $a_act -le $((s_act + a_ref / 1000)) ]" || exit 1
done
