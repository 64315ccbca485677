#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the zswap_wb tests, sourced inside the test VM by every test
# script (selftests/zswap_wb/GROUP/NAME.sh: '. "$(dirname "$0")/../lib.sh"')
# and by the group runner (run_group.sh), beside the ones every guest
# script shares (tools/vm/guest.sh) and the host load's (hostload.sh).
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
	while [ -z "$(cat "$CG_ROOT/$cg/cgroup.procs")" ]; do
		kill -0 $job 2>/dev/null || { msg "$1: $(cat "$out")"; return 1; }
		sleep 0.1
	done
	pid=$(cat "$CG_ROOT/$cg/cgroup.procs")
	wait_stopped $pid || { msg "$1: $(cat "$out")"; return 1; }
}

# param_value NAME: the value of a zswap_wb parameter; of a policy, which
# reads as every choice with the current one in brackets, that one.
param_value() {
	sed 's/^.*\[\([^]]*\)\].*$/\1/' "$ZSWB_PARAMS/$1"
}

# choices NAME: the choices of policy NAME, as the loaded module's debugfs
# schema lists them, in its order (the first is the default).
choices() {
	awk -F'\t' -v n="$1" '$1 == "param" && $2 == n { print $4 }' "$ZSWB_DEBUGFS/schema"
}

# param_default NAME: the default of zswap_wb parameter NAME, as the
# loaded module's debugfs schema gives it.
param_default() {
	awk -F'\t' -v n="$1" '$1 == "param" && $2 == n { print $5 }' "$ZSWB_DEBUGFS/schema"
}

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
	local f t
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

# uptime_now: UPTIME_NOW, the seconds since boot (a builtin read).
uptime_now() {
	read -r UPTIME_NOW _ < /proc/uptime
	UPTIME_NOW=${UPTIME_NOW%.*}
}

# wait_workload PID: wait for the background workload PID (a child of
# this shell) and return its exit status. One still running after
# WORKLOAD_SECONDS is a hang: on standard error (a caller may hide the
# workload's own output) it says so and what hang_report finds, the
# workload is sent SIGKILL, and 124 is returned without waiting for it (a
# task stuck in the kernel does not die).
wait_workload() {
	local pid=$1 end f
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

# none_alive PID...: none of them is running.
none_alive() { ! any_alive "$@"; }

# wait_inflight N SECONDS: wait until at least N folios are in flight
# (marked, not yet freed or put back) or SECONDS have passed.
wait_inflight() {
	poll "$2" inflight_at_least "$1"
}
inflight_at_least() { [ "$(wbstat inflight)" -ge "$1" ]; }

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
	local t=0
	while ! rmmod zswap_wb 2>/dev/null; do
		[ $t -lt 100 ] || { rmmod zswap_wb; return 1; }
		sleep 0.1
		t=$((t + 1))
	done
}

# prompt_policy KIND: the prompt-free policy for swap of KIND (the prompt
# group's argument): sync_free on zram (its writes end before
# submit_bio() returns), async_free on disk, nvme and file.
prompt_policy() {
	case "$1" in
	zram) echo sync_free ;;
	disk|nvme|file) echo async_free ;;
	*) msg "swap kind '$1': zram, disk, nvme or file" >&2; return 1 ;;
	esac
}

# shrink_setup CASE: zswap limits for the shrinker tests, shrinker off so
# that every writeback comes from shrink_memcg(). pool: max_pool_percent=1
# (shrink_worker), with 32 idle memcgs for the worker to walk as on a host;
# zswap_max: memory.zswap.max=32M (zswap_store()).
shrink_setup() {
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 50 > /sys/module/zswap/parameters/accept_threshold_percent
	swap_on disk 1500 || return 1
	cg_new shrink 128M
	if [ "$1" = pool ]; then
		idle_memcgs 32 || return 1
		echo 1 > /sys/module/zswap/parameters/max_pool_percent
	else
		echo 50 > /sys/module/zswap/parameters/max_pool_percent
		echo 32M > $CG_ROOT/shrink/memory.zswap.max
	fi
}

shrink_teardown() {
	cg_del shrink
	idle_memcgs 0
	swap_off
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	echo 90 > /sys/module/zswap/parameters/accept_threshold_percent
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	set_param shrink_policy "$(param_default shrink_policy)"
	set_param shrink_batch "$(param_default shrink_batch)"
}

# shrink_load SECONDS: random writers, two on each node's CPU; fails on a
# checksum mismatch.
shrink_load() {
	local w
	for w in 1 2 3 4; do
		cg_run shrink taskset -c $((w % 2)) thrash --size 64 --passes 0 --random $(($1 * SCALE)) > /tmp/out.$w 2>&1 &
	done
	wait
	if grep -h mismatches /tmp/out.* | grep -qv "mismatches 0"; then
		msg "$(cat /tmp/out.* | tr '\n' ' ')"
		return 1
	fi
}

# shrink_against_stock CASE POLICY: the shrinker load under CASE
# (shrink_setup) with stock, then with POLICY: POLICY writes back more in
# fewer shrink_memcg() calls.
shrink_against_stock() {
	local where=$1 pol=$2 p w_stock c_stock w_pol c_pol
	for p in stock $pol; do
		shrink_setup "$where" || return 1
		set_param shrink_policy $p
		echo 1 > $ZSWB_DEBUGFS/reset
		shrink_load 10 || { shrink_teardown; return 1; }
		if [ $p = stock ]; then
			w_stock=$(written_nodes) c_stock=$(calls)
		else
			w_pol=$(written_nodes) c_pol=$(calls)
		fi
		msg "$where $p: written back $(written_nodes) in $(calls) shrink_memcg() calls"
		shrink_teardown
	done
	check "$pol writes back more than stock" "[ $w_pol -gt $w_stock ]" &&
	check "$pol calls shrink_memcg() less than stock" "[ $c_pol -lt $c_stock ]"
}

# written_nodes, calls: what shrink_memcg() wrote back on both nodes, and
# how often the worker and the store path called it.
written_nodes() {
	echo $(( $(wbstat shrink_written_node0) + $(wbstat shrink_written_node1) ))
}

calls() {
	echo $(( $(wbstat shrink_calls_worker) + $(wbstat shrink_calls_store) ))
}

# ra_fill CG SIZE: start thrash holding SIZE MiB in CG, wait until it
# has filled its memory, push it out with memory.reclaim. Sets fill_pid.
# The region stays out until "ra_release CG" (or WORKLOAD_SECONDS): then
# thrash reads it back, verifies it and exits; "wait $fill_pid" gives its
# status.
ra_fill() {
	local out=/tmp/fill.$1.$$
	rm -f $out
	cg_run "$1" thrash --size "$2" --passes 0 --hold "$WORKLOAD_SECONDS" > $out 2>&1 &
	fill_pid=$!
	while ! grep -q filled $out; do
		kill -0 $fill_pid 2>/dev/null || return 1
		sleep 0.2
	done
	cg_reclaim "$1" "$2M"
}

# ra_release CG: let the regions of ra_fill in CG fault back (SIGUSR1 to
# the memcg's processes: $fill_pid is cg_run's subshell, not thrash).
ra_release() {
	local p
	for p in $(cat "$CG_ROOT/$1/cgroup.procs"); do
		kill -USR1 $p
	done
}

# ra_setup POLICY CG: for a readahead test, zswap with its shrinker off
# and room for the whole region (max_pool_percent=50), disk swap,
# readahead_policy POLICY, the counters reset and memcg CG without a limit.
ra_setup() {
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 50 > /sys/module/zswap/parameters/max_pool_percent
	swap_on disk || return 1
	set_param readahead_policy "$1" || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new "$2" max
}

# ra_teardown CG: ra_setup undone.
ra_teardown() {
	cg_del "$1"
	swap_off
	set_param readahead_policy "$(param_default readahead_policy)"
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
}

# swapin_window POLICY MODE: swapinrace's 16 MiB pushed to zswap, written
# back to a suspended device-mapper device (writes held), the device let
# go; then, with zswb_holdfree holding the free work item back when
# POLICY is async, the region is swapped in by MODE (swapinrace.c: 16
# threads at once, a slice each) while its folios wait to be freed. Sets
# sw_queued (folios queued when the swapin began), sw_left (swap slots
# still charged to the memcg after the swapin, in pages), sw_cached (its
# memory.stat swapcached, pages), sw_wait (the longest write to the
# slices' first pages, the faults that meet the queued folios, in ms),
# sw_first_cached (those first pages still in the swap cache after their
# write fault), sw_copied and sw_first_copied (pages copied after a fork:
# all, and of the first pages), sw_fork_migrated (pages migrated in the
# system meanwhile), sw_raced, sw_werr (the module's counters)
# and sw_rc (swapinrace's status).
swapin_window() {
	local pol=$1 mode=$2 dm job pid wb0
	dm=$(dmctl create zswbsw /dev/vda) || return 1
	zswap_on
	mkswap /dev/$dm >/dev/null && swapon /dev/$dm || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new swrace max
	cg_start_stopped swrace /tmp/swapinrace.out swapinrace 16 "$mode" || return 1
	# Into zswap first, then written back while the device holds the writes.
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	cg_reclaim swrace 20M
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	dmctl suspend zswbsw || return 1
	if [ "$pol" = async ]; then
		modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; return 1; }
	fi
	wb0=$(vmstat zswpwb)
	cg_reclaim swrace 20M
	cg_reclaim swrace 20M
	msg "$pol/$mode: $(( $(vmstat zswpwb) - wb0 )) written back while held, inflight $(wbstat inflight)"
	dmctl resume zswbsw
	poll 10 no_writeback
	sw_queued=$(wbstat queue_depth)
	[ "$mode" = writefork ] && hostload_hold_compaction
	kill -CONT $pid
	# Long enough for the swapin of every page when nothing waits.
	sleep 3
	[ "$pol" = async ] && echo 0 > /sys/module/zswb_holdfree/parameters/hold
	wait_stopped $pid || true
	hostload_release_compaction
	poll 10 none_inflight
	sw_left=$(( $(cat $CG_ROOT/swrace/memory.swap.current) / 4096 ))
	sw_cached=$(( $(cgstat swrace swapcached) / 4096 ))
	sw_raced=$(wbstat raced) sw_werr=$(wbstat write_errors)
	kill -CONT $pid
	wait $job
	sw_rc=$?
	sw_copied=$(awk '$1 == "copied" { print $2 }' /tmp/swapinrace.out)
	sw_first_copied=$(awk '$1 == "first_copied" { print $2 }' /tmp/swapinrace.out)
	sw_fork_migrated=$(awk '$1 == "fork_migrated" { print $2 }' /tmp/swapinrace.out)
	sw_first_cached=$(awk '$1 == "first_cached" { print $2 }' /tmp/swapinrace.out)
	sw_wait=$(awk '$1 == "first" { printf "%d", $3 * 1000 }' /tmp/swapinrace.out)
	: "${sw_first_cached:=-1}" "${sw_first_copied:=-1}" "${sw_wait:=0}" "${sw_fork_migrated:=-1}"
	[ "$pol" = async ] && rmmod zswb_holdfree
	msg "$pol/$mode: $(tr '\n' ' ' < /tmp/swapinrace.out); queued $sw_queued; left $sw_left cached $sw_cached pages"
	msg_stats
	cg_del swrace
	set_param async_free 0
	swapoff /dev/$dm
	dmctl remove zswbsw
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
