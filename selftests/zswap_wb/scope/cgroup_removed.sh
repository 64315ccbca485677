#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a scoped cgroup removed while its folios are in flight
#
# The writes of the scope's folios are held (a suspended device-mapper
# device) while the cgroup's tasks are killed and the cgroup removed; the
# folios end after it is gone and still resolve in the scope, whose
# "cgroup" says the cgroup was removed. Rebinding the scope then works.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups gone gone2
need_scopes || exit 1
DM=zswbscrm
dm=$(dmctl create $DM /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
cg_mk gone || exit 1
scope_new g /gone async_free=Y || exit 1
echo 1 > "$ZSWB_DEBUGFS/reset"
held_writeback gone $DM || exit 1
echo 1 > "$CG_ROOT/gone/cgroup.kill"
poll 20 cg_empty gone
q=$(sstat g inflight)
rmdir "$CG_ROOT/gone"
rmrc=$?
shown=$(cat "$SCOPES/g/cgroup")
msg "cgroup removed (rmdir $rmrc) with $q folios of the scope in flight ($held_wb written back while held); cgroup reads '$shown'"
dmctl resume $DM
wait
poll 30 scope_idle g
check_identity g || exit 1
cg_mk gone2 "$CG_MAX" || exit 1
echo /gone2 > "$SCOPES/g/cgroup"
rebind=$?
check "the cgroup was removed with folios of the scope in flight" "[ $rmrc -eq 0 ] && [ $q -gt 0 ]" &&
check "the scope's cgroup says it is gone" "[ '$shown' = '/gone (removed)' ]" &&
check "the scope freed its folios" "[ $(sstat g freed_async) -gt 0 ]" &&
check "the scope takes another cgroup" "[ $rebind -eq 0 ] && [ \"\$(cat $SCOPES/g/cgroup)\" = /gone2 ]" &&
check_sums g
