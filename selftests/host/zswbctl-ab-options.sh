#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab's options, on a fake module tree with policy scopes: every
# refusal of bad input comes before anything runs (the exit code, the
# message, no run of the command, the parameters as they were and nothing
# left in the cgroup and configfs trees); --help; the metrics --metric
# takes; a cgroup root it cannot use; --concurrent without policy scopes,
# or with a setting they lack. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 28

fake_ab
ZSWB_SYSFS=$tmp/none zsw ab --b async_free=Y -- "$tmp/cmd"
[[ $rc == 2 && $err == "zswbctl: zswap_wb is not loaded"* ]] && untouched
result "ab refuses to run without the module (exit 2)" $?
refused "an unknown parameter" 1 "zswbctl: unknown parameter 'nosuch'" \
	--b 'async_free=Y nosuch=1' -- "$tmp/cmd"
refused "a boolean value the module does not take" 64 \
	"zswbctl: invalid value 'maybe' for async_free: one of*" --a async_free=maybe -- "$tmp/cmd"
refused "a choice the module does not list" 64 \
	"zswbctl: invalid value 'nope' for shrink_policy: one of stock, carry, split, per_node, local_first" \
	--b shrink_policy=nope -- "$tmp/cmd"
refused "a number out of the module's range" 64 \
	"zswbctl: invalid value '5000' for shrink_batch: an integer from 1 to 1024" \
	--b shrink_batch=5000 -- "$tmp/cmd"
refused "a word that is not NAME=VALUE" 64 "zswbctl: --b: 'async_free' is not NAME=VALUE" \
	--b async_free -- "$tmp/cmd"
refused "a parameter set twice on one side" 64 "zswbctl: --a sets async_free twice" \
	--a 'async_free=Y async_free=N' -- "$tmp/cmd"
refused "a command that is not found" 127 "zswbctl: ab: cannot run no-such-cmd-zswb: No such file or directory" \
	--b async_free=Y -- no-such-cmd-zswb
refused "no command" 64 "zswbctl: ab: no command to run*" --b async_free=Y --
refused "a bad --pairs" 64 "zswbctl: ab: --pairs '0': a number from 1 to 1000" \
	--pairs 0 --b async_free=Y -- "$tmp/cmd"
refused "an unknown option" 64 "zswbctl: ab: unknown option '--nope' (zswbctl ab --help lists them)" \
	--nope x -- "$tmp/cmd"
refused "a side after B with a gap before it" 64 \
	"zswbctl: ab: --d without --c: the sides after B are C, D, ... in turn" \
	--b async_free=Y --d shrink_policy=per_node -- "$tmp/cmd"
refused "a third side without a second" 64 \
	"zswbctl: ab: --c without --b: the sides after B are C, D, ... in turn" \
	--c shrink_policy=per_node -- "$tmp/cmd"
refused "a third side with --concurrent" 64 \
	"zswbctl: ab: --concurrent runs two sides, A and B: --c is for sequential runs" \
	--concurrent --b async_free=Y --c shrink_policy=per_node -- "$tmp/cmd"
refused "a bad value on a side after B" 64 \
	"zswbctl: invalid value 'nope' for shrink_policy: one of*" \
	--b async_free=Y --c shrink_policy=nope -- "$tmp/cmd"
refused "a --memory-max that is not a size" 64 \
	"zswbctl: ab: --memory-max 'lots': a size in bytes, with K, M, G or T if you like, or max" \
	--memory-max lots --a async_free=Y -- "$tmp/cmd"
refused "a --zswap-max that is not a size" 64 "zswbctl: ab: --zswap-max '1X':*" \
	--zswap-max 1X --b async_free=Y -- "$tmp/cmd"
refused "--precision without --max-pairs" 64 \
	"zswbctl: ab: --precision needs --max-pairs N: the most pairs it may run" \
	--precision 2% --b async_free=Y -- "$tmp/cmd"
refused "a --precision that is not a percentage" 64 "zswbctl: ab: --precision 'x':*" \
	--precision x --max-pairs 20 --b async_free=Y -- "$tmp/cmd"
refused "--max-pairs below --pairs" 64 "zswbctl: ab: --max-pairs 8 is below --pairs 10" \
	--precision 2 --max-pairs 8 --b async_free=Y -- "$tmp/cmd"
refused "an --alpha that is not a probability" 64 \
	"zswbctl: ab: --alpha '1.5': a probability above 0, at most 0.5" \
	--alpha 1.5 --b async_free=Y -- "$tmp/cmd"
refused "an unknown --metric" 64 "zswbctl: ab: --metric 'vmstat.nosuch': not a metric ab measures*" \
	--metric vmstat.nosuch --b async_free=Y -- "$tmp/cmd"
fake_ab
zsw ab --help
[[ $rc == 0 && $out == "usage: zswbctl ab "* && $out == *"--precision X%"* && -z $err ]] && untouched
result "ab --help prints ab's usage and options, runs nothing" $?
# A counter of the module's and a figure of the command's pass the check
# of --metric: the fake cgroup tree is the first thing that stops them.
ok=0
for metric in zswap_wb.written_back cmd.pages_s psi.memory_some_us; do
	fake_ab
	zsw ab --metric $metric --b async_free=Y -- "$tmp/cmd"
	if ! { [[ $rc == 1 && $err == "zswbctl: cannot enable the memory controller"* ]] && untouched; }; then
		diag "--metric $metric: exit $rc, $err"
		ok=1
	fi
done
result "ab takes a module counter, a command's figure and a PSI total as --metric" $ok
# A cgroup root where mkdir works but the controllers cannot be enabled
# (a plain directory): ab must say so and remove what it made.
refused "a cgroup it cannot set up" 1 "zswbctl: cannot enable the memory controller in $tmp/cgroup/zswbctl-ab.*" \
	--b async_free=Y -- "$tmp/cmd"
fake_ab
ZSWB_CGROUP=$tmp/nocgroup zsw ab --b async_free=Y -- "$tmp/cmd"
[[ $rc == 1 && $err == "zswbctl: cannot make cgroup $tmp/nocgroup/zswbctl-ab."* ]] && untouched
result "ab refuses a cgroup root that does not exist (exit 1)" $?

# --concurrent: scopes it cannot make or set are refused and removed.
fake_ab
rm -rf "$tmp/config"
zsw ab --concurrent --b async_free=Y -- "$tmp/cmd"
[[ $rc == 1 && $err == "zswbctl: no $tmp/config: --concurrent needs policy scopes"* && ! -e $marker ]] &&
	[ "$(ls "$tmp/cgroup")" = cgroup.subtree_control ]
result "ab --concurrent refuses a module without policy scopes (exit 1)" $?
fake_ab
# configfs that makes a scope without attributes: no such setting.
zsw ab --concurrent --b async_free=Y -- "$tmp/cmd"
[[ $rc == 1 && $err == *"unknown parameter 'async_free': a policy scope has no such setting" ]] &&
	untouched
result "ab --concurrent refuses a setting the scopes lack, and removes its scopes" $?

ktap_finished
