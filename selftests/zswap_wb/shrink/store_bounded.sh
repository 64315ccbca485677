#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: memory.zswap.max, shrink_batch=1024: a store scans at most 32 per node
#
# memory.zswap.max with shrink_batch=1024: the store path, which writes
# back in the storing task, scans at most 32 entries per node per call.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/shrink.lib"

need_module || exit 1
shrink_setup zswap_max || exit 1
set_param shrink_policy per_node && set_param shrink_batch 1024 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
shrink_load 10 || { shrink_teardown; exit 1; }
scanned=$(( $(wbstat shrink_scanned_node0) + $(wbstat shrink_scanned_node1) ))
st=$(wbstat shrink_calls_store) wk=$(wbstat shrink_calls_worker)
msg "per_node, batch 1024: $st store calls scanned $scanned entries, wrote back $(written_nodes); worker calls $wk"
shrink_teardown
check "stores shrank" "[ $st -gt 100 ]" &&
check "only the store path shrank" "[ $wk -eq 0 ]" &&
check "at most 32 entries per node per store call" "[ $scanned -le $((st * 64)) ]"
