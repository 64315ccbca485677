#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: rmmod is refused while a scope exists, and works once it is removed
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups u
need_scopes || exit 1
cg_mk u "$CG_MAX" || exit 1
scope_new u /u async_free=Y || exit 1
out=$(rmmod zswap_wb 2>&1)
rc=$?
msg "rmmod with a scope: $rc: $out"
loaded=0
[ -d /sys/module/zswap_wb ] && [ -d "$SCOPES/u" ] && loaded=1
rmdir "$SCOPES/u"
unload
urc=$?
modprobe zswap_wb
check "rmmod with a scope is refused" "[ $rc -ne 0 ] && [ $loaded -eq 1 ]" &&
check "rmmod once the scope is removed" "[ $urc -eq 0 ]" &&
check "loaded again: no scope, the scopes' directory back" \
	"[ -d $SCOPES ] && [ -z \"\$(ls $SCOPES)\" ] && [ -d $SCOPE_DEBUGFS/global ]"
