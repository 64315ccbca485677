#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scope-cost benchmark, run in the VM by tools/bench/run.sh under icount:
#   scope_cost.sh ROUNDS
# The prompt-free workload on disk swap with async_free freeing every
# folio, three ways: "none", the global parameter on and no scope (no
# lookup: the static key is off); "covered", the parameter off and a scope
# with async_free on bound to the workload's memcg (a lookup per folio that
# finds it); "other", the parameter on and a scope bound to an idle memcg
# (a lookup per folio that finds nothing). An A/A pair of "none" runs
# first. One "RESULT async variant iteration key=value..." line per run,
# with insn_per_folio: the guest's CPU time (not idle) in instructions
# (icount: 2^ZSWB_ICOUNT_SHIFT ns each) per folio written back. (busybox
# awk has no power operator: the shell computes 2^SHIFT.)
. "$(dirname "$0")/lib.sh"
bench_config scope-cost
rounds=${1:-$ZSWB_BENCH_SCOPE_ROUNDS}
SHIFT=${ZSWB_ICOUNT_SHIFT:-3}
SCOPES=/sys/kernel/config/zswap_wb

modprobe zswap_wb || exit 1
grep -qw configfs /proc/mounts || mount -t configfs configfs /sys/kernel/config || exit 1
zswap_on
mkdir -p "$CG_ROOT/idle"

one_run() {
	variant=$2 it=$3
	swap_on disk 1000 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cg_new bench "$ZSWB_BENCH_SCOPE_CG_MAX"
	case "$variant" in
	none|aa) set_param async_free 1 ;;
	covered)
		mkdir "$SCOPES/s" && echo /bench > "$SCOPES/s/cgroup" && echo Y > "$SCOPES/s/async_free" ;;
	other)
		set_param async_free 1
		mkdir "$SCOPES/s" && echo /idle > "$SCOPES/s/cgroup" && echo Y > "$SCOPES/s/async_free" ;;
	esac
	sleep 2
	echo 1 > $ZSWB_DEBUGFS/reset
	c0=$(cpu_ticks)
	t0=$(uptime_s)
	cg_run bench thrash --size "$ZSWB_BENCH_SCOPE_SIZE" --passes "$ZSWB_BENCH_SCOPE_PASSES" > /tmp/out 2>&1 ||
		echo "# thrash failed: $(cat /tmp/out)"
	t1=$(uptime_s)
	c1=$(cpu_ticks)
	wb=$(wbstat written_back)
	echo "$c0 $c1" | awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" -v ns="$((1 << SHIFT))" -v wb="$wb" \
		-v head="RESULT async $variant $it time_s=$(elapsed "$t0" "$t1") written_back=$wb freed=$(wbstat freed_async)" '{
		busy = 0
		for (i = 1; i <= 8; i++) if (i != 4 && i != 5) busy += ($(i + 8) - $i) / hz
		printf "%s cpu_s=%.2f insn_per_folio=%.0f\n", head, busy, wb ? busy * 1e9 / ns / wb : 0
	}'
	cg_del bench
	[ -d "$SCOPES/s" ] && rmdir "$SCOPES/s"
	policy_off async_free
	swap_off
}

one_run async aa 0
one_run async aa 1
bench_rounds "$rounds" "none covered other" async
