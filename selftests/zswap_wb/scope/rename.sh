#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a scoped cgroup renamed stays scoped; moving it elsewhere is refused
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
scope_trap r1 r2 p
need_scopes || exit 1
zswap_on
swap_on disk || exit 1
cg_mk r1 "$CG_MAX" && cg_mk p || exit 1
scope_new r /r1 async_free=Y || exit 1
mv "$CG_ROOT/r1" "$CG_ROOT/r2" || { msg "cannot rename /r1"; exit 1; }
after=$(cat "$SCOPES/r/cgroup")
mv "$CG_ROOT/r2" "$CG_ROOT/p/r2" 2>/dev/null
mvrc=$?
after_mv=$(cat "$SCOPES/r/cgroup")
msg "cgroup after rename: '$after'; moving it under /p: mv $mvrc, then '$after_mv'"
echo 1 > "$ZSWB_DEBUGFS/reset"
run_rc=0
cg_run r2 thrash --size "$SIZE" --passes "$PASSES" > /tmp/a.out 2>&1 || run_rc=1
msg "$(tr '\n' ' ' < /tmp/a.out)"
wait_quiet
check_identity r || exit 1
check "the scope reads the new name" "[ '$after' = /r2 ]" &&
check "cgroup v2 refuses to move a cgroup to another parent" \
	"[ $mvrc -ne 0 ] && [ '$after_mv' = /r2 ] && [ -d $CG_ROOT/r2 ]" &&
check "the workload verified its data" "[ $run_rc -eq 0 ]" &&
check "the renamed cgroup's folios follow the scope" "[ $(sstat r freed_async) -gt 1000 ]" &&
check "global freed none" "[ $(sstat global freed_async) -eq 0 ]"
