#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab's verdicts on synthetic runs: false positives, power, coverage. KTAP on stdout.
. "$(dirname "$0")/lib.sh"

make -s -C tools/zswbctl >"$out/calibrate-make.log" 2>&1 ||
	sed 's/^/# /' "$out/calibrate-make.log"
c_test ab_calibrate tools/zswbctl/zswbctl "$out"
