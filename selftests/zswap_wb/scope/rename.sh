#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: cgroup v2 refuses to rename or move a scoped cgroup; the scope stays bound
#
# cgroup v2 has no rename (only v1 does), in place or to another parent:
# a scope's cgroup is the one it was bound to for its whole life, and the
# scope keeps covering it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups r1 r2 p
need_scopes || exit 1
zswap_on
swap_on disk || exit 1
cg_mk r1 "$CG_MAX" && cg_mk p || exit 1
scope_new r /r1 async_free=Y || exit 1
mv "$CG_ROOT/r1" "$CG_ROOT/r2" 2>/dev/null
rnrc=$?
mv "$CG_ROOT/r1" "$CG_ROOT/p/r1" 2>/dev/null
mvrc=$?
after=$(cat "$SCOPES/r/cgroup")
msg "rename /r1 to /r2: mv $rnrc; move under /p: mv $mvrc; the scope reads '$after'"
echo 1 > "$ZSWB_DEBUGFS/reset"
run_rc=0
cg_run r1 thrash --size "$SIZE" --passes "$PASSES" > /tmp/a.out 2>&1 || run_rc=1
msg "$(tr '\n' ' ' < /tmp/a.out)"
wait_quiet
check_identity r || exit 1
check "cgroup v2 refuses the rename and the move" \
	"[ $rnrc -ne 0 ] && [ $mvrc -ne 0 ] && [ -d $CG_ROOT/r1 ] && [ ! -e $CG_ROOT/r2 ]" &&
check "the scope still reads its cgroup" "[ '$after' = /r1 ]" &&
check "the workload verified its data" "[ $run_rc -eq 0 ]" &&
check "the cgroup's folios follow the scope" "[ $(sstat r freed_async) -gt 1000 ]" &&
check "global freed none" "[ $(sstat global freed_async) -eq 0 ]"
