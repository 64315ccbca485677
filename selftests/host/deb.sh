#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages: their build, contents and lintian. KTAP on stdout: selftests/deb_test.sh.
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/deb_test.sh
