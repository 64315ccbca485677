#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: writes through get_user_pages() on queued folios are not write errors
#
# A write through /proc/self/mem (get_user_pages(), which dirties the
# folio as it unpins it) on folios that wait to be freed: such a folio
# comes back to the free dirty and in the swap cache, as a failed write
# does, but mapped (or, once its task unmapped it, anon). It is the
# swapin's, not a failed write: write_errors must stay 0. The writes
# come from 16 threads at once (swapinrace.c), whose first ones meet
# queued folios and wait for the free: fewer of them get as far as a
# queued folio than with write faults, as get_user_pages() waits for the
# folio lock holding mmap_lock, and the creation of the next thread (its
# stack's mmap) and the other threads' faults wait for that.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

need_module || exit 1
swapin_window async procmem || exit 1
check "data intact" "[ $sw_rc -eq 0 ]" &&
check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
check "the first writes met queued folios: waited 1 s or more, one or more raced" \
	"[ $sw_wait -ge 1000 ] && [ $sw_raced -ge 1 ]" &&
check "no write error counted (no write failed)" "[ $sw_werr -eq 0 ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
