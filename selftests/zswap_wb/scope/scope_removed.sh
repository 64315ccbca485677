#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a scope removed while its folios are in flight; its slot reused
#
# rmdir of the scope does not wait for its folios: their writes are held
# (a suspended device-mapper device) meanwhile. They resolve as they were
# marked, and the removed scope's counts go to global, so global and the
# host totals still agree. A scope made afterwards starts at zero.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups t
need_scopes || exit 1
DM=zswbscdel
dm=$(dmctl create $DM /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
cg_mk t || exit 1
scope_new tmp /t async_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
held_writeback t $DM || exit 1
q=$(sstat tmp inflight)
rmdir "$SCOPES/tmp" &
rpid=$!
sleep 2
gone=1
[ -d "$SCOPES/tmp" ] && gone=0
[ -d "$SCOPE_DEBUGFS/tmp" ] && gone=0
msg "scope removed with $q folios in flight ($held_wb written back while held): rmdir done in 2 s: $gone"
dmctl resume $DM
wait $rpid
rmrc=$?
cg_stop t
wait
wait_quiet
msg "host: $(tr '\n' ' ' < "$ZSWB_DEBUGFS/stats")"
check_identity global || exit 1
scope_new again /t || exit 1
check "folios of the scope were in flight" "[ $q -gt 0 ]" &&
check "rmdir did not wait for them" "[ $gone -eq 1 ] && [ $rmrc -eq 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wb_resolved) -eq $(wbstat written_back) ] && [ $(wbstat inflight) -eq 0 ]" &&
check "the removed scope's counts went to global" "[ $(sstat global freed_async) -gt 0 ]" &&
check_sums &&
check "a new scope starts at zero" "[ $(sstat again written_back) -eq 0 ] && [ $(sstat again freed_async) -eq 0 ]" &&
check_sums again
