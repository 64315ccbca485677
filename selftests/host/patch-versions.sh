#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hook series against the Debian kernels it is for, and its size. KTAP on stdout: tools/kernel/check-versions.sh.
cd "$(dirname "$0")/../.." || exit 1
exec bash tools/kernel/check-versions.sh 2>/dev/null
