#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: policies off: stock writeback and rotation (disk)
#
# With every policy off the module changes nothing: zswap writes back and
# the written-back folios rotate as on stock, and the backend counts no
# writeback.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
for p in $(ls $ZSWB_PARAMS); do
	case "$(cat $ZSWB_PARAMS/$p)" in Y) msg "$p is on"; exit 1 ;; esac
done
zswap_on
swap_on disk || exit 1
cg_new stock "$CG_MAX"
snap a
run_thrash stock --size "$SIZE" --passes "$PASSES" || { swap_off; exit 1; }
snap b
cg_del stock
swap_off
msg "zswpwb $(delta zswpwb) pgrotated $(delta pgrotated) pswpout $(delta pswpout)"
msg_stats
check "zswap wrote back" "[ $(delta zswpwb) -gt 0 ]" &&
check "written-back folios rotated, as stock" "[ $(delta pgrotated) -gt 0 ]" &&
check "the backend saw nothing" "[ $(wbstat written_back) -eq 0 ]"
