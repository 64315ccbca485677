#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: memory.zswap.max: per_node writes back more in fewer calls than stock
#
# A memcg over its memory.zswap.max (the store path shrinks): per_node
# writes back more than stock in fewer shrink_memcg() calls.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/shrink.lib"

need_module || exit 1
shrink_against_stock zswap_max per_node
