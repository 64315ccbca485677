#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: writes through get_user_pages() on queued folios are not write errors
#
# A write through /proc/self/mem (get_user_pages(), which dirties the
# folio as it unpins it) on folios that wait to be freed: such a folio
# comes back to the free dirty and in the swap cache, as a failed write
# does, but mapped (or, once its task unmapped it, anon). It is the
# swapin's, not a failed write: write_errors must stay 0.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
swapin_window async procmem || exit 1
check "data intact" "[ $sw_rc -eq 0 ]" &&
check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
check "no write error counted (no write failed)" "[ $sw_werr -eq 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
