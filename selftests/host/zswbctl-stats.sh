#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stats.c: stats, stats --scope, diff and reset. stats prints the
# statistics file or the keys asked for, a scope's from its debugfs
# directory; diff runs a command and prints how each counter moved (no
# gauge, no percentile: the schema says which is which), with the
# command's exit status, a statistic the schema does not describe left
# out; reset writes 1 to the reset file; a tree without parameters/ is
# refused.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 26
module_schema

# On the small tree: each command and its bad usage.
fake
t "stats" 0 "$(<"$d/stats")" '' stats
t "stats KEY" 0 5 '' stats written_back
t "stats KEY KEY" 0 $'5\n100' '' stats written_back stored_pages
t "stats: unknown key" 1 '' "zswbctl: unknown statistic 'bogus'" \
	stats stored_pages bogus
printf 'a 1' >"$d/stats"
t "stats: adds a missing final newline" 0 'a 1' '' stats
fake
rm -r "$d/scopes"
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

new='stored_pages 97\nwritten_back 15\nadded 3\n'
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

# diff on the module's own statistics: counters only.
fake_mod
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

# The stats file as the module writes it, and odd ones.

fake
printf 'tabbed\t7\nspaced   8\nbare\n\n  \nlast 9' >"$d/stats"
t "stats: a key ends at the first blank, its value after any blanks" 0 $'7\n8\n\n9' '' \
	stats tabbed spaced bare last
rm "$d/stats"
t "stats: no stats file" 1 '' "zswbctl: cannot read $d/stats: No such file or directory" stats
printf 'a 10\nb 5\nc x\nqueue_depth 1\nfree_latency_max_us 4\nu 1\n' >"$d/stats"
{
	printf 'stat\t%s\tcounter\t-\t%s.\n' a A b B c C d D
	printf 'stat\tqueue_depth\tgauge\t-\tQ.\nstat\tfree_latency_max_us\tgauge\tus\tL.\n'
} >"$d/schema"
t "diff: a counter that fell, one that appeared, one not a number, one the schema does not describe" \
	0 $'a -6\nb 0' '' \
	diff -- sh -c "printf 'a 4\nb 5\nc y\nd 1\nqueue_depth 9\nfree_latency_max_us 8\nu 9\n' >'$d/stats'"
rm "$d/schema"
# The module always has parameters/: without it, status fails, saying so.
fake
rm -r "$p"
t "status: without parameters/, refused (exit 1), saying so" 1 "" \
	"zswbctl: cannot list $tmp/sys/parameters: No such file or directory" status

ktap_finished
