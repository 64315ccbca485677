#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# main.c: the command table, the global options (-h, --help, -V,
# --version, -j, --json), the usage and exit status of bad usage, and
# --help's list of commands, exit codes and the parameters as the module's
# schema gives them; a write error on stdout fails.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 22
module_schema

fake
t "-h prints usage" 0 "$usage" '' -h
t "--help prints usage" 0 "$usage" '' --help
t "no arguments shows status" 0 "$status" ''
t "status" 0 "$status" '' status
t "status: bad usage" 64 '' "$usage" status x
t "unknown command" 64 '' "zswbctl: unknown command 'frob'"$'\n'"$usage" frob

# The version is dkms.conf's, the module's and zswbctl's alike.
[ -n "$version" ]
result "dkms.conf has a PACKAGE_VERSION" $?
echo "$version" >"$tmp/sys/version"
t "--version: the version of dkms.conf, and the module's" 0 \
	"zswbctl $version"$'\n'"module: zswap_wb $version" '' --version
rm "$tmp/sys/version"
t "-V" 0 "zswbctl $version"$'\n'"module: zswap_wb loaded, version unknown (*)" '' -V

# --help lists the parameters from the module's schema.
fake_mod
zsw --help
help=$out
ok=0
[ "$rc" = 0 ] && [ -z "$err" ] || ok=1
for c in status get set stats diff prometheus reset unload; do
	grep -qE "^  $c " <<<"$help" || { diag "--help: no command $c"; ok=1; }
done
for c in 0 1 2 3 4 5 6 64; do
	grep -qE "^  $c +[a-z]" <<<"$help" || { diag "--help: no exit code $c"; ok=1; }
done
line=$(grep -E '^  shrink_policy ' <<<"$help")
for v in $shrink_names; do [[ $line == *" $v"[,\ ]* ]] || ok=1; done
[[ $line == *"(default stock)" ]] || ok=1
line=$(grep -E '^  readahead_policy ' <<<"$help")
for v in $ra_names; do [[ $line == *" $v"[,\ ]* ]] || ok=1; done
line=$(grep -E '^  sync_free ' <<<"$help")
for v in $bool_names; do [[ $line == *[\ \|]"$v"[\|,\ ]* ]] || ok=1; done
[[ $line == *"boolean: 1|0, y|n, yes|no, on|off, true|false (default N)" ]] || ok=1
read -r lo hi <<<"$batch_range"
grep -qE "^  shrink_batch +an integer from $lo to $hi \(default 32\)$" <<<"$help" || ok=1
result "--help: commands, each parameter's values and default (as the module's schema), exit codes" $ok
rm "$d/schema"
zsw --help
line=$(sed -n '/^Parameters/,/^$/p' <<<"$out")
[[ $rc == 0 && $line == "Parameters (/sys/module/zswap_wb/parameters):"$'\n'"  (read from $d/schema, which cannot be read: No such file or directory)" ]]
result "--help without a schema: says it cannot be read, no parameter guessed from its file" $?
ZSWB_SYSFS=$tmp/none zsw --help
[[ $rc == 0 && $out == *$'Parameters (/sys/module/zswap_wb/parameters):\n  (read from the running zswap_wb, which is not loaded)\n'* ]]
result "--help without the module: says the parameters come from it" $?

t "unknown option" 64 '' "zswbctl: unknown option '--frob'"$'\n'"$usage" --frob status
t "--json with get" 64 '{*"error": "--json is for status and stats, not get"*}' \
	"zswbctl: --json is for status and stats, not get"$'\n'"$usage" --json get enabled
t "prometheus: extra argument" 64 '' "$usage" prometheus a b

fake
"$bin" stats >/dev/full 2>"$tmp/err"
rc=$?
out=''
err=$(<"$tmp/err")
[ "$rc" = 1 ] && [[ $err == "zswbctl: cannot write to stdout: No space left on device" ]]
result "stdout: a write error fails" $?

# Each command's number of arguments, and --json only where it applies.

fake
ok=0
for args in "status x" "get" "get a b" "set" "set sync_free" "diff" "diff --" \
	"prometheus a b" "reset x" "unload x"; do
	# shellcheck disable=SC2086 # split args on purpose
	zsw $args
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $rc == 64 && -z $out && $err == $usage ]] || { diag "'$args': exit $rc"; ok=1; }
done
[ "$(<"$p/enabled")" = Y ] || ok=1
result "main: each command refuses a wrong number of arguments, with the usage" $ok
ok=0
for c in "get enabled" "set enabled N" "diff true" prometheus reset unload; do
	# shellcheck disable=SC2086
	zsw -j $c
	[[ $rc == 64 && $out == *'"error": "--json is for status and stats, not '"${c%% *}"'"'* &&
		$err == "zswbctl: --json is for status and stats, not ${c%% *}"$'\n'* ]] ||
		{ diag "-j $c: exit $rc, $err"; ok=1; }
done
[ "$(<"$p/enabled")" = Y ] && [ ! -s "$d/reset" ] || ok=1
result "main: --json before a command other than status and stats is refused, nothing done" $ok
t "main: -j then --version prints the version" 0 "zswbctl $version"$'\n'"module: *" '' -j --version
t "main: -j then --help prints the help" 0 "$usage" '' -j --help
t "main: '--' is an unknown option" 64 '' "zswbctl: unknown option '--'"$'\n'"$usage" -- status
t "main: -j then an unknown command" 64 '{*"error": "unknown command '"'frob'"'"*}' \
	"zswbctl: unknown command 'frob'"$'\n'"$usage" -j frob

ktap_finished
