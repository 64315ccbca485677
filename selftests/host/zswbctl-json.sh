#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# json_writer.c and --json: status and stats print one JSON object
# (python3's json.loads, strict), the parameters typed by the schema, the
# statistics numbers (every kind the schema has is one), a value that is
# not an unsigned integer null; every string (a key, a choice's value)
# escaped; an error is the JSON's "error" too; without debugfs or a
# schema, what cannot be typed is null, without parameters/ the
# parameters, and the exit status says why.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 16
module_schema

# On the module's own tree.
fake_mod
zsw --json status
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
printf 'od"d\\\001 5\nbad "quoted\\ \001 value\n' >>"$d/stats"
zsw --json stats $'od"d\\\001' bad
[ "$rc" = 0 ] && json_ok 'j == {"od\"d\\\u0001": 5, "bad": None}'
result "stats --json: a key escaped; a value not a number null, not a string" $?
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

# Every --json form, and every kind of value.

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
	"wb_free": True}, "statistics": {"stored_pages": 100, "written_back": 5}}' -j
: >"$d/stats"
jcheck "json: no statistics, an empty object" 0 'j == {}' -j stats
jcheck "json: status with no statistics" 0 'j["statistics"] == {} and len(j["parameters"]) == 6' -j
rm -r "$p"
zsw -j
[[ $rc == 1 && $err == "zswbctl: cannot list $tmp/sys/parameters: No such file or directory" ]] &&
	json_ok 'j == {"parameters": None, "statistics": {}}'
result "json: status without parameters/: parameters null, the statistics, exit 1, said" $?
fake
printf '%s\n' "neg -5" "negzero -0" "zero 0" "lead 007" "max 18446744073709551615" \
	"over 18446744073709551616" "plus +1" "hex 0x10" "frac 1.5" "lower y" "upper Y" "no N" \
	"empty" >"$d/stats"
jcheck "json: statistics are unsigned integers in canonical form, null if not one, never a string or a boolean" 0 \
	'j == {"neg": None, "negzero": None, "zero": 0, "lead": 7, "max": 18446744073709551615,
	"over": None, "plus": None, "hex": None, "frac": None,
	"lower": None, "upper": None, "no": None, "empty": None}' -j stats
# Every control character but the line end, quotes, backslash, DEL and
# UTF-8, in a choice parameter's value; quotes, backslash, a control
# character, DEL and UTF-8 in a statistic's key.
"$py" -c 'import sys
v = "x" + "".join(chr(c) for c in range(1, 32) if c != 10) + "\"\\\x7f \u00e9"
sys.stdout.buffer.write((v + "\n").encode())' >"$p/odd"
fake_param odd choice x x - >>"$d/schema"
"$py" -c 'import sys
sys.stdout.buffer.write("ke\"y\\\x01\x7f\u00e9 3\n".encode())' >"$d/stats"
jcheck "json: control characters, quotes, backslashes escaped; DEL and UTF-8 kept" 0 \
	'j["parameters"]["odd"] == "x" + "".join(chr(c) for c in range(1, 32) if c != 10) + "\"\\\x7f \u00e9" and
	j["statistics"] == {"ke\"y\\\u0001\x7f\u00e9": 3}' \
	-j status
"$bin" --json stats >/dev/full 2>"$tmp/err"
rc=$? out='' err=$(<"$tmp/err")
[[ $rc == 1 && $err == "zswbctl: cannot write to stdout: No space left on device" ]]
result "json: a write error on stdout fails" $?

ktap_finished
