#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: write faults on queued folios free their swap slots as stock
#
# A write fault on a folio whose write ended and that waits to be freed:
# on stock it frees the folio's swap slot (should_try_to_free_swap()), and
# a later fork and write reuse the page; they must with async_free too,
# although the queued folio holds one more reference: the swapin waits
# for the folio lock, which zswap_wb holds until it frees the folio or
# puts it back. The work item is held back (zswb_holdfree) while 16
# threads write-fault the region at once, each from the first page of a
# slice of its own: those first faults meet queued folios, wait for the
# free (3 s) and get their folio back (raced); the rest of the region
# was freed meanwhile and is read back from the device. Measured against
# stock on the same region: the first pages left in the swap cache after
# their write fault, and copied by a fork and a second write (writefork);
# the swap slots and swap cache left in all. Copies of the rest are only
# reported: a page read back from the device may still be in another
# CPU's LRU batch, whose reference makes do_wp_page() copy it, on stock
# as after any free. A page migrated changes its frame as a copy does
# (the host load's compaction migrates them): the load's compaction is
# held off for the writefork runs, and a run whose fork window still saw a
# page migrated in the system (pgmigrate_success) is run again, up to 4
# times.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

need_module || exit 1
swapin_window stock write || exit 1
s_left=$sw_left s_cached=$sw_cached s_first_cached=$sw_first_cached
check "stock: data intact" "[ $sw_rc -eq 0 ]" || exit 1
swapin_window async write || exit 1
msg "swap left: stock $s_left, async_free $sw_left pages; swap cache: stock $s_cached, async_free $sw_cached"
msg "first faults: waited up to $sw_wait ms, raced $sw_raced; first pages in the swap cache after the write: stock $s_first_cached, async_free $sw_first_cached of 16"
check "async_free: data intact" "[ $sw_rc -eq 0 ]" &&
check "the whole region queued when the swapin began (15/16 of it or more)" "[ $sw_queued -ge 3840 ]" &&
check "first pages left in the swap cache as stock" \
	"[ $sw_first_cached -ge 0 ] && [ $sw_first_cached -le $s_first_cached ]" &&
check "swap slots left as stock (within 256 pages, 1/16 of the region)" "[ $sw_left -le $((s_left + 256)) ]" &&
check "swap cache left as stock (within 256 pages)" "[ $sw_cached -le $((s_cached + 256)) ]" &&
check "the first faults met queued folios: waited 1 s or more, 8 or more raced" \
	"[ $sw_wait -ge 1000 ] && [ $sw_raced -ge 8 ]" || exit 1
# fork_window POLICY: swapin_window POLICY writefork, again while a page
# migration fell in its fork window, 4 runs at most; the runs in fw_runs.
fork_window() {
	fw_runs=0
	while [ $fw_runs -lt 4 ]; do
		fw_runs=$((fw_runs + 1))
		swapin_window "$1" writefork || return 1
		[ "$sw_fork_migrated" -eq 0 ] && return 0
		msg "$1/writefork: $sw_fork_migrated pages migrated in the fork window"
	done
}

fork_window stock || exit 1
s_copied=$sw_copied s_first_copied=$sw_first_copied s_runs=$fw_runs
check "stock: data intact after the fork" "[ $sw_rc -eq 0 ]" &&
check "stock: a fork window without a page migration (4 runs at most)" "[ $sw_fork_migrated -eq 0 ]" || exit 1
fork_window async || exit 1
msg "copied after a fork: stock $s_copied, async_free $sw_copied pages; of the first pages: stock $s_first_copied, async_free $sw_first_copied (runs: stock $s_runs, async_free $fw_runs)"
check "async_free: data intact after the fork" "[ $sw_rc -eq 0 ]" &&
check "async_free: a fork window without a page migration (4 runs at most)" "[ $sw_fork_migrated -eq 0 ]" &&
check "the whole region queued when the swapin began (15/16 of it or more)" "[ $sw_queued -ge 3840 ]" &&
check "the first faults met queued folios (8 or more raced)" "[ $sw_raced -ge 8 ]" &&
check "no more first pages copied after a fork than stock" \
	"[ $sw_first_copied -ge 0 ] && [ $sw_first_copied -le $s_first_copied ]" &&
check "every folio written back was freed or put back" \
	"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
