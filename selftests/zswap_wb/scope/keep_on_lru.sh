#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a folio no scope frees is allocated on the LRU while another cgroup's scope frees
#
# A scope with async_free on covers one cgroup; a second cgroup is not
# covered, and global does not free. Both write back on disk swap. The
# covered cgroup's folios are allocated off the LRU and freed; the
# uncovered one's, decided by their owner before they are allocated, go
# on the LRU at allocation, stock's path (allocated_on_lru), instead of
# off it and onto it after their write, where a write that ended first
# was not rotated as stock rotates it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups kf kn
need_scopes || exit 1
zswap_on
swap_on disk || exit 1
cg_mk kf "$CG_MAX" && cg_mk kn "$CG_MAX" || exit 1
scope_new frees /kf async_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
snap a
cg_run kf thrash --size "$SIZE" --passes "$PASSES" > /tmp/kf.out 2>&1 &
pa=$!
cg_run kn thrash --size "$SIZE" --passes "$PASSES" > /tmp/kn.out 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
snap b
msg "kf: $(tr '\n' ' ' < /tmp/kf.out)"
msg "kn: $(tr '\n' ' ' < /tmp/kn.out)"
wait_quiet
msg "zswpwb $(delta zswpwb) pgrotated $(delta pgrotated) pswpout $(delta pswpout); frees: written_back $(sstat frees written_back) freed_async $(sstat frees freed_async); global: written_back $(sstat global written_back) fallbacks $(sstat global fallbacks) allocated_on_lru $(sstat global allocated_on_lru)"
check_identity frees && check_identity global || exit 1
check "both workloads verified their data" "[ $ra -eq 0 ] && [ $rb -eq 0 ]" &&
check "the scope freed its cgroup's folios" "[ $(sstat frees freed_async) -gt 1000 ]" &&
check "the uncovered cgroup wrote back" "[ $(sstat global written_back) -gt 1000 ]" &&
check "every uncovered folio was allocated on the LRU (allocated_on_lru = written_back)" \
	"[ $(sstat global allocated_on_lru) -eq $(sstat global written_back) ]" &&
check "no covered folio was (allocated_on_lru 0 in the scope)" "[ $(sstat frees allocated_on_lru) -eq 0 ]" &&
check_sums frees
