#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: zswap_wb_remove_folio() refuses a folio on the LRU
#
# The hook's contract: a backend frees only the off-LRU folios it was
# given, and zswap_wb_remove_folio() refuses one on the LRU, which
# workingset_eviction() and mem_cgroup_swapout() do not expect (on a
# DEBUG_VM kernel they would BUG; on another the folio would be freed from
# under the LRU's accounting). Stock's written-back folios are such
# folios: clean, unmapped, in the swap cache, waiting on the inactive
# list. With the module's policies off, a stopped owner's region is pushed
# to zswap and written back (the device held meanwhile, so that reclaim
# does not free the folios as their writes end), and each of up to 16 of its written-back
# folios is handed to zswap_wb_remove_folio() by zswb_dup remove_pfn=PFN
# (locked, with a reference, as a backend would): every one must be
# refused, and the owner must read back every page.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
dup=$(modinfo -n zswb_dup) || { msg "no zswb_dup test module"; exit 1; }
dm=$(dmctl create zswblru /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
# The region to zswap, then written back while the device holds the
# writes, so that reclaim cannot free the folios before they end: they
# end on the inactive list, as stock leaves them.
cg_new lrurm max
cg_start_stopped lrurm /tmp/lrurm.out swapinrace 16 write || exit 1
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim lrurm 20M
echo Y > /sys/module/zswap/parameters/shrinker_enabled
dmctl suspend zswblru || exit 1
cg_reclaim lrurm 20M
cg_reclaim lrurm 20M
dmctl resume zswblru || exit 1
poll 10 no_writeback
sleep 1
refused=0 removed=0 skipped=0
for p in $(pfnfind "$CG_ROOT/lrurm" swapcache,lru mmap,writeback,locked,dirty 16); do
	dmesg -c > /dev/null
	insmod "$dup" remove_pfn=$p || { msg "zswb_dup remove_pfn=$p does not load"; exit 1; }
	rmmod zswb_dup
	case $(dmesg | sed -n "s/.*zswb_dup: pfn $p: //p") in
	refused) refused=$((refused + 1)) ;;
	removed) removed=$((removed + 1)) ;;
	*) skipped=$((skipped + 1)) ;;
	esac
done
msg "written-back folios on the LRU handed to zswap_wb_remove_folio(): $refused refused, $removed removed, $skipped changed meanwhile"
# Continued, the owner writes and checks its region, then stops again
# with it mapped; continued once more, it exits.
kill -CONT $pid
wait_stopped $pid && kill -CONT $pid
wait $job
rc=$?
msg "owner: exit $rc: $(tr '\n' ' ' < /tmp/lrurm.out)"
cg_del lrurm
swapoff /dev/$dm
dmctl remove zswblru
check "written-back folios on the LRU found" "[ $((refused + removed)) -gt 0 ]" &&
check "none removed from the swap cache" "[ $removed -eq 0 ]" &&
check "the owner wrote and read back every page" "[ $rc -eq 0 ]"
