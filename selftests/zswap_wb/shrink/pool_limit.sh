#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: max_pool_percent=1: per_node writes back more in fewer calls than stock
#
# The pool over max_pool_percent=1, 32 idle memcgs for shrink_worker() to
# walk as on a host: per_node, which takes a batch from each node per
# call, writes back more than stock in fewer shrink_memcg() calls.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/shrink.lib"

need_module || exit 1
shrink_against_stock pool per_node
