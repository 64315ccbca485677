#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: async_free with failing swap writes: no data lost, no dirty folio freed
#
# fail_make_request on the swap disk while the data is first swapped out;
# then no failures and every page must read back intact. A failed write
# re-dirties its folio, which must be put back, never freed.
# fail_make_request fails reads too, and a failed swap read is a SIGBUS
# (as on stock): thrash --lock-rest keeps its own stack, heap and libc
# pages in memory, so that nothing is read from swap until the failures
# are off and only writes can fail.
. "$(dirname "$0")/../lib.sh"

fi=/sys/kernel/debug/fail_make_request
[ -d $fi ] || { msg "no fail_make_request"; exit 4; }
need_module || exit 1
zswap_on
swap_on disk || exit 1
set_param async_free 1 || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
echo 5 > $fi/probability
echo 1 > $fi/interval
echo -1 > $fi/times
echo 0 > $fi/verbose
echo 1 > /sys/block/vda/make-it-fail
cg_new werr "$CG_MAX"
cg_run werr thrash --size "$SIZE" --passes 0 --hold 5 --lock-rest > /tmp/thrash.out 2>&1 &
pid=$!
# A thrash that failed is reported below (its status).
wait_filled /tmp/thrash.out $pid
echo 0 > /sys/block/vda/make-it-fail
wait $pid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
cg_del werr
set_param async_free 0
swap_off
msg_stats
freed=$(wb_freed)
check "failed writes were seen and put back" "[ $(wbstat write_errors) -gt 0 ]" &&
check "checksums hold: no data lost" "[ $trc -eq 0 ]" &&
check "every folio freed, raced or put back after an error" \
	"[ $((freed + $(wbstat raced) + $(wbstat write_errors))) -eq $(wbstat written_back) ]"
