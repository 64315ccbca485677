#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole zswap_wb test suite (what 'make check' runs): host checks, then
# the VM tests, one VM boot per group. Prints KTAP, each suite as a subtest
# with its own results indented, and ends with "N passed, N failed, N skipped"
# counted over every leaf test. Exit status 0 only if none failed.
#
#   selftests/run.sh [SUITE...]     default: every suite, in order
#
# The host suites run first, one after the other; the VM suites (the
# groups of selftests/zswap_wb, found from their settings files) then in
# ZSWB_CHECK_JOBS lanes (below), each suite printed in order when all are
# done, with a "# lane N: SUITE" line as each starts and ends.
set -u
. "$(dirname "$0")/../tools/kernel/common.sh"
. "$(dirname "$0")/../tools/lib/lanes.sh"
zswb_dirs || exit 1
cd "$ZSWB_TOP" || exit 1

# The host suites: a script each in selftests/host, found from the tree
# and run in the order of their names.
HOST=$(for f in selftests/host/*.sh; do
	[ "$f" = selftests/host/lib.sh ] || basename "$f" .sh
done | tr '\n' ' ')
HOST=" ${HOST% }"

# The VM groups are found from the tree: each directory of
# selftests/zswap_wb with a settings file, which holds, one KEY=VALUE a
# line, kselftest's timeout= and this project's keys beside it:
#   timeout=SECONDS     the VM's timeout (ZSWB_VM_TIMEOUT overrides it;
#                       times ZSWB_VM_TIMEOUT_SCALE, 1 unless set)
#   smp=N mem=MIB       the VM's CPUs and memory (default 2 and 2048)
#   append=ARGS         on the guest kernel's command line
#   variants=A B ...    a suite per argument, vm-GROUP-A ..., each given
#                       to the group's tests as "$1"
#   debug=no            not run on the debug kernel (make check-debug)
#   suite=no            not a suite: another one boots it (dkms)
# A group is its directory: make check finds it, with no list to edit.

# setting GROUP KEY: the value of KEY in GROUP's settings (the last), or nothing.
setting() {
	sed -n "s/^$2=//p" "selftests/zswap_wb/$1/settings" 2>/dev/null | tail -n 1
}

# VM_GROUP[SUITE]: the group and argument of each VM suite; VM_ALL, their names.
declare -A VM_GROUP
VM_ALL=""
for f in selftests/zswap_wb/*/settings; do
	g=$(basename "$(dirname "$f")")
	[ "$(setting "$g" suite)" = no ] && continue
	[ "${ZSWB_FLAVOUR:-}" = debug ] && [ "$(setting "$g" debug)" = no ] && continue
	v=$(setting "$g" variants)
	if [ -z "$v" ]; then
		VM_GROUP[vm-$g]=$g
		VM_ALL="$VM_ALL vm-$g"
	fi
	for a in $v; do
		VM_GROUP[vm-$g-$a]="$g $a"
		VM_ALL="$VM_ALL vm-$g-$a"
	done
done
ALL="$HOST$VM_ALL"
# "vm" stands for every VM suite (make check-debug).
suites=$(for s in ${*:-$ALL}; do [ "$s" = vm ] && echo $VM_ALL || echo "$s"; done)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# vm_timeout GROUP: the VM's timeout for GROUP, ZSWB_VM_TIMEOUT or the
# timeout= of the group's settings file (as kselftest's), 1200 s without,
# times ZSWB_VM_TIMEOUT_SCALE (make check-debug: a slower kernel).
vm_timeout() {
	local t
	t=$(setting "$1" timeout)
	case "$t" in ''|*[!0-9]*) t=1200 ;; esac
	echo $(( ${ZSWB_VM_TIMEOUT:-$t} * ${ZSWB_VM_TIMEOUT_SCALE:-1} ))
}

# vm_group GROUP [ARG...]: the group's tests in one VM boot
# (selftests/zswap_wb/run_group.sh), their KTAP; the VM as its settings say.
vm_group() {
	# One log per group and argument: the prompt groups run side by side.
	local log=$out/vm-$(echo "$*" | tr ' ' '-').log envs smp mem
	# The workload sizes (ZSWB_TEST_*) go to the guest's environment.
	envs=$(env | grep -E '^ZSWB_TEST_[A-Z_]+=[0-9A-Za-z]+$' | tr '\n' ' ')
	smp=$(setting "$1" smp) mem=$(setting "$1" mem)
	bash tools/vm/run.sh --timeout "$(vm_timeout "$1")" --mem "${mem:-2048}" --smp "${smp:-2}" \
		--append "$(setting "$1" append)" --cmd "$envs/selftests/run_group.sh $*" > "$log" 2>&1
	local rc=$?
	# The guest's KTAP, then whatever the runner said about the kernel.
	grep -E "^(TAP version|1\.\.|ok |not ok |# |Bail out)" "$log"
	# 1: a test failed, and said so above. Anything else is the kernel or
	# the VM (99 splat, 98 no status, 124 timeout): that fails the group
	# even if every test passed.
	if [ $rc != 0 ] && [ $rc != 1 ]; then
		echo "# vm run failed ($rc); console tail:"
		grep -Ev "^(TAP version|1\.\.|ok |not ok )" "$log" | tail -25 | sed 's/^/# /'
		# And the kernel's first problem whole, trace and all.
		bash tools/vm/console_check.sh --report "$log" "$ZSWB_SRC/kernel/jump_label.c" |
			sed 's/^/# first problem: /'
		echo "not ok 99 kernel and VM ran clean"
	fi
}
# The VM suites' times as last measured on this machine, per kernel
# flavour (tools/lib/lanes.sh): the lanes below take the longest first; a
# suite never measured counts as its timeout.
TIMES=$ZSWB_CACHE/check-seconds-${ZSWB_FLAVOUR:-test}

# run_suite SUITE: run it into $out/SUITE.tap (.err, .secs).
run_suite() {
	local start=$(date +%s)
	(KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
	 case $1 in vm-*) vm_group ${VM_GROUP[$1]} ;; *) bash "selftests/host/$1.sh" ;; esac) \
		> "$out/$1.tap" 2> "$out/$1.err"
	echo $(( $(date +%s) - start )) > "$out/$1.secs"
}

# times_save SUITE...: their times of this run into $TIMES, failed or
# not: a suite that failed held its lane as long (one that hung, until
# its timeout); with none, $TIMES is left as it is.
times_save() {
	local s
	for s in "$@"; do
		[ -f "$out/$s.secs" ] && echo "$s $(cat "$out/$s.secs")"
	done | lanes_save "$TIMES"
}

# report_suite SUITE: print its KTAP as a subtest and count its leaves.
report_suite() {
	local s=$1 p a f
	sed 's/^/    /' "$out/$s.tap"
	p=$(grep -cE "^ok [0-9]+ .*# SKIP" "$out/$s.tap")
	a=$(grep -cE "^ok [0-9]+" "$out/$s.tap")
	f=$(grep -cE "^not ok [0-9]+" "$out/$s.tap")
	skip=$((skip + p)) pass=$((pass + a - p)) fail=$((fail + f))
	ktap_print_msg "$s: $(cat "$out/$s.secs") s"
	if [ "$f" = 0 ] && [ "$a" -gt 0 ]; then
		ktap_test_pass "$s"
	else
		[ "$a" = 0 ] && [ "$f" = 0 ] && { fail=$((fail + 1)); sed 's/^/# /' "$out/$s.err" | tail -20; }
		ktap_test_fail "$s"
	fi
}

# vm_lane N SUITE: run it in lane N (lanes_run), saying so as it starts
# and ends.
vm_lane() {
	echo "# lane $1: $2"
	run_suite "$2"
	echo "# lane $1: $2 done in $(cat "$out/$2.secs") s"
}

# ZSWB_CHECK_JOBS: how many VM suites run at once, each in its own VM (one
# per host core: the default is the host's cores, at most 2). Each VM
# suite compares its variants inside its own boot, so another VM's load
# falls on both sides of a comparison. 1: one after the other.
jobs=${ZSWB_CHECK_JOBS:-$(nproc)}
case "$jobs" in
''|*[!0-9]*|0) zswb_die "ZSWB_CHECK_JOBS must be a positive number, not '$jobs'" ;;
esac
[ "$jobs" -le 2 ] || jobs=2
for v in ZSWB_VM_TIMEOUT ZSWB_VM_TIMEOUT_SCALE; do
	case "${!v-1}" in
	''|*[!0-9]*|0) zswb_die "$v must be a positive number, not '${!v}'" ;;
	esac
done

for s in $suites; do
	if [ -z "${VM_GROUP[$s]:-}" ] && [ ! -f "selftests/host/$s.sh" ] || [ "$s" = lib ]; then
		echo "run.sh: unknown suite '$s' (suites: $ALL, or vm for every VM suite)" >&2
		exit 64
	fi
done
host="" vm=""
for s in $suites; do
	case $s in vm-*) vm="$vm $s" ;; *) host="$host $s" ;; esac
done

. "$ZSWB_TOP/selftests/ktap.sh"
pass=0 fail=0 skip=0
ktap_print_header
ktap_set_plan "$(echo $suites | wc -w)"
# The host suites first, one after the other (they build: both cores).
for s in $host; do
	run_suite "$s"
	report_suite "$s"
done
if [ "$jobs" -gt 1 ] && [ "$(echo $vm | wc -w)" -gt 1 ]; then
	# Longest first, each to the first lane that is free; printed in order.
	mkdir "$out/lanes"
	for s in $vm; do
		echo "$s $(vm_timeout ${VM_GROUP[$s]})"
	done | lanes_order "$TIMES" | cut -d' ' -f2 > "$out/lanes/queue"
	ktap_print_msg "VM suites in $jobs lanes:$vm"
	lanes_run "$jobs" "$out/lanes" vm_lane 2>&1 | sed -u 's/^\([^#]\)/# \1/'
	for s in $vm; do
		report_suite "$s"
	done
else
	for s in $vm; do
		run_suite "$s"
		report_suite "$s"
	done
fi
times_save $vm
# Counted over every leaf test of every suite, not over the suites.
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
