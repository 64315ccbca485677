#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: prompt free on $1: pgrotated < 1%, freed + raced = written back, data intact
#
# The workload with the prompt-free policy of the swap kind ($1: zram,
# disk, nvme or file) on: zswap's written-back folios are freed as their
# writes end instead of rotating, every one is accounted for (freed, or
# raced and put back) and the data reads back intact. The memcg sits at
# its limit the whole run, so the shadow entries of what is freed name it
# as stock's limit reclaim would: at most 1% may name no memcg
# (shadow_root).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/prompt.lib"

kind=$1
pol=$(prompt_policy "$kind") || exit 1
need_module || exit 1
zswap_on
swap_on "$kind" || exit 1
set_param "$pol" 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new prompt "$CG_MAX"
snap a
run_thrash prompt --size "$SIZE" --passes "$PASSES"
trc=$?
snap b
cg_del prompt
set_param "$pol" 0
swap_off
wb=$(delta zswpwb) rot=$(delta pgrotated)
msg "zswpwb $wb pgrotated $rot pswpout $(delta pswpout)"
msg_stats
freed=$(wb_freed)
check "checksums hold" "[ $trc -eq 0 ]" &&
check "more than 10k pages written back" "[ $wb -gt 10000 ]" &&
check "pgrotated below 1% of zswpwb" "[ $((rot * 100)) -lt $wb ]" &&
check "every writeback went through the backend" "[ $(wbstat written_back) -eq $wb ]" &&
check "freed plus raced equals written back" "[ $((freed + $(wbstat raced))) -eq $(wbstat written_back) ]" &&
check "no write error" "[ $(wbstat write_errors) -eq 0 ]" &&
check "shadow entries name the memcg at its limit (shadow_root at most 1% of freed)" \
	"[ $(wbstat shadow_root) -le $((freed / 100)) ]" &&
check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
