#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: bad scope names, settings and cgroups are refused and change nothing
#
# Also: a new scope starts with the global values, and reads them back in
# the parameters' formats.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/scope.lib"
scope_cgroups iv iv2 nomem
need_scopes || exit 1
cg_mk iv "$CG_MAX" && cg_mk iv2 "$CG_MAX" || exit 1
mkdir -p "$CG_ROOT/nomem/child" || exit 1
bad=0
echo 77 > "$ZSWB_PARAMS/shrink_batch"
echo skip_fault > "$ZSWB_PARAMS/readahead_policy"
echo Y > "$ZSWB_PARAMS/async_free"
mkdir "$SCOPES/s" || exit 1
[ "$(cat $SCOPES/s/shrink_batch)" = 77 ] || { msg "shrink_batch did not start at the global 77"; bad=1; }
[ "$(cat $SCOPES/s/readahead_policy)" = "$(cat $ZSWB_PARAMS/readahead_policy)" ] ||
	{ msg "readahead_policy: '$(cat $SCOPES/s/readahead_policy)', not the global's"; bad=1; }
[ "$(cat $SCOPES/s/async_free)" = Y ] && [ "$(cat $SCOPES/s/sync_free)" = N ] ||
	{ msg "sync_free/async_free did not start at the global N/Y"; bad=1; }
[ -z "$(cat $SCOPES/s/cgroup)" ] || { msg "a new scope has a cgroup"; bad=1; }
echo 0 > "$ZSWB_PARAMS/async_free"
for name in global xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx 'a b' 'a+b'; do
	if mkdir "$SCOPES/$name" 2>/dev/null; then
		msg "name '$name' was taken"
		rmdir "$SCOPES/$name"
		bad=1
	fi
done
mkdir "$SCOPES/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy" || { msg "a 31-character name was refused"; bad=1; }
rmdir "$SCOPES/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy" 2>/dev/null
echo /iv > "$SCOPES/s/cgroup" || { msg "cannot bind /iv"; bad=1; }
# refused SETTING VALUE: the write fails and the setting reads as before;
# if not, it sets bad, the test's failure flag.
refused() {
	local before
	before=$(cat "$SCOPES/s/$1")
	if echo "$2" > "$SCOPES/s/$1" 2>/dev/null; then
		msg "$1: '$2' was taken"
		bad=1
	fi
	[ "$(cat "$SCOPES/s/$1")" = "$before" ] || { msg "$1: '$2' changed it"; bad=1; }
}
refused sync_free maybe
refused async_free yess
refused shrink_policy bogus
refused shrink_batch 0
refused shrink_batch 1025
refused shrink_batch 12abc
refused readahead_policy stock2
refused cgroup relative/path
refused cgroup /no/such/cgroup
refused cgroup /
refused cgroup /nomem/child
mkdir "$SCOPES/s2" || bad=1
if echo /iv > "$SCOPES/s2/cgroup" 2>/dev/null; then
	msg "two scopes took /iv"
	bad=1
fi
dmesg | grep -q "is already the cgroup of scope s" || { msg "no message for the second /iv"; bad=1; }
dmesg | grep -q "has no memory controller of its own" || { msg "no message for /nomem/child"; bad=1; }
echo /iv2 > "$SCOPES/s2/cgroup" || { msg "s2 cannot take /iv2"; bad=1; }
for kv in sync_free=y async_free=on shrink_policy=split shrink_batch=1024 readahead_policy=skip_zswap_slots; do
	echo "${kv#*=}" > "$SCOPES/s2/${kv%%=*}" || { msg "s2: $kv refused"; bad=1; }
done
msg "s2: $(for f in sync_free async_free shrink_policy shrink_batch readahead_policy cgroup; do printf '%s=%s ' $f "$(cat $SCOPES/s2/$f)"; done)"
[ "$(cat $SCOPES/s2/sync_free) $(cat $SCOPES/s2/async_free) $(cat $SCOPES/s2/shrink_batch)" = "Y Y 1024" ] &&
	[ "$(cat $SCOPES/s2/shrink_policy)" = "$(bracketed shrink_policy split)" ] &&
	[ "$(cat $SCOPES/s2/readahead_policy)" = "$(bracketed readahead_policy skip_zswap_slots)" ] ||
	{ msg "s2 does not read back what was written"; bad=1; }
echo > "$SCOPES/s2/cgroup" || { msg "s2 cannot be unbound"; bad=1; }
[ -z "$(cat $SCOPES/s2/cgroup)" ] || { msg "s2 still bound"; bad=1; }
check "every bad write refused, every good one taken" "[ $bad -eq 0 ]"
