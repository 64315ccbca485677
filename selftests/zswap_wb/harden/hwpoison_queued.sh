#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a poisoned page of a queued folio leaves the swap cache and is read again, as on stock
#
# memory_failure() handles only pages on the LRU (HWPoisonHandlable()):
# a written-back folio that stock keeps on the LRU, clean in the swap
# cache, it drops from the swap cache, and a later fault reads the page
# again from the device. A folio async_free holds queued is off the LRU:
# memory_failure() marks it poisoned and gives up ("unhandlable page"),
# and a fault that finds a poisoned page in the swap cache gets
# VM_FAULT_HWPOISON, a SIGBUS for a page whose good copy is on disk.
# Here 16 MiB are pushed to zswap and written back while a suspended
# device-mapper device holds the writes, first with async_free off
# (stock: the folios stay on the LRU in the swap cache once the device is
# let go), then with it on and the work item held by zswb_holdfree, so
# that the folios stay queued. Each time every such page, found through
# /proc/kpageflags, is poisoned through the injector
# (/sys/kernel/debug/hwpoison/corrupt-pfn), and the region's owner writes
# every page of it (swapinrace, whose threads start each at a page of
# their own: a SIGBUS kills it): no poisoned page may be left in the swap
# cache, and the owner must finish with every word as it wrote it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

CORRUPT=/sys/kernel/debug/hwpoison/corrupt-pfn

need_module || exit 1
[ -e $CORRUPT ] || modprobe hwpoison_inject 2>/dev/null
[ -e $CORRUPT ] || { msg "no hardware poison injector (CONFIG_HWPOISON_INJECT)"; exit 4; }
dm=$(dmctl create zswbhp /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
printk=$(cut -f1 /proc/sys/kernel/printk)
# Every page poisoned is unpoisoned on exit (the injector's pages are
# software-poisoned, and unpoison-pfn takes them back): a block with a
# poisoned page never comes online again after an offline, which the
# tests after this one do.
UNPOISON=/sys/kernel/debug/hwpoison/unpoison-pfn
: > /tmp/hp_all
test_cleanup_own() {
	local p n=0 left=0
	echo 1 > /proc/sys/kernel/printk
	for p in $(cat /tmp/hp_all); do
		echo "$p" > $UNPOISON 2>/dev/null && n=$((n + 1))
	done
	left=$(pfnfind - hwpoison - | wc -l)
	msg "unpoisoned $n of $(wc -l < /tmp/hp_all) pages; $left poisoned pages left"
	echo "$printk" > /proc/sys/kernel/printk
}

# poison CG SET CLEAR: poison every page of memcg CG whose flags have SET
# and none of CLEAR (pfnfind): the owner's first touches, one per thread,
# then meet poisoned pages. Sets found, refused (the injector's writes
# that failed: memory_failure() did not recover the page) and cached
# (poisoned pages left in the swap cache).
poison() {
	local p level
	pfnfind "$CG_ROOT/$1" "$2" "$3" > /tmp/pfns
	cat /tmp/pfns >> /tmp/hp_all
	found=$(wc -l < /tmp/pfns)
	refused=0
	level=$(cut -f1 /proc/sys/kernel/printk)
	echo 1 > /proc/sys/kernel/printk
	for p in $(cat /tmp/pfns); do
		echo "$p" > $CORRUPT 2>/dev/null || refused=$((refused + 1))
	done
	echo "$level" > /proc/sys/kernel/printk
	cached=$(pfnfind - swapcache,hwpoison - | wc -l)
}

# finish CG: let the owner write and check the region; sets rc, its status
# (135 for a SIGBUS), and prints its figures.
finish() {
	if wait_stopped $pid; then
		kill -CONT $pid
	fi
	wait $job
	rc=$?
	msg "$1: exit $rc: $(tr '\n' ' ' < "/tmp/$1.out")"
}

# Stock: the written-back folios on the LRU, in the swap cache.
held_backlog hpstock zswbhp || exit 1
poison hpstock swapcache,lru mmap,writeback,locked
s_found=$found s_refused=$refused s_cached=$cached
kill -CONT $pid
finish hpstock
s_rc=$rc
msg "stock: $s_found written-back pages poisoned, $s_refused not recovered, $s_cached left in the swap cache"
cg_del hpstock

# async_free: the folios queued, the work item held.
set_param async_free 1 || exit 1
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
echo 1 > $ZSWB_DEBUGFS/reset
held_backlog hpqueued zswbhp || exit 1
queued=$(wbstat queue_depth)
poison hpqueued swapcache,locked lru,mmap,writeback
kill -CONT $pid
# A fault on a poisoned page in the swap cache does not wait; the others
# wait for the hold.
sleep 2
echo 0 > /sys/module/zswb_holdfree/parameters/hold
finish hpqueued
q_rc=$rc
msg "async_free: held $held folios, $queued queued; $found poisoned, $refused not recovered, $cached left in the swap cache"
wait_drained 30
rmmod zswb_holdfree
msg_stats
resolved=$(wb_resolved)
cg_del hpqueued
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbhp
check "stock: written-back pages found and poisoned" "[ $s_found -gt 0 ]" &&
check "stock: none left in the swap cache" "[ $s_cached -eq 0 ]" &&
check "stock: the owner wrote and read back every page" "[ $s_rc -eq 0 ]" &&
check "1,024 folios or more held" "[ $held -ge 1024 ]" &&
check "queued folios found and poisoned" "[ $found -gt 0 ]" &&
check "none left in the swap cache" "[ $cached -eq 0 ]" &&
check "the owner wrote and read back every page (no SIGBUS)" "[ $q_rc -eq 0 ]" &&
check "every folio resolved" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $resolved -eq $(wbstat written_back) ]"
