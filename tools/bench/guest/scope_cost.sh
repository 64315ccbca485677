#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scope-cost benchmark, run in the VM by tools/bench/run.sh under icount:
#   scope_cost.sh PAIRS
# The prompt-free workload on disk swap with async_free freeing every
# folio, three ways, one zswbctl ab: "none" (A), the global parameter on
# and no scope (no lookup: the static key is off); "covered" (B), the
# parameter off and a scope with async_free on bound to the run's memcg (a
# lookup per folio that finds it); "other" (C), the parameter on and a
# scope bound to an idle memcg (a lookup per folio that finds nothing).
# An A/A pair then PAIRS pairs, each run in a fresh memcg of ab's after
# the page cache is dropped, judged by the instructions per folio written
# back (cmd.insn_per_folio). The scopes are not settings of ab: the run,
# "scope_cost.sh run", makes its side's ($ZSWBCTL_AB_SIDE) before the
# workload and removes it after. Its own figures (cmd.NAME): cpu_s, the
# guest's CPU time (not idle), and insn_per_folio, that time in
# instructions (icount: 2^ZSWB_ICOUNT_SHIFT ns each) per folio written
# back. (busybox awk has no power operator: the shell computes 2^SHIFT.)
. "$(dirname "$0")/lib.sh"
bench_config scope-cost
SHIFT=${ZSWB_ICOUNT_SHIFT:-3}
SCOPES=/sys/kernel/config/zswap_wb

# run: one run, in the memcg ab made for it.
run() {
	local cg wb0 wb c0 c1 rc=0
	cg=$(sed -n 's|^0::||p' /proc/self/cgroup)
	case "${ZSWBCTL_AB_SIDE:-}" in
	B) mkdir "$SCOPES/s" && echo "$cg" > "$SCOPES/s/cgroup" && echo Y > "$SCOPES/s/async_free" || return 1 ;;
	C) mkdir "$SCOPES/s" && echo /idle > "$SCOPES/s/cgroup" && echo Y > "$SCOPES/s/async_free" || return 1 ;;
	esac
	# the writeback point armed before the measure (a work item retries)
	sleep 2
	wb0=$(wbstat written_back)
	c0=$(cpu_ticks)
	thrash --size "$ZSWB_BENCH_SCOPE_SIZE" --passes "$ZSWB_BENCH_SCOPE_PASSES" || rc=1
	c1=$(cpu_ticks)
	wb=$(( $(wbstat written_back) - wb0 ))
	[ -d "$SCOPES/s" ] && rmdir "$SCOPES/s"
	[ $rc = 0 ] || return 1
	ab_metrics $(echo "$c0 $c1" | awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" \
		-v ns="$((1 << SHIFT))" -v wb="$wb" '{
		busy = 0
		for (i = 1; i <= 8; i++) if (i != 4 && i != 5) busy += ($(i + 8) - $i) / hz
		printf "cpu_s=%.2f insn_per_folio=%.0f\n", busy, wb ? busy * 1e9 / ns / wb : 0
	}')
}

if [ "${1:-}" = run ]; then
	run
	exit
fi

pairs=${1:-$ZSWB_BENCH_PAIRS}
modprobe zswap_wb || exit 1
grep -qw configfs /proc/mounts || mount -t configfs configfs /sys/kernel/config || exit 1
zswap_on
mkdir -p "$CG_ROOT/idle"
swap_on disk 1000 || exit 1
bench_ab scope-cost disk "none covered other" --a async_free=Y --b async_free=N --c async_free=Y \
	--pairs "$pairs" --metric cmd.insn_per_folio --memory-max "$ZSWB_BENCH_SCOPE_CG_MAX" \
	--drop-caches -- sh "$0" run
rc=$?
policy_off async_free
swap_off
exit $rc
