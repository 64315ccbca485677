#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a zswap-resident region faults back without readahead under both policies
#
# A process's region pushed to zswap whole (nothing on disk) faults back:
# stock reads ahead around each fault, skip_fault and skip_zswap_slots do
# not, and the data is intact under each.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/readahead.lib"

# ra_zswap_region POLICY: the zswap-resident region of a process faults
# back under POLICY. Sets ra (swap_ra) and zi (zswpin) for the faults.
ra_zswap_region() {
	local wb0 po0 ra0 zi0 trc disk fill_pid
	ra_setup "$1" ra || return 1
	wb0=$(vmstat zswpwb) po0=$(vmstat pswpout)
	ra_fill ra 48 || return 1
	ra0=$(vmstat swap_ra) zi0=$(vmstat zswpin)
	ra_release ra
	wait $fill_pid
	trc=$?
	ra=$(( $(vmstat swap_ra) - ra0 )) zi=$(( $(vmstat zswpin) - zi0 ))
	disk=$(( $(vmstat pswpout) - po0 ))
	msg "$1: swap_ra $ra zswpin $zi, pages on disk $disk; $(grep ^ra_ $ZSWB_DEBUGFS/stats | tr '\n' ' ')"
	ra_teardown ra
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "the region was in zswap" "[ $zi -gt 5000 ] && [ $disk -eq 0 ]"
}

need_module || exit 1
ra_zswap_region stock || exit 1
check "stock reads ahead (the measure can see readahead)" "[ $ra -gt 0 ]" || exit 1
# A fault on one of the process's zero-filled pages (stack, heap) is
# not in zswap and keeps stock readahead: allow 0.1% of the faults.
ra_zswap_region skip_fault || exit 1
check "skip_fault: no readahead" "[ $((ra * 1000)) -le $zi ]" &&
check "skip_fault: faults read alone" "[ $(wbstat ra_faults_alone) -gt 0 ]" || exit 1
ra_zswap_region skip_zswap_slots || exit 1
check "skip_zswap_slots: no readahead" "[ $((ra * 1000)) -le $zi ]" &&
check "skip_zswap_slots: zswap slots skipped" "[ $(wbstat ra_zswap_slots_skipped) -gt 0 ]"
