#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: skip_zswap_slots keeps readahead for disk slots, skips zswap ones
#
# Half of a memcg's memory on disk (stored with zswap off), half in zswap:
# skip_zswap_slots still reads the disk half ahead.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/readahead.lib"

need_module || exit 1
zswap_on
echo N > /sys/module/zswap/parameters/shrinker_enabled
swap_on disk || exit 1
set_param readahead_policy skip_zswap_slots || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new rahalf max
echo 0 > /sys/module/zswap/parameters/enabled
ra_fill rahalf 24 || exit 1
disk_pid=$fill_pid
echo 1 > /sys/module/zswap/parameters/enabled
ra_fill rahalf 24 || exit 1
zswap_pid=$fill_pid
ra0=$(vmstat swap_ra) hit0=$(vmstat swap_ra_hit) pi0=$(vmstat pswpin) zi0=$(vmstat zswpin)
ra_release rahalf
wait $zswap_pid
rc1=$?
wait $disk_pid
rc2=$?
ra=$(( $(vmstat swap_ra) - ra0 ))
msg "swap_ra $ra swap_ra_hit $(( $(vmstat swap_ra_hit) - hit0 )) pswpin $(( $(vmstat pswpin) - pi0 )) zswpin $(( $(vmstat zswpin) - zi0 ))"
msg "$(grep ^ra_ $ZSWB_DEBUGFS/stats | tr '\n' ' ')"
cg_del rahalf
swap_off
echo Y > /sys/module/zswap/parameters/shrinker_enabled
set_param readahead_policy stock
check "checksums hold" "[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]" &&
check "disk neighbours read ahead" "[ $ra -gt 0 ] && [ $(wbstat ra_disk_slots) -gt 0 ]" &&
check "zswap neighbours skipped" "[ $(wbstat ra_zswap_slots_skipped) -gt 0 ]"
