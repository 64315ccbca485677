#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab on fake runs: options, schedule, report, CSV and JSON. KTAP on stdout: selftests/zswbctl/ab_test.sh.
# zswbctl fits its text to COLUMNS: compared as a pipe reads it.
unset COLUMNS
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/zswbctl/ab_test.sh
