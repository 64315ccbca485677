#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: sync_free on zram in one scope, off for an unscoped sibling at once
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups z1 z2
need_scopes || exit 1
zswap_on
swap_on zram || exit 1
cg_mk z1 "$CG_MAX" && cg_mk z2 "$CG_MAX" || exit 1
scope_new zs /z1 sync_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
cg_run z1 thrash --size "$SIZE" --passes "$PASSES" > /tmp/a.out 2>&1 &
pa=$!
cg_run z2 thrash --size "$SIZE" --passes "$PASSES" > /tmp/b.out 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
msg "z1: $(tr '\n' ' ' < /tmp/a.out)"
msg "z2: $(tr '\n' ' ' < /tmp/b.out)"
check_identity zs && check_identity global || exit 1
check "both workloads verified their data" "[ $ra -eq 0 ] && [ $rb -eq 0 ]" &&
check "zs freed its folios after their write" "[ $(sstat zs freed_sync) -gt 1000 ]" &&
check "zs left none on the LRU" "[ $(sstat zs fallbacks) -eq 0 ]" &&
check "global (z2) freed none, wrote back" \
	"[ $(sstat global freed_sync) -eq 0 ] && [ $(sstat global written_back) -gt 1000 ]" &&
check_sums zs
