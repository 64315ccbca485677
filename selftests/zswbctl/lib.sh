# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the suites use what it sets
#
# Sourced by each of zswbctl's host suites, selftests/host/zswbctl-*.sh
# (selftests/run.sh runs each as a suite; "bash selftests/host/NAME.sh"
# runs one alone): the paths, a fake sysfs/debugfs/configfs/cgroup tree
# in a temporary directory that zswbctl reads instead of the module's and
# the host's, the helpers that run zswbctl and judge it, one cleanup at
# exit for every suite (at_exit), and the KTAP printer (the kernel's
# ktap_helpers.sh, through selftests/ktap.sh). A suite declares its tests
# with "plan N", which builds zswbctl if it is not up to date, and ends
# with ktap_finished. Never touches the real module: the paths point into
# the fake tree and delete_module() is always skipped.

set -u
# zswbctl fits its text to COLUMNS (zswbctl(8)): the suites compare its
# text as a pipe reads it, whatever terminal they were started from.
unset COLUMNS
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# What is tested: the tool's sources, its Makefile and its man page.
tool=$top/tools/zswbctl
# shellcheck source=../../tools/kernel/common.sh
. "$top/tools/kernel/common.sh"
# The build, the Prometheus text parser (Debian's python3, not whatever
# python3 comes first in PATH) and promtool, the man page linters, chattr,
# setpriv, flock and script(1), and strace (how prometheus replaces its
# FILE). A suite that needs more asks for it with zswb_need itself.
zswb_need gcc libc6-dev make python3 python3-prometheus-client prometheus groff-base \
	man-db e2fsprogs util-linux strace
# shellcheck source=../ktap.sh
. "$top/selftests/ktap.sh"
py=/usr/bin/python3
tmp=$(mktemp -d)

# at_exit CMD [ARG...]: run CMD when the suite exits, however it exits,
# before its temporary directory is removed; the last registered first.
# What a test leaves that rm -rf cannot undo (an immutable file, a
# server) is undone so. The suites' one cleanup: none sets its own trap.
exit_cmds=()
at_exit() {
	local cmd

	printf -v cmd '%q ' "$@"
	exit_cmds=("$cmd" "${exit_cmds[@]}")
}
cleanup() {
	local cmd

	for cmd in "${exit_cmds[@]}"; do eval "$cmd" >/dev/null 2>&1; done
	rm -rf "$tmp"
}
trap cleanup EXIT
bin=$tool/zswbctl
# Hook and lockdown probes, policy scopes, cgroups and /proc read fake
# files too: never the host's.
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug ZSWB_NO_DELETE_MODULE=1 \
	ZSWB_KALLSYMS=$tmp/kallsyms ZSWB_KCONFIG=$tmp/none ZSWB_LOCKDOWN=$tmp/lockdown \
	ZSWB_CONFIGFS=$tmp/config ZSWB_CGROUP=$tmp/cgroup ZSWB_PROC=$tmp/proc
echo "ffffffff81234560 T zswap_wb_register" >"$tmp/kallsyms"
echo "[none] integrity confidentiality" >"$tmp/lockdown"
p=$tmp/sys/parameters
d=$tmp/debug

# build: make zswbctl if it is not up to date (STATIC from the
# environment, as the Makefile takes it: empty for the package's dynamic
# build); its output in $tmp/build. Two suites run at once take turns
# (flock on the tool's directory): neither links a half-written binary.
build() {
	flock "$tool" make -s -C "$tool" >"$tmp/build" 2>&1
}

# plan N: the suite's N tests: the KTAP header and the plan, after
# building zswbctl if it is not up to date; a build that fails bails out.
plan() {
	local n=$1

	ktap_print_header
	ktap_set_plan "$n"
	build || {
		sed 's/^/# /' "$tmp/build"
		ktap_exit_fail_msg "zswbctl does not build"
	}
}

# result DESC STATUS: test DESC passes if STATUS is 0; a failure shows
# the last zswbctl run's exit status, stdout and stderr.
result() {
	local desc=$1 status=$2 l

	if [ "$status" -eq 0 ]; then
		ktap_test_pass "$desc"
		return
	fi
	echo "# exit status: ${rc-}"
	while IFS= read -r l; do echo "# stdout: $l"; done <<<"${out-}"
	while IFS= read -r l; do echo "# stderr: $l"; done <<<"${err-}"
	ktap_test_fail "$desc"
}

# diag TEXT: a diagnostic line.
diag() {
	echo "# $*"
}

# skip DESC WHY: test DESC skipped, WHY on the line before.
skip() {
	local desc=$1 why=$2

	ktap_print_msg "$why"
	ktap_test_skip "$desc"
}

# run CMD [ARG...]: run CMD, setting the globals $rc, $out and $err
# (its exit status, stdout and stderr), which result shows on a failure.
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(<"$tmp/out")
	err=$(<"$tmp/err")
}

# zsw ARGS...: run zswbctl (run: $rc, $out and $err).
zsw() {
	run "$bin" "$@"
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
	local desc=$1 file=$2 want=$3

	[ "$(<"$file")" == "$want" ]
	result "$desc" $?
}

# A boolean's words in the schema, in pairs: off, on.
bool_words='0 1 n y no yes off on false true'
# fake_param NAME KIND VALUES DEFAULT FLAGS: a "param" line of the schema.
fake_param() {
	local name=$1 kind=$2 values=$3 def=$4 flags=$5

	printf 'param\t%s\t%s\t%s\t%s\t%s\t%s.\n' "$name" "$kind" "$values" "$def" "$flags" "${name^}"
}

# fake_global: the tree's scopes/global/, which the module always has
# (built with policy scopes or not): the statistics, and the histogram if
# the tree has one, of what no scope covers; with no scope, the host's: a
# copy of the top-level files.
fake_global() {
	mkdir -p "$d/scopes/global"
	cp "$d/stats" "$d/scopes/global/stats"
	if [ -e "$d/free_latency_us" ]; then
		cp "$d/free_latency_us" "$d/scopes/global/free_latency_us"
	fi
}

# fake_hist LINE...: the tree's free-latency histogram, LINE a line each,
# the host's and its global scope's alike.
fake_hist() {
	printf '%s\n' "$@" >"$d/free_latency_us"
	cp "$d/free_latency_us" "$d/scopes/global/free_latency_us"
}

# fake: (re)create a small fake module tree, which describes itself in its
# schema: every statistic, every parameter; scopes/global/ (fake_global),
# no histogram.
fake() {
	rm -rf "$tmp/sys" "$d"
	mkdir -p "$p" "$d"
	echo Y >"$p/enabled"
	echo 20 >"$p/max_pool_percent"
	echo lz4 >"$p/compressor"
	echo Y >"$p/wb_free"
	echo N >"$p/pool_free"
	echo 7 >"$p/batch_free"
	printf 'stored_pages 100\nwritten_back 5\n' >"$d/stats"
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
	fake_global
}

# A parameter that can be read but whose writes fail even for root.
refused=/proc/sys/kernel/ostype
can_refuse=
if [ -r $refused ] && ! (: >$refused) 2>/dev/null; then
	can_refuse=1
fi

# What zswbctl prints: its usage, the status of fake's tree, and why the
# module or debugfs is not there.
usage='usage: zswbctl *'
status='batch_free = 7
compressor = lz4
enabled = Y
max_pool_percent = 20
pool_free = N
wb_free = Y
stored_pages 100
written_back 5'
nomod="zswbctl: zswap_wb is not loaded (no $tmp/none): load it with 'modprobe zswap_wb'"
nodbg="zswbctl: no $tmp/none: debugfs is not mounted on $tmp (mount -t debugfs none $tmp)"
# What prometheus prints when the module cannot be read: zswap_wb_up 0.
down='*'$'\n''zswap_wb_up 0'$'\n''*'
# The version of the module and zswbctl alike.
version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")

# module_schema: the module's schema, as its debugfs "schema" holds it,
# read from its sources (selftests/module_schema.sh) into $schema, with
# $schema_rc and $schema_err; and the names the tests use from it. fake_mod
# needs it.
module_schema() {
	schema=$(bash "$top/selftests/module_schema.sh" 2>"$tmp/names.err")
	schema_rc=$?
	schema_err=$(<"$tmp/names.err")
	shrink_names=$(schema_field param 4 shrink_policy | tr ' ' '\n')
	ra_names=$(schema_field param 4 readahead_policy | tr ' ' '\n')
	bool_names=$(schema_field param 4 sync_free | tr ' ' '\n')
	batch_range=$(schema_field param 4 shrink_batch | sed 's/\.\./ /')
	# The counters with a line and a file each (not the per-node ones).
	stat_names=$(awk -F'\t' '$1 == "stat" && $3 == "counter" && $2 !~ /_node<N>$/ { print $2 }' \
		<<<"$schema")
}

# schema_field KIND FIELD NAME: field FIELD (1-based) of the KIND line NAME.
schema_field() {
	local kind=$1 field=$2 name=$3

	awk -F'\t' -v k="$kind" -v f="$field" -v n="$name" '$1 == k && $2 == n { print $f }' <<<"$schema"
}

# bracketed PARAM CURRENT: the line that policy PARAM's file reads with
# CURRENT chosen, as the module prints it.
bracketed() {
	local param=$1 current=$2

	schema_field param 4 "$param" | sed "s/\(^\| \)$current\( \|\$\)/\1[$current]\2/"
}

# glob TEXT: TEXT as a glob that matches it alone.
glob() {
	local text=$1

	# shellcheck disable=SC2001 # one sed for every character of a class
	sed 's/[][*?\\]/\\&/g' <<<"$text"
}

# fake_mod: the parameters and statistics the module has, as it prints
# them, and its schema (from its sources), each counter a distinct value,
# two nodes, a latency histogram; scopes/global/ (fake_global).
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
	fake_global
}

# json_ok PYTHON-EXPRESSION: whether it holds of j, the JSON of $out
# (python3's json.loads, strict); python's complaint in $tmp/pyerr.
json_ok() {
	local expr=$1

	"$py" -c 'import json, sys; j = json.loads(sys.stdin.read()); sys.exit(0 if ('"$expr"') else 1)' \
		<<<"$out" 2>"$tmp/pyerr"
}

# promcheck: whether the Prometheus text on stdin is well formed
# (promcheck.py); its samples in $tmp/prom.dump, its reasons in $tmp/prom.err.
promcheck() {
	"$py" "$top/selftests/zswbctl/promcheck.py" >"$tmp/prom.dump" 2>"$tmp/prom.err"
}

# has SAMPLE: whether the last promcheck saw SAMPLE ("name{labels} value").
has() {
	local sample=$1

	grep -qxF "$sample" "$tmp/prom.dump" || { diag "missing: $sample"; return 1; }
}

# only_down FILE: FILE's samples are zswap_wb_up 0 and one build info, no other.
only_down() {
	local file=$1 samples

	samples=$(grep -v '^#' "$file" | sed 's/[{ ].*//' | tr '\n' ' ')
	if [ "$samples" != "zswap_wb_up zswap_wb_build_info " ] || ! grep -qx 'zswap_wb_up 0' "$file"; then
		diag "$file: samples $samples"
		return 1
	fi
}
