#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every zswbctl command's --help, bad usage, --json errors, --version. KTAP on stdout: selftests/zswbctl/help_test.sh.
# zswbctl fits its text to COLUMNS: compared as a pipe reads it.
unset COLUMNS
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/zswbctl/help_test.sh
