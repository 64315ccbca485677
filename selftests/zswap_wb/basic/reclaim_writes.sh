#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: async_free beside reclaim's own swap writes (disk)
#
# Both kinds of swap-cache writeback at once: reclaim writes the pages that
# zswap rejects (every 4th page does not compress; memory.zswap.max) with
# PG_reclaim, while zswap writes back through async_free. Only zswap's are
# freed by the backend.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
zswap_on
swap_on disk || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new mixed "$CG_MAX"
echo 24M > $CG_ROOT/mixed/memory.zswap.max
snap a
# Every 4th page does not compress: zswap rejects it, reclaim writes it.
run_thrash mixed --size "$SIZE" --passes "$PASSES" --incompressible 4
trc=$?
snap b
cg_del mixed
set_param async_free 0
swap_off
direct=$(( $(delta pswpout) - $(delta zswpwb) ))
msg "zswpwb $(delta zswpwb) pswpout $(delta pswpout) reclaim-written $direct pgrotated $(delta pgrotated)"
msg_stats
freed=$(wb_freed)
check "checksums hold" "[ $trc -eq 0 ]" &&
check "reclaim wrote pages itself" "[ $direct -gt 1000 ]" &&
check "zswap wrote back too" "[ $(delta zswpwb) -gt 1000 ]" &&
check "the backend freed only zswap's folios" "[ $((freed + $(wbstat raced))) -eq $(delta zswpwb) ]"
