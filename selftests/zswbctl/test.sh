#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test for zswbctl (tools/zswbctl): build it, then run every
# subcommand and error path against a fake sysfs/debugfs tree in a
# temporary directory; check the
# Prometheus output with a text-format parser, the JSON with python3, the man
# page with man and groff, "make install", and checkpatch.  Then the tests of
# each source file (main.c, common.c, params.c, schema.c, stats.c,
# json_writer.c, prom.c), each section named after its file.  The fake
# module describes itself with the schema its sources give
# (selftests/module_schema.sh).  Prints KTAP and exits 0 only if every test
# passed.  Never touches the real module: the paths point into the fake
# tree and delete_module() is always skipped.

set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# What is tested: the tool's sources, its Makefile and its man page.
tool=$top/tools/zswbctl
# shellcheck source=../../tools/kernel/common.sh
. "$top/tools/kernel/common.sh"
# The build, the Prometheus text parser (Debian's python3, not whatever
# python3 comes first in PATH) and promtool, the man page linters, chattr
# and setpriv, and strace (how prometheus replaces its FILE).
zswb_need gcc libc6-dev make python3 python3-prometheus-client prometheus groff-base \
	man-db e2fsprogs util-linux strace
py=/usr/bin/python3
tmp=$(mktemp -d)
immutable=()
# Files made immutable by a test must be mutable again before rm -rf.
cleanup() {
	local f

	for f in "${immutable[@]}"; do chattr -i "$f" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
bin=$tool/zswbctl
# Hook and lockdown probes read fake files too: never the host's.
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug ZSWB_NO_DELETE_MODULE=1 \
	ZSWB_KALLSYMS=$tmp/kallsyms ZSWB_KCONFIG=$tmp/none ZSWB_LOCKDOWN=$tmp/lockdown
echo "ffffffff81234560 T zswap_wb_register" >"$tmp/kallsyms"
echo "[none] integrity confidentiality" >"$tmp/lockdown"
p=$tmp/sys/parameters
d=$tmp/debug

n=0 passed=0 failed=0 skipped=0
lines=()

# result DESC STATUS: record test DESC as passed if STATUS is 0.
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		lines+=("ok $n - $1")
		passed=$((passed + 1))
		return
	fi
	lines+=("not ok $n - $1" "# exit status: ${rc-}")
	while IFS= read -r l; do lines+=("# stdout: $l"); done <<<"${out-}"
	while IFS= read -r l; do lines+=("# stderr: $l"); done <<<"${err-}"
	failed=$((failed + 1))
}

# diag TEXT: a diagnostic line for the KTAP output.
diag() {
	lines+=("# $*")
}

# report: the results recorded, through the kernel's KTAP printer like
# every other suite; fails if one of them failed.
report() {
	local l d

	. "$ZSWB_TOP/selftests/ktap.sh"
	ktap_print_header
	ktap_set_plan "$n"
	for l in "${lines[@]}"; do
		case "$l" in
		"ok "*" # SKIP "*) d=${l#ok * - }; ktap_print_msg "${d##* # SKIP }"; ktap_test_skip "${d% # SKIP *}" ;;
		"ok "*) ktap_test_pass "${l#ok * - }" ;;
		"not ok "*) ktap_test_fail "${l#not ok * - }" ;;
		*) printf '%s\n' "$l" ;;
		esac
	done
	ktap_counts
	[ "$KTAP_CNT_FAIL" -eq 0 ]
}

# skip DESC WHY: record test DESC as skipped.
skip() {
	n=$((n + 1))
	lines+=("ok $n - $1 # SKIP $2")
	skipped=$((skipped + 1))
}

# zsw ARGS...: run zswbctl, setting $rc, $out and $err.
zsw() {
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(<"$tmp/out")
	err=$(<"$tmp/err")
}

# t DESC RC OUT ERR ARGS...: run zswbctl ARGS and pass if it exits with RC,
# stdout matches the glob OUT and stderr matches the glob ERR.
t() {
	local desc=$1 want_rc=$2 want_out=$3 want_err=$4

	shift 4
	zsw "$@"
	# shellcheck disable=SC2053 # globs on purpose
	[[ $rc == "$want_rc" && $out == $want_out && $err == $want_err ]]
	result "$desc" $?
}

# is DESC FILE VALUE: pass if FILE holds VALUE (trailing newline ignored).
is() {
	[ "$(<"$2")" == "$3" ]
	result "$1" $?
}

# A boolean's words in the schema, in pairs: off, on.
bool_words='0 1 n y no yes off on false true'
# fake_param NAME KIND VALUES DEFAULT FLAGS: a "param" line of the schema.
fake_param() {
	printf 'param\t%s\t%s\t%s\t%s\t%s\t%s.\n' "$1" "$2" "$3" "$4" "$5" "${1^}"
}

# fake: (re)create the fake module tree, which describes itself in its
# schema.
fake() {
	rm -rf "$tmp/sys" "$d"
	mkdir -p "$p" "$d"
	echo Y >"$p/enabled"
	echo 20 >"$p/max_pool_percent"
	echo lz4 >"$p/compressor"
	echo Y >"$p/wb_free"
	echo N >"$p/pool_free"
	echo 7 >"$p/batch_free"
	printf 'stored_pages 100\nwritten_back 5\nstate idle\n' >"$d/stats"
	{
		printf 'stat\tstored_pages\tcounter\t-\tPages stored.\n'
		printf 'stat\twritten_back\tcounter\t-\tPages written back.\n'
		fake_param enabled bool "$bool_words" Y -
		fake_param max_pool_percent uint 0..100 20 -
		fake_param compressor choice 'lz4 zstd' lz4 -
		fake_param wb_free bool "$bool_words" N drains
		fake_param pool_free bool "$bool_words" N drains
		fake_param batch_free uint 0..64 0 drains
	} >"$d/schema"
	: >"$d/reset"
}

# A parameter that can be read but whose writes fail even for root.
refused=/proc/sys/kernel/ostype
can_refuse=
if [ -r $refused ] && ! (: >$refused) 2>/dev/null; then
	can_refuse=1
fi

usage='usage: zswbctl *'
status='batch_free = 7
compressor = lz4
enabled = Y
max_pool_percent = 20
pool_free = N
wb_free = Y
stored_pages 100
written_back 5
state idle'
nomod="zswbctl: zswap_wb is not loaded (no $tmp/none): load it with 'modprobe zswap_wb'"
nodbg="zswbctl: no $tmp/none: debugfs is not mounted on $tmp (mount -t debugfs none $tmp)"
# What prometheus prints when the module cannot be read: zswap_wb_up 0.
down='*'$'\n''zswap_wb_up 0'$'\n''*'

make -s -C "$tool" >"$tmp/build" 2>&1
rc=$?
out=''
err=$(<"$tmp/build")
result "build" $rc
if [ $rc -ne 0 ]; then
	report
	exit 1
fi
if command -v readelf >/dev/null && [ -n "${STATIC+set}" ] && [ -z "$STATIC" ]; then
	readelf -l "$bin" | grep -q INTERP
	result "binary is dynamic, as STATIC= asks (the package's build)" $?
elif command -v readelf >/dev/null; then
	! readelf -l "$bin" | grep -q INTERP
	result "binary is static" $?
else
	skip "binary is static" "no readelf"
fi

fake
t "-h prints usage" 0 "$usage" '' -h
t "--help prints usage" 0 "$usage" '' --help
t "no arguments shows status" 0 "$status" ''
t "status" 0 "$status" '' status
t "status: bad usage" 64 '' "$usage" status x
t "unknown command" 64 '' "zswbctl: unknown command 'frob'"$'\n'"$usage" frob

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

fake
t "stats" 0 "$(<"$d/stats")" '' stats
t "stats KEY" 0 5 '' stats written_back
t "stats KEY KEY" 0 $'idle\n100' '' stats state stored_pages
t "stats: unknown key" 1 '' "zswbctl: unknown statistic 'bogus'" \
	stats stored_pages bogus
printf 'a 1' >"$d/stats"
t "stats: adds a missing final newline" 0 'a 1' '' stats
fake
t "stats --scope: a debugfs directory without scopes/" 1 '' \
	"zswbctl: $d/scopes: no such directory: is $d zswap_wb's debugfs?" stats --scope b
mkdir -p "$d/scopes/b" "$d/scopes/global"
printf 'stored_pages 40\nwritten_back 2\n' >"$d/scopes/b/stats"
printf 'stored_pages 60\nwritten_back 3\n' >"$d/scopes/global/stats"
t "stats --scope NAME" 0 "$(<"$d/scopes/b/stats")" '' stats --scope b
t "stats --scope global KEY" 0 3 '' stats --scope global written_back
t "stats --scope: unknown scope" 1 '' "zswbctl: no scope 'a' ($d/scopes lists them)" stats --scope a
t "stats --scope: a path is not a name" 64 '' \
	"zswbctl: invalid scope name '../b': 1 to 31 of A-Z a-z 0-9 _ . -" stats --scope ../b
t "stats --scope: missing name" 64 '' "zswbctl: --scope needs a scope name" stats --scope
t "stats --scope: unknown key" 1 '' "zswbctl: unknown statistic 'bogus'" stats --scope b bogus
fake

new='stored_pages 97\nwritten_back 15\nstate busy\nadded 3\n'
t "diff" 3 $'stored_pages -3\nwritten_back 10' '' \
	diff -- sh -c "printf '$new' >'$d/stats'; exit 3"
fake
t "diff without --" 0 'stored_pages 0'$'\n''written_back 0' '' diff true
t "diff: missing command" 64 '' "$usage" diff --
t "diff: command not found" 127 $'stored_pages 0\nwritten_back 0' \
	"zswbctl: cannot run $tmp/none: No such file or directory" \
	diff -- "$tmp/none"
t "diff: command killed" 143 $'stored_pages 0\nwritten_back 0' '' \
	diff -- sh -c 'kill -TERM $$'

t "reset" 0 '' '' reset
is "reset: wrote 1" "$d/reset" 1
t "reset: extra argument" 64 '' "$usage" reset now
rm "$d/reset"
mkdir "$d/reset"
t "reset: refused" 1 '' "zswbctl: cannot reset statistics: Is a directory" \
	reset

fake
t "unload" 0 \
	"ZSWB_NO_DELETE_MODULE=1: would call delete_module(\"zswap_wb\", O_NONBLOCK)" \
	'' unload
is "unload: wb_free cleared" "$p/wb_free" 0
is "unload: pool_free cleared" "$p/pool_free" 0
is "unload: non-boolean batch_free kept" "$p/batch_free" 7
is "unload: enabled kept" "$p/enabled" Y
fake
mkdir "$p/zz_free"
fake_param zz_free bool "$bool_words" N drains >>"$d/schema"
t "unload: unreadable parameter" 1 '' \
	"zswbctl: cannot read zz_free: Is a directory" unload
is "unload: failure restores wb_free" "$p/wb_free" Y
is "unload: failure restores pool_free" "$p/pool_free" N
t "unload: extra argument" 64 '' "$usage" unload now

fake
export ZSWB_SYSFS=$tmp/none
for cmd in status "get enabled" "set enabled N" unload; do
	# shellcheck disable=SC2086 # split cmd on purpose
	t "$cmd: module not loaded" 2 '' "$nomod" $cmd
done
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/none
t "status: no debugfs shows the parameters" 4 "${status%%$'\n'stored_pages*}" \
	"$nodbg"$'\n'"zswbctl: statistics not shown, parameters only" status
for cmd in stats reset "diff true"; do
	# shellcheck disable=SC2086
	t "$cmd: no debugfs" 4 '' "$nodbg" $cmd
done
t "prometheus: no debugfs, zswap_wb_up 0" 4 "$down" "$nodbg" prometheus
export ZSWB_DEBUGFS=$tmp/debug

# --- Version, help, options ---

version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
[ -n "$version" ]
result "dkms.conf has a PACKAGE_VERSION" $?
echo "$version" >"$tmp/sys/version"
t "--version: the version of dkms.conf, and the module's" 0 \
	"zswbctl $version"$'\n'"module: zswap_wb $version" '' --version
rm "$tmp/sys/version"
t "-V" 0 "zswbctl $version"$'\n'"module: zswap_wb loaded, version unknown (*)" '' -V

# The module's schema, as its debugfs "schema" holds it, read from its
# sources: the fake module tree below describes itself with it.
schema=$(bash "$top/selftests/module_schema.sh" 2>"$tmp/names.err")
rc=$? out=$schema err=$(<"$tmp/names.err")
# schema_field KIND FIELD NAME: field FIELD (1-based) of the KIND line NAME.
schema_field() {
	awk -F'\t' -v k="$1" -v f="$2" -v n="$3" '$1 == k && $2 == n { print $f }' <<<"$schema"
}
shrink_names=$(schema_field param 4 shrink_policy | tr ' ' '\n')
ra_names=$(schema_field param 4 readahead_policy | tr ' ' '\n')
bool_names=$(schema_field param 4 sync_free | tr ' ' '\n')
batch_range=$(schema_field param 4 shrink_batch | sed 's/\.\./ /')
# bracketed PARAM CURRENT: the line that policy PARAM's file reads with
# CURRENT chosen, as the module prints it.
bracketed() {
	schema_field param 4 "$1" | sed "s/\(^\| \)$2\( \|\$\)/\1[$2]\2/"
}
# glob TEXT: TEXT as a glob that matches it alone.
glob() {
	sed 's/[][*?\\]/\\&/g' <<<"$1"
}
# The counters with a line and a file each (not the per-node ones).
stat_names=$(awk -F'\t' '$1 == "stat" && $3 == "counter" && $2 !~ /_node<N>$/ { print $2 }' \
	<<<"$schema")
[ "$rc" = 0 ] && [ -n "$shrink_names" ] && [ -n "$ra_names" ] && [ -n "$bool_names" ] &&
	[ -n "$batch_range" ] && [ -n "$stat_names" ]
result "module sources give the schema: parameter values and counter names" $?

# --- A fake tree with the module's own parameters and statistics ---

# fake_mod: the parameters and statistics the module has, as it prints
# them, and its schema (from its sources), each counter a distinct value,
# two nodes, a latency histogram.
fake_mod() {
	local k v=101 i

	rm -rf "$tmp/sys" "$d"
	mkdir -p "$p" "$d"
	echo N >"$p/sync_free"
	echo Y >"$p/async_free"
	bracketed shrink_policy per_node >"$p/shrink_policy"
	echo 32 >"$p/shrink_batch"
	bracketed readahead_policy stock >"$p/readahead_policy"
	printf '%s\n' "$schema" >"$d/schema"
	for k in $stat_names; do
		echo "$k $v"
		v=$((v + 1))
	done >"$d/stats"
	printf '%s\n' "queue_depth 3" "queue_depth_max 9" "inflight 4" \
		"free_latency_p50_us 16" "free_latency_p99_us 1024" \
		"free_latency_max_us 16777216" \
		"shrink_scanned_node0 300" "shrink_written_node0 50" \
		"shrink_scanned_node1 200" "shrink_written_node1 70" >>"$d/stats"
	# 24 power-of-two buckets as stats.c prints them; the last is open.
	for i in $(seq 0 23); do
		echo "$((2 << i)) $(( i < 5 ? 10 - i : (i == 23 ? 2 : 0) ))"
	done >"$d/free_latency_us"
	: >"$d/reset"
}

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

fake_mod
zsw --json status
json_ok() { # PYTHON-EXPRESSION on j, the JSON of $out
	"$py" -c 'import json, sys; j = json.loads(sys.stdin.read()); sys.exit(0 if ('"$1"') else 1)' \
		<<<"$out" 2>"$tmp/pyerr"
}
[ "$rc" = 0 ] && [ -z "$err" ] && json_ok 'j["parameters"] == {"sync_free": False,
	"async_free": True, "shrink_policy": "per_node", "shrink_batch": 32,
	"readahead_policy": "stock"} and j["statistics"]["written_back"] == 101 and
	j["statistics"]["shrink_written_node1"] == 70 and
	j["statistics"]["free_latency_max_us"] == 16777216 and
	len(j["statistics"]) == '"$(wc -l <"$d/stats")"
result "status --json: valid JSON, typed values" $?
zsw status -j
[ "$rc" = 0 ] && json_ok 'j["parameters"]["shrink_batch"] == 32'
result "status -j after the command" $?
zsw --json stats
[ "$rc" = 0 ] && json_ok 'j["queue_depth"] == 3 and j["written_back"] == 101 and
	list(j)[:2] == ["written_back", "freed_sync"]'
result "stats --json" $?
zsw stats --json inflight written_back
[ "$rc" = 0 ] && json_ok 'j == {"inflight": 4, "written_back": 101}'
result "stats --json KEY KEY" $?
t "stats --json: an unknown key prints the error alone" 1 \
	'{*"error": "unknown statistic '"'bogus'"'"*}' "zswbctl: unknown statistic 'bogus'" \
	stats --json inflight bogus
printf 'odd "quoted\\ \001 value\n' >>"$d/stats"
zsw --json stats odd
[ "$rc" = 0 ] && json_ok 'j == {"odd": "\"quoted\\ \u0001 value"}'
result "stats --json: strings escaped" $?
fake_mod
export ZSWB_DEBUGFS=$tmp/none
zsw --json status
[ "$rc" = 4 ] && json_ok 'j == {"parameters": None, "statistics": None}' &&
	[[ $err == *"debugfs is not mounted"*$'\n'"zswbctl: parameters and statistics not shown" ]]
result "status --json without debugfs: parameters and statistics null (no schema to type them), exit 4" $?
export ZSWB_DEBUGFS=$tmp/debug
rm "$d/schema"
zsw --json status
[ "$rc" = 1 ] && json_ok 'j["parameters"] is None and j["statistics"]["inflight"] == 4' &&
	[[ $err == "zswbctl: cannot read $d/schema: No such file or directory"$'\n'"zswbctl: parameters not shown" ]]
result "status --json without a schema: parameters null, statistics, exit 1" $?
fake_mod
rm "$d/schema"
t "status without a schema: the parameters as their files read" 0 '*sync_free = N*written_back 101*' '' \
	status
fake_mod

# --- diff: counters only ---

# After: written_back +7, node1 scanned +5, every gauge and percentile moved.
awk '$1 == "written_back" { $2 += 7 } $1 == "shrink_scanned_node1" { $2 += 5 }
     $1 ~ /^(queue_depth|queue_depth_max|inflight)$/ { $2 += 40 }
     $1 ~ /^free_latency_/ { $2 *= 2 } { print }' "$d/stats" >"$tmp/stats.after"
zsw diff -- cp "$tmp/stats.after" "$d/stats"
want=$(for k in $stat_names; do echo "$k 0"; done | sed 's/^written_back 0$/written_back 7/'
	printf '%s\n' "shrink_scanned_node0 0" "shrink_written_node0 0" \
		"shrink_scanned_node1 5" "shrink_written_node1 0")
[ "$rc" = 0 ] && [ "$out" == "$want" ] && [ -z "$err" ]
result "diff: every counter, per-node ones too; no gauge, no percentile" $?

# --- set: values checked before anything is written ---

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

# --- prometheus ---

cat >"$tmp/promcheck.py" <<'EOF'
# Validate Prometheus text format on stdin; on success print every sample
# as "name{labels} value", else the reasons on stderr and exit 1.
import math, re, sys
from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
bad = []
name_re = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
sample_re = re.compile(r"^(%s)(\{[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\n]|\\[\\\"n])*\""
                       r"(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\n]|\\[\\\"n])*\")*\})? (\S+)$"
                       % name_re)
helped, typed, fam, ftype = set(), {}, None, None
if not text.endswith("\n"):
    bad.append("no final newline")
for n, line in enumerate(text.split("\n")[:-1], 1):
    if line.startswith("# HELP "):
        parts = line.split(" ", 3)
        if len(parts) < 4 or not parts[3].strip() or parts[2] in helped:
            bad.append("%d: HELP empty or repeated" % n)
        helped.add(parts[2])
    elif line.startswith("# TYPE "):
        parts = line.split(" ")
        if (len(parts) != 4 or parts[3] not in ("counter", "gauge", "histogram")
                or parts[2] in typed or parts[2] not in helped):
            bad.append("%d: bad TYPE, or one without HELP: %s" % (n, line))
        fam, ftype = parts[2], parts[3]
        typed[fam] = ftype
    else:
        m = sample_re.match(line)
        if not m:
            bad.append("%d: not a sample: %r" % (n, line))
            continue
        names = [fam + s for s in ("_bucket", "_count", "_sum")] if ftype == "histogram" else [fam]
        if m.group(1) not in names:
            bad.append("%d: %s is not in family %s" % (n, m.group(1), fam))
        if not m.group(1).startswith("zswap_wb_"):
            bad.append("%d: %s lacks the zswap_wb_ prefix" % (n, m.group(1)))
        try:
            float(m.group(3))
        except ValueError:
            bad.append("%d: bad value %r" % (n, m.group(3)))
try:
    fams = list(text_string_to_metric_families(text))
except Exception as e:
    fams = []
    bad.append("parser: %s" % e)
dump = []
for f in fams:
    if f.type not in ("counter", "gauge", "histogram") or not f.documentation:
        bad.append("%s: type %s, help %r" % (f.name, f.type, f.documentation))
    if f.type == "counter" and not all(s.name.endswith("_total") and s.value >= 0
                                       for s in f.samples):
        bad.append("%s: counter sample not _total or negative" % f.name)
    if f.type == "histogram":
        b = [s for s in f.samples if s.name == f.name + "_bucket"]
        c = [s.value for s in f.samples if s.name == f.name + "_count"]
        les = [float(s.labels.get("le", "nan")) for s in b]
        vals = [s.value for s in b]
        if (not b or les != sorted(les) or len(set(les)) != len(les) or les[-1] != math.inf
                or vals != sorted(vals) or c != [vals[-1]]):
            bad.append("%s: buckets not cumulative, +Inf missing or != _count" % f.name)
    for s in f.samples:
        labels = ",".join('%s="%s"' % kv for kv in sorted(s.labels.items()))
        dump.append("%s%s %r" % (s.name, "{%s}" % labels if labels else "", s.value))
if bad:
    sys.stderr.write("\n".join(bad) + "\n")
    sys.exit(1)
print("\n".join(dump))
EOF
promcheck() { "$py" "$tmp/promcheck.py" >"$tmp/prom.dump" 2>"$tmp/prom.err"; }
# only_down FILE: FILE's samples are zswap_wb_up 0 and one build info, no other.
only_down() {
	local samples

	samples=$(grep -v '^#' "$1" | sed 's/[{ ].*//' | tr '\n' ' ')
	[ "$samples" = "zswap_wb_up zswap_wb_build_info " ] && grep -qx 'zswap_wb_up 0' "$1" ||
		{ diag "$1: samples $samples"; return 1; }
}
has() { grep -qxF "$1" "$tmp/prom.dump" || { diag "missing: $1"; return 1; }; }

# The validator itself must refuse malformed text.
good=$'# HELP zswap_wb_a_total A.\n# TYPE zswap_wb_a_total counter\nzswap_wb_a_total 1\n'
promcheck <<<"${good%$'\n'}"
result "promcheck accepts a well-formed counter" $?
broken=(
	"a value that is not a number" "${good/zswap_wb_a_total 1/zswap_wb_a_total one}"
	"an unquoted label" "${good/zswap_wb_a_total 1/zswap_wb_a_total\{node=0\} 1}"
	"a TYPE without HELP" "${good#*$'\n'}"
	"a type other than counter, gauge, histogram" "${good/counter/summary}"
	"a sample outside its family" "${good/zswap_wb_a_total 1/zswap_wb_b_total 1}"
	"buckets that are not cumulative"
	$'# HELP zswap_wb_h H.\n# TYPE zswap_wb_h histogram\nzswap_wb_h_bucket{le="1"} 5\nzswap_wb_h_bucket{le="2"} 3\nzswap_wb_h_bucket{le="+Inf"} 5\nzswap_wb_h_count 5\n'
	"a histogram without +Inf"
	$'# HELP zswap_wb_h H.\n# TYPE zswap_wb_h histogram\nzswap_wb_h_bucket{le="1"} 5\nzswap_wb_h_count 5\n'
)
for ((i = 0; i < ${#broken[@]}; i += 2)); do
	! promcheck <<<"${broken[i + 1]%$'\n'}"
	result "promcheck refuses ${broken[i]}" $?
	grep -q . "$tmp/prom.err" || diag "promcheck gave no reason for ${broken[i]}"
done

fake_mod
zsw prometheus
printf '%s\n' "$out" >"$tmp/prom.stdout"
promcheck <"$tmp/prom.stdout"
pc=$?
[ "$rc" = 0 ] && [ -z "$err" ] && [ "$pc" = 0 ]
result "prometheus: the text format parser accepts it" $?
ok=0
has "zswap_wb_param_sync_free 0.0" && has "zswap_wb_param_async_free 1.0" &&
	has "zswap_wb_param_shrink_batch 32.0" &&
	has 'zswap_wb_param_info{name="shrink_policy",value="per_node"} 1.0' &&
	has 'zswap_wb_param_info{name="readahead_policy",value="stock"} 1.0' || ok=1
result "prometheus: parameters as 0/1 and numeric gauges, policies as info labels" $ok
ok=0
v=101
for k in $stat_names; do
	has "zswap_wb_${k}_total $v.0" || ok=1
	grep -q "^# TYPE zswap_wb_${k}_total counter$" "$tmp/prom.stdout" || ok=1
	v=$((v + 1))
done
result "prometheus: every module counter as a _total counter with its value" $ok
ok=0
has 'zswap_wb_shrink_scanned_total{node="0"} 300.0' &&
	has 'zswap_wb_shrink_scanned_total{node="1"} 200.0' &&
	has 'zswap_wb_shrink_written_total{node="1"} 70.0' || ok=1
[ "$(grep -c '^# TYPE zswap_wb_shrink_scanned_total counter$' "$tmp/prom.stdout")" = 1 ] || ok=1
result "prometheus: per-node counters as one family with node labels" $ok
ok=0
for g in queue_depth queue_depth_max inflight; do
	grep -q "^# TYPE zswap_wb_$g gauge$" "$tmp/prom.stdout" || ok=1
done
has "zswap_wb_queue_depth 3.0" && has "zswap_wb_inflight 4.0" &&
	has "zswap_wb_free_latency_p50_seconds 1.6e-05" &&
	has "zswap_wb_free_latency_max_seconds 16.777216" || ok=1
! grep -q "queue_depth_total\|inflight_total\|latency_p50_seconds_total" "$tmp/prom.stdout" || ok=1
result "prometheus: gauges and percentiles (in seconds) as gauges" $ok
ok=0
has 'zswap_wb_free_latency_seconds_bucket{le="0.000002"} 10.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="0.000032"} 40.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="8.388608"} 40.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 42.0' &&
	has 'zswap_wb_free_latency_seconds_count 42.0' || ok=1
[ "$(grep -c '_bucket' "$tmp/prom.dump")" = 24 ] || ok=1
! grep -q 'le="16.777216"\|free_latency_seconds_sum' "$tmp/prom.stdout" || ok=1
result "prometheus: histogram cumulative in seconds, open last bucket only in +Inf, no _sum" $ok
# HELP lines are the documentation's words (markup and line breaks aside).
docs=$(cat "$top"/Documentation/*.rst | tr -d '`' | tr -s ' \n' '  ')
ok=0
for k in $stat_names queue_depth queue_depth_max inflight; do
	h=$(sed -n "s/^# HELP zswap_wb_${k}\(_total\)\? //p" "$tmp/prom.stdout")
	if [ -z "$h" ] || [[ $docs != *"${h%.}"* ]]; then
		diag "HELP of $k: '$h'"
		ok=1
	fi
done
for k in sync_free async_free shrink_batch; do
	h=$(sed -n "s/^# HELP zswap_wb_param_$k //p" "$tmp/prom.stdout")
	if [ -z "$h" ] || [[ $docs != *"${h%.}"* ]]; then
		diag "HELP of $k: '$h'"
		ok=1
	fi
done
result "prometheus: HELP of each counter, gauge and parameter in the docs' words" $ok

mkdir "$tmp/tf"
echo old >"$tmp/tf/zswap_wb.prom"
ino=$(stat -c %i "$tmp/tf/zswap_wb.prom")
t "prometheus FILE" 0 '' '' prometheus "$tmp/tf/zswap_wb.prom"
cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.stdout" &&
	[ "$(stat -c %a "$tmp/tf/zswap_wb.prom")" = 644 ] &&
	[ "$(stat -c %i "$tmp/tf/zswap_wb.prom")" != "$ino" ] &&
	[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
result "prometheus FILE: same text, mode 644, a new inode (renamed), no temporary left" $?
(cd "$tmp/tf" && "$bin" prometheus rel.prom) && cmp -s "$tmp/tf/rel.prom" "$tmp/prom.stdout"
result "prometheus FILE: relative name" $?
rm "$tmp/tf/rel.prom"

t "prometheus: no such directory" 1 '' \
	"zswbctl: cannot create a temporary file in $tmp/nodir: No such file or directory" \
	prometheus "$tmp/nodir/zswap_wb.prom"
[ ! -e "$tmp/nodir" ]
result "prometheus: no such directory, nothing created" $?
t "prometheus: FILE is a directory" 1 '' "zswbctl: cannot write $tmp/tf: Is a directory" \
	prometheus "$tmp/tf"
t "prometheus: FILE ends in /" 64 '' "zswbctl: '$tmp/tf/' is not a file name" \
	prometheus "$tmp/tf/"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] && ! compgen -G "$tmp/.tf.*" >/dev/null
result "prometheus: refused FILEs leave no temporary file" $?
cp "$tmp/tf/zswap_wb.prom" "$tmp/prom.before"
if chattr +i "$tmp/tf" 2>/dev/null; then
	immutable+=("$tmp/tf")
	t "prometheus: unwritable directory" 1 '' \
		"zswbctl: cannot create a temporary file in $tmp/tf: Operation not permitted" \
		prometheus "$tmp/tf/zswap_wb.prom"
	chattr -i "$tmp/tf"
	cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.before" && [ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
	result "prometheus: unwritable directory, FILE unchanged" $?
else
	skip "prometheus: unwritable directory" "chattr +i not supported here"
	skip "prometheus: unwritable directory, FILE unchanged" "chattr +i not supported here"
fi
rm "$d/free_latency_us"
t "prometheus: unreadable histogram" 1 '' \
	"zswbctl: cannot read $d/free_latency_us: No such file or directory" \
	prometheus "$tmp/tf/zswap_wb.prom"
printf '2 1\n4 x\n' >"$d/free_latency_us"
t "prometheus: malformed histogram" 1 '' \
	"zswbctl: $d/free_latency_us: unexpected line '4 x'" prometheus "$tmp/tf/zswap_wb.prom"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] && only_down "$tmp/tf/zswap_wb.prom"
result "prometheus: a module file that cannot be read, FILE holds zswap_wb_up 0 alone" $?

# zswap_wb_up and the build info; a module gone leaves no series of it.
kernel=$(uname -r)
pversion=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
fake_mod
printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
echo 9.8.7 >"$tmp/sys/version"
zsw prometheus
printf '%s\n' "$out" | promcheck
[ "$?" = 0 ] && [ "$rc" = 0 ] && has "zswap_wb_up 1.0" &&
	has "zswap_wb_build_info{kernel=\"$kernel\",version=\"9.8.7\",zswbctl=\"$pversion\"} 1.0" &&
	[ "$(grep -v '^#' <<<"$out" | head -2 | cut -d'{' -f1 | cut -d' ' -f1 | tr '\n' ' ')" = \
		"zswap_wb_up zswap_wb_build_info " ] &&
	grep -qx '# TYPE zswap_wb_up gauge' <<<"$out" && grep -qx '# TYPE zswap_wb_build_info gauge' <<<"$out"
result "prometheus: zswap_wb_up 1 and zswap_wb_build_info (module, zswbctl, kernel) first" $?
rm "$tmp/sys/version"
zsw prometheus
printf '%s\n' "$out" | promcheck && has "zswap_wb_build_info{kernel=\"$kernel\",zswbctl=\"$pversion\"} 1.0"
result "prometheus: a module without a version file, build_info without the label" $?
zsw prometheus "$tmp/tf/zswap_wb.prom"
grep -q '^zswap_wb_written_back_total ' "$tmp/tf/zswap_wb.prom"
result "prometheus FILE: the module's series, before it goes" $?
# Each way the module cannot be read: FILE replaced by zswap_wb_up 0 alone,
# renamed over the old one, no temporary left; the exit status says why.
gone() { # DESC STATUS ERR ENV...
	local desc=$1 want=$2 want_err=$3 ino

	shift 3
	fake_mod
	printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
	"$bin" prometheus "$tmp/tf/zswap_wb.prom" 2>/dev/null
	ino=$(stat -c %i "$tmp/tf/zswap_wb.prom")
	env "$@" "$bin" prometheus "$tmp/tf/zswap_wb.prom" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(<"$tmp/out") err=$(<"$tmp/err")
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $rc == "$want" && -z $out && $err == $want_err ]] &&
		only_down "$tmp/tf/zswap_wb.prom" &&
		[ "$(stat -c %a "$tmp/tf/zswap_wb.prom")" = 644 ] &&
		[ "$(stat -c %i "$tmp/tf/zswap_wb.prom")" != "$ino" ] &&
		[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
	result "prometheus FILE, $desc: zswap_wb_up 0 alone, exit $want" $?
}
gone "module not loaded" 2 "$nomod" ZSWB_SYSFS="$tmp/none"
echo "ffffffff81000000 T _stext" >"$tmp/nohook"
gone "no hook in the running kernel" 3 "zswbctl: zswap_wb cannot be loaded: *" \
	ZSWB_SYSFS="$tmp/none" ZSWB_KALLSYMS="$tmp/nohook"
gone "no debugfs" 4 "$nodbg" ZSWB_DEBUGFS="$tmp/none"
gone "no schema" 1 "zswbctl: cannot read $tmp/sys/parameters/schema: No such file or directory" \
	ZSWB_DEBUGFS="$tmp/sys/parameters"
mkdir -p "$tmp/nostats"
printf '%s\n' "$schema" >"$tmp/nostats/schema"
gone "statistics that cannot be read" 1 "zswbctl: cannot read $tmp/nostats/stats: *" \
	ZSWB_DEBUGFS="$tmp/nostats"
ZSWB_SYSFS=$tmp/none zsw prometheus
printf '%s\n' "$out" >"$tmp/down.prom"
[ "$rc" = 2 ] && [ "$err" = "$nomod" ] && only_down "$tmp/down.prom" &&
	printf '%s\n' "$out" | promcheck && has "zswap_wb_up 0.0" &&
	has "zswap_wb_build_info{kernel=\"$kernel\",zswbctl=\"$pversion\"} 1.0"
result "prometheus: module not loaded, zswap_wb_up 0 and the build info on stdout, exit 2" $?
# A bad FILE is refused before the module is read: nothing changes.
cp "$tmp/tf/zswap_wb.prom" "$tmp/prom.before"
ZSWB_SYSFS=$tmp/none t "prometheus: FILE ends in /, module not loaded: bad usage first" 64 '' \
	"zswbctl: '$tmp/tf/' is not a file name" prometheus "$tmp/tf/"
ZSWB_SYSFS=$tmp/none t "prometheus: no such directory, module not loaded" 1 '' \
	"$nomod"$'\n'"zswbctl: cannot create a temporary file in $tmp/nodir: No such file or directory" \
	prometheus "$tmp/nodir/zswap_wb.prom"
cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.before" && [ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] &&
	[ ! -e "$tmp/nodir" ]
result "prometheus: refused FILEs change nothing" $?

# Atomic replace: a temporary file in FILE's directory, hidden and not
# *.prom, created exclusively, renamed over FILE; and a reader that reads
# FILE while it is replaced again and again only ever sees a whole file.
fake_mod
printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=openat,rename,renameat,renameat2 -o "$tmp/strace" \
		"$bin" prometheus "$tmp/tf/zswap_wb.prom"
	grep -qE "openat\(AT_FDCWD, \"$tmp/tf/\.zswap_wb\.prom\.[A-Za-z0-9]{6}\", O_RDWR\|O_CREAT\|O_EXCL" \
		"$tmp/strace" &&
		grep -qE "rename(at2?)?\((AT_FDCWD, )?\"$tmp/tf/\.zswap_wb\.prom\.[A-Za-z0-9]{6}\", (AT_FDCWD, )?\"$tmp/tf/zswap_wb\.prom\"" \
			"$tmp/strace"
	result "prometheus FILE: written to a hidden temporary in its directory, then renamed" $?
else
	skip "prometheus FILE: written to a hidden temporary in its directory, then renamed" "no strace"
fi
full=$(<"$tmp/tf/zswap_wb.prom")
echo 0 >"$tmp/stop"
(
	i=0
	while [ "$(<"$tmp/stop")" = 0 ] && [ $i -lt 2000 ]; do
		[ "$(<"$tmp/tf/zswap_wb.prom")" = "$full" ] || { echo "read $i differs"; exit 1; }
		i=$((i + 1))
	done
	echo "$i reads"
) >"$tmp/reader" 2>&1 &
rpid=$!
ok=0
for i in $(seq 100); do "$bin" prometheus "$tmp/tf/zswap_wb.prom" || ok=1; done
echo 1 >"$tmp/stop"
wait $rpid || ok=1
diag "reader: $(<"$tmp/reader")"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] || ok=1
result "prometheus FILE: replaced 100 times, a reader never sees a partial file" $ok
fake
printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
echo "extra 3" >>"$d/stats"
zsw prometheus
promcheck <<<"$out" && has 'zswap_wb_param_info{name="compressor",value="lz4"} 1.0' &&
	has "zswap_wb_param_enabled 1.0" && has "zswap_wb_stored_pages_total 100.0" &&
	grep -q '^# HELP zswap_wb_stored_pages_total Pages stored.$' <<<"$out" &&
	has "zswap_wb_extra_total 3.0" &&
	grep -q '^# HELP zswap_wb_extra_total zswap_wb statistic extra.$' <<<"$out" &&
	! grep -q state <<<"$out"
result "prometheus: a statistic the schema does not list is a counter, non-numeric values left out" $?
"$bin" stats >/dev/full 2>"$tmp/err"
rc=$?
out=''
err=$(<"$tmp/err")
[ "$rc" = 1 ] && [[ $err == "zswbctl: cannot write to stdout: No space left on device" ]]
result "stdout: a write error fails" $?

# --- Why the module, debugfs or a file is not there ---

export ZSWB_SYSFS=$tmp/none
nohook="zswbctl: zswap_wb cannot be loaded: the running kernel has no zswap writeback hook"
printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81234560 T zswap_wb_registered" \
	"ffffffffc0000000 t zswap_wb_register_x	[foo]" >"$tmp/kallsyms"
t "no hook in kallsyms" 3 '' \
	"$nohook"$'\n'"zswbctl: (* has no zswap_wb_register in $tmp/kallsyms): boot a kernel built with CONFIG_ZSWAP_WRITEBACK_HOOK=y" \
	stats
echo "ffffffffc0001000 T zswap_wb_register	[zswap_hook]" >>"$tmp/kallsyms"
t "hook in kallsyms, module line format" 2 '' "$nomod" get sync_free
export ZSWB_KALLSYMS=$tmp/none ZSWB_KCONFIG=$tmp/config
printf '%s\n' "CONFIG_ZSWAP=y" "# CONFIG_ZSWAP_WRITEBACK_HOOK is not set" >"$tmp/config"
t "no kallsyms, config without the hook" 3 '' \
	"$nohook"$'\n'"zswbctl: (* has no CONFIG_ZSWAP_WRITEBACK_HOOK=y in $tmp/config): boot a kernel built with it" \
	status
echo "CONFIG_ZSWAP_WRITEBACK_HOOK=y" >>"$tmp/config"
t "no kallsyms, config with the hook" 2 "$down" "$nomod" prometheus
export ZSWB_KCONFIG=$tmp/none
t "neither kallsyms nor config: not loaded" 2 '' "$nomod" unload
export ZSWB_SYSFS=$tmp/sys ZSWB_KALLSYMS=$tmp/kallsyms

fake
echo "none [integrity] confidentiality" >"$tmp/lockdown"
if chattr +i "$d/reset" 2>/dev/null; then
	immutable+=("$d/reset")
	t "reset: kernel lockdown" 6 '' \
		"zswbctl: cannot reset statistics: Operation not permitted: the kernel is locked down (integrity), see kernel_lockdown(7)" \
		reset
	echo "[none] integrity confidentiality" >"$tmp/lockdown"
	t "reset: EPERM without lockdown" 1 '' \
		"zswbctl: cannot reset statistics: Operation not permitted" reset
	chattr -i "$d/reset"
	[ ! -s "$d/reset" ]
	result "reset: refused, nothing written" $?
else
	for i in 1 2 3; do skip "reset: kernel lockdown ($i)" "chattr +i not supported here"; done
fi
echo "[none] integrity confidentiality" >"$tmp/lockdown"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/rootonly/zswap_wb"
	chmod 700 "$tmp/rootonly"
	chmod 755 "$tmp"
	asnobody() {
		ZSWB_DEBUGFS=$tmp/rootonly/zswap_wb setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		out=$(<"$tmp/out")
		err=$(<"$tmp/err")
	}
	asnobody stats
	[ "$rc" = 5 ] && [ -z "$out" ] && [ "$err" == \
		"zswbctl: cannot access $tmp/rootonly/zswap_wb: Permission denied: debugfs is for root, run zswbctl as root" ]
	result "stats as a user: permission denied" $?
	asnobody status
	[ "$rc" = 5 ] && [ "$out" == "${status%%$'\n'stored_pages*}" ] &&
		[[ $err == *"debugfs is for root"*"statistics not shown, parameters only" ]]
	result "status as a user: the parameters, and why no statistics" $?
	chmod 700 "$tmp"
else
	skip "stats as a user: permission denied" "needs root and setpriv"
	skip "status as a user: the parameters, and why no statistics" "needs root and setpriv"
fi

# --- Man page, install, style ---

for lint in "man --warnings -E UTF-8 -l" "groff -man -ww -z"; do
	# shellcheck disable=SC2086 # split lint on purpose
	LC_ALL=C.UTF-8 MANWIDTH=80 $lint "$tool/zswbctl.8" >/dev/null 2>"$tmp/lint"
	rc=$?
	err=$(<"$tmp/lint")
	[ "$rc" = 0 ] && [ -z "$err" ]
	result "man page: ${lint%% *} reports no warning" $?
	sed 's/^\.SH EXIT STATUS$/.XX EXIT STATUS/' "$tool/zswbctl.8" >"$tmp/broken.8"
	# shellcheck disable=SC2086
	LC_ALL=C.UTF-8 MANWIDTH=80 $lint "$tmp/broken.8" 2>&1 >/dev/null | grep -q warning
	result "man page: ${lint%% *} warns about a broken page" $?
done
ok=0
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
	grep -qx "\\.SH $s" "$tool/zswbctl.8" || { diag "no section $s"; ok=1; }
done
for c in status get set stats diff prometheus reset unload; do
	grep -q "^\\.B[IR]* $c\\b" "$tool/zswbctl.8" || { diag "no command $c"; ok=1; }
done
for c in 0 1 2 3 4 5 6 64; do
	grep -qx "\\.B $c" "$tool/zswbctl.8" || { diag "no exit status $c"; ok=1; }
done
result "man page: the sections, every command, every exit status" $ok

# --- Turning async_free off waits, in user space, for the folios in flight ---
fake_mod
echo 4 >"$d/inflight"
# The clock starts before the writer: a loaded host cannot shorten the wait.
start=$(date +%s%N)
( sleep 1; echo 0 >"$d/inflight" ) &
t "set async_free 0: waits for the folios in flight" 0 '' \
	"zswbctl: waiting for 4 folios under writeback (Ctrl-C stops waiting)" set async_free 0
wait
waited=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$waited" -ge 900 ]
result "set async_free 0: returned once inflight read 0 (${waited} ms)" $?
echo 0 >"$d/inflight"
t "set async_free 0: nothing in flight, no wait" 0 '' '' set async_free 0
echo 7 >"$d/inflight"
"$bin" set async_free 0 >"$tmp/out" 2>"$tmp/err" &
zpid=$!
sleep 0.5
kill -INT $zpid
wait $zpid
rc=$?
out=$(<"$tmp/out") err=$(<"$tmp/err")
[[ $rc == 1 && $err == *"stopped: 7 folios are freed as their writes end"* ]]
result "set async_free 0: Ctrl-C ends the wait and says what is left" $?
echo 3 >"$d/inflight"
( sleep 1; echo 0 >"$d/inflight" ) &
t "unload: waits for the folios in flight first" 0 \
	'ZSWB_NO_DELETE_MODULE=1: would call delete_module("zswap_wb", O_NONBLOCK)' \
	"zswbctl: waiting for 3 folios under writeback (Ctrl-C stops waiting)" unload
wait
rm -f "$d/inflight"

# --- main.c: the command table and the global options ---

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

# --- common.c: why debugfs is not there, named from its path ---

: >"$tmp/file"
ZSWB_DEBUGFS=$tmp/file zsw stats
[[ $rc == 1 && -z $out && $err == "zswbctl: $tmp/file is not a directory" ]]
result "common: a debugfs path that is a file" $?
ZSWB_DEBUGFS=$tmp/none/// zsw stats
[[ $rc == 4 && $err == "zswbctl: no $tmp/none///: debugfs is not mounted on $tmp (mount -t debugfs none $tmp)" ]]
result "common: trailing slashes of the debugfs path left out of its parent" $?
ZSWB_DEBUGFS=/none zsw stats
[[ $rc == 4 && $err == "zswbctl: no /none: debugfs is not mounted on / (mount -t debugfs none /)" ]]
result "common: a debugfs path right under /" $?
(cd "$tmp" && ZSWB_DEBUGFS=none zsw stats
 [[ $rc == 4 && $err == "zswbctl: no none: debugfs is not mounted on . (mount -t debugfs none .)" ]])
result "common: a relative debugfs path" $?
ZSWB_SYSFS=$tmp/file zsw get enabled
[[ $rc == 2 && $err == "zswbctl: zswap_wb is not loaded (no $tmp/file): load it with 'modprobe zswap_wb'" ]]
result "common: a sysfs path that is a file: not loaded" $?

# --- params.c: a value is checked as the module checks it, before any write ---

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

# --- params.c and schema.c: the drain contract, from the module's schema ---

fake_mod
printf 'param\thold\tbool\toff on\tN\tdrains\tHeld.\n' >>"$d/schema"
for f in hold zz_free freeish; do echo Y >"$p/$f"; done
zsw unload
ok=0
[[ $rc == 0 && -z $err ]] || ok=1
for f in sync_free async_free; do [ "$(<"$p/$f")" = 0 ] || { diag "$f not off"; ok=1; }; done
[ "$(<"$p/hold")" = off ] || { diag "hold not off"; ok=1; }
for f in zz_free freeish; do [ "$(<"$p/$f")" = Y ] || { diag "$f changed"; ok=1; }; done
result "params: unload turns off the booleans the schema says drain, whatever their names, with its off word" $ok
# A loaded module whose schema cannot be read: what needs it fails, saying
# why, and changes nothing.
fake_mod
rm "$d/schema"
noschema="zswbctl: cannot read $d/schema: No such file or directory"
for cmd in "set async_free N" unload "diff true" "ab --pairs 2 -- true"; do
	# shellcheck disable=SC2086 # split cmd on purpose
	t "$cmd: no schema, exit 1" 1 '' "$noschema" $cmd
done
is "no schema: nothing turned off" "$p/async_free" Y
fake_mod
chmod 000 "$d/schema"
if ! : <"$d/schema" 2>/dev/null; then
	t "set: a schema debugfs refuses, exit 5" 5 '' \
		"zswbctl: cannot read $d/schema: Permission denied: debugfs is for root, run zswbctl as root" \
		set async_free N
else
	skip "set: a schema debugfs refuses, exit 5" "root reads a file of mode 000"
fi
chmod 600 "$d/schema"
fake_mod
sed -i 's/^\(param\tasync_free\t.*\t\)drains,waits\t/\1drains\t/' "$d/schema"
echo 4 >"$d/inflight"
zsw set async_free N
[[ $rc == 0 && -z $err ]]
result "params: a parameter the schema does not flag waits does not wait, async_free too" $?
rm -f "$d/inflight"
fake_mod
sed -i 's/^\(param\tsync_free\t.*\t\)drains\t/\1drains,waits\t/' "$d/schema"
echo 4 >"$d/inflight"
( sleep 0.3; echo 0 >"$d/inflight" ) &
zsw set sync_free 0
wait
[[ $rc == 0 && $err == "zswbctl: waiting for 4 folios under writeback (Ctrl-C stops waiting)" ]]
result "params: set waits for any parameter the schema says waits" $?
rm -f "$d/inflight"

# --- get: the current choice, or every choice ---

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

# --- schema.c: what the module says of its statistics ---

fake_mod
printf 'stat\tbroken\n' >>"$d/schema"
zsw diff true
[[ $rc == 0 && $out == "written_back 0"$'\n'* && $out != *inflight* &&
   $err == "zswbctl: $d/schema: a line left out: 'stat	broken'" ]]
result "schema: a line zswbctl cannot read is left out, said once" $?
fake_mod
printf 'stat\tfresh\tgauge\t-\tA new gauge.\nstat\tpool_node<N>\tgauge\t-\tPer node.\n' \
	>>"$d/schema"
printf '%s\n' "fresh 1" "pool_node0 5" "other 3" >>"$d/stats"
zsw diff -- sh -c "sed -i 's/^fresh 1$/fresh 9/; s/^pool_node0 5$/pool_node0 7/; s/^other 3$/other 4/' '$d/stats'"
[[ $rc == 0 && $out == *$'\nother 1' && $out != *fresh* && $out != *pool_node* ]]
result "schema: diff leaves out what the schema calls a gauge, per node too" $?
zsw prometheus
grep -qx '# TYPE zswap_wb_fresh gauge' <<<"$out" &&
	grep -qx '# HELP zswap_wb_fresh A new gauge.' <<<"$out" &&
	grep -qx 'zswap_wb_pool{node="0"} 7' <<<"$out" &&
	grep -qx '# TYPE zswap_wb_other_total counter' <<<"$out"
result "schema: prometheus types and describes a statistic as the schema says" $?
fake_mod
zsw prometheus
grep -qx '# HELP zswap_wb_param_info Parameters whose value is a name (readahead_policy: which swap readahead to skip for zswap entries on a swapin fault; shrink_policy: how shrink_memcg() spreads its batch over the nodes), the value as a label.' <<<"$out"
result "schema: the HELP of zswap_wb_param_info names each policy in the module's words" $?

# --- params.c: each parameter typed by the schema's kind, never by its value ---

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

fake_mod
echo 4 >"$d/inflight"
ok=0
for args in "sync_free 0" "async_free 1" "async_free Yes" "shrink_batch 8" "sync_free off async_free on"; do
	# shellcheck disable=SC2086
	zsw set $args
	[[ $rc == 0 && -z $err ]] || { diag "set $args: exit $rc, $err"; ok=1; }
done
result "params: set waits for nothing unless it turns async_free off" $ok
ok=0
for w in OFF False n No 0; do
	echo 4 >"$d/inflight"
	# The folios end once zswbctl waits for them, however late it starts.
	: >"$tmp/err"
	( for i in $(seq 200); do grep -q waiting "$tmp/err" && break; sleep 0.05; done
	  echo 0 >"$d/inflight" ) &
	zsw set async_free "$w"
	wait
	[[ $rc == 0 && $err == "zswbctl: waiting for 4 folios under writeback (Ctrl-C stops waiting)" ]] ||
		{ diag "async_free $w: exit $rc, $err"; ok=1; }
done
rm -f "$d/inflight"
result "params: async_free turned off by any off word, in any case, waits" $ok

# --- stats.c: the stats file as the module writes it ---

fake
printf 'tabbed\t7\nspaced   8\nbare\n\n  \nlast 9' >"$d/stats"
t "stats: a key ends at the first blank, its value after any blanks" 0 $'7\n8\n\n9' '' \
	stats tabbed spaced bare last
rm "$d/stats"
t "stats: no stats file" 1 '' "zswbctl: cannot read $d/stats: No such file or directory" stats
printf 'a 10\nb 5\nc x\nqueue_depth 1\nfree_latency_max_us 4\n' >"$d/stats"
printf 'stat\tqueue_depth\tgauge\t-\tQ.\nstat\tfree_latency_max_us\tgauge\tus\tL.\n' >"$d/schema"
t "diff: a counter that fell, one that appeared, one not a number" 0 $'a -6\nb 0' '' \
	diff -- sh -c "printf 'a 4\nb 5\nc y\nd 1\nqueue_depth 9\nfree_latency_max_us 8\n' >'$d/stats'"
rm "$d/schema"
fake
rm -r "$p"
t "status: a module without parameters shows the statistics" 0 "$(<"$d/stats")" '' status

# --- json_writer.c: every --json output is JSON (python3 json.loads, strict) ---

# jcheck DESC RC EXPR ARGS...: zswbctl ARGS exits RC with JSON for which EXPR holds.
jcheck() {
	local desc=$1 want=$2 expr=$3

	shift 3
	zsw "$@"
	if [ "$rc" = "$want" ] && json_ok "$expr"; then
		result "$desc" 0
	else
		diag "$(<"$tmp/pyerr")"
		result "$desc" 1
	fi
}
fake_mod
ok=0
for args in "-j" "--json" "-j status" "status -j" "status --json" "-j -j status" "-j stats" \
	"stats -j" "stats --json inflight" "stats written_back -j inflight" "--json stats queue_depth"; do
	# shellcheck disable=SC2086
	zsw $args
	if ! { [ "$rc" = 0 ] && [ -z "$err" ] && json_ok 'isinstance(j, dict) and j'; }; then
		diag "$args: exit $rc, $(<"$tmp/pyerr")"
		ok=1
	fi
done
result "json: every --json form of status and stats prints one JSON object" $ok
fake
jcheck "json: status, the parameters typed by the schema" 0 'j == {"parameters": {"batch_free": 7,
	"compressor": "lz4", "enabled": True, "max_pool_percent": 20, "pool_free": False,
	"wb_free": True}, "statistics": {"stored_pages": 100, "written_back": 5, "state": "idle"}}' -j
: >"$d/stats"
jcheck "json: no statistics, an empty object" 0 'j == {}' -j stats
jcheck "json: status with no statistics" 0 'j["statistics"] == {} and len(j["parameters"]) == 6' -j
rm -r "$p"
jcheck "json: status of a module without parameters" 0 'j == {"parameters": {}, "statistics": {}}' -j
fake
printf '%s\n' "neg -5" "negzero -0" "zero 0" "lead 007" "max 18446744073709551615" \
	"over 18446744073709551616" "plus +1" "hex 0x10" "frac 1.5" "lower y" "upper Y" "no N" \
	"empty" >"$d/stats"
jcheck "json: statistics are integers in canonical form, the rest strings, none a boolean" 0 \
	'j == {"neg": -5, "negzero": 0, "zero": 0, "lead": 7, "max": 18446744073709551615,
	"over": "18446744073709551616", "plus": "+1", "hex": "0x10", "frac": "1.5",
	"lower": "y", "upper": "Y", "no": "N", "empty": ""}' -j stats
# Every control character but the line end, quotes, backslash, DEL and UTF-8,
# in a key and in a value.
"$py" -c 'import sys
v = "x" + "".join(chr(c) for c in range(1, 32) if c != 10) + "\"\\\x7f \u00e9"
sys.stdout.buffer.write(("ke\"y\\\x01 " + v + "\n").encode())' >"$d/stats"
jcheck "json: control characters, quotes, backslashes escaped; DEL and UTF-8 kept" 0 \
	'j == {"ke\"y\\\u0001": "x" + "".join(chr(c) for c in range(1, 32) if c != 10) + "\"\\\x7f \u00e9"}' \
	-j stats
"$bin" --json stats >/dev/full 2>"$tmp/err"
rc=$? out='' err=$(<"$tmp/err")
[[ $rc == 1 && $err == "zswbctl: cannot write to stdout: No space left on device" ]]
result "json: a write error on stdout fails" $?

# --- prom.c: every line is # HELP, # TYPE or a sample ---

# prom_lines: whether every line of $out is one of the three; diag the others.
prom_lines() {
	local name='zswap_wb_[a-zA-Z0-9_]+' label='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"' l

	grep -vxE "# HELP $name .+|# TYPE $name (counter|gauge|histogram)|$name(\\{$label(,$label)*\\})? -?[0-9]+(\\.[0-9]+)?" \
		<<<"$out" >"$tmp/prom.bad"
	while IFS= read -r l; do diag "not a line of the text format: $l"; done <"$tmp/prom.bad"
	[ ! -s "$tmp/prom.bad" ]
}
ok=0
for tree in fake fake_mod; do
	$tree
	[ -e "$d/free_latency_us" ] || printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
	zsw prometheus
	if ! { [ "$rc" = 0 ] && [ -n "$out" ] && prom_lines; }; then
		diag "$tree: exit $rc"
		ok=1
	fi
done
result "prometheus: every line of the output is # HELP, # TYPE or a sample" $ok
fake
printf 'a"b\\c\n' >"$p/weird"
printf 'l1\nl2\n' >"$p/multi"
echo -3 >"$p/negp"
echo x >"$p/bad-name"
{
	fake_param weird choice 'a"b\c' 'a"b\c' -
	fake_param multi choice l1 l1 -
	fake_param negp choice -3 -3 -
	fake_param bad-name choice x x -
} >>"$d/schema"
printf '%s\n' "k 1" "bad-key 2" "v_node1 3" "v_node2 4" "w_node 5" "x_nodeA 6" >"$d/stats"
printf '%s\n' "2 1" "4 2" >"$d/free_latency_us"
zsw prometheus
ok=0
[[ $rc == 0 && $err == "zswbctl: parameter 'bad-name' left out: not a metric name" ]] || ok=1
prom_lines || ok=1
printf '%s\n' "$out" | promcheck || { diag "$(<"$tmp/prom.err")"; ok=1; }
for l in 'zswap_wb_param_info{name="weird",value="a\"b\\c"} 1' \
	'zswap_wb_param_info{name="multi",value="l1\nl2"} 1' \
	'zswap_wb_param_info{name="negp",value="-3"} 1' \
	'zswap_wb_k_total 1' 'zswap_wb_v_total{node="1"} 3' 'zswap_wb_v_total{node="2"} 4' \
	'zswap_wb_w_node_total 5' 'zswap_wb_x_nodeA_total 6'; do
	grep -qxF "$l" <<<"$out" || { diag "missing: $l"; ok=1; }
done
! grep -q 'bad' <<<"$out" || ok=1
result "prometheus: label values escaped, odd names left out, node suffixes only with a number" $ok
fake
for i in $(seq 64); do echo "$i 1"; done >"$d/free_latency_us"
zsw prometheus
[[ $rc == 0 && $(grep -c '^zswap_wb_free_latency_seconds_bucket' <<<"$out") == 64 ]] &&
	grep -qxF 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 64' <<<"$out"
result "prometheus: a histogram of 64 buckets" $?
echo "65 1" >>"$d/free_latency_us"
t "prometheus: a histogram of 65 buckets is refused" 1 "$down" \
	"zswbctl: $d/free_latency_us: unexpected line '65 1'" prometheus
printf '%s\n' "4 1" "2 1" >"$d/free_latency_us"
t "prometheus: histogram bounds that do not rise are refused" 1 "$down" \
	"zswbctl: $d/free_latency_us: unexpected line '2 1'" prometheus
: >"$d/free_latency_us"
t "prometheus: an empty histogram is refused" 1 "$down" \
	"zswbctl: $d/free_latency_us is empty" prometheus
echo "8 3" >"$d/free_latency_us"
zsw prometheus
grep -qxF 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 3' <<<"$out" &&
	[ "$(grep -c '_bucket' <<<"$out")" = 1 ]
result "prometheus: a one-line histogram is +Inf alone" $?
(cd "$tmp/tf" && zsw prometheus - && [ "$rc" = 0 ] && [ -n "$out" ] && [ ! -e "$tmp/tf/-" ])
result "prometheus: FILE '-' is stdout" $?
if command -v promtool >/dev/null; then
	fake_mod
	zsw prometheus
	printf '%s\n' "$out" | promtool check metrics >"$tmp/promtool.log" 2>&1
	rc=$? err=$(<"$tmp/promtool.log")
	result "prometheus: promtool check metrics" $rc
else
	skip "prometheus: promtool check metrics" "no promtool (Debian's package prometheus has it)"
fi

make -s -C "$tool" install DESTDIR="$tmp/root" >"$tmp/build" 2>&1 &&
	[ "$(stat -c %a "$tmp/root/usr/sbin/zswbctl")" = 755 ] &&
	[ "$(stat -c %a "$tmp/root/usr/share/man/man8/zswbctl.8")" = 644 ] &&
	cmp -s "$tmp/root/usr/share/man/man8/zswbctl.8" "$tool/zswbctl.8" &&
	cmp -s "$tmp/root/usr/share/bash-completion/completions/zswbctl" \
		"$tool/zswbctl.bash-completion" &&
	"$tmp/root/usr/sbin/zswbctl" --version | grep -qx "zswbctl $version"
result "make install DESTDIR: sbin/zswbctl, the man page and the bash completion under /usr" $?
make -s -C "$tool" install DESTDIR="$tmp/root2" PREFIX=/usr/local >"$tmp/build" 2>&1 &&
	[ -x "$tmp/root2/usr/local/sbin/zswbctl" ] &&
	[ -f "$tmp/root2/usr/local/share/man/man8/zswbctl.8" ]
result "make install PREFIX=/usr/local" $?

# zswbctl's own sources; json_writer.[ch] are the kernel's bpftool's, in
# its style (checked against the kernel's copy instead).
own_srcs=()
for f in "$tool"/*.[ch]; do
	[[ $f == */json_writer.[ch] ]] || own_srcs+=("$f")
done
cp=$(compgen -G "$ZSWB_CACHE/linux-*/scripts/checkpatch.pl" | head -1)
if [ -n "$cp" ]; then
	perl "$cp" --strict --no-tree -q -f "${own_srcs[@]}" >"$tmp/cp.log" 2>&1
	rc=$?
	out=$(<"$tmp/cp.log")
	err=''
	[ "$rc" = 0 ] && [ -z "$out" ]
	result "checkpatch --strict -f on zswbctl's sources" $?
else
	skip "checkpatch --strict -f on zswbctl's sources" "no kernel source in $ZSWB_CACHE"
fi

# json_writer.[ch] are the kernel's bpftool copy: each change is marked.
kjw=$(compgen -G "$ZSWB_CACHE/linux-*/tools/bpf/bpftool/json_writer.c" | head -1)
if [ -n "$kjw" ]; then
	ok=0
	for f in json_writer.c json_writer.h; do
		diff -U0 "${kjw%/*}/$f" "$tool/$f" >"$tmp/jw.diff"
		"$py" -c 'import re, sys
hunks = re.split(r"^@@.*\n", open(sys.argv[1]).read(), flags=re.M)[1:]
sys.exit(0 if all(re.search(r"^\+.*zswbctl:", h, re.M) for h in hunks) else 1)' \
			"$tmp/jw.diff" || { diag "$f: a change to the kernel's copy not marked zswbctl:"; ok=1; }
	done
	result "json_writer.[ch]: the kernel's bpftool copy, each change marked zswbctl:" $ok
else
	skip "json_writer.[ch]: the kernel's bpftool copy, each change marked zswbctl:" \
		"no kernel source in $ZSWB_CACHE"
fi

report
