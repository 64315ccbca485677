#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for every script run inside the test VM: the counters, swap,
# memcgs and the module's parameters. Not run by itself: the tests' lib.sh
# (selftests/zswap_wb/) and the benchmarks' (tools/bench/guest/) source it
# from their own directory, where tools/vm/mkinitramfs.sh puts a copy (and
# tools/bench/apps/run.sh, for the Debian guest).

ZSWB_PARAMS=/sys/module/zswap_wb/parameters
ZSWB_DEBUGFS=/sys/kernel/debug/zswap_wb
CG_ROOT=/sys/fs/cgroup

# kv FILE NAME [DEFAULT]: the value of NAME in FILE, a "NAME VALUE" line
# each, as /proc/vmstat, memory.stat, the module's stats and a program's
# "NAME VALUE" report are; DEFAULT (0 unless given; "" prints nothing,
# for a caller that tells a missing value from 0) if NAME is not there,
# or FILE (a module loaded without its debugfs files, as a failed
# allocation leaves it). The one reader of such a file's values.
kv() {
	[ -r "$1" ] || { echo "${3-0}"; return 0; }
	awk -v k="$2" -v d="${3-0}" '$1 == k { print $2; f = 1 } END { if (!f) print d }' "$1"
}

# vmstat NAME: the current value of a /proc/vmstat counter.
vmstat() { kv /proc/vmstat "$1"; }

# wbstat NAME: a zswap_wb counter from the debugfs stats file.
wbstat() { kv "$ZSWB_DEBUGFS/stats" "$1"; }

# cgstat CG NAME: a memory.stat value of a cgroup.
cgstat() { kv "$CG_ROOT/$1/memory.stat" "$2"; }

# WAIT_SECONDS: how long cg_kill and wait_stopped wait before they call
# it a hang and fail (the tests' lib.sh sets its WORKLOAD_SECONDS).
WAIT_SECONDS=${WAIT_SECONDS:-600}

# poll SECONDS CMD...: run CMD every 50 ms until it succeeds, for SECONDS
# at most (a decimal, such as 0.5; counted in those 50 ms sleeps, so a CMD
# that itself takes long stretches it); returns 0 once it did, 1 if it
# never did. The one wait-for-a-condition loop of the guest's scripts:
# the caller says what timed out.
poll() {
	local n
	n=$(awk -v s="$1" 'BEGIN { printf "%d", s * 20 }')
	shift
	until "$@"; do
		[ "$n" -gt 0 ] || return 1
		n=$((n - 1))
		sleep 0.05
	done
}

# or_ended PID CMD...: CMD succeeds, or process PID has ended (a poll
# for what PID does gives up once it is gone; check CMD again after).
or_ended() {
	local pid=$1
	shift
	"$@" || ! kill -0 "$pid" 2>/dev/null
}

# thrash_filled OUT PID SECONDS: wait until thrash, whose output is OUT,
# says it has filled its memory; PID is thrash or the job that runs it.
# Fails if PID ends first or SECONDS pass.
thrash_filled() {
	poll "$3" or_ended "$2" grep -q '^filled' "$1"
	grep -q '^filled' "$1"
}

# no_writeback: no page under writeback in the whole system.
no_writeback() { [ "$(meminfo Writeback)" -eq 0 ]; }

# cg_empty CG: memcg CG has no task left (cgroup.events "populated 0").
cg_empty() { ! grep -q "populated 1" "$CG_ROOT/$1/cgroup.events" 2>/dev/null; }

# none_inflight: no folio of the module in flight.
none_inflight() { [ "$(wbstat inflight)" -eq 0 ]; }

# written_back_at_least N: the module wrote back N folios or more.
written_back_at_least() { [ "$(wbstat written_back)" -ge "$1" ]; }

# vmstat_at_least NAME N: /proc/vmstat's NAME reads N or more.
vmstat_at_least() { [ "$(vmstat "$1")" -ge "$2" ]; }

# meminfo NAME: a /proc/meminfo value, in kB.
meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# cpu_ticks: the "cpu" line of /proc/stat (user nice system idle iowait
# irq softirq steal), in USER_HZ ticks: the one reader of that line.
cpu_ticks() {
	awk '$1 == "cpu" { print $2, $3, $4, $5, $6, $7, $8, $9 }' /proc/stat
}

# cpu_busy_idle: the busy ticks of every CPU (user nice system irq
# softirq steal) and the idle ones (idle iowait), from cpu_ticks.
cpu_busy_idle() {
	cpu_ticks | awk '{ print $1 + $2 + $3 + $6 + $7 + $8, $4 + $5 }'
}

# param_schema NAME kind|values|default|flags: that column of zswap_wb
# parameter NAME's row in the loaded module's debugfs schema ("param",
# NAME, its kind, its values: the choices of a policy, in its order, or
# MIN..MAX, its default, its flags, its help; a tab between each).
param_schema() {
	local col
	case "$2" in
	kind) col=3 ;; values) col=4 ;; default) col=5 ;; flags) col=6 ;;
	*) echo "param_schema: no column '$2'" >&2; return 1 ;;
	esac
	awk -F'\t' -v n="$1" -v c=$col '$1 == "param" && $2 == n { print $c }' "$ZSWB_DEBUGFS/schema"
}

# zswap_on: enable zswap with its shrinker, lzo and zsmalloc.
zswap_on() {
	echo lzo > /sys/module/zswap/parameters/compressor
	echo 1 > /sys/module/zswap/parameters/enabled
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
}

# swap_on KIND [MiB]: swap on zram, disk (virtio-blk), nvme or file (ext4).
swap_on() {
	local kind=$1 size=${2:-1000} dev
	case "$kind" in
	zram)
		[ -e /sys/block/zram0 ] || cat /sys/class/zram-control/hot_add >/dev/null
		echo 1 > /sys/block/zram0/reset
		echo "${size}M" > /sys/block/zram0/disksize
		dev=/dev/zram0 ;;
	disk)
		echo 0 > /sys/block/vda/queue/rotational
		dev=/dev/vda ;;
	nvme)
		dev=/dev/nvme0n1 ;;
	file)
		mkdir -p /mnt/fs
		is_mounted /mnt/fs || mount -t ext4 /dev/vdb /mnt/fs || return 1
		rm -f /mnt/fs/swapfile
		dd if=/dev/zero of=/mnt/fs/swapfile bs=1M count="$size" 2>/dev/null || return 1
		chmod 600 /mnt/fs/swapfile
		dev=/mnt/fs/swapfile ;;
	*)
		echo "swap_on: unknown kind $kind" >&2
		return 1 ;;
	esac
	mkswap "$dev" >/dev/null && swapon "$dev"
}

is_mounted() {
	awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts
}

swap_off() {
	local dev
	for dev in $(awk 'NR > 1 { print $1 }' /proc/swaps); do
		swapoff "$dev"
	done
	[ -e /sys/block/zram0 ] && echo 1 > /sys/block/zram0/reset
	is_mounted /mnt/fs && { rm -f /mnt/fs/swapfile; umount /mnt/fs; }
	return 0
}

# cg_new NAME MAX: a fresh memcg with memory.max MAX (e.g. 100M).
cg_new() {
	cg_del "$1" || return 1
	mkdir "$CG_ROOT/$1" && echo "$2" > "$CG_ROOT/$1/memory.max"
}

# cg_run NAME CMD...: run CMD inside memcg NAME.
cg_run() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG_ROOT/$cg" "$@"
}

# cg_kill NAME: kill every process in memcg NAME (a job started with
# "cg_run ... &" is a subshell: killing $! leaves its command running) and
# wait until they are gone; fails, saying so, if some are still there
# after WAIT_SECONDS.
cg_kill() {
	echo 1 > "$CG_ROOT/$1/cgroup.kill"
	poll "$WAIT_SECONDS" cg_empty "$1" ||
		{ echo "# memcg $1: tasks still there $WAIT_SECONDS s after cgroup.kill" >&2; return 1; }
}

# cg_del NAME: kill what is left in memcg NAME and remove it.
cg_del() {
	[ -d "$CG_ROOT/$1" ] || return 0
	cg_kill "$1"
	rmdir "$CG_ROOT/$1" || { echo "# cannot remove memcg $1" >&2; return 1; }
}

# idle_memcgs N: N empty memcgs (idle1..idleN), or none with N=0.
# shrink_worker() walks every online memcg round robin and calls
# shrink_memcg() on each; a fleet host runs its services in memcgs of
# their own, the VM has only the root and the test's. Empty memcgs stand in
# for them, so that the worker's walk is as long as on a host.
idle_memcgs() {
	local d i=1
	for d in "$CG_ROOT"/idle*; do
		[ -d "$d" ] && rmdir "$d"
	done
	while [ "$i" -le "$1" ]; do
		mkdir "$CG_ROOT/idle$i" || return 1
		i=$((i + 1))
	done
}

# set_param NAME VALUE: set a zswap_wb parameter, failing loudly.
# Turning off a parameter that the module's schema flags "waits" does not
# wait for the folios in flight; like zswbctl, this waits (up to 60 s)
# until none is left.
set_param() {
	echo "$2" > "$ZSWB_PARAMS/$1" || { echo "# cannot set $1=$2" >&2; return 1; }
	case ",$(param_schema "$1" flags)," in *,waits,*) ;; *) return 0 ;; esac
	[ "$(cat "$ZSWB_PARAMS/$1")" = N ] || return 0
	poll 60 none_inflight || { echo "# $(wbstat inflight) folios still in flight" >&2; return 1; }
}

# proc_stat PID: PROC_STATE and PROC_PPID, the state and the parent's
# pid in /proc/PID/stat (after the command's name, which may hold spaces),
# both empty if there is no such task. Shell builtins only: it may run
# beside a workload, every 0.1 s.
proc_stat() {
	local st=
	read -r st 2>/dev/null < "/proc/$1/stat"
	st=${st##*) }
	set -- $st
	PROC_STATE=${1:-} PROC_PPID=${2:-}
}

# is_stopped PID: PID is stopped (SIGSTOP).
is_stopped() {
	local PROC_STATE PROC_PPID
	proc_stat "$1"
	[ "$PROC_STATE" = T ]
}

# wait_stopped PID: wait until PID has stopped itself (SIGSTOP); fails if
# it exits first, or, saying so, if it still runs after WAIT_SECONDS.
wait_stopped() {
	poll "$WAIT_SECONDS" or_ended "$1" is_stopped "$1"
	is_stopped "$1" && return 0
	kill -0 "$1" 2>/dev/null &&
		echo "# $1 has not stopped itself after $WAIT_SECONDS s" >&2
	return 1
}
