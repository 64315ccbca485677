#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's host tests: builds zswbctl once, then runs each section of
# this directory, every *.sh but this runner, lib.sh and the other suites'
# *_test.sh, in the order of their names; adding a section is adding a
# script. Each section declares its tests with "plan N" and prints their
# KTAP itself, numbered on from the last one's, under one plan for all
# (so run.sh counts every test); a section that fails, or ends before
# its plan, is a failure here. Exits 0 only if every test passed.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
here=$top/selftests/zswbctl
sections=$(for s in "$here"/*.sh; do
	case ${s##*/} in test.sh | lib.sh | *_test.sh) ;; *) echo "$s" ;; esac
done | LC_ALL=C sort)
# The plan: the build's two tests and each section's "plan N".
ktap_print_header
n=2
for s in $sections; do
	k=$(sed -n 's/^plan \([0-9][0-9]*\)$/\1/p' "$s")
	[ -n "$k" ] || ktap_exit_fail_msg "${s##*/} has no plan line"
	n=$((n + k))
done
ktap_set_plan "$n"

make -s -C "$tool" >"$tmp/build" 2>&1
rc=$? out='' err=$(<"$tmp/build")
result "build" $rc
[ "$rc" = 0 ] || ktap_exit_fail_msg "zswbctl does not build"
if command -v readelf >/dev/null && [ -n "${STATIC+set}" ] && [ -z "$STATIC" ]; then
	readelf -l "$bin" | grep -q INTERP
	result "binary is dynamic, as STATIC= asks (the package's build)" $?
elif command -v readelf >/dev/null; then
	! readelf -l "$bin" | grep -q INTERP
	result "binary is static" $?
else
	skip "binary is static" "no readelf"
fi

for s in $sections; do
	name=${s##*/}
	planned=$(sed -n 's/^plan \([0-9][0-9]*\)$/\1/p' "$s")
	ZSWBCTL_TESTNO=$KTAP_TESTNO bash "$s" | tee "$tmp/section.tap"
	status=${PIPESTATUS[0]}
	passed=$(grep -cE '^ok [0-9]+ ' "$tmp/section.tap")
	skipped=$(grep -cE '^ok [0-9]+ .*# SKIP' "$tmp/section.tap")
	failed=$(grep -cE '^not ok [0-9]+ ' "$tmp/section.tap")
	KTAP_TESTNO=$((KTAP_TESTNO + passed + failed))
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + passed - skipped))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + skipped))
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + failed))
	# A section that stopped early or failed without saying which test.
	if [ $((passed + failed)) != "$planned" ] || { [ "$status" != 0 ] && [ "$failed" = 0 ]; }; then
		ktap_test_fail "$name: $((passed + failed)) of its $planned tests ran, exit status $status"
	fi
done
ktap_counts
[ "$KTAP_CNT_FAIL" = 0 ] && [ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) = "$KSFT_NUM_TESTS" ]
