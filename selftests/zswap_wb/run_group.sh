#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The zswap_wb selftests' runner, inside the test VM; prints KTAP.
#
#   run_group.sh GROUP [ARG...]       every test of GROUP
#   run_group.sh GROUP/NAME.sh [ARG...]  that test alone
#
# A group is a directory: its tests are its Makefile's TEST_PROGS (as in
# the kernel's selftests; lib.mk), run in that order, each as its own
# process with the group's arguments (prompt's swap kind) as "$@"; adding
# a test is adding its script and its TEST_PROGS line. A *.sh of the
# group that TEST_PROGS leaves out, or a TEST_PROGS with no script, fails
# the group before any test runs. A test exits 0 (pass),
# 4 (skip, KSFT_SKIP) or anything else (fail), explains itself on "#"
# lines, and undoes what it set up on any exit (lib.sh's trap). Its KTAP
# description is its "# DESC: " line, where "$1" stands for the group's
# first argument. Beside the tests, the group's "config" (the kernel
# options it needs beyond those of ./config, which every group and the host
# load need; both checked here against the running kernel's) and
# "settings" (timeout= and the VM it needs, which selftests/run.sh reads:
# a directory with one is a group of make check, found there).
#
# Beside the tests runs the host load (hostload.sh), started before the
# first and stopped after the last, which is one more test: it passes if
# every part of the load ran. ZSWB_TEST_HOSTLOAD=0 leaves it out.

cd "$(dirname "$0")" || exit 1
. ./ktap_helpers.sh
. ./lib.sh
. ./progs.sh

# desc TEST ARG...: the test's DESC line, "$1" replaced by the first ARG.
desc() {
	local t=$1 d
	shift
	d=$(sed -n 's/^# DESC: //p' "$t" | head -1)
	[ -n "$d" ] || d=${t%.sh}
	printf '%s\n' "$d" | awk -v a="${1:-}" '{ gsub(/\$1/, a); print }'
}

# kconfig: the running kernel's config, from /proc/config.gz or, without
# it, the copy of the build's .config that mkinitramfs.sh packed.
kconfig() {
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz
	elif [ -r /etc/zswb-kernel.config ]; then
		cat /etc/zswb-kernel.config
	fi
}

# result DESC STATUS: DESC's KTAP line for a test's exit status.
result() {
	case $2 in
	0) ktap_test_pass "$1" ;;
	4) ktap_test_skip "$1" ;;
	*) ktap_test_fail "$1" ;;
	esac
}

# check_config FRAGMENT...: every option of each fragment set in the
# running kernel as the fragment asks (y is met by m, the module being in
# the initramfs). A missing option fails the group: a kernel built without
# what a test needs is a broken build, which a group of skips would hide.
check_config() {
	local cfg missing="" f opt want have
	cfg=$(kconfig)
	[ -n "$cfg" ] || { ktap_print_msg "no kernel config to check $* against"; return 0; }
	for f in "$@"; do
		[ -f "$f" ] || continue
		while IFS='=' read -r opt want; do
			case "$opt" in CONFIG_*) ;; *) continue ;; esac
			have=$(printf '%s\n' "$cfg" | sed -n "s/^$opt=//p")
			[ "$have" = "$want" ] || { [ "$want" = y ] && [ "$have" = m ]; } ||
				missing="$missing $opt=$want (${have:-not set})"
		done < "$f"
	done
	[ -z "$missing" ] && return 0
	ktap_print_msg "the kernel lacks$missing"
	return 1
}

target=${1:?usage: run_group.sh GROUP [ARG...] or GROUP/NAME.sh [ARG...]}
shift
case "$target" in
*.sh)	group=$(dirname "$target") ;;
*)	group=$target ;;
esac
ktap_print_header
[ -f "$group/Makefile" ] || ktap_exit_fail_msg "no group '$group' (a directory with a Makefile)"
check_progs "$group" || ktap_exit_fail_msg "$group: its Makefile's TEST_PROGS and its scripts differ"
case "$target" in
*.sh)	test_progs "$group" | grep -qx "${target##*/}" ||
		ktap_exit_fail_msg "no test '$target' (the tests of $group: $(test_progs "$group" | tr '\n' ' '))"
	tests=$target ;;
*)	tests=$(test_progs "$group" | sed "s|^|$group/|") ;;
esac
[ -n "$tests" ] || ktap_exit_fail_msg "$group: no TEST_PROGS in its Makefile"
check_config config "$group/config" || ktap_exit_fail_msg "$group: the kernel lacks options of config or $group/config"

n=$(echo $tests | wc -w)
if hostload_enabled; then
	ktap_set_plan $((n + 1))
	hostload_start
else
	ktap_set_plan "$n"
fi
for t in $tests; do
	d=$(desc "$t" "$@")
	uptime_now
	t0=$UPTIME_NOW
	"./$t" "$@"
	trc=$?
	# Where a group's time goes: each test's, as the guest's clock saw it.
	uptime_now
	ktap_print_msg "$t took $((UPTIME_NOW - t0)) s"
	result "$d" $trc
done
# The last test: the host load ran beside every test of the group.
if hostload_enabled; then
	hostload_stop
	result "host load beside the group: page walkers, compaction, THP, DAMON, a tenant" $?
fi
ktap_finished
