#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl fleet's unpaired arithmetic (rank-sum): published tables, its
# definitions, and its calibration with a fixed seed. KTAP on stdout.
. "$(dirname "$0")/lib.sh"

c_test ab_ranksum_test selftests/zswbctl/ab_ranksum_fixtures.txt
