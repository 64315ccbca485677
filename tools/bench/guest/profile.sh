#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Profile of the prompt-free workload, run in the VM by tools/bench/run.sh:
#   profile.sh KIND VARIANT...       KIND: disk, zram or file; VARIANT: off, on
# Each variant runs the prompt-free benchmark's workload once under the
# kernel's function profiler (function_profile_enabled, trace_stat) in two
# modes, each on fresh swap and a fresh memcg:
#   self   every traceable function, time spent in the function itself
#          (options/graph-time 0), not counting time asleep (sleep-time 0)
#   incl   a list of entry points (FUNCS), time including their callees,
#          not counting time asleep
# The profiler is switched on before the workload starts and off after it
# ends (it patches kernel text: never during a timed benchmark run). Prints
# "PROFILE kind variant mode function hits time_us" lines, the TOP
# functions of each run by time (all of FUNCS in incl mode, also per CPU
# as mode incl-functionN), "PERCPU kind variant mode name delta" lines
# (busy and idle ticks per CPU, virtio interrupts per CPU, context
# switches), and a
# "RESULT kind variant-mode 0 ..." line with the run's figures.
. "$(dirname "$0")/lib.sh"
bench_config profile
kind=$1
shift
SIZE=$ZSWB_BENCH_SIZE
CG_MAX=$ZSWB_BENCH_CG_MAX
PASSES=$ZSWB_BENCH_PASSES
TOP=$ZSWB_PROFILE_TOP
TR=/sys/kernel/tracing
FUNCS="zswb_free_workfn zswb_writeback_end zswb_writeback_issued zswb_writeback_prepare
zswb_alloc_off_lru zswap_writeback_entry zswap_wb_remove_folio folio_end_writeback
shrink_worker zswap_shrinker_scan zswap_store zswap_load do_swap_page
swap_read_folio swap_cache_get_folio __read_swap_cache_async swapin_readahead
try_to_free_mem_cgroup_pages shrink_lruvec shrink_folio_list shrink_slab
__remove_mapping mem_cgroup_swapin_charge_folio __mem_cgroup_uncharge
__mem_cgroup_uncharge_folios free_unref_folios folios_put_refs __folio_put
folio_add_lru workingset_eviction workingset_refault __swap_writepage
reclaim_throttle mem_cgroup_handle_over_high handle_mm_fault
xa_store xa_erase xa_load __xa_set_mark xa_get_mark rcu_core
__queue_delayed_work __queue_work try_to_wake_up schedule
native_queued_spin_lock_slowpath __x64_sys_exit_group"

[ -e $TR/function_profile_enabled ] || mount -t tracefs tracefs $TR 2>/dev/null
if [ ! -e $TR/function_profile_enabled ]; then
	echo "# profile.sh: no $TR/function_profile_enabled (CONFIG_FUNCTION_PROFILER)" >&2
	exit 1
fi
modprobe zswap_wb || exit 1
zswap_on

# percpu: per-CPU figures as "name value" lines: busy and idle ticks of
# each CPU, interrupts of each CPU from virtio devices, context switches.
percpu() {
	awk '$1 ~ /^cpu[0-9]+$/ { print $1 "_busy", $2 + $3 + $4 + $7 + $8 + $9; print $1 "_idle", $5 + $6 }
		$1 == "ctxt" { print "ctxt", $2 }' /proc/stat
	awk 'NR == 1 { n = NF } /virtio/ { for (i = 2; i <= n + 1; i++) v[i - 2] += $i }
		END { for (c = 0; c < n; c++) print "virtio_irqs_cpu" c, v[c] + 0 }' /proc/interrupts
}

# dump KIND VARIANT MODE: the profile summed over the CPUs, by time.
dump() {
	cat $TR/trace_stat/function* | awk -v p="PROFILE $1 $2 $3" -v top="$4" -v want="$5" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		NF >= 4 && $2 ~ /^[0-9]+$/ && $4 == "us" { hits[$1] += $2; t[$1] += $3 }
		END {
			for (f in t) printf "%s %s %d %.0f\n", p, f, hits[f], t[f]
		}' | sort -k7,7 -n -r | awk -v top="$4" -v want="$5" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		NR <= top || ($5 in keep)'
}

one_profile() {
	local variant=$1 mode=$2 pol f a_pswpin a_rot c0 t0 t1 c1 failed
	pol=async_free
	[ "$kind" = zram ] && pol=sync_free
	swap_on "$kind" 1000 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ "$variant" = on ] && set_param $pol 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new bench "$CG_MAX"
	echo 0 > $TR/options/sleep-time
	if [ "$mode" = self ]; then
		echo > $TR/set_ftrace_filter
		echo 0 > $TR/options/graph-time
	else
		echo > $TR/set_ftrace_filter
		for f in $FUNCS; do
			echo "$f" >> $TR/set_ftrace_filter 2>/dev/null
		done
		echo 1 > $TR/options/graph-time
	fi
	a_pswpin=$(vmstat pswpin)
	a_rot=$(vmstat pgrotated)
	c0=$(cpu_busy_idle)
	percpu > /tmp/percpu0
	echo 1 > $TR/function_profile_enabled
	t0=$(uptime_s)
	failed=0
	cg_run bench thrash --size "$SIZE" --passes "$PASSES" > /tmp/out 2>&1 ||
		{ echo "# thrash failed, run left out: $(cat /tmp/out)"; failed=1; }
	t1=$(uptime_s)
	echo 0 > $TR/function_profile_enabled
	c1=$(cpu_busy_idle)
	percpu > /tmp/percpu1
	paste /tmp/percpu0 /tmp/percpu1 | awk -v p="PERCPU $kind $variant $mode" '{ printf "%s %s %d\n", p, $1, $4 - $2 }'
	if [ "$mode" = incl ]; then
		for f in $TR/trace_stat/function*; do
			awk -v p="PROFILE $kind $variant incl-${f##*/}" -v want="$FUNCS" '
				BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
				NF >= 4 && $2 ~ /^[0-9]+$/ && $4 == "us" && ($1 in keep) { printf "%s %s %d %.0f\n", p, $1, $2, $3 }' "$f"
		done
	fi
	if [ "$mode" = self ]; then
		dump "$kind" "$variant" "$mode" "$TOP" "$FUNCS"
	else
		dump "$kind" "$variant" "$mode" 0 "$FUNCS"
	fi
	[ "$failed" = 1 ] || echo "RESULT $kind $variant-$mode 0 time_s=$(elapsed "$t0" "$t1")" \
		"$(echo "$c0 $c1" | awk '{ printf "busy_s=%.2f idle_s=%.2f", ($3 - $1) / 100, ($4 - $2) / 100 }')" \
		"pswpin=$(( $(vmstat pswpin) - a_pswpin )) pgrotated=$(( $(vmstat pgrotated) - a_rot ))" \
		"pgmajfault=$(cgstat bench pgmajfault) pgscan=$(cgstat bench pgscan) pgsteal=$(cgstat bench pgsteal)" \
		"freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) )) work_runs=$(wbstat work_runs)" \
		"queue_depth_max=$(wbstat queue_depth_max) free_p99_us=$(wbstat free_latency_p99_us)"
	echo > $TR/set_ftrace_filter
	cg_del bench
	policy_off $pol
	swap_off
}

for variant in "$@"; do
	for mode in $ZSWB_PROFILE_MODES; do
		one_profile "$variant" "$mode"
	done
done
