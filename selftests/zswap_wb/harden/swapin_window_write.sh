#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: write faults on queued folios free their swap slots as stock
#
# A write fault on a folio whose write ended and that waits to be freed:
# on stock it frees the folio's swap slot (should_try_to_free_swap()), and
# a later fork and write reuse the page; they must with async_free too,
# although the queued folio holds one more reference: the swapin waits
# for the folio lock, which zswap_wb holds until it frees the folio or
# puts it back. Measured against stock on the same region: swap slots and
# swap cache left behind (write), pages copied by a fork and a second
# write (writefork). The work item is held back (zswb_holdfree) so that
# the swapin runs while thousands of folios are queued.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
swapin_window stock write || exit 1
s_left=$sw_left s_cached=$sw_cached
check "stock: data intact" "[ $sw_rc -eq 0 ]" || exit 1
swapin_window async write || exit 1
msg "swap left: stock $s_left, async_free $sw_left pages; swap cache: stock $s_cached, async_free $sw_cached"
check "async_free: data intact" "[ $sw_rc -eq 0 ]" &&
check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
check "swap slots left as stock (within 256 pages, 1/16 of the region)" "[ $sw_left -le $((s_left + 256)) ]" &&
check "swap cache left as stock (within 256 pages)" "[ $sw_cached -le $((s_cached + 256)) ]" || exit 1
swapin_window stock writefork || exit 1
s_copied=$sw_copied
check "stock: data intact after the fork" "[ $sw_rc -eq 0 ]" || exit 1
swapin_window async writefork || exit 1
msg "copied after a fork: stock $s_copied, async_free $sw_copied pages"
check "async_free: data intact after the fork" "[ $sw_rc -eq 0 ]" &&
check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
check "no more pages copied after a fork than stock" "[ $sw_copied -le $s_copied ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
