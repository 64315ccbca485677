#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# params.c: get and set on the module's parameters. A value is checked as
# the module checks it (the schema's kind, range and choices) before
# anything is written; a set of several parameters writes all or none
# (a refused write puts back those written); unknown, unreadable and
# malformed names fail with their reason.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 45
module_schema

# On the small tree: get and set, one parameter or several.
fake
t "get" 0 lz4 '' get compressor
t "get: unknown parameter" 1 '' "zswbctl: unknown parameter 'nope'" get nope
t "get: path in name" 1 '' "zswbctl: unknown parameter '../parameters/enabled'" \
	get ../parameters/enabled
t "get: missing argument" 64 '' "$usage" get
t "get: extra argument" 64 '' "$usage" get enabled x

t "set one" 0 '' '' set max_pool_percent 30
is "set one: value written" "$p/max_pool_percent" 30
t "set two" 0 '' '' set enabled N compressor zstd
is "set two: first written" "$p/enabled" N
is "set two: second written" "$p/compressor" zstd
t "set: missing value" 64 '' "$usage" set enabled
t "set: missing argument" 64 '' "$usage" set
fake
t "set: unknown parameter" 1 '' "zswbctl: unknown parameter 'nope'" \
	set enabled N nope 1
is "set: unknown parameter changes nothing" "$p/enabled" Y
if [ -n "$can_refuse" ]; then
	ln -s $refused "$p/locked"
	fake_param locked choice "x $(<$refused)" x - >>"$d/schema"
	t "set: write refused" 1 '' "zswbctl: cannot set locked to 'x': *" \
		set enabled N max_pool_percent 50 locked x
	is "set: refused, first restored" "$p/enabled" Y
	is "set: refused, second restored" "$p/max_pool_percent" 20
else
	for i in 1 2 3; do skip "set: write refused ($i)" "no read-only file"; done
fi
fake
mkdir "$p/broken"
t "set: unreadable parameter" 1 '' \
	"zswbctl: cannot read broken: Is a directory" set enabled N broken 1
is "set: unreadable parameter changes nothing" "$p/enabled" Y
t "get: unreadable parameter" 1 '' \
	"zswbctl: cannot read broken: Is a directory" get broken
t "status: unreadable parameter" 1 "$status" \
	"zswbctl: cannot read broken: Is a directory" status

# On the module's own parameters: values checked before anything is written.

fake_mod
t "set: bad policy" 64 '' \
	"zswbctl: invalid value 'fast' for shrink_policy: one of ${shrink_names//$'\n'/, }" \
	set sync_free 1 shrink_policy fast
is "set: bad policy changes nothing" "$p/sync_free" N
t "set: bad boolean" 64 '' \
	"zswbctl: invalid value 'maybe' for async_free: one of 1, 0, y, n, yes, no, on, off, true, false" \
	set async_free maybe
for v in 0 1025 -1 12x ''; do
	t "set: shrink_batch '$v' refused" 64 '' \
		"zswbctl: invalid value '$v' for shrink_batch: an integer from 1 to 1024" \
		set shrink_batch "$v"
done
is "set: bad shrink_batch changes nothing" "$p/shrink_batch" 32
t "set: bad readahead_policy" 64 '' "zswbctl: invalid value 'skip' for readahead_policy: *" \
	set readahead_policy skip
t "set: valid values of each kind" 0 '' '' \
	set sync_free YES shrink_batch 0x40 shrink_policy local_first readahead_policy skip_fault
is "set: valid boolean written as given" "$p/sync_free" YES
is "set: valid integer written as given" "$p/shrink_batch" 0x40
is "set: valid shrink_policy written" "$p/shrink_policy" local_first
is "set: valid readahead_policy written" "$p/readahead_policy" skip_fault

# Each kind of value as the module parses it.

fake_mod
ok=0
for v in 0x 08 0x401 ' 1' '1 ' +5 1.0 1e3 0x-1 99999999999999999999; do
	zsw set shrink_batch "$v"
	[[ $rc == 64 && -z $out &&
	   $err == "zswbctl: invalid value '$v' for shrink_batch: an integer from 1 to 1024" ]] ||
		{ diag "shrink_batch '$v': exit $rc, $err"; ok=1; }
done
[ "$(<"$p/shrink_batch")" = 32 ] || ok=1
result "params: shrink_batch refuses malformed numbers and those out of 1..1024" $ok
ok=0
for v in 1 1024 0x400 0X10 0400 017; do
	zsw set shrink_batch "$v"
	[[ $rc == 0 && -z $err && $(<"$p/shrink_batch") == "$v" ]] ||
		{ diag "shrink_batch '$v': exit $rc, $err"; ok=1; }
done
result "params: shrink_batch takes decimal, 0x hex and 0 octal in 1..1024, written as given" $ok
ok=0
for v in '' yess 2 'on ' ' y' ja -1 o; do
	zsw set sync_free "$v"
	[[ $rc == 64 && $err == "zswbctl: invalid value '$v' for sync_free: one of 1, 0, y, n, yes, no, on, off, true, false" ]] ||
		{ diag "sync_free '$v': exit $rc, $err"; ok=1; }
done
[ "$(<"$p/sync_free")" = N ] || ok=1
for v in 1 0 Y n YES No oN OFF True false; do
	zsw set sync_free "$v"
	[[ $rc == 0 && $(<"$p/sync_free") == "$v" ]] || { diag "sync_free '$v': exit $rc, $err"; ok=1; }
done
result "params: a boolean takes the module's words in any case, nothing else" $ok
ok=0
for v in $shrink_names; do
	zsw set shrink_policy "$v"
	[[ $rc == 0 && $(<"$p/shrink_policy") == "$v" ]] || { diag "shrink_policy $v: exit $rc"; ok=1; }
done
for v in $ra_names; do
	zsw set readahead_policy "$v"
	[[ $rc == 0 && $(<"$p/readahead_policy") == "$v" ]] || { diag "readahead_policy $v: exit $rc"; ok=1; }
done
for v in Stock 'stock ' '' per-node skip; do
	zsw set shrink_policy "$v"
	[[ $rc == 64 && $err == "zswbctl: invalid value '$v' for shrink_policy: one of ${shrink_names//$'\n'/, }" ]] ||
		{ diag "shrink_policy '$v': exit $rc, $err"; ok=1; }
done
result "params: a policy takes each of the module's names exactly, nothing else" $ok
ok=0
long=$(printf 'x%.0s' $(seq 5000))
for name in '' . .. a/b ../parameters/sync_free "$long"; do
	for cmd in get set; do
		if [ $cmd = get ]; then zsw get "$name"; else zsw set "$name" 1; fi
		[[ $rc == 1 && -z $out && $err == "zswbctl: unknown parameter '$name'" ]] ||
			{ diag "$cmd '${name:0:20}': exit $rc"; ok=1; }
	done
done
result "params: empty, dot, slash and overlong names are unknown parameters" $ok
fake_mod
echo anything >"$p/custom"
t "params: a parameter the schema does not list is not set" 1 '' \
	"zswbctl: cannot set custom: not in the module's schema ($d/schema)" \
	set sync_free 1 custom 'any value'
is "params: a parameter the schema does not list changes nothing" "$p/sync_free" N
t "params: an odd number of names and values" 64 '' "$usage" set sync_free 1 shrink_batch
is "params: an odd number changes nothing" "$p/sync_free" N

ktap_finished
