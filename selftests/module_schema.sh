#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the debugfs "schema" that the module's sources describe, without a
# loaded module: selftests/zswap_wb/modschema.c, built for the host from
# the rows of module/zswap_wb_stats.h and module/zswap_wb_params.h.
#
#   selftests/module_schema.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -Werror -o "$tmp/modschema" "$top/selftests/zswap_wb/modschema.c"
"$tmp/modschema"
