#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the zswap_wb tests, sourced inside the test VM by every test
# script (selftests/zswap_wb/GROUP/NAME.sh: '. "$(dirname "$0")/../lib.sh"')
# and by the group runner (run_group.sh), beside the ones every guest
# script shares (tools/vm/guest.sh) and the host load's (hostload.sh).
# A helper that only one group's tests use lives in that group's
# GROUP.lib (harden.lib, prompt.lib, ...), which its tests source next.
#
# Sourced by a test, it arms the cleanup: on any exit of the test (its
# end, a failed check, a signal) test_cleanup undoes what the test set
# up, so that one failure stays one failure. A test that starts more than
# test_cleanup knows of (a background writer outside any memcg) defines
# test_cleanup_own, which runs first.
#
# Every function keeps its variables local; the few that hand results to
# the caller in variables say so.

# The directory of the tests: this file's, found from the script that
# sources it (a test one level down, or the runner beside it).
if [ -f "$(dirname "$0")/lib.sh" ]; then
	ZSWB_TESTS=$(cd "$(dirname "$0")" && pwd)
else
	ZSWB_TESTS=$(cd "$(dirname "$0")/.." && pwd)
fi
. "$ZSWB_TESTS/guest.sh"
. "$ZSWB_TESTS/hostload.sh"

# The workload: SIZE MiB in a memcg of CG_MAX, PASSES walks. Sized so that
# it writes back well over 10k pages.
SIZE=${ZSWB_TEST_SIZE:-300}
CG_MAX=${ZSWB_TEST_CG_MAX:-100M}
PASSES=${ZSWB_TEST_PASSES:-2}
# Fixed-time loads (the shrinker tests' random writers) last SCALE times
# longer: a debug kernel does a fraction of the work in the same time.
SCALE=${ZSWB_TEST_SCALE:-1}

msg() { echo "# $*"; }

# check DESC COND...: evaluate a test condition, print it on failure.
check() {
	local d=$1
	shift
	if ! eval "$@"; then
		msg "FAILED: $d ($*)"
		return 1
	fi
}

need_module() {
	[ -d /sys/module/zswap_wb ] || modprobe zswap_wb || { msg "modprobe zswap_wb failed"; return 1; }
}

# msg_stats: the module's counters on one "#" line.
msg_stats() {
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
}

# free_kb: free memory in kB, counting the pages that sit on the per-CPU
# free lists (/proc/zoneinfo "count"): MemFree leaves them out, and their
# size is tuned at run time, by tens of MiB after a swap workload.
free_kb() {
	local pcp
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $(( $(meminfo MemFree) + pcp * 4 ))
}

# cg_stop NAME: ask every process in memcg NAME to end (SIGTERM: thrash
# stops its walk and prints what it verified) and wait up to 60 s for them,
# then kill what is left.
cg_stop() {
	local p
	for p in $(cat "$CG_ROOT/$1/cgroup.procs"); do
		kill -TERM "$p" 2>/dev/null
	done
	poll 60 cg_empty "$1"
	cg_kill "$1"
}

# cg_start_stopped CG OUT CMD...: start CMD in memcg CG, its output in OUT,
# and wait until it has stopped itself (SIGSTOP) with its memory filled.
# Sets job (the pid of cg_run's subshell, to wait for) and pid (CMD's, the
# memcg's one process, to SIGCONT).
cg_start_stopped() {
	local cg=$1 out=$2
	shift 2
	cg_run "$cg" "$@" > "$out" 2>&1 &
	job=$!
	poll "$WORKLOAD_SECONDS" or_ended $job grep -q . "$CG_ROOT/$cg/cgroup.procs"
	pid=$(cat "$CG_ROOT/$cg/cgroup.procs")
	[ -n "$pid" ] || { msg "$1: not in memcg $cg: $(cat "$out")"; return 1; }
	wait_stopped $pid || { msg "$1: $(cat "$out")"; return 1; }
}

# param_value NAME: the value of a zswap_wb parameter; of a policy, which
# reads as every choice with the current one in brackets, that one.
param_value() {
	sed 's/^.*\[\([^]]*\)\].*$/\1/' "$ZSWB_PARAMS/$1"
}

# choices NAME: the choices of policy NAME, as the loaded module's debugfs
# schema lists them, in its order (the first is the default).
choices() { param_schema "$1" values; }

# param_default NAME: the default of zswap_wb parameter NAME, as the
# loaded module's debugfs schema gives it.
param_default() { param_schema "$1" default; }

# bracketed NAME CHOICE: how policy NAME reads with CHOICE current: every
# choice of the loaded module, CHOICE in brackets (the elevator idiom).
bracketed() {
	choices "$1" | awk -v c="$2" '{ for (i = 1; i <= NF; i++) if ($i == c) $i = "[" c "]"; print }'
}

# wb_resolved: folios written back whose fate is known: freed, put back
# (raced, write error, not marked) or left on the LRU by a policy that was
# off. Equals written_back once nothing is in flight.
wb_resolved() {
	echo $(( $(wbstat freed_sync) + $(wbstat freed_async) + $(wbstat raced) + \
		$(wbstat write_errors) + $(wbstat fallbacks) ))
}

# wb_freed: folios the policies freed, sync_free's and async_free's.
wb_freed() {
	echo $(( $(wbstat freed_sync) + $(wbstat freed_async) ))
}

# cg_reclaim CG SIZE: memory.reclaim SIZE a few times (it gives up early).
cg_reclaim() {
	local try
	for try in 1 2 3 4; do
		echo "$2" > "$CG_ROOT/$1/memory.reclaim" 2>/dev/null
	done
	return 0
}

# hang_report: what the machine waits in, on "#" lines: every task in
# uninterruptible sleep with its kernel stack, the module's queued and
# in-flight folios, each disk's requests in flight (loop and ram devices
# left out); and the kernel's own list of blocked tasks (SysRq w) on the
# console.
hang_report() {
	local f t PROC_STATE PROC_PPID
	for f in /proc/[0-9]*/task/[0-9]*; do
		t=${f##*/}
		proc_stat "${f#/proc/}"
		[ "$PROC_STATE" = D ] || continue
		msg "blocked: $t $(cat "$f/comm" 2>/dev/null) in" \
			"$(sed 's/^\[<[0-9a-f]*>\] //' "$f/stack" 2>/dev/null | tr '\n' ' ')"
	done
	[ -r "$ZSWB_DEBUGFS/stats" ] &&
		msg "zswap_wb: queue_depth $(wbstat queue_depth) inflight $(wbstat inflight)"
	msg "in flight (reads writes):$(for f in /sys/block/*/inflight; do
		case $f in */loop*|*/ram*) continue ;; esac
		printf ' %s' "$(basename "$(dirname "$f")")" $(cat "$f") ';'
	done)"
	echo w 2>/dev/null > /proc/sysrq-trigger
	return 0
}

# WORKLOAD_SECONDS: how long a workload may run before wait_workload
# calls it a hang; every workload here ends in well under a minute under
# TCG (a SCALE-times slower kernel, SCALE times that).
WORKLOAD_SECONDS=${ZSWB_TEST_WORKLOAD_SECONDS:-$((300 * SCALE))}
# guest.sh's cg_kill and wait_stopped give up after as long.
WAIT_SECONDS=$WORKLOAD_SECONDS

# uptime_now: UPTIME_NOW, the seconds since boot (a builtin read).
uptime_now() {
	local idle
	read -r UPTIME_NOW idle < /proc/uptime
	UPTIME_NOW=${UPTIME_NOW%.*}
}

# wait_workload PID: wait for the background workload PID (a child of
# this shell) and return its exit status. One still running after
# WORKLOAD_SECONDS is a hang: on standard error (a caller may hide the
# workload's own output) it says so and what hang_report finds, the
# workload is sent SIGKILL, and 124 is returned without waiting for it (a
# task stuck in the kernel does not die).
wait_workload() {
	local pid=$1 end f UPTIME_NOW PROC_STATE PROC_PPID
	uptime_now
	end=$((UPTIME_NOW + WORKLOAD_SECONDS))
	while :; do
		# ash reaps an ended child on its own, and wait still returns
		# its status; until then it is a zombie.
		proc_stat "$pid"
		case "$PROC_STATE" in
		''|Z) wait "$pid"; return ;;
		esac
		uptime_now
		[ "$UPTIME_NOW" -lt $end ] || break
		sleep 0.2
	done
	{
		msg "the workload ($pid) still runs after $WORKLOAD_SECONDS s: a hang"
		hang_report
	} >&2
	# The job is a subshell, the workload its child (cg_run).
	for f in /proc/[0-9]*; do
		proc_stat "${f#/proc/}"
		[ "$PROC_PPID" = "$pid" ] && kill -KILL "${f#/proc/}" 2>/dev/null
	done
	kill -KILL "$pid" 2>/dev/null
	return 124
}

# run_thrash CG ARGS...: run the workload in memcg CG, keep its output in
# /tmp/thrash.out and print it on a "#" line; thrash's exit status (124
# after a hang, wait_workload).
run_thrash() {
	local cg=$1 trc
	shift
	cg_run "$cg" thrash "$@" > /tmp/thrash.out 2>&1 &
	wait_workload $!
	trc=$?
	msg "$(tr '\n' ' ' < /tmp/thrash.out)"
	return $trc
}

# snap PREFIX: remember vmstat counters as PREFIX_name variables (the
# caller's, for delta).
snap() {
	local k
	for k in zswpwb pgrotated pswpout pswpin zswpout workingset_refault_anon; do
		eval "${1}_$k=$(vmstat $k)"
	done
}

# delta NAME: counter change between snapshots a and b.
delta() {
	eval "echo \$((b_$1 - a_$1))"
}

# any_alive PID...: one of them still runs.
any_alive() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}

# wait_drained SECONDS: wait until no folio is in flight, or SECONDS
# have passed.
wait_drained() {
	poll "$1" none_inflight
}

# unload: rmmod zswap_wb, retrying for up to 10 s: once async_free is off
# and its last folio resolved, a work item drops the module's reference
# on itself a moment later, and rmmod does not wait for it (O_NONBLOCK),
# as zswbctl unload retries too.
unload() {
	poll 10 quiet rmmod zswap_wb || { rmmod zswap_wb; return 1; }
}

# quiet CMD...: CMD, its standard error dropped.
quiet() { "$@" 2>/dev/null; }

# wait_filled OUT PID: thrash_filled for up to WORKLOAD_SECONDS; fails
# with thrash's output on a "#" line if thrash did not fill its memory.
wait_filled() {
	thrash_filled "$1" "$2" "$WORKLOAD_SECONDS" && return 0
	msg "thrash did not fill its memory: $(cat "$1")"
	return 1
}

# written_nodes, calls: what shrink_memcg() wrote back on both nodes, and
# how often the worker and the store path called it.
written_nodes() {
	echo $(( $(wbstat shrink_written_node0) + $(wbstat shrink_written_node1) ))
}

calls() {
	echo $(( $(wbstat shrink_calls_worker) + $(wbstat shrink_calls_store) ))
}

# test_cleanup: what any test may have set up, undone, so that a test that
# failed half-way leaves nothing to the next: its memcgs (and their
# processes), swap, injected faults, stalled devices, the test modules,
# and zswap's and the module's parameters at their defaults.
test_cleanup() {
	local f d n name def
	for f in /sys/devices/system/cpu/cpu*/online; do
		[ "$(cat "$f")" = 1 ] || echo 1 > "$f"
	done
	for f in /sys/block/*/make-it-fail; do
		echo 0 > "$f" 2>/dev/null
	done
	echo 1 > /sys/block/vda/queue/rq_affinity 2>/dev/null
	for f in failslab fail_page_alloc; do
		echo Y > /sys/kernel/debug/$f/ignore-gfp-wait 2>/dev/null
	done
	echo Y > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem 2>/dev/null
	hostload_release_compaction
	for d in "$CG_ROOT"/*/*/; do
		case "$d" in "$CG_ROOT"/hostload/*) continue ;; esac
		[ -d "$d" ] && cg_del "${d#"$CG_ROOT"/}" 2>/dev/null
	done
	for d in "$CG_ROOT"/*/; do
		# The host load's tenant (hostload.sh) outlives each test.
		[ "$(basename "$d")" = hostload ] && continue
		[ -d "$d" ] && cg_del "$(basename "$d")" 2>/dev/null
	done
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl resume "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	swap_off >/dev/null 2>&1
	[ -e /dev/mapper/control ] && for n in $(ls /sys/block | grep '^dm-'); do
		dmctl remove "$(cat /sys/block/$n/dm/name)" 2>/dev/null
	done
	[ -d /sys/module/zswb_slowissue ] && rmmod zswb_slowissue
	[ -d /sys/module/zswb_slowarm ] && rmmod zswb_slowarm
	[ -d /sys/module/zswb_dup ] && rmmod zswb_dup
	if [ -d /sys/module/zswb_holdfree ]; then
		echo 0 > /sys/module/zswb_holdfree/parameters/hold
		rmmod zswb_holdfree
	fi
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	echo 90 > /sys/module/zswap/parameters/accept_threshold_percent
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo true > /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null
	# Every parameter the loaded module's schema lists, in its order, at
	# the default it gives.
	[ -d /sys/module/zswap_wb ] &&
		awk -F'\t' '$1 == "param" { print $2, $5 }' "$ZSWB_DEBUGFS/schema" |
		while read -r name def; do
			echo "$def" > "$ZSWB_PARAMS/$name"
		done
	return 0
}

# The trap of every test: test_cleanup, then exit with the test's own
# status. A signal (the runner's timeout, ^C in make vm) exits through it.
test_exit() {
	local rc=$?
	trap - EXIT
	command -v test_cleanup_own >/dev/null && test_cleanup_own
	test_cleanup
	exit $rc
}

case "$(basename "$0")" in
run_group.sh) ;;
*)	trap test_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM ;;
esac
