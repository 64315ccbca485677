#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kbuild and dkms refuse a 32-bit kernel, without building one. KTAP on stdout: selftests/arch_test.sh.
cd "$(dirname "$0")/../.." || exit 1
exec bash selftests/arch_test.sh
