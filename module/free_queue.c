// SPDX-License-Identifier: GPL-2.0
/*
 * The free queue of async_free: the folios whose write ended, on a list of
 * the CPU where it ended, locked; freed by the writer before its next
 * writeback, in batches, and by an unbound work item for what the writer
 * leaves; a queued folio that memory_failure() poisons is freed at once.
 * And the free of one folio, or its return to the LRU when something
 * claimed it, for both policies. design.rst, "The free path" and
 * "Freeing and its races".
 *
 * - Every value stored in folio->lru.next (page->compound_head, whose bit
 *   0 says "tail page"), a start or ended word or an llist pointer, has
 *   bit 0 clear.
 * - A folio is freed only through zswap_wb_remove_folio() (zswb_remove()),
 *   which refuses a dirty (a failed write: it holds the only copy), mapped
 *   or referenced one; that folio goes back to the LRU and is counted.
 * - A queued folio whose page memory_failure() poisons, and leaves in the
 *   swap cache because it is off the LRU, is freed at once, as stock's
 *   memory_failure() drops a clean swap cache folio (zswb_poisoned()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/sched/clock.h>
#include <linux/swap.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "free_path.h"

/*
 * Per CPU: the folios whose write ended here, and the work item freeing
 * them. The writer frees its CPU's list before each writeback; the work
 * item, kicked when the list stops being empty, runs ZSWB_FREE_DELAY later
 * and frees what the writer left, so that a writeback burst is freed by
 * the writer itself without a context switch per batch. The work item is
 * unbound: a queued folio is locked, and must not wait for a CPU that
 * does not schedule its own kworker (design.rst, "A CPU that does not
 * schedule").
 */
struct zswb_pcp {
	struct llist_head ended;
	struct delayed_work work;
};

#define ZSWB_FREE_DELAY 1	/* jiffies */

/*
 * The most folios a writer frees before one writeback, without yielding:
 * a writeback ends about one folio, and reclaim takes as many per pass. A
 * longer list (ends that piled up behind a stalled device, or while the
 * work item could not run) is left to the work item, which yields between
 * batches.
 */
#define ZSWB_WRITER_DRAIN	SWAP_CLUSTER_MAX

static DEFINE_PER_CPU(struct zswb_pcp, zswb_pcp);
static struct workqueue_struct *zswb_wq;
/* What the policy does with the folios a drain took (zswb_free_queue_init()). */
static void (*zswb_taken_done)(unsigned long nr) __ro_after_init;
/*
 * The llist node lives in folio->lru.next, which no list uses while the
 * folio is off the LRU; a node pointer is aligned or NULL, so bit 0 (the
 * tail-page bit of compound_head) stays clear.
 */
static_assert(sizeof(struct llist_node) == sizeof(struct list_head *));

static struct llist_node *zswb_folio_node(struct folio *folio)
{
	return (struct llist_node *)&folio->lru.next;
}

static struct folio *zswb_node_folio(struct llist_node *node)
{
	return container_of((struct list_head *)node, struct folio, lru);
}

/*
 * A queued folio's lru.prev: its ended word (free_path.h) with the counter
 * slot in bits 1 to 5 and, in bit 0, whether the folio was locked when it
 * was queued (it then stays locked until it is freed or put back).
 * lru.prev is not compound_head: no walker reads these bits.
 */
#define ZSWB_QUEUED_LOCKED	1UL
#define ZSWB_QUEUED_LOW		(2UL * ZSWB_NR_SLOTS - 1)
static_assert((ZSWB_NR_SLOTS & (ZSWB_NR_SLOTS - 1)) == 0);
static_assert(BIT(ZSWB_END_SHIFT) > ZSWB_QUEUED_LOW);

static int zswb_queued_slot(unsigned long word)
{
	return (word & ZSWB_QUEUED_LOW) >> 1;
}

/*
 * Queue @folio, whose ended word is @ended, with the reference that
 * folio_end_writeback() held, on this CPU's list. The ended word replaces the
 * mark: a queued folio is reachable only through the list.
 *
 * It is queued locked, if its lock is free (a trylock: this may be an
 * interrupt). A swapin that finds it in the swap cache then waits for the
 * lock instead of mapping it while our reference is on it: that reference
 * would make should_try_to_free_swap() keep the swap slot of a folio a
 * write fault maps writable, a slot stock frees (design.rst, "A swapin of
 * a queued folio"). Nothing else can take a locked folio out of the swap
 * cache either, and freeing it never waits for its lock.
 */
void zswb_queue(struct folio *folio, unsigned long ended, int slot)
{
	unsigned long word = ended | slot << 1;
	struct zswb_pcp *pcp;

	if (folio_trylock(folio))
		word |= ZSWB_QUEUED_LOCKED;
	WRITE_ONCE(*zswb_mark_word(folio), word);
	pcp = get_cpu_ptr(&zswb_pcp);
	/*
	 * Up before the folio is on the list: a drain on another CPU may take
	 * it (and count it down) as soon as it is.
	 */
	zswb_count_queued(slot);
	/* The first folio on an empty list kicks the work item. */
	if (llist_add(zswb_folio_node(folio), &pcp->ended))
		queue_delayed_work(zswb_wq, &pcp->work, ZSWB_FREE_DELAY);
	/*
	 * Poisoned during its write, when zswb_poisoned() could not find it
	 * on a list: out of the swap cache now, not a jiffy later.
	 */
	if (unlikely(folio_test_hwpoison(folio)))
		mod_delayed_work(zswb_wq, &pcp->work, 0);
	put_cpu_ptr(&zswb_pcp);
}

/*
 * Why a locked folio that zswap_wb_remove_folio() refused goes back to the
 * LRU. A failed write re-dirtied it in the swap cache: it holds the only
 * copy, and nobody mapped it (zswap's writeback folio is not anon until a
 * swapin maps it). Anything else is a swapin's: it mapped the folio (and
 * may have dirtied it through its PTE and unmapped it again), or took it
 * out of the swap cache (shmem, or a write fault that freed the slot).
 */
static enum zswb_stat_item zswb_putback_reason(struct folio *folio)
{
	if (folio_test_dirty(folio) && folio_test_swapcache(folio) &&
	    !folio_test_anon(folio) && !folio_mapped(folio))
		return ZSWB_WRITE_ERRORS;
	return ZSWB_RACED;
}

/*
 * Put @folio, locked by us and holding our reference, back on the LRU
 * after zswap_wb_remove_folio() refused it, and unlock it. A swapin may be
 * waiting for the lock with its own reference: when it gets the lock it
 * must find only that one and the swap cache's, as on stock, or
 * should_try_to_free_swap() keeps the swap slot of the folio it maps. So
 * the reference of the LRU batch is dropped first (drained on this CPU),
 * then ours, while the lock still keeps the folio in the swap cache.
 */
static void zswb_putback_locked(struct folio *folio, int slot)
{
	struct folio_batch fbatch;

	zswb_count(slot, zswb_putback_reason(folio));
	if (!folio_test_swapcache(folio)) {
		folio_add_lru(folio);
		folio_unlock(folio);
		folio_put(folio);
		return;
	}
	/*
	 * folio_batch_release() drains this CPU's LRU batches (lru_add_drain()
	 * is not exported) before it drops our reference; the swap cache
	 * holds the folio until it is unlocked.
	 */
	folio_batch_init(&fbatch);
	folio_batch_add(&fbatch, folio);
	migrate_disable();
	folio_add_lru(folio);
	folio_batch_release(&fbatch);
	migrate_enable();
	folio_unlock(folio);
}

/*
 * A queued folio whose lock was taken when its write ended (by a swapin
 * that mapped it during its write, as on stock) and is still taken: put
 * it back, unlocked, without waiting for the lock.
 */
static void zswb_putback_busy(struct folio *folio, int slot)
{
	zswb_count(slot, ZSWB_RACED);
	folio_add_lru(folio);
	folio_put(folio);
}

/*
 * Free @folio, ours with one reference, or put it back on the LRU. Called
 * by the writer (reclaim, or zswap_store() with another folio locked), so
 * it does not wait for the folio lock: a folio locked by someone else was
 * claimed by a swapin, and goes back to the LRU unlocked, as any new folio.
 */
void zswb_finish(struct folio *folio, int slot, enum zswb_stat_item freed)
{
	struct zswb_run run = { 0 };

	if (!folio_trylock(folio)) {
		zswb_putback_busy(folio, slot);
		return;
	}
	if (!zswb_remove(folio, &run)) {
		zswb_putback_locked(folio, slot);
		return;
	}
	zswb_count(slot, freed);
	if (!run.target)
		zswb_count(slot, ZSWB_SHADOW_ROOT);
	folio_unlock(folio);
	folio_put(folio);
	/* After its uncharge. */
	zswb_pending_add(&run);
}

/* What a drain did to a run of folios of one slot, added once per run. */
struct zswb_tally {
	int slot;
	unsigned long taken, freed, shadow_root;
	unsigned int lat[ZSWB_LAT_BUCKETS];
};

static void zswb_tally_add(struct zswb_tally *t)
{
	int i;

	if (!t->taken)
		return;
	zswb_count_add(t->slot, ZSWB_FREED_ASYNC, t->freed);
	if (t->shadow_root)
		zswb_count_add(t->slot, ZSWB_SHADOW_ROOT, t->shadow_root);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		if (t->lat[i])
			zswb_count_latency(t->slot, i, t->lat[i]);
	/*
	 * The run first: once taken is added the slot can be quiet and be
	 * reused, and the run would count in the new scope's generation.
	 */
	preempt_disable();
	zswb_note_drain(t->slot, t->taken);
	smp_wmb();	/* the run and the counts above before taken */
	zswb_count_taken(t->slot, t->taken);
	preempt_enable();
	memset(t, 0, sizeof(*t));
}

/*
 * Put the folios from @first on, which a writer's drain left, back on
 * @pcp's list and, if it was empty, kick its work item now: a list that
 * was not empty has had its work item kicked by the folio that made it so.
 */
static void zswb_leave(struct zswb_pcp *pcp, struct llist_node *first)
{
	struct llist_node *last = first;
	bool poisoned = folio_test_hwpoison(zswb_node_folio(first));

	while (last->next) {
		last = last->next;
		poisoned |= folio_test_hwpoison(zswb_node_folio(last));
	}
	/*
	 * A folio poisoned while a writer held it was not on the list for
	 * zswb_poisoned() to find: its free is not left for a jiffy either.
	 */
	if (llist_add_batch(first, last, &pcp->ended) || poisoned)
		mod_delayed_work(zswb_wq, &pcp->work, 0);
}

/*
 * Free the folios of @list, taken from @pcp's list, in batches, or put them
 * back on the LRU; the latencies and counters are summed here and added
 * once for each run of folios of one slot. A @writer (alloc_off_lru(),
 * which does not yield, or zswb_poisoned(), which cannot) takes
 * ZSWB_WRITER_DRAIN of them at most and puts the rest back on @pcp's list
 * for the work item; the work item takes them all, yielding between
 * batches.
 */
static void zswb_take(struct zswb_pcp *pcp, struct llist_node *list, bool writer)
{
	struct llist_node *pos, *next;
	struct folio_batch fbatch;
	struct zswb_run run = { 0 };
	struct zswb_tally t = { 0 };
	unsigned long taken = 0;

	folio_batch_init(&fbatch);
	llist_for_each_safe(pos, next, list) {
		struct folio *folio = zswb_node_folio(pos);
		unsigned long word;
		int slot;
		u64 ns, us;

		if (writer && taken == ZSWB_WRITER_DRAIN) {
			zswb_leave(pcp, pos);
			break;
		}
		word = READ_ONCE(*zswb_mark_word(folio));
		slot = zswb_queued_slot(word);
		if (slot != t.slot) {
			zswb_tally_add(&t);
			t.slot = slot;
		}
		ns = zswb_ended_since(word, local_clock());
		us = div_u64(ns, NSEC_PER_USEC);
		t.lat[min_t(unsigned int, us ? ilog2(us) : 0, ZSWB_LAT_BUCKETS - 1)]++;
		t.taken++;
		taken++;
		/*
		 * Nobody waits here for a folio lock: the writer runs in
		 * reclaim or in zswap_store() with another folio locked, and
		 * one busy folio would stall the work item's whole list.
		 */
		if (!(word & ZSWB_QUEUED_LOCKED) && !folio_trylock(folio)) {
			zswb_putback_busy(folio, slot);
			continue;
		}
		run.waited = ns;
		run.took = zswb_ended_took(word);
		if (!zswb_remove(folio, &run)) {
			zswb_putback_locked(folio, slot);
			continue;
		}
		folio_unlock(folio);
		t.freed++;
		t.shadow_root += !run.target;
		if (!folio_batch_add(&fbatch, folio)) {
			folios_put(&fbatch);
			/*
			 * After their uncharge; the pages of a run that ended
			 * within the batch were added before it.
			 */
			zswb_run_add(&run);
			if (!writer)
				cond_resched();
		}
	}
	folios_put(&fbatch);
	zswb_run_add(&run);
	zswb_tally_add(&t);
	if (taken)
		zswb_taken_done(taken);
}

/* Free the folios queued on @pcp's list, or put them back: zswb_take(). */
static void zswb_drain(struct zswb_pcp *pcp, bool writer)
{
	struct llist_node *list = llist_del_all(&pcp->ended);

	if (list)
		zswb_take(pcp, list, writer);
}

#if defined(CONFIG_MEMORY_FAILURE) && defined(CONFIG_TRACEPOINTS)
/*
 * Take @folio off @pcp's list, if it is there, free it out of the swap
 * cache (or put it back on the LRU, if something holds it), and put the
 * rest of the list back. Whoever takes a list owns its nodes: the work
 * item's drain that took this list first frees the folio itself, and a
 * writer's puts what it leaves back through zswb_leave(), which kicks the
 * work item at once for a poisoned folio.
 */
static bool zswb_take_poisoned(struct zswb_pcp *pcp, struct folio *folio)
{
	struct llist_node *node = zswb_folio_node(folio);
	struct llist_node *list, **pos;
	bool found = false;

	list = llist_del_all(&pcp->ended);
	for (pos = &list; *pos; pos = &(*pos)->next) {
		if (*pos == node) {
			*pos = node->next;
			node->next = NULL;
			found = true;
			break;
		}
	}
	if (list)
		zswb_leave(pcp, list);
	if (found)
		zswb_take(pcp, node, true);
	return found;
}

/*
 * The ras:memory_failure_event tracepoint. memory_failure() handles only
 * pages on the LRU or free (HWPoisonHandlable()): for a folio the module
 * holds queued, off the LRU, it marks the page poisoned, gives up
 * (MF_MSG_GET_HWPOISON, MF_IGNORED) and leaves it in the swap cache,
 * where a fault would find it and get VM_FAULT_HWPOISON, a SIGBUS for a
 * page whose copy on the swap device is good. Stock drops such a clean
 * swap cache folio (me_swapcache_clean()), and the fault reads the page
 * again: so does this, for a queued folio of the module. The page never
 * returns to the allocator (free_pages_prepare() keeps poisoned pages
 * out). Called with preemption off, under memory_failure()'s mutex, in
 * the task that reported the error, which holds no reference on the
 * folio.
 */
static void zswb_poisoned(void *data, unsigned long pfn, int type, int result)
{
	struct folio *folio;
	struct page *page;
	int cpu;

	if (type != MF_MSG_GET_HWPOISON || result != MF_IGNORED)
		return;
	page = pfn_to_online_page(pfn);
	/* The module's folios are order 0. */
	if (!page || PageTail(page))
		return;
	folio = page_folio(page);
	if (folio_test_large(folio) || folio_test_lru(folio) || !folio_test_swapcache(folio))
		return;
	for_each_possible_cpu(cpu)
		if (zswb_take_poisoned(per_cpu_ptr(&zswb_pcp, cpu), folio))
			return;
	/*
	 * Not on a list: a drain holds it, or it is not ours. Kick every
	 * list's work item, for a writer's drain that puts it back.
	 */
	for_each_possible_cpu(cpu)
		if (!llist_empty(&per_cpu_ptr(&zswb_pcp, cpu)->ended))
			mod_delayed_work(zswb_wq, &per_cpu_ptr(&zswb_pcp, cpu)->work, 0);
}

/* ras:memory_failure_event, found by name: the kernel does not export it. */
static struct tracepoint *zswb_mf_event;

static void zswb_find_mf_event(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "memory_failure_event"))
		zswb_mf_event = tp;
}

static int zswb_poison_init(void)
{
	/* On PREEMPT_RT the free path's spinlocks sleep: no probe there. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_info("PREEMPT_RT: a poisoned queued folio waits for its free\n");
		return 0;
	}
	for_each_kernel_tracepoint(zswb_find_mf_event, NULL);
	if (!zswb_mf_event) {
		pr_info("no tracepoint memory_failure_event: a poisoned queued folio waits for its free\n");
		return 0;
	}
	return tracepoint_probe_register(zswb_mf_event, zswb_poisoned, NULL);
}

static void zswb_poison_exit(void)
{
	if (!zswb_mf_event)
		return;
	tracepoint_probe_unregister(zswb_mf_event, zswb_poisoned, NULL);
	tracepoint_synchronize_unregister();
}
#else
static int zswb_poison_init(void)
{
	return 0;
}

static void zswb_poison_exit(void)
{
}
#endif

static void zswb_free_workfn(struct work_struct *work)
{
	zswb_count(0, ZSWB_WORK_RUNS);
	zswb_drain(container_of(to_delayed_work(work), struct zswb_pcp, work), false);
}

/*
 * Before an async writeback allocates its folio, free the folios whose
 * write ended on this CPU: the writer frees what it wrote as it goes, in
 * batches, before it charges the next folio, up to ZSWB_WRITER_DRAIN of
 * them, and the work item is left only what ends after the last
 * writeback, or a backlog. (Migrated meanwhile, it frees another CPU's
 * list: any list can be freed from anywhere.)
 */
void zswb_writer_drain(void)
{
	struct zswb_pcp *pcp = raw_cpu_ptr(&zswb_pcp);

	if (!llist_empty(&pcp->ended))
		zswb_drain(pcp, true);
}

int zswb_free_queue_init(void (*done)(unsigned long nr))
{
	int cpu, ret;

	zswb_taken_done = done;
	for_each_possible_cpu(cpu)
		INIT_DELAYED_WORK(&per_cpu_ptr(&zswb_pcp, cpu)->work, zswb_free_workfn);
	/*
	 * Unbound, on the CPUs of wq_unbound_cpumask (not the isolated ones),
	 * and high priority: any CPU frees any CPU's list.
	 */
	zswb_wq = alloc_workqueue("zswap_wb", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!zswb_wq)
		return -ENOMEM;
	ret = zswb_poison_init();
	if (ret)
		destroy_workqueue(zswb_wq);
	return ret;
}

/* Nothing is queued any more: no folio is marked. */
void zswb_free_queue_exit(void)
{
	int cpu;

	/* Nothing is queued: the probe finds nothing to take. */
	zswb_poison_exit();
	/* A kick can outlive the folios it was for: the writer freed them. */
	for_each_possible_cpu(cpu)
		cancel_delayed_work_sync(&per_cpu_ptr(&zswb_pcp, cpu)->work);
	destroy_workqueue(zswb_wq);
}
