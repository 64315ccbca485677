#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: nested cgroups follow the nearest scoped ancestor (async_free on disk swap)
#
# Scope outer covers /ab with async_free on, scope inner covers /ab/b with
# it off, global has it off. A workload in /ab/a/leaf (a grandchild of
# outer) and one in /ab/b/leaf (under both: inner is nearer) run at once.
# outer is made first: a lookup in the order the scopes were made would
# find outer for /ab/b/leaf.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups ab
need_scopes || exit 1
zswap_on
swap_on disk || exit 1
cg_mk ab/a/leaf "$CG_MAX" && cg_mk ab/b/leaf "$CG_MAX" || exit 1
scope_new outer /ab async_free=Y || exit 1
scope_new inner /ab/b async_free=N || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
cg_run ab/a/leaf thrash --size "$SIZE" --passes "$PASSES" > /tmp/a.out 2>&1 &
pa=$!
cg_run ab/b/leaf thrash --size "$SIZE" --passes "$PASSES" > /tmp/b.out 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
msg "a: $(tr '\n' ' ' < /tmp/a.out)"
msg "b: $(tr '\n' ' ' < /tmp/b.out)"
wait_quiet
check_identity outer && check_identity inner && check_identity global || exit 1
check "both workloads verified their data" "[ $ra -eq 0 ] && [ $rb -eq 0 ]" &&
check "outer (async_free on) freed its grandchild's folios" "[ $(sstat outer freed_async) -gt 1000 ]" &&
check "outer left none on the LRU" "[ $(sstat outer fallbacks) -eq 0 ]" &&
check "inner (off, nearer) wrote back /ab/b/leaf's folios" "[ $(sstat inner written_back) -gt 1000 ]" &&
check "inner freed none: all left on the LRU" \
	"[ $(sstat inner freed_async) -eq 0 ] && [ $(sstat inner fallbacks) -eq $(sstat inner written_back) ]" &&
check "global freed none" "[ $(sstat global freed_async) -eq 0 ]" &&
check_sums outer inner
