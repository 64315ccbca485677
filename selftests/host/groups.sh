#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite groups (selftests/run.sh groups); KTAP on stdout. Each VM
# group of selftests/zswap_wb (a directory with a settings file) lists its
# tests in a kselftest Makefile; run_group.sh reads that list in the test
# VM with busybox awk (progs.sh), where a mistake shows only minutes into
# make check. Here, in seconds: per group, the list as make reads it
# (emit_tests) is the list progs.sh reads, under busybox awk, and the
# group's scripts are exactly that list. Then progs.sh against made-up
# Makefiles whose mistakes it must report.
. "$(dirname "$0")/lib.sh"
zswb_need busybox-static

bb=$out/bb
mkdir -p "$bb"
for a in awk sed tr; do
	ln -s "$(command -v busybox)" "$bb/$a"
done

# guest_progs DIR GROUP: GROUP's TEST_PROGS as run_group.sh reads them in
# the guest (busybox sh and awk), one a line; or its complaints, status 1.
guest_progs() {
	(cd "$1" && PATH=$bb:$PATH busybox sh -c '. ./progs.sh; check_progs "$1" && test_progs "$1"' sh "$2")
}

groups=$(for f in selftests/zswap_wb/*/settings; do basename "$(dirname "$f")"; done)
ktap_print_header
ktap_set_plan $(( $(echo $groups | wc -w) + 4 ))
for g in $groups; do
	d=selftests/zswap_wb/$g
	if [ ! -f "$d/Makefile" ]; then
		ktap_test_fail "$g: has a kselftest Makefile"
		continue
	fi
	want=$(make -s -C "$d" emit_tests 2>&1 | sed "s/^$g://")
	got=$(guest_progs selftests/zswap_wb "$g" 2>&1)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ktap_test_pass "$g: its scripts are its Makefile's TEST_PROGS, $(echo $want | wc -w) read alike by make and by the guest"
	else
		ktap_print_msg "make: $(echo $want)"
		ktap_print_msg "guest: $(echo $got)"
		ktap_test_fail "$g: its scripts are its Makefile's TEST_PROGS, read alike by make and by the guest"
	fi
done

# A made-up group: scripts a.sh to e.sh, each case a Makefile for them.
t=$out/groups
mkdir -p "$t/g"
cp selftests/zswap_wb/progs.sh selftests/zswap_wb/lib.mk "$t/"
for s in a b c d e; do
	printf '#!/bin/sh\n' > "$t/g/$s.sh"
	chmod +x "$t/g/$s.sh"
done
# mk_case "LINE..." : the group's Makefile from those lines.
mk_case() {
	printf '%s\n' "$@" 'include ../lib.mk' > "$t/g/Makefile"
}

mk_case 'TEST_PROGS += x.sh' 'TEST_PROGS := e.sh \' '	d.sh # two of them' \
	'# TEST_PROGS += z.sh' 'TEST_PROGS += c.sh b.sh a.sh # the rest' 'TEST_FILES := settings'
want=$(make -s -C "$t/g" emit_tests | sed 's/^g://')
got=$(guest_progs "$t" g)
[ "$want" = "$(printf '%s\n' e.sh d.sh c.sh b.sh a.sh)" ] && [ "$got" = "$want" ] &&
	ktap_test_pass "progs.sh reads := as a new list, += in order, continued lines and comments as make does" ||
	{ ktap_print_msg "make: $(echo $want); guest: $(echo $got)"
	  ktap_test_fail "progs.sh reads := as a new list, += in order, continued lines and comments as make does"; }

mk_case 'TEST_PROGS := a.sh b.sh c.sh d.sh'
got=$(guest_progs "$t" g)
[ $? != 0 ] && echo "$got" | grep -q "g/e.sh is not in g/Makefile's TEST_PROGS" &&
	ktap_test_pass "a script that TEST_PROGS leaves out is reported" ||
	{ ktap_print_msg "$got"; ktap_test_fail "a script that TEST_PROGS leaves out is reported"; }

mk_case 'TEST_PROGS := a.sh b.sh c.sh d.sh e.sh f.sh'
got=$(guest_progs "$t" g)
[ $? != 0 ] && echo "$got" | grep -q "TEST_PROGS f.sh is not an executable script of g" &&
	ktap_test_pass "a TEST_PROGS with no script is reported" ||
	{ ktap_print_msg "$got"; ktap_test_fail "a TEST_PROGS with no script is reported"; }

chmod -x "$t/g/c.sh"
mk_case 'TEST_PROGS := a.sh b.sh c.sh d.sh e.sh'
got=$(guest_progs "$t" g)
[ $? != 0 ] && echo "$got" | grep -q "TEST_PROGS c.sh is not an executable script of g" &&
	ktap_test_pass "a TEST_PROGS that is not executable is reported" ||
	{ ktap_print_msg "$got"; ktap_test_fail "a TEST_PROGS that is not executable is reported"; }
ktap_finished
