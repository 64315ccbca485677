#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: booted with cgroup_disable=memory, a scope is refused with a clear error
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../scope/scope.lib"
scope_cgroups
if grep -qw memory "$CG_ROOT/cgroup.controllers"; then
	msg "SKIP: the memory controller is enabled (boot with cgroup_disable=memory)"
	exit 4
fi
need_scopes || exit 1
dmesg -c >/dev/null
out=$(mkdir "$SCOPES/nm" 2>&1)
rc=$?
msg "mkdir: $rc: $out"
msg "dmesg: $(dmesg | tail -n 1)"
check "mkdir is refused" "[ $rc -ne 0 ] && [ ! -d $SCOPES/nm ]" &&
check "as not supported" "echo \"\$out\" | grep -q 'not supported'" &&
check "the log says why" "dmesg | grep -q 'memory controller is disabled (cgroup_disable=memory)'"
