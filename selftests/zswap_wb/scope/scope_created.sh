#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a scope made, bound and toggled while its cgroup's workload runs
#
# The workload starts under global (async_free off; sync_free on, which
# frees nothing on disk swap but arms the writeback point, so that global
# counts its writebacks); a scope is made for its cgroup with async_free
# on, then toggled 20 times, then left on.
# Nothing is lost from the accounting of global, the scope or the host.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups live
need_scopes || exit 1
zswap_on
swap_on disk || exit 1
cg_mk live "$CG_MAX" || exit 1
set_param sync_free 1 || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
cg_run live thrash --size "$SIZE" --passes 3 > /tmp/a.out 2>&1 &
pa=$!
poll 60 written_back_at_least 2000
bad=0
scope_new l /live async_free=Y || bad=1
n=0
while [ $n -lt 20 ]; do
	echo N > "$SCOPES/l/async_free" || bad=1
	sleep 0.2
	echo Y > "$SCOPES/l/async_free" || bad=1
	sleep 0.3
	n=$((n + 1))
done
wait $pa
ra=$?
msg "$(tr '\n' ' ' < /tmp/a.out)"
wait_quiet
check_identity l && check_identity global || exit 1
check "the workload verified its data" "[ $ra -eq 0 ]" &&
check "the scope was made and toggled under load" "[ $bad -eq 0 ]" &&
check "global wrote back before the scope existed" "[ $(sstat global written_back) -gt 1000 ]" &&
check "global freed none" "[ $(sstat global freed_async) -eq 0 ]" &&
check "the scope freed folios" "[ $(sstat l freed_async) -gt 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wb_resolved) -eq $(wbstat written_back) ] && [ $(wbstat inflight) -eq 0 ]" &&
check_sums l
