#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: cgroup_disable=memory: the global shrinker writes back
#
# Booted with cgroup_disable=memory: the global shrinker still writes back
# (mm/zswap: Fix global shrinker when memory cgroup is disabled), with the
# module unloaded and with a batched policy.
. "$(dirname "$0")/../lib.sh"

grep -q "cgroup_disable=memory" /proc/cmdline || { msg "not booted with cgroup_disable=memory"; exit 4; }
rc=0
zswap_on
echo N > /sys/module/zswap/parameters/shrinker_enabled
echo 5 > /sys/module/zswap/parameters/max_pool_percent
swap_on disk 1500 || exit 1
for mode in unloaded carry; do
	if [ $mode = unloaded ]; then
		rmmod zswap_wb 2>/dev/null
	else
		need_module || exit 1
		set_param shrink_policy $mode
	fi
	wb0=$(vmstat zswpwb)
	thrash --size 640 --passes 1 > /tmp/thrash.out 2>&1 || { msg "$(cat /tmp/thrash.out)"; rc=1; }
	wb=$(( $(vmstat zswpwb) - wb0 ))
	msg "$mode: zswpwb $wb, pool_limit_hit $(cat /sys/kernel/debug/zswap/pool_limit_hit)"
	[ $mode = carry ] && msg "zswap_wb: calls $(calls) written $(written_nodes)"
	[ $wb -gt 0 ] || { msg "FAILED: no writeback with memcg disabled ($mode)"; rc=1; }
	if [ $mode = carry ]; then
		[ "$(written_nodes)" -gt 0 ] || { msg "FAILED: the module's shrink_memcg() wrote nothing"; rc=1; }
	fi
done
set_param shrink_policy stock
swap_off
echo 20 > /sys/module/zswap/parameters/max_pool_percent
exit $rc
