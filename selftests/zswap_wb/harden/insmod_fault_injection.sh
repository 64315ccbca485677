#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: each allocation of insmod failed in turn under shrink load
#
# Every allocation of insmod, init included, failed once in turn
# (fail-nth: failslab and fail_page_alloc), while a memcg over its
# memory.zswap.max keeps shrink_memcg() calling the backend. A failed init
# must leave nothing registered or armed and nothing calling into the freed
# module; a later load must work. The window of a shrink call pinning the
# module across a failed init is not forced; KASAN reports it if it is hit.
#
# The loader's own allocations are failed too. On the debug kernel the
# module uses a static key of the kernel (folio_memcg() calls
# folio_memcg_kmem(), whose VM_BUG_ON_PGFLAGS(PageTail()) tests
# hugetlb_optimize_vmemmap_key with CONFIG_DEBUG_VM_PGFLAGS), so
# jump_label's module notifier allocates for it, and answers a failed
# allocation with WARNs of its own. The test marks the loads in the kernel
# log, where tools/vm/run.sh lets those WARNs pass, and counts them.
. "$(dirname "$0")/../lib.sh"

[ -e /proc/self/fail-nth ] || { msg "no fail-nth"; exit 4; }
need_module || exit 1
ko=$(modinfo -n zswap_wb)
unload || exit 1
for f in failslab fail_page_alloc; do
	echo N > /sys/kernel/debug/$f/ignore-gfp-wait
	echo 0 > /sys/kernel/debug/$f/verbose
done
echo N > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
zswap_on
swap_on disk || exit 1
cg_new finj "$CG_MAX"
echo 4M > $CG_ROOT/finj/memory.zswap.max
cg_run finj thrash --size 200 --passes 20 > /tmp/thrash.out 2>&1 &
pid=$!
sleep 3
echo "zswb-vm: fail-nth over module loads: start" > /dev/kmsg
jl0=$(dmesg | grep -c "Failed to allocate memory: jump_label")
n=1 loaded=0 failed=0 bad=0
while [ $n -le 2000 ]; do
	out=$(modload "$ko" $n "shrink_policy=per_node async_free=1")
	case "$out" in
	loaded*) loaded=$((loaded + 1))
		 set_param async_free 0
		 unload || { msg "unload $n failed"; bad=1; break; } ;;
	failed*) failed=$((failed + 1))
		 [ -d /sys/module/zswap_wb ] && { msg "n=$n: failed load left the module"; bad=1; } ;;
	*) msg "n=$n: $out"; bad=1; break ;;
	esac
	case "$out" in *"not reached"*) break ;; esac
	n=$((n + 1))
done
for f in failslab fail_page_alloc; do
	echo Y > /sys/kernel/debug/$f/ignore-gfp-wait
done
echo "zswb-vm: fail-nth over module loads: end" > /dev/kmsg
echo Y > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
modprobe zswap_wb || { msg "the final load failed"; bad=1; }
# Registered again: a second backend is refused, and the stores call it.
insmod /lib/modules/$(uname -r)/updates/zswb_dup.ko 2>/dev/null &&
	{ msg "a second backend was accepted"; rmmod zswb_dup; bad=1; }
# store_shrunk: the store path called the shrink point at least once.
store_shrunk() { [ "$(wbstat shrink_calls_store)" -gt 0 ]; }
# The stores over memory.zswap.max call the point again: wait for
# the first call (a debug kernel may take many seconds to get one).
w=$(cut -d. -f1 /proc/uptime)
poll $((30 * SCALE)) store_shrunk
w=$(( $(cut -d. -f1 /proc/uptime) - w ))
sc=$(wbstat shrink_calls_store)
cg_stop finj
wait $pid
jl=$(($(dmesg | grep -c "Failed to allocate memory: jump_label") - jl0))
msg "$n loads: $loaded loaded, $failed failed ($jl in jump_label's notifier); first store-path call after ${w} s; stores went on: $(tr '\n' ' ' < /tmp/thrash.out)"
cg_del finj
swap_off
check "every failed load left nothing behind, a final load works" "[ $bad -eq 0 ]" &&
check "each allocation of the load was failed once" "[ $failed -gt 20 ] && [ $n -lt 2000 ]" &&
check "the stores still call the shrink point after it all" "[ $sc -gt 0 ]"
