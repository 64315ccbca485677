#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's help, usage errors and JSON errors, on a fake module tree:
#  - every command that --help lists answers "CMD --help", "CMD -h" and
#    "help CMD" with its usage on stdout, the same text, exit 0, and does
#    nothing else: no file written, no parameter set, no counter reset,
#    no command run; "help" is --help;
#  - bad usage exits 64 (zswbctl(8)), with the usage on stderr;
#  - with --json a failure prints {"error": "..."} on stdout, alone, with
#    its own exit status; a status document is not followed by one;
#  - --version names the module's version, or says it is not loaded.
# KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# A command named --help, on PATH: it leaves $marker if something runs it.
marker=$tmp/ran
mkdir -p "$p" "$d" "$tmp/path" "$tmp/cwd"
printf '#!/bin/sh\ntouch %s\n' "$marker" >"$tmp/path/--help"
chmod +x "$tmp/path/--help"
export PATH=$tmp/path:$PATH
echo Y >"$p/enabled"
echo N >"$p/async_free"
echo "written_back 5" >"$d/stats"
{
	printf 'stat\twritten_back\tcounter\t-\tPages written back.\n'
	printf 'param\t%s\tbool\t0 1 n y\tN\t%s\t%s\n' enabled - Enabled. async_free drains,waits Async.
} >"$d/schema"
: >"$d/reset"
fake_global
# zswbctl runs in $tmp/cwd, which must stay empty.
cd "$tmp/cwd" || exit 1

# json_error RC: stdout is one JSON object, {"error": "<not empty>"}, and
# the exit status is RC.
json_error() {
	local want=$1

	[ "$rc" = "$want" ] && "$py" -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (isinstance(j, dict) and list(j) == ["error"] and
	      isinstance(j["error"], str) and j["error"]))' <"$tmp/out"
}

# unchanged: nothing done to the fake module, the working directory or PATH.
unchanged() {
	[ "$(<"$p/enabled")" = Y ] && [ "$(<"$p/async_free")" = N ] && [ ! -s "$d/reset" ] &&
		[ -z "$(ls -A "$tmp/cwd")" ] && [ ! -e "$marker" ]
}

# The commands, as --help lists them: the plan counts them, so zswbctl is
# built first (plan bails out if it does not build).
build
zsw --help
cmds=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$tmp/out")
full_help=$out
# shellcheck disable=SC2086 # the words of $cmds
plan $(($(echo $cmds | wc -w) + 17))

[ -n "$cmds" ]
result "--help lists the commands: ${cmds//$'\n'/ }" $?

for c in $cmds; do
	ok=0
	zsw help "$c"
	help=$out
	[[ $rc == 0 && $out == "usage: zswbctl "*"$c"* && -z $err ]] || ok=1
	for h in --help -h; do
		zsw "$c" "$h"
		[[ $rc == 0 && $out == "$help" && -z $err ]] || { diag "$c $h: exit $rc"; ok=1; }
	done
	unchanged || { diag "$c --help did something"; ok=1; }
	result "$c --help, $c -h and help $c: its usage on stdout, exit 0, nothing done" $ok
done

zsw help
[[ $rc == 0 && $out == "$full_help" && -z $err ]]
result "help is --help" $?
# After other arguments, before "--".
ok=0
for args in "get enabled --help" "set async_free 1 -h" "stats --scope global --help" \
	"prometheus out.prom --help" "-j status --help"; do
	# shellcheck disable=SC2086 # split on purpose
	zsw $args
	[[ $rc == 0 && $out == "usage: zswbctl "* ]] || { diag "$args: exit $rc"; ok=1; }
done
unchanged
result "--help among a command's arguments prints its help, does nothing else" $((ok | $?))
zsw diff -- --help
[ "$rc" = 0 ] && [ -e "$marker" ]
result "diff -- --help runs the command named --help: '--' ends the options" $?
rm -f "$marker"
zsw diff --help -- true
[[ $rc == 0 && $out == "usage: zswbctl diff "* && ! -e $marker ]]
result "diff --help -- CMD prints diff's help, runs nothing" $?

zsw help frob
[[ $rc == 64 && -z $out && $err == "zswbctl: unknown command 'frob'"$'\n'"usage: zswbctl help [CMD]"* ]]
result "help frob: unknown command, exit 64" $?
zsw help get set
[[ $rc == 64 && -z $out && $err == "usage: zswbctl help [CMD]"* ]]
result "help with two commands: exit 64" $?

# Bad usage: 64, the usage on stderr, nothing on stdout, nothing done.
ok=0
for args in "stats -x" "get -x enabled" "get --frob" "set --frob 1" "prometheus --frob" \
	"reset -x" "unload --all" "status x" "reset x" "get" "diff" "--frob" "frob"; do
	# shellcheck disable=SC2086 # split on purpose
	zsw $args
	[[ $rc == 64 && -z $out && $err == *"usage: zswbctl "* ]] || { diag "$args: exit $rc"; ok=1; }
done
unchanged
result "an unknown option or a wrong argument exits 64 with the usage (stats -x ...)" $((ok | $?))
zsw stats -x
[[ $err == "zswbctl: stats: unknown option '-x'"$'\n'"usage: zswbctl [-j|--json] stats "* ]]
result "stats -x: names the option and prints stats's usage" $?

# --json: errors as JSON too, on stdout.
zsw -j stats -x
json_error 64 && [[ $out == *"unknown option '-x'"* ]]
result "-j stats -x: {\"error\": ...} on stdout, exit 64" $?
zsw -j frob
json_error 64
result "-j frob: {\"error\": ...} on stdout, exit 64" $?
zsw -j get enabled
json_error 64
result "-j get: {\"error\": ...} on stdout, exit 64" $?
zsw -j status x
json_error 64
result "-j status x (usage alone on stderr): {\"error\": ...} on stdout, exit 64" $?
zsw stats --json bogus
json_error 1 && [[ $out == *"unknown statistic 'bogus'"* ]]
result "stats --json bogus: {\"error\": ...} on stdout, exit 1" $?
ZSWB_SYSFS=$tmp/none zsw -j status
json_error 2 && [[ $out == *"not loaded"* ]]
result "-j status, no module: {\"error\": ...} on stdout, exit 2" $?
ZSWB_DEBUGFS=$tmp/none zsw -j status
[ "$rc" = 4 ] && "$py" -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (j["parameters"] is None and j["statistics"] is None))' <"$tmp/out"
result "-j status, no debugfs: one document, the parameters and statistics null, exit 4" $?

zsw --version
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: zswap_wb loaded, version unknown "* ]]
ok=$?
echo 1.2.3 >"$tmp/sys/version"
zsw --version
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: zswap_wb 1.2.3" ]] || ok=1
ZSWB_SYSFS=$tmp/none zsw -V
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: not loaded" && -z $err ]] || ok=1
result "--version: the tool's and the module's version, or 'module: not loaded'" $ok

ktap_finished
