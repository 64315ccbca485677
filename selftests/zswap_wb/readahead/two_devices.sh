#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: two swap devices, swapoff/swapon under readahead: no use after free
#
# Two swap devices at one priority interleave their entries in a VMA, so a
# readahead window holds neighbours of another device than the fault's.
# swapoff of that device frees its zswap tree: the hook must pin the
# neighbour's device before asking zswap about it. The window is a few
# instructions wide and cannot be forced open from here; KASAN (make
# check-debug) reports a use after free if it is hit.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
zswap_on
echo 0 > /sys/block/vda/queue/rotational
mkswap /dev/vda >/dev/null && mkswap /dev/nvme0n1 >/dev/null || { msg "mkswap failed"; exit 1; }
swapprio /dev/vda 5 && swapprio /dev/nvme0n1 5 || { msg "swapon at priority 5 failed"; exit 1; }
check "both devices at one priority" \
	"[ $(awk 'NR > 1 { print $5 }' /proc/swaps | sort -u | wc -l) -eq 1 ]" || exit 1
rc=0
for pol in $(choices readahead_policy); do
	set_param readahead_policy $pol || exit 1
	cg_new ra2 64M
	# 4 passes; 2 on the debug kernel (PASSES 1), where 4 take too
	# long.
	cg_run ra2 thrash --size 128 --passes $((PASSES * 2)) > /tmp/ra2.out 2>&1 &
	pid=$!
	n=0 offfail=0
	while kill -0 $pid 2>/dev/null; do
		swapoff /dev/nvme0n1 2>/dev/null || offfail=$((offfail + 1))
		grep -q nvme0n1 /proc/swaps || swapprio /dev/nvme0n1 5 || rc=1
		n=$((n + 1))
	done
	wait $pid || rc=1
	msg "$pol: $n swapoff/swapon cycles ($offfail swapoffs refused); $(tr '\n' ' ' < /tmp/ra2.out)"
	cg_del ra2
	[ $n -gt 0 ] || rc=1
done
swap_off
set_param readahead_policy stock
check "checksums hold and every swapon worked" "[ $rc -eq 0 ]"
