#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's help, usage errors and JSON errors, against a fake
# sysfs/debugfs tree in a temporary directory (never the host's module):
#  - every command that --help lists answers "CMD --help", "CMD -h" and
#    "help CMD" with its usage on stdout, the same text, exit 0, and does
#    nothing else: no file written, no parameter set, no counter reset,
#    no command run; "help" is --help;
#  - bad usage exits 64 (zswbctl(8)), with the usage on stderr;
#  - with --json a failure prints {"error": "..."} on stdout, alone, with
#    its own exit status; a status document is not followed by one;
#  - --version names the module's version, or says it is not loaded.
#
#   help_test.sh [ZSWBCTL]      default: build tools/zswbctl/zswbctl
#
# Prints KTAP.
set -u
. "$(dirname "$0")/../../tools/kernel/common.sh"
zswb_need gcc libc6-dev make python3
. "$ZSWB_TOP/selftests/ktap.sh"
bin=${1:-$ZSWB_TOP/tools/zswbctl/zswbctl}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug ZSWB_KALLSYMS=$tmp/kallsyms \
	ZSWB_KCONFIG=$tmp/none ZSWB_LOCKDOWN=$tmp/lockdown ZSWB_NO_DELETE_MODULE=1
echo "ffffffff81234560 T zswap_wb_register" >"$tmp/kallsyms"
p=$tmp/sys/parameters
d=$tmp/debug
# A command named --help, on PATH: it leaves $marker if something runs it.
marker=$tmp/ran
mkdir -p "$p" "$d" "$tmp/path" "$tmp/cwd"
printf '#!/bin/sh\ntouch %s\n' "$marker" >"$tmp/path/--help"
chmod +x "$tmp/path/--help"
export PATH=$tmp/path:$PATH
echo Y >"$p/enabled"
echo N >"$p/async_free"
echo "written_back 5" >"$d/stats"
printf 'param\t%s\tbool\t0 1 n y\tN\t%s\t%s\n' enabled - Enabled. async_free drains,waits Async. \
	>"$d/schema"
: >"$d/reset"

# zsw ARGS...: run zswbctl in $tmp/cwd, setting $rc, $out and $err.
zsw() {
	(cd "$tmp/cwd" && "$bin" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(<"$tmp/out")
	err=$(<"$tmp/err")
}

# res STATUS DESC: one test, passed if STATUS is 0; on failure, what ran.
res() {
	if [ "$1" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
		echo "# exit status: ${rc-}"
		sed 's/^/# stdout: /' "$tmp/out" | head -20
		sed 's/^/# stderr: /' "$tmp/err" | head -20
	fi
}

# json_error RC: stdout is one JSON object, {"error": "<not empty>"}, and
# the exit status is RC.
json_error() {
	[ "$rc" = "$1" ] && "$py" -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (isinstance(j, dict) and list(j) == ["error"] and
	      isinstance(j["error"], str) and j["error"]))' <"$tmp/out"
}

# unchanged: nothing done to the fake module, the working directory or PATH.
unchanged() {
	[ "$(<"$p/enabled")" = Y ] && [ "$(<"$p/async_free")" = N ] && [ ! -s "$d/reset" ] &&
		[ -z "$(ls -A "$tmp/cwd")" ] && [ ! -e "$marker" ]
}

if [ -z "${1:-}" ] && ! make -s -C "$ZSWB_TOP/tools/zswbctl" >"$tmp/build" 2>&1; then
	ktap_print_header
	ktap_set_plan 1
	sed 's/^/# /' "$tmp/build"
	ktap_test_fail "zswbctl builds"
	ktap_finished
fi
# The commands, as --help lists them.
zsw --help
cmds=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$tmp/out")
full_help=$out

ktap_print_header
ktap_set_plan $(($(echo $cmds | wc -w) + 17))

[ -n "$cmds" ]
res $? "--help lists the commands: $(echo $cmds)"

for c in $cmds; do
	ok=0
	zsw help "$c"
	help=$out
	[[ $rc == 0 && $out == "usage: zswbctl "*"$c"* && -z $err ]] || ok=1
	for h in --help -h; do
		zsw "$c" "$h"
		[[ $rc == 0 && $out == "$help" && -z $err ]] || { echo "# $c $h: exit $rc"; ok=1; }
	done
	unchanged || { echo "# $c --help did something"; ok=1; }
	res $ok "$c --help, $c -h and help $c: its usage on stdout, exit 0, nothing done"
done

zsw help
[[ $rc == 0 && $out == "$full_help" && -z $err ]]
res $? "help is --help"
# After other arguments, before "--".
ok=0
for args in "get enabled --help" "set async_free 1 -h" "stats --scope global --help" \
	"prometheus out.prom --help" "-j status --help"; do
	# shellcheck disable=SC2086 # split on purpose
	zsw $args
	[[ $rc == 0 && $out == "usage: zswbctl "* ]] || { echo "# $args: exit $rc"; ok=1; }
done
unchanged
res $((ok | $?)) "--help among a command's arguments prints its help, does nothing else"
zsw diff -- --help
[ "$rc" = 0 ] && [ -e "$marker" ]
res $? "diff -- --help runs the command named --help: '--' ends the options"
rm -f "$marker"
zsw diff --help -- true
[[ $rc == 0 && $out == "usage: zswbctl diff "* && ! -e $marker ]]
res $? "diff --help -- CMD prints diff's help, runs nothing"

zsw help frob
[[ $rc == 64 && -z $out && $err == "zswbctl: unknown command 'frob'"$'\n'"usage: zswbctl help [CMD]"* ]]
res $? "help frob: unknown command, exit 64"
zsw help get set
[[ $rc == 64 && -z $out && $err == "usage: zswbctl help [CMD]"* ]]
res $? "help with two commands: exit 64"

# Bad usage: 64, the usage on stderr, nothing on stdout, nothing done.
ok=0
for args in "stats -x" "get -x enabled" "get --frob" "set --frob 1" "prometheus --frob" \
	"reset -x" "unload --all" "status x" "reset x" "get" "diff" "--frob" "frob"; do
	# shellcheck disable=SC2086 # split on purpose
	zsw $args
	[[ $rc == 64 && -z $out && $err == *"usage: zswbctl "* ]] || { echo "# $args: exit $rc"; ok=1; }
done
unchanged
res $((ok | $?)) "an unknown option or a wrong argument exits 64 with the usage (stats -x ...)"
zsw stats -x
[[ $err == "zswbctl: stats: unknown option '-x'"$'\n'"usage: zswbctl [-j|--json] stats "* ]]
res $? "stats -x: names the option and prints stats's usage"

# --json: errors as JSON too, on stdout.
zsw -j stats -x
json_error 64 && [[ $out == *"unknown option '-x'"* ]]
res $? "-j stats -x: {\"error\": ...} on stdout, exit 64"
zsw -j frob
json_error 64
res $? "-j frob: {\"error\": ...} on stdout, exit 64"
zsw -j get enabled
json_error 64
res $? "-j get: {\"error\": ...} on stdout, exit 64"
zsw -j status x
json_error 64
res $? "-j status x (usage alone on stderr): {\"error\": ...} on stdout, exit 64"
zsw stats --json bogus
json_error 1 && [[ $out == *"unknown statistic 'bogus'"* ]]
res $? "stats --json bogus: {\"error\": ...} on stdout, exit 1"
ZSWB_SYSFS=$tmp/none zsw -j status
json_error 2 && [[ $out == *"not loaded"* ]]
res $? "-j status, no module: {\"error\": ...} on stdout, exit 2"
ZSWB_DEBUGFS=$tmp/none zsw -j status
[ "$rc" = 4 ] && "$py" -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (j["parameters"] is None and j["statistics"] is None))' <"$tmp/out"
res $? "-j status, no debugfs: one document, the parameters and statistics null, exit 4"

zsw --version
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: zswap_wb loaded, version unknown "* ]]
ok=$?
echo 1.2.3 >"$tmp/sys/version"
zsw --version
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: zswap_wb 1.2.3" ]] || ok=1
ZSWB_SYSFS=$tmp/none zsw -V
[[ $rc == 0 && $out == "zswbctl "*$'\n'"module: not loaded" && -z $err ]] || ok=1
res $ok "--version: the tool's and the module's version, or 'module: not loaded'"

ktap_finished
