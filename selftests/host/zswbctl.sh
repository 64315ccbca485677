#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl against a fake module tree: its commands, options and outputs. KTAP on stdout: selftests/zswbctl/test.sh.
# zswbctl fits its text to COLUMNS: compared as a pipe reads it.
unset COLUMNS
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/zswbctl/test.sh
