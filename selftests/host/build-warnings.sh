#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite build-warnings (selftests/run.sh build-warnings); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# W=1 and sparse (C=2) over the module sources: any warning fails.
suite_build_warnings() {
	ktap_print_header
	ktap_set_plan 2
	# Only module/: a clean of the whole tree also deletes the test modules.
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP/module" clean >/dev/null 2>&1
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP" W=1 modules > "$out/w1.log" 2>&1
	if [ $? = 0 ] && ! grep -q "warning:" "$out/w1.log"; then
		ktap_test_pass "module builds with W=1, no warning"
	else
		sed 's/^/# /' "$out/w1.log"; ktap_test_fail "module builds with W=1, no warning"
	fi
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP" C=2 modules > "$out/sparse.log" 2>&1
	if [ $? = 0 ] && ! grep -q "warning:\|error:" "$out/sparse.log"; then
		ktap_test_pass "module passes sparse (C=2), no warning"
	else
		sed 's/^/# /' "$out/sparse.log"; ktap_test_fail "module passes sparse (C=2), no warning"
	fi
}

suite_build_warnings
