#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: prompt free on $1: unload under load, nothing queued, free memory back
#
# What a sysadmin does under load: the policy off with zswbctl (which waits
# for the drain), then zswbctl unload. Nothing is left in flight or
# queued, the unload succeeds while the workload runs, its data is intact
# and the memory comes back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/prompt.lib"

kind=$1
pol=$(prompt_policy "$kind") || exit 1
need_module || exit 1
sync
echo 3 > /proc/sys/vm/drop_caches
base=$(free_kb)
zswap_on
swap_on "$kind" || exit 1
set_param "$pol" 1 || exit 1
cg_new unload "$CG_MAX"
cg_run unload thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
pid=$!
sleep 8
# What a sysadmin does: policies off (drains), then unload.
zswbctl set "$pol" 0
left=$(( $(wbstat inflight) + $(wbstat queue_depth) ))
msg "after $pol=0: inflight $(wbstat inflight) queue_depth $(wbstat queue_depth), freed $(wb_freed)"
zswbctl unload > /tmp/unload.out 2>&1
urc=$?
msg "zswbctl unload: $(tr '\n' ' ' < /tmp/unload.out)"
loaded=0
[ -d /sys/module/zswap_wb ] && loaded=1
wait_workload $pid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
cg_del unload
swap_off
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 1
free_now=$(free_kb)
# Margin: 16 MiB, for page cache and slab that come and go (seen: under 1 MiB).
msg "free (MemFree + per-CPU lists) before $base kB, after $free_now kB"
modprobe zswap_wb
check "nothing in flight or queued once the policy is off" "[ $left -eq 0 ]" &&
check "unload succeeded during the workload" "[ $urc -eq 0 ] && [ $loaded -eq 0 ]" &&
check "checksums hold" "[ $trc -eq 0 ]" &&
check "free memory back within 16 MiB of its baseline" "[ $((base - free_now)) -lt 16384 ]"
