#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab's arithmetic against published tables and its definitions. KTAP on stdout.
. "$(dirname "$0")/lib.sh"

c_test ab_stat_test selftests/zswbctl/ab_signrank_fixtures.txt
