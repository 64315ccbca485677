#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# params.c: a choice parameter (a policy) reads as its choices with the
# current one in brackets, as the module prints it: get prints the
# current choice, get --choices every choice; only a list of words with
# one in brackets is a choice; a set that fails leaves the choice as it was.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 12
module_schema

fake_mod
t "get: a policy's current choice, brackets taken off" 0 per_node '' get shrink_policy
t "get: the first choice current" 0 stock '' get readahead_policy
t "get --choices: every choice, the current in brackets" 0 \
	"$(glob "$(bracketed shrink_policy per_node)")" '' get --choices shrink_policy
t "get -c" 0 "$(glob "$(bracketed readahead_policy stock)")" '' get -c readahead_policy
t "get --choices of a boolean" 1 '' "zswbctl: sync_free is not a choice parameter: its value is 'N'" \
	get --choices sync_free
t "get --choices without a name" 64 '' "$usage" get --choices
t "get --choices: extra argument" 64 '' "$usage" get --choices shrink_policy x
t "get --choices: unknown parameter" 1 '' "zswbctl: unknown parameter 'nope'" get -c nope
t "status: each policy's current choice" 0 \
	$'async_free = Y\nreadahead_policy = stock\nshrink_batch = 32\nshrink_policy = per_node\nsync_free = N\n*' \
	'' status
ok=0
for v in "[a]:a" "a [b]:b" "[a] b c:a" "a b [c]:c"; do
	echo "${v%:*}" >"$p/custom"
	zsw get custom
	[[ $rc == 0 && $out == "${v#*:}" ]] || { diag "'${v%:*}': '$out'"; ok=1; }
done
for v in "[a b]" "a[b]" "[a]b" "[] a" "[a] [b]" "a ]b[" "[a" "a]"; do
	echo "$v" >"$p/custom"
	zsw get custom
	[[ $rc == 0 && $out == "$v" ]] || { diag "'$v': '$out'"; ok=1; }
done
result "get: only a list of words with one in brackets is a choice" $ok
rm "$p/custom"
zsw set shrink_policy carry shrink_batch 0
is "set: a value refused before writing leaves the policy as it read" "$p/shrink_policy" \
	"$(bracketed shrink_policy per_node)"
bracketed shrink_policy per_node >"$p/shrink_policy"
ln -sf /proc/sys/kernel/ostype "$p/locked" 2>/dev/null
if [ -n "$can_refuse" ]; then
	fake_param locked choice "x $(<$refused)" x - >>"$d/schema"
	zsw set shrink_policy carry locked x
	is "set: the old choice written back on a refused write" "$p/shrink_policy" per_node
else
	skip "set: the old choice written back on a refused write" "no read-only file"
fi
rm -f "$p/locked"

ktap_finished
