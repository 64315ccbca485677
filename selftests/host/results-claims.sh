#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The published figures against their CSVs: every change with its 95%
# interval in a table of Documentation/results.rst, and README.md's
# headline, is one that zswbctl ab --from-csv prints on a CSV of
# bench-results/ that the text before it names
# (selftests/host/results_claims.py). KTAP on stdout.
. "$(dirname "$0")/lib.sh"

if ! make -s -C tools/zswbctl zswbctl >"$out/build" 2>&1; then
	ktap_print_header
	ktap_set_plan 1
	sed 's/^/# /' "$out/build"
	ktap_test_fail "zswbctl builds"
	exit 1
fi
exec /usr/bin/python3 selftests/host/results_claims.py tools/zswbctl/zswbctl
