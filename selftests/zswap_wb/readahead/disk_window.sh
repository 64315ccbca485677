#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: zswap faults leave disk readahead windows as stock
#
# Readahead statistics belong to disk faults: a zswap fault read alone is
# decided before the window is computed, so it neither takes the hits that
# disk readahead earned nor moves the VMA's last fault address. The disk
# part's readahead, interleaved with zswap faults, must then be what stock
# gives it alone (within 10%); on both readahead paths (VMA and cluster).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/readahead.lib"

# ra_mix POLICY [interleave]: ramix with 16 MiB on disk and 32 MiB in zswap
# in one VMA: the disk part read in order, with or without a scattered
# zswap fault after each page; the disk part's slots must follow its pages
# (swapmap), or cluster readahead reads another layout. Sets hit
# (swap_ra_hit), ra (swap_ra) and alone (ra_faults_alone) for the walk.
ra_mix() {
	local job pid po0 disk zo0 zs ra0 hit0 mrc layout adj mix_out
	ra_setup "$1" ramix || return 1
	# The first part goes to the swap device: zswap is off while ramix
	# pages it out, in page order (ramix.c).
	po0=$(vmstat pswpout)
	echo 0 > /sys/module/zswap/parameters/enabled
	cg_start_stopped ramix /tmp/ramix.out ramix 16 32 $2
	mrc=$?
	echo 1 > /sys/module/zswap/parameters/enabled
	[ $mrc -eq 0 ] || return 1
	disk=$(( $(vmstat pswpout) - po0 ))
	layout=$(swapmap $pid)
	adj=$(echo "$layout" | sed -n 's/.* adjacent_pct \([0-9]*\).*/\1/p')
	kill -CONT $pid
	wait_stopped $pid || { msg "ramix: $(cat /tmp/ramix.out)"; return 1; }
	zo0=$(vmstat zswpout)
	cg_reclaim ramix 64M
	zs=$(( $(vmstat zswpout) - zo0 ))
	ra0=$(vmstat swap_ra) hit0=$(vmstat swap_ra_hit)
	kill -CONT $pid
	wait $job
	mrc=$?
	ra=$(( $(vmstat swap_ra) - ra0 )) hit=$(( $(vmstat swap_ra_hit) - hit0 ))
	alone=$(wbstat ra_faults_alone)
	mix_out=$(cat /tmp/ramix.out | tail -1)
	msg "$1 ${2:-alone}: pages to disk $disk, to zswap $zs; walk: swap_ra $ra swap_ra_hit $hit ra_faults_alone $alone; $mix_out"
	msg "disk part's slots: $layout"
	ra_teardown ramix
	check "ramix checksums hold" "[ $mrc -eq 0 ]" &&
	check "the first part went to disk, the second to zswap" \
		"[ $disk -ge 3800 ] && [ $zs -ge 7600 ]" &&
	check "the disk part's neighbouring pages sit in neighbouring slots (${adj:-?}%)" \
		"[ ${adj:-0} -ge 95 ]"
}

need_module || exit 1
for path in vma cluster; do
	[ $path = vma ] && v=true || v=false
	echo $v > /sys/kernel/mm/swap/vma_ra_enabled || exit 1
	ra_mix stock || exit 1
	base=$hit
	check "$path: stock reads the disk part ahead" "[ $base -gt 1000 ]" || exit 1
	ra_mix stock interleave || exit 1
	msg "$path: stock, interleaved with zswap faults: swap_ra_hit $hit of $base alone"
	for pol in skip_fault skip_zswap_slots; do
		ra_mix $pol interleave || exit 1
		check "$path $pol: zswap faults read alone" "[ $alone -ge 3800 ]" &&
		check "$path $pol: disk readahead hits as stock alone ($hit vs $base)" \
			"[ $((hit * 10)) -ge $((base * 9)) ]" || exit 1
	done
done
echo true > /sys/kernel/mm/swap/vma_ra_enabled
