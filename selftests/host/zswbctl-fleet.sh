#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl fleet against a real Prometheus, on a backfilled synthetic fleet. KTAP on stdout: selftests/zswbctl/fleet_test.sh.
# zswbctl fits its text to COLUMNS: compared as a pipe reads it.
unset COLUMNS
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/zswbctl/fleet_test.sh
