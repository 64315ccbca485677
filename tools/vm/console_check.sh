#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lines of a guest's console that show a kernel problem: a BUG,
# WARNING, KASAN or UBSAN report, a bad page, a lockdep splat, a hung task,
# a workqueue lockup, an oops or a panic.
#
#   tools/vm/console_check.sh [--report] CONSOLE [JUMP_LABEL_C]
#
# Prints them and exits 1 if there is any, 0 if none (tools/vm/run.sh
# fails the run on it). With --report it prints instead the first one:
# its line and what follows it to the end of its first call trace, at
# most 60 lines (a hung task's stack says what it waits for).
#
# One exception. A test that fails every allocation of a module load in
# turn (harden/insmod_fault_injection.sh) also fails those of the kernel's
# own loader: where the module uses a static key of the kernel, jump_label's
# module notifier answers a failed allocation with WARNs of its own
# (kernel/jump_label.c: "Failed to allocate memory: jump_label may not work
# properly", then "No memory during module load" as it undoes the load).
# The test marks where it does that in the kernel log ("zswb-vm: fail-nth
# over module loads: start" and ": end"); between the marks, and there
# only, that WARN of jump_label_module_notify() passes, and so do those of
# jump_label_del_module() by the same task after it. Their lines are read
# from JUMP_LABEL_C, the booted kernel's source; without it, none passes.
set -u
report=0
[ "${1:-}" = --report ] && { report=1; shift; }
console=${1:?usage: console_check.sh [--report] CONSOLE [JUMP_LABEL_C]}
jl=${2:-/nonexistent}
bad='Kernel panic|BUG:|WARNING:|KASAN:|UBSAN:|Bad page|possible circular locking|inconsistent lock state|sleeping function called from invalid context|list_add corruption|list_del corruption|refcount_t:|blocked for more than|workqueue lockup|general protection fault|Oops:'
jl_add=$(awk '/WARN\(1, "Failed to allocate memory: jump_label/ { print NR; exit }' "$jl" 2>/dev/null)
jl_del=$(awk '/No memory during module load/ { n = NR + 1 }
	NR == n && /WARN_ON/ { printf "%s%d", s, NR; s = "|" }' "$jl" 2>/dev/null)
awk -v bad="$bad" -v add="${jl_add:-none}" -v del="${jl_del:-none}" -v report=$report '
	# --report: the lines of the first problem, to the end of its trace.
	rest > 0 { print; if (--rest == 0 || /<\/TASK>|---\[ end trace/) rest = -1; next }
	rest < 0 { next }
	/zswb-vm: fail-nth over module loads: start/ { inj = 1; next }
	/zswb-vm: fail-nth over module loads: end/ { inj = 0; pid = ""; next }
	$0 !~ bad { next }
	inj && $0 ~ ("PID: [0-9]+ at kernel/jump_label\\.c:" add " jump_label_module_notify\\+") {
		pid = $0; sub(/.* PID: /, "", pid); sub(/ .*/, "", pid); next
	}
	inj && pid != "" && $0 ~ ("PID: " pid " at kernel/jump_label\\.c:(" del ") jump_label_del_module\\+") { next }
	{ print; found = 1; if (report) rest = 59 }
	END { exit found }' "$console"
