#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS package of the module: build, install, a stock kernel beside it. KTAP on stdout: selftests/dkms_test.sh.
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/dkms_test.sh
