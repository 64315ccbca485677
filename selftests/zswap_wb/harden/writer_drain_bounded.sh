#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a writer frees at most 32 folios of a backlog before its writeback
#
# The writer frees its CPU's list before each async writeback, from
# alloc_off_lru(), where it does not yield: of a long list it must free
# ZSWB_WRITER_DRAIN (32) folios at most and leave the rest to the work
# item, which yields between batches. A backlog: 16 MiB pushed to zswap
# and written back while a suspended device-mapper device holds the
# writes, the work item held back by zswb_holdfree, the device let go:
# the region's folios end on the lists with nothing writing back. Then a
# second memcg's zswap entries are written back by a task on each CPU in
# turn (memory.reclaim), so that a writer meets the backlog whichever CPU
# its writes ended on. queue_depth_max, the most folios one drain took
# since the reset before the backlog, is then the writers' (the work item
# is held): at most 32, and more than 0 (the writers did free some), and
# the writers freed at most 32 folios a writeback. Once the work item is
# let go it frees the rest.
#
# A writer still walks the rest of the list it took to put it back
# (llist_add_batch() needs its last node): how long its drain takes with
# the backlog, and again with none, is measured with the function_graph
# tracer and reported, not checked (times are not tests' to judge).
. "$(dirname "$0")/../lib.sh"

BOUND=32
TRACE=/sys/kernel/tracing

# drain_trace_on: the duration of every zswb_writer_drain() call.
drain_trace_on() {
	[ -d $TRACE/events ] || mount -t tracefs nodev $TRACE || return 1
	[ -e $TRACE/set_graph_function ] || return 1
	echo 0 > $TRACE/tracing_on
	echo zswb_writer_drain > $TRACE/set_graph_function &&
		echo 1 > $TRACE/max_graph_depth &&
		echo function_graph > $TRACE/current_tracer &&
		echo > $TRACE/trace &&
		echo 1 > $TRACE/tracing_on
}

# drain_trace_off: "CALLS MEAN_US MAX_US" of the calls traced since drain_trace_on.
drain_trace_off() {
	local r
	echo 0 > $TRACE/tracing_on
	r=$(awk '/zswb_writer_drain/ {
		for (i = 1; i < NF; i++) if ($(i + 1) == "us") { n++; t += $i; if ($i + 0 > m) m = $i + 0 }
	} END { printf "%d %d %d", n, n ? t / n : 0, m }' $TRACE/trace)
	echo nop > $TRACE/current_tracer
	echo > $TRACE/set_graph_function
	echo "$r"
}

# writers CG: a memory.reclaim of memcg CG from each CPU in turn.
writers() {
	local cpu
	for cpu in 0 1; do
		taskset -c $cpu sh -c "echo 256K > $CG_ROOT/$1/memory.reclaim" 2>/dev/null
	done
}

test_cleanup_own() {
	[ -e $TRACE/current_tracer ] || return 0
	echo 0 > $TRACE/tracing_on
	echo nop > $TRACE/current_tracer
	echo 1 > $TRACE/tracing_on
}

need_module || exit 1
dm=$(dmctl create zswbwd /dev/vda) || exit 1
zswap_on
mkswap /dev/$dm >/dev/null && swapon /dev/$dm || exit 1
set_param async_free 1 || exit 1
cg_new wdback max
cg_start_stopped wdback /tmp/swapinrace.out swapinrace 16 write || exit 1
cg_new wdwriter max
cg_start_stopped wdwriter /tmp/swapinrace2.out swapinrace 4 write || exit 1
cg_new wdafter max
cg_start_stopped wdafter /tmp/swapinrace3.out swapinrace 4 write || exit 1
# The regions into zswap, none written back yet.
echo N > /sys/module/zswap/parameters/shrinker_enabled
cg_reclaim wdback 20M
cg_reclaim wdwriter 8M
cg_reclaim wdafter 8M
echo Y > /sys/module/zswap/parameters/shrinker_enabled
echo 1 > $ZSWB_DEBUGFS/reset
dmctl suspend zswbwd || exit 1
modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; exit 1; }
cg_reclaim wdback 20M
cg_reclaim wdback 20M
dmctl resume zswbwd
poll 10 no_writeback
sleep 1
backlog=$(wbstat queue_depth)
freed0=$(wbstat freed_async)
max0=$(wbstat queue_depth_max)
wb0=$(wbstat written_back)
traced=0
drain_trace_on && traced=1
writers wdwriter
[ $traced = 1 ] && backlog_drains=$(drain_trace_off)
written=$(( $(wbstat written_back) - wb0 ))
drain_max=$(wbstat queue_depth_max)
freed=$(wbstat freed_async)
left=$(wbstat queue_depth)
msg "backlog $backlog folios (before the writers: freed $freed0, longest drain $max0); the writers wrote back $written, freed $freed, the longest drain took $drain_max, $left left queued"
echo 0 > /sys/module/zswb_holdfree/parameters/hold
wait_drained 60
rmmod zswb_holdfree
if [ $traced = 1 ]; then
	# The same writers with no backlog: the lists hold what they wrote.
	drain_trace_on
	writers wdafter
	set -- $backlog_drains $(drain_trace_off)
	msg "writers' drains, function_graph: with the backlog $1 calls, mean $2 us, longest $3 us; without, $4 calls, mean $5 us, longest $6 us"
else
	msg "no function_graph tracer: the writers' drains not timed"
fi
msg_stats
resolved=$(wb_resolved)
cg_del wdback
cg_del wdwriter
cg_del wdafter
set_param async_free 0
swapoff /dev/$dm
dmctl remove zswbwd
check "a backlog of 1,024 folios or more" "[ $backlog -ge 1024 ]" &&
check "the writers wrote back" "[ $written -gt 0 ]" &&
check "nothing freed before the writers" "[ $freed0 -eq 0 ] && [ $max0 -eq 0 ]" &&
check "the writers freed part of the backlog" "[ $drain_max -gt 0 ] && [ $freed -gt 0 ]" &&
check "no drain of a writer took more than $BOUND folios" "[ $drain_max -le $BOUND ]" &&
check "the writers freed $BOUND folios a writeback at most" "[ $freed -le $((written * BOUND)) ]" &&
check "every folio resolved once the work item is let go" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ] && [ $resolved -eq $(wbstat written_back) ]"
