#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: memory offline of a block beside zswap writeback, stock against async_free (figures)
#
# offline_pages() isolates the block's pageblocks first, and
# has_unmovable_pages() fails that isolation (EBUSY, at once) on a page
# that is in use, not on the LRU and not movable, outside ZONE_MOVABLE: a
# folio that async_free holds off the LRU during its write and while it
# waits to be freed is one, where stock's written-back folio sits on the
# LRU and is migrated. zswap's writeback folio is a GFP_KERNEL allocation,
# never in ZONE_MOVABLE or a CMA area, so only a block of a kernel zone
# (ZONE_NORMAL, or ZONE_DMA32 as node 1 of the 2 GiB test VM) can meet
# it. The first block of node 1 without poisoned pages that goes offline
# while nothing runs is taken, and put back online in its kernel zone
# (online_kernel); then, beside the
# workload (thrash, zswap writing back to disk), it is taken offline
# TRIES times under each policy, ROUNDS rounds alternated, each attempt
# retried every 50 ms until it succeeds (at most 5 s) and then put back
# online. Printed for each policy: the attempts that failed at least
# once, the failed tries, the time until the block went offline (median,
# max), the swap cache pages off the LRU found in the block just before
# each attempt, and the flags of the pages that has_unmovable_pages()
# dumped. A measurement: it checks only that the block is back online and
# that the workload's checksums hold.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/harden.lib"

ROUNDS=${ZSWB_OFFLINE_ROUNDS:-2}
TRIES=${ZSWB_OFFLINE_TRIES:-10}

need_module || exit 1
[ -d $MEM ] || { msg "no memory hotplug (CONFIG_MEMORY_HOTREMOVE)"; exit 4; }
bpages=$(block_pages)

blk=
for d in /sys/devices/system/node/node1/memory*; do
	[ -e "$d/state" ] || continue
	[ "$(cat "$d/state")" = online ] || continue
	[ "$(block_poisoned "$d")" -eq 0 ] || { msg "$(basename "$d") holds poisoned pages: not taken"; continue; }
	if echo offline > "$d/state" 2>/dev/null; then
		blk=$d
		err=$( { echo online_kernel > "$d/state"; } 2>&1 ) ||
			{ msg "$(basename "$d") went offline and does not come back online: $err"; exit 1; }
		break
	fi
done
[ -n "$blk" ] || { msg "no block of node 1 goes offline here"; exit 4; }
test_cleanup_own() {
	[ "$(cat "$blk/state")" = online ] || echo online_kernel > "$blk/state"
}
msg "block $(basename "$blk") ($(cat "$blk/valid_zones" 2>/dev/null))"

zswap_on
swap_on disk || exit 1
echo 1 > $ZSWB_DEBUGFS/reset
cg_new offline "$CG_MAX"
cg_run offline thrash --size "$SIZE" --passes 1000 > /tmp/thrash.out 2>&1 &
tpid=$!
poll "$WORKLOAD_SECONDS" or_ended $tpid vmstat_at_least zswpwb 2000 ||
	msg "zswpwb $(vmstat zswpwb) after $WORKLOAD_SECONDS s"

# The block's first pfn.
bfirst=$(( ${blk##*memory} * bpages ))

# offlru: the block's pages in the swap cache and off the LRU (a folio
# the module holds, or one that reclaim or migration isolated).
offlru() {
	pfnfind - swapcache lru | awk -v a=$bfirst -v b=$((bfirst + bpages)) \
		'$1 >= a && $1 < b { n++ } END { print n + 0 }'
}

# attempt FILE: one offline attempt, retried until it succeeds (5 s at
# most), then the block back online; appends "FAILS SECONDS" to FILE.
attempt() {
	local t0 t1 fails=0 off
	off=$(offlru)
	t0=$(cut -d" " -f1 /proc/uptime)
	until echo offline > "$blk/state" 2>/dev/null; do
		fails=$((fails + 1))
		t1=$(cut -d" " -f1 /proc/uptime)
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 5) }' && break
		sleep 0.05
	done
	t1=$(cut -d" " -f1 /proc/uptime)
	echo "$fails $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $off" >> "$1"
	[ "$(cat "$blk/state")" = online ] || echo online_kernel > "$blk/state"
}

rm -f /tmp/offline.0 /tmp/offline.1 /tmp/dumps.0 /tmp/dumps.1
r=0
while [ $r -lt $ROUNDS ]; do
	order="0 1"
	[ $((r % 2)) -eq 1 ] && order="1 0"
	for p in $order; do
		set_param async_free $p || exit 1
		sleep 1
		dmesg -c > /dev/null
		i=0
		while [ $i -lt $TRIES ]; do
			attempt /tmp/offline.$p
			sleep 0.3
			i=$((i + 1))
		done
		dmesg -c | sed -n 's/.*flags: 0x[0-9a-f]*(\(.*\)).*/\1/p' >> /tmp/dumps.$p
	done
	r=$((r + 1))
done
alive=0
kill -0 $tpid 2>/dev/null && alive=1
cg_stop offline
wait $tpid
trc=$?
msg "$(tr '\n' ' ' < /tmp/thrash.out)"
set_param async_free 0
for p in 0 1; do
	name=stock
	[ $p -eq 1 ] && name=async_free
	sort -n -k2 /tmp/offline.$p | awk -v n=$name '
		{ t[NR] = $2; f += $1; if ($1) a++; if ($2 >= 5) s++; if ($3) o++; p += $3 }
		END { printf "# %s: %d attempts, %d failed at least once (%d tries failed), %d still failing after 5 s; time to offline median %.3f s, max %.3f s; %d found swap cache pages off the LRU in the block just before (%d pages)\n",
			n, NR, a, f, s, t[int((NR + 1) / 2)], t[NR], o, p }'
	msg "$name: pages has_unmovable_pages() refused, by flags:"
	sort /tmp/dumps.$p | uniq -c | sort -rn | head -8 | sed 's/^/#   /'
done
msg_stats
cg_del offline
swap_off
check "the block is online again" "[ \"\$(cat $blk/state)\" = online ]" &&
check "the workload ran through and its checksums hold" "[ $alive -eq 1 ] && [ $trc -eq 0 ] && ! grep -q 'mismatches [1-9]' /tmp/thrash.out"
