#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# params.c and schema.c: turning off what frees (unload, and set of a
# parameter the schema flags "drains" or "waits"). unload turns off every
# boolean the schema says drains, with the schema's off word, and puts
# them back if one fails; turning off a parameter flagged "waits" waits,
# in user space, until no folio is in flight, and Ctrl-C ends the wait
# saying what is left; without a schema, nothing of this runs.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 25
module_schema

# On the small tree: the booleans flagged "drains" turned off, the rest kept.
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

# Turning async_free off waits for the folios in flight.
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

# The drain contract is the schema's flags, never the parameters' names.

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
# Only turning off a parameter that waits waits, whatever off word is used.
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

ktap_finished
