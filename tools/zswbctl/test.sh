#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test for zswbctl: build it, then run every subcommand and error
# path against a fake sysfs/debugfs tree in a temporary directory.  Prints
# KTAP and exits 0 only if every test passed.  Never touches the real module:
# the paths point into the fake tree and delete_module() is always skipped.

set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$here/zswbctl
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug ZSWB_NO_DELETE_MODULE=1
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

# fake: (re)create the fake module tree.
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
nomod="zswbctl: zswap_wb is not loaded (no $tmp/none)"
nodbg="zswbctl: no $tmp/none: is debugfs mounted (mount -t debugfs none /sys/kernel/debug)?"

make -s -C "$here" >"$tmp/build" 2>&1
rc=$?
out=''
err=$(<"$tmp/build")
result "build" $rc
if [ $rc -ne 0 ]; then
	printf 'TAP version 13\n1..1\n%s\n' "${lines[@]}"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
if command -v readelf >/dev/null; then
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
for cmd in status stats reset "diff true"; do
	# shellcheck disable=SC2086
	t "$cmd: no debugfs" 2 '' "$nodbg" $cmd
done

echo "TAP version 13"
echo "1..$n"
printf '%s\n' "${lines[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
