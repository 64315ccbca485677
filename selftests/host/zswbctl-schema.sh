#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# schema.c: what the module says of its statistics and parameters (its
# debugfs "schema") decides how zswbctl reads them: a statistic's kind
# (counter or gauge) for diff and prometheus, a statistic it does not
# describe left out of both; a parameter's kind (bool, uint, choice) for
# --json and prometheus, never its value; a line it cannot read (a uint
# without its range too) is left out, said once; without a schema,
# status shows the parameters as their files read.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 11
module_schema

# The schema of the module's sources (selftests/module_schema.sh), which
# fake_mod's tree holds: it names the policies' choices, the booleans'
# words, shrink_batch's range and the counters.
rc=$schema_rc out=$schema err=$schema_err
[ "$rc" = 0 ] && [ -n "$shrink_names" ] && [ -n "$ra_names" ] && [ -n "$bool_names" ] &&
	[ -n "$batch_range" ] && [ -n "$stat_names" ]
result "module sources give the schema: parameter values and counter names" $?

fake_mod
rm "$d/schema"
t "status without a schema: the parameters as their files read" 0 '*sync_free = N*written_back 101*' '' \
	status

# A statistic's kind.
fake_mod
printf 'stat\tbroken\n' >>"$d/schema"
zsw diff true
[[ $rc == 0 && $out == "written_back 0"$'\n'* && $out != *inflight* &&
   $err == "zswbctl: $d/schema: a line left out: 'stat	broken'" ]]
result "schema: a line zswbctl cannot read is left out, said once" $?
fake_mod
printf 'stat\tfresh\tgauge\t-\tA new gauge.\nstat\tpool_node<N>\tgauge\t-\tPer node.\n' \
	>>"$d/schema"
printf 'stat\tother\tcounter\t-\tAnother counter.\n' >>"$d/schema"
printf '%s\n' "fresh 1" "pool_node0 5" "other 3" "stray 2" "stray_node0 2" >>"$d/stats"
fake_global
zsw diff -- sh -c "sed -i 's/^fresh 1$/fresh 9/; s/^pool_node0 5$/pool_node0 7/; s/^other 3$/other 4/; s/^stray\(_node0\)\? 2$/stray\1 6/' '$d/stats'"
[[ $rc == 0 && $out == *$'\nother 1' && $out != *fresh* && $out != *pool_node* && $out != *stray* ]]
result "schema: diff leaves out what the schema calls a gauge, per node too, and what it does not describe" $?
zsw prometheus
grep -qx '# TYPE zswap_wb_fresh gauge' <<<"$out" &&
	grep -qx '# HELP zswap_wb_fresh A new gauge.' <<<"$out" &&
	grep -qx 'zswap_wb_pool{node="0"} 7' <<<"$out" &&
	grep -qx '# TYPE zswap_wb_other_total counter' <<<"$out" &&
	grep -qx '# HELP zswap_wb_other_total Another counter.' <<<"$out" &&
	grep -qx 'zswap_wb_scope_other_total{scope="global"} 3' <<<"$out" &&
	! grep -q stray <<<"$out"
result "schema: prometheus types and describes a statistic as the schema says, leaves out one it does not describe" $?
fake_mod
zsw prometheus
grep -qx '# HELP zswap_wb_param_info Parameters whose value is a name (readahead_policy: which swap readahead to skip for zswap entries on a swapin fault; shrink_policy: how shrink_memcg() spreads its batch over the nodes), the value as a label.' <<<"$out"
result "schema: the HELP of zswap_wb_param_info names each policy in the module's words" $?

# A parameter's kind, never its value.

fake_mod
echo many >"$p/count"
echo 1 >"$p/mode"
echo Y >"$p/word"
echo 7 >"$p/flag"
echo 0 >"$p/level"
echo 1 >"$p/one"
echo x >"$p/unlisted"
{
	fake_param count uint 0..10 0 -
	fake_param mode choice '0 1 2' 0 -
	fake_param word choice 'Y N' N -
	fake_param flag bool "$bool_words" N -
	fake_param level uint 0..10 0 -
	fake_param one bool "$bool_words" N -
} >>"$d/schema"
typed_err="zswbctl: parameter 'count' left out: 'many' is not an integer, as the module's schema says it is
zswbctl: parameter 'flag' left out: '7' is not a boolean, as the module's schema says it is
zswbctl: parameter 'unlisted' left out: not in the module's schema ($d/schema)"
zsw --json status
[ "$rc" = 0 ] && [ "$err" = "$typed_err" ] &&
	json_ok 'j["parameters"] == {"async_free": True, "level": 0, "mode": "1", "one": True,
	"readahead_policy": "stock", "shrink_batch": 32, "shrink_policy": "per_node",
	"sync_free": False, "word": "Y"}'
result "json: each parameter as its schema kind (a choice '1' a string, a word of a uint left out)" $?
zsw prometheus
ok=0
[ "$rc" = 0 ] && [ "$err" = "$typed_err" ] || ok=1
for l in 'zswap_wb_param_info{name="mode",value="1"} 1' 'zswap_wb_param_info{name="word",value="Y"} 1' \
	'zswap_wb_param_level 0' 'zswap_wb_param_one 1' 'zswap_wb_param_async_free 1'; do
	grep -qxF "$l" <<<"$out" || { diag "missing: $l"; ok=1; }
done
! grep -qE 'zswap_wb_param_(count|flag|unlisted|mode|word)|name="(count|flag|unlisted)"' <<<"$out" ||
	ok=1
result "prometheus: each parameter as its schema kind, the others left out" $ok

# Every integer parameter has its range: a uint line without one is not a
# line of the schema, and its parameter is one the schema does not list.
fake_mod
echo 5 >"$p/count"
printf 'param\tcount\tuint\t-\t0\t-\tCount.\n' >>"$d/schema"
bad_line="zswbctl: $d/schema: a line left out: 'param	count	uint	-	0	-	Count.'"
zsw --json status
[ "$rc" = 0 ] && [ "$err" = "$bad_line"$'\n'"zswbctl: parameter 'count' left out: not in the module's schema ($d/schema)" ] &&
	json_ok '"count" not in j["parameters"] and j["parameters"]["shrink_batch"] == 32'
result "schema: a uint parameter without a range is an invalid line, said once; json leaves the parameter out" $?
zsw set count 5
[[ $rc == 1 && $err == "$bad_line"$'\n'"zswbctl: cannot set count: not in the module's schema ($d/schema)" &&
   $(<"$p/count") == 5 ]] &&
	zsw --help && [[ $rc == 0 && $out != *$'\n  count '* && $out == *"shrink_batch"*"an integer from 1 to 1024"* ]]
result "schema: set refuses a uint parameter without a range, help does not list it" $?
zsw prometheus
[[ $rc == 0 && $err == "$bad_line"$'\n'"zswbctl: parameter 'count' left out: not in the module's schema ($d/schema)" ]] &&
	! grep -q 'param_count\|"count"' <<<"$out" && grep -qx 'zswap_wb_param_shrink_batch 32' <<<"$out"
result "schema: prometheus leaves out a uint parameter without a range" $?

ktap_finished
