#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion, and the text fitted to the terminal's width. KTAP on stdout: selftests/zswbctl/completion_test.sh.
# zswbctl fits its text to COLUMNS: compared as a pipe reads it.
unset COLUMNS
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/zswbctl/completion_test.sh
