#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers of the scope tests (policy scopes per cgroup), sourced after
# ../lib.sh by each test of this directory. A test exits 0 (pass), 4
# (skip) or anything else (fail), explains itself on "#" lines, and
# undoes what it set up on exit (scope_trap).

SCOPES=/sys/kernel/config/zswap_wb
SCOPE_DEBUGFS=$ZSWB_DEBUGFS/scopes
# The workload: SIZE MiB walked PASSES times in a memcg of CG_MAX.
SIZE=${ZSWB_TEST_SIZE:-150}
CG_MAX=${ZSWB_TEST_CG_MAX:-60M}
PASSES=${ZSWB_TEST_PASSES:-2}

msg() { echo "# $*"; }

# check DESC COND...: evaluate a test condition, print it on failure.
check() {
	d=$1
	shift
	if ! eval "$@"; then
		msg "FAILED: $d ($*)"
		return 1
	fi
}

# need_scopes: the module loaded (configfs.ko with it, as modprobe
# resolves it) and configfs mounted.
need_scopes() {
	[ -d /sys/module/zswap_wb ] || modprobe zswap_wb || { msg "modprobe zswap_wb failed"; return 1; }
	[ -d /sys/module/configfs ] || grep -qw configfs /proc/filesystems ||
		{ msg "configfs is not loaded"; return 1; }
	is_mounted /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
		{ msg "cannot mount configfs"; return 1; }
	[ -d "$SCOPES" ] || { msg "no $SCOPES"; return 1; }
}

# scope_new NAME CGROUP [SETTING=VALUE...]: a scope bound to CGROUP (a
# path under /sys/fs/cgroup, from /), with its settings.
scope_new() {
	n=$1 c=$2
	shift 2
	mkdir "$SCOPES/$n" || { msg "mkdir scope $n failed"; return 1; }
	echo "$c" > "$SCOPES/$n/cgroup" || { msg "scope $n: cannot bind $c"; return 1; }
	for kv in "$@"; do
		echo "${kv#*=}" > "$SCOPES/$n/${kv%%=*}" || { msg "scope $n: cannot set $kv"; return 1; }
	done
}

# sstat SCOPE NAME: a counter of scope SCOPE (or global) from its stats file.
sstat() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$SCOPE_DEBUGFS/$1/stats"
}

# scope_resolved SCOPE: its folios whose fate is known (see wb_resolved).
scope_resolved() {
	echo $(( $(sstat "$1" freed_sync) + $(sstat "$1" freed_async) + $(sstat "$1" raced) + \
		$(sstat "$1" write_errors) + $(sstat "$1" mark_failed) + $(sstat "$1" fallbacks) ))
}

# scope_wait_inflight SCOPE N SECONDS: wait until SCOPE has N folios in flight.
scope_wait_inflight() {
	w=0
	while [ "$(sstat "$1" inflight)" -lt "$2" ] && [ $w -lt $(($3 * 20)) ]; do
		sleep 0.05
		w=$((w + 1))
	done
}

# wait_quiet: wait up to 60 s until no folio is in flight on the host.
wait_quiet() {
	w=0
	while [ "$(wbstat inflight)" -gt 0 ] || [ "$(wbstat queue_depth)" -gt 0 ]; do
		[ $w -lt 600 ] || return 1
		sleep 0.1
		w=$((w + 1))
	done
}

# check_identity SCOPE: the accounting identity of zswap_wb.rst, for
# SCOPE: every folio written back was freed or put back, none in flight.
check_identity() {
	msg "$1: $(tr '\n' ' ' < "$SCOPE_DEBUGFS/$1/stats")"
	check "$1: every folio written back was freed or put back" \
		"[ $(scope_resolved "$1") -eq $(sstat "$1" written_back) ]" &&
	check "$1: nothing in flight" \
		"[ $(sstat "$1" inflight) -eq 0 ] && [ $(sstat "$1" queue_depth) -eq 0 ]"
}

# The counters of stats (the schema's counters, per node too) and the
# gauges that are sums; not queue_depth_max, a maximum, nor the percentiles.
summed_rows() {
	awk -F'\t' '$1 == "stat" && ($3 == "counter" || $2 == "inflight" || $2 == "queue_depth") { print $2 }' \
		"$ZSWB_DEBUGFS/schema" | sed 's/_node<N>$/_node/'
}

# sums_match SCOPE...: each summed row of the top-level stats equals its
# sum over global and the SCOPEs; prints the first row that does not.
sums_match() {
	cp "$ZSWB_DEBUGFS/stats" /tmp/sum.host
	for s in global "$@"; do
		cat "$SCOPE_DEBUGFS/$s/stats"
	done > /tmp/sum.scopes
	summed_rows > /tmp/sum.rows
	awk 'FILENAME == "/tmp/sum.rows" { r[$1] = 1; next }
	     FILENAME == "/tmp/sum.host" { h[$1] = $2; next }
	     { s[$1] += $2 }
	     END {
		for (k in h) {
			n = k; sub(/[0-9]+$/, "", n)
			if (!(k in r) && !(n in r)) continue
			if (h[k] != s[k]) { print k, h[k], s[k] + 0; exit 1 }
		}
	     }' /tmp/sum.rows /tmp/sum.host /tmp/sum.scopes
}

# check_sums SCOPE...: sums_match, three tries: the shrinker's worker may
# count between the reads of the files.
check_sums() {
	for t in 1 2 3; do
		bad=$(sums_match "$@") && return 0
		sleep 1
	done
	msg "FAILED: the scopes (global $*) add up to the top-level stats: row host scopes: $bad"
	return 1
}

# cg_tree_del PATH: kill and remove a cgroup and its descendants, deepest first.
cg_tree_del() {
	[ -d "$CG_ROOT/$1" ] || return 0
	for d in $(find "$CG_ROOT/$1" -depth -type d); do
		echo 1 > "$d/cgroup.kill" 2>/dev/null
	done
	for d in $(find "$CG_ROOT/$1" -depth -type d); do
		w=0
		while grep -q "populated 1" "$d/cgroup.events" 2>/dev/null && [ $w -lt 300 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		rmdir "$d" 2>/dev/null
	done
}

# cg_mk PATH [MAX]: a cgroup (its parents made as needed, with the memory
# controller enabled for their children), memory.max MAX if given.
cg_mk() {
	p=
	for part in $(echo "$1" | tr '/' ' '); do
		[ -n "$p" ] && echo +memory > "$CG_ROOT/$p/cgroup.subtree_control"
		p=${p:+$p/}$part
		[ -d "$CG_ROOT/$p" ] || mkdir "$CG_ROOT/$p" || return 1
	done
	[ -z "$2" ] || echo "$2" > "$CG_ROOT/$1/memory.max"
}

# scope_cleanup: remove every scope, the test's cgroups, swap, and the
# parameters back to their defaults (test_cleanup).
scope_cleanup() {
	[ -n "$DM" ] && dmctl resume "$DM" 2>/dev/null
	for s in "$SCOPES"/*/; do
		[ -d "$s" ] && rmdir "$s"
	done
	for c in $SCOPE_CGROUPS; do
		cg_tree_del "$c"
	done
	test_cleanup
	[ -n "$DM" ] && dmctl remove "$DM" 2>/dev/null
	return 0
}

# scope_trap CGROUP...: clean up on exit, keeping the test's status.
scope_trap() {
	SCOPE_CGROUPS="$*"
	trap 'rc=$?; scope_cleanup; exit $rc' EXIT
	trap 'exit 1' INT TERM
}
