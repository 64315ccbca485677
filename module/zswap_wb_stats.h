/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswap_wb's statistics, one row each: every line of debugfs "stats", in
 * this order (the per-node rows last, node by node), with the words that
 * debugfs "schema" prints as its help (those of Documentation/zswap_wb.rst).
 * A counter added here is counted, printed, given a file and described;
 * selftests/run.sh (checkpatch) checks that the documents list it.
 *
 * The including file defines the row macros it needs, the others expand to
 * nothing, and every one is undefined at the end (the X-macro form of
 * arch/x86/include/asm/kvm-x86-ops.h):
 *
 * ZSWB_COUNTER(ITEM, name, help): events, counted per CPU with
 *	zswb_count(ZSWB_ITEM) and summed when read; reset zeroes them.
 * ZSWB_NODE_COUNTER(ITEM, name, help): the same per node, counted with
 *	zswb_node_count(slot, nid, ZSWB_NODE_ITEM, n): one line and one file
 *	"<name>_node<N>" for each node.
 * ZSWB_GAUGE(name, help): the present state, zswb_gauge_<name>() in
 *	stats.c; reset keeps it.
 * ZSWB_PERCENTILE(name, pct, help): the @pct percentile of the free
 *	latency histogram, in microseconds: a line of "stats", no file.
 */
#ifndef ZSWB_COUNTER
#define ZSWB_COUNTER(...)
#endif
#ifndef ZSWB_NODE_COUNTER
#define ZSWB_NODE_COUNTER(...)
#endif
#ifndef ZSWB_GAUGE
#define ZSWB_GAUGE(...)
#endif
#ifndef ZSWB_PERCENTILE
#define ZSWB_PERCENTILE(...)
#endif

ZSWB_COUNTER(WRITTEN_BACK, written_back,
	     "Folios written back while the backend was armed.")
ZSWB_COUNTER(FREED_SYNC, freed_sync,
	     "Freed right after a synchronous write (sync_free).")
ZSWB_COUNTER(FREED_ASYNC, freed_async,
	     "Freed by the work item after the write ended (async_free).")
ZSWB_COUNTER(RACED, raced,
	     "Claimed by a swapin (mapped, or out of swap cache), put back.")
ZSWB_COUNTER(WRITE_ERRORS, write_errors,
	     "Re-dirtied by a failed write, never mapped, put back.")
ZSWB_COUNTER(FALLBACKS, fallbacks,
	     "Left on the LRU because the policy was off.")
ZSWB_COUNTER(ALLOCATED_ON_LRU, allocated_on_lru,
	     "Allocated on the LRU, stock's path, as their policy does not free them.")
ZSWB_COUNTER(WORK_RUNS, work_runs,
	     "Runs of the deferred-free work item.")
ZSWB_COUNTER(REQUEUED, requeued,
	     "Ended before zswap let it go; queued by writeback_issued() once it did.")
ZSWB_COUNTER(SHADOW_ROOT, shadow_root,
	     "Freed with a shadow entry that names no memcg at its limit, as global reclaim's do.")
ZSWB_COUNTER(SHRINK_CALLS_WORKER, shrink_calls_worker,
	     "shrink_memcg() calls from shrink_worker().")
ZSWB_COUNTER(SHRINK_CALLS_STORE, shrink_calls_store,
	     "shrink_memcg() calls from zswap_store().")
ZSWB_COUNTER(SHRINK_ENOENT, shrink_enoent,
	     "Calls that found nothing to scan (-ENOENT).")
ZSWB_COUNTER(SHRINK_EAGAIN, shrink_eagain,
	     "Calls that scanned but wrote nothing back (-EAGAIN).")
ZSWB_COUNTER(STORE_REJECTS, store_rejects,
	     "zswap_store() calls rejected because shrinking failed.")
ZSWB_COUNTER(RA_FAULTS_ALONE, ra_faults_alone,
	     "Faults on a zswap entry read alone (both skip policies).")
ZSWB_COUNTER(RA_WINDOWS_SHRUNK, ra_windows_shrunk,
	     "Readahead windows the policy made smaller.")
ZSWB_COUNTER(RA_ZSWAP_SLOTS_SKIPPED, ra_zswap_slots_skipped,
	     "Neighbour slots left out because they were in zswap.")
ZSWB_COUNTER(RA_DISK_SLOTS, ra_disk_slots,
	     "Neighbour slots on disk left in the window.")

ZSWB_GAUGE(queue_depth,
	   "Folios on the per-CPU lists between writeback end and the work item.")
ZSWB_GAUGE(queue_depth_max,
	   "The most folios one drain took off a CPU's list since load or reset.")
ZSWB_GAUGE(inflight,
	   "Marked off-LRU folios whose write is not yet resolved (freed or put back).")

#define ZSWB_OF_LATENCY " of the time from writeback end to free, as the upper bound of a power-of-two microsecond bucket."
ZSWB_PERCENTILE(free_latency_p50_us, 50, "50th percentile" ZSWB_OF_LATENCY)
ZSWB_PERCENTILE(free_latency_p99_us, 99, "99th percentile" ZSWB_OF_LATENCY)
ZSWB_PERCENTILE(free_latency_max_us, 100, "Maximum" ZSWB_OF_LATENCY)
#undef ZSWB_OF_LATENCY

ZSWB_NODE_COUNTER(SCANNED, shrink_scanned,
		  "Entries shrink_memcg() scanned on node N.")
ZSWB_NODE_COUNTER(WRITTEN, shrink_written,
		  "Entries shrink_memcg() wrote back from node N.")

#undef ZSWB_COUNTER
#undef ZSWB_NODE_COUNTER
#undef ZSWB_GAUGE
#undef ZSWB_PERCENTILE
