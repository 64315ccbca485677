// SPDX-License-Identifier: GPL-2.0
/*
 * Prompt freeing of zswap writeback folios (policies sync_free, async_free).
 * A folio zswap writes back is allocated off the LRU and freed as soon as
 * its write is done: in writeback_issued() on SWP_SYNCHRONOUS_IO swap; on
 * block and file swap from the list of the CPU where its write ended, by
 * the writer before its next writeback or by the work item a jiffy later.
 * design.rst has the argument ("The mark", "The words of struct page",
 * "The free path", "Freeing and its races", "Lifetime", "Scopes"); what
 * this file keeps:
 *
 * - Only this file stores an address of zswb_marks[] in folio->lru.prev,
 *   and only in an off-LRU folio, which nothing else links through lru.
 *   The end time overwrites the mark when the folio is queued, before it
 *   can be freed or go back to the LRU: a page never carries a mark into
 *   its next life, and no other folio's lru.prev holds one.
 * - Every value stored in folio->lru.next (page->compound_head, whose bit
 *   0 says "tail page"), an end time or an llist pointer, has bit 0 clear.
 * - A folio is queued only once zswap_writeback_entry() has dropped its
 *   reference and its write has ended: the mark moves by cmpxchg, and the
 *   side that comes second queues it.
 * - A folio is freed only through zswap_wb_remove_folio(), which refuses a
 *   dirty (a failed write: it holds the only copy), mapped or referenced
 *   one; that folio goes back to the LRU and is counted.
 * - Each marked folio holds a reference on zswb_live, live while async_free
 *   is on; the module stays pinned and the writeback point armed until it
 *   is back to zero. Turning async_free off stops marking and waits for
 *   nothing.
 * - A folio's counters go to the slot its mark names, whatever happens to
 *   the scopes while it is in flight; its owner's scope decides (scope.c).
 * - A queued folio whose page memory_failure() poisons, and leaves in the
 *   swap cache because it is off the LRU, is freed at once, as stock's
 *   memory_failure() drops a clean swap cache folio (zswb_poisoned()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/memcontrol.h>
#include <linux/log2.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/swap.h>
#include <linux/sched/clock.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "zswap_wb.h"

/*
 * The states of a marked folio, stored as the address of one of these in
 * folio->lru.prev: marked (write not yet submitted or not yet ended, zswap
 * still holds its reference), issued (zswap dropped its reference first),
 * ended (the write ended first; folio->lru.next holds the end time); and,
 * read only by writeback_issued(), keep (its scope does not free it) and
 * free (a sync folio its scope frees). One row per state, one column per
 * counter slot: marked and issued, the only states writeback_end() takes,
 * are the first 2 * ZSWB_NR_SLOTS words.
 */
enum { ZSWB_MARKED, ZSWB_ISSUED, ZSWB_ENDED, ZSWB_KEEP, ZSWB_FREE, ZSWB_NR_MARKS };
/* Words, so that a mark, like every value of an lru word, is even. */
static const unsigned long zswb_marks[ZSWB_NR_MARKS][ZSWB_NR_SLOTS];

/*
 * What the compiler can check of the words used here (design.rst, "The
 * words of struct page"): lru.next is compound_head, lru.prev is not, and
 * an llist node fits in lru.next.
 */
static_assert(offsetof(struct folio, lru.next) == offsetof(struct page, compound_head));
static_assert(offsetof(struct folio, lru.prev) != offsetof(struct page, compound_head));
static_assert(offsetof(struct folio, lru.prev) < offsetof(struct folio, mapping));
static_assert(sizeof(struct llist_node) == sizeof(struct list_head *));
static_assert(__alignof__(zswb_marks[0][0]) >= 2);

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
static void zswb_disarm_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(zswb_disarm_work, zswb_disarm_workfn);

/* The writeback point serves both policies; under zswb_param_mutex. */
static bool zswb_wb_armed;

/*
 * Live while async_free is on; each marked folio holds a reference until
 * it is freed or put back. Killed when async_free goes off: a writeback
 * that finds it dead does not mark its folio, and the release, at zero,
 * lets zswb_disarm_work disarm the point and unpin the module.
 */
static struct percpu_ref zswb_live;
/* Under zswb_param_mutex: zswb_live is live (its base reference held). */
static bool zswb_live_on;
/* Under zswb_param_mutex: the module holds a reference on itself. */
static bool zswb_pinned;

static unsigned long *zswb_mark_word(struct folio *folio)
{
	return (unsigned long *)&folio->lru.prev;
}

static unsigned long zswb_mark(int state, int slot)
{
	return (unsigned long)&zswb_marks[state][slot];
}

/*
 * The index of mark @word in zswb_marks[] (state * ZSWB_NR_SLOTS + slot),
 * or at least ZSWB_NR_MARKS * ZSWB_NR_SLOTS for any other value: a list
 * pointer, a stale one, or nothing, none of which points into the array.
 */
static unsigned long zswb_mark_index(unsigned long word)
{
	return (word - (unsigned long)zswb_marks) / sizeof(zswb_marks[0][0]);
}

/* The state of mark @word, its slot in *@slot; -1 (and slot 0) if not a mark. */
static int zswb_mark_state(unsigned long word, int *slot)
{
	unsigned long i = zswb_mark_index(word);

	if (i >= ZSWB_NR_MARKS * ZSWB_NR_SLOTS) {
		*slot = 0;
		return -1;
	}
	*slot = i % ZSWB_NR_SLOTS;
	return i / ZSWB_NR_SLOTS;
}

/*
 * The llist node lives in folio->lru.next, which no list uses while the
 * folio is off the LRU; a node pointer is aligned or NULL, so bit 0 (the
 * tail-page bit of compound_head) stays clear.
 */
static struct llist_node *zswb_folio_node(struct folio *folio)
{
	return (struct llist_node *)&folio->lru.next;
}

static struct folio *zswb_node_folio(struct llist_node *node)
{
	return container_of((struct list_head *)node, struct folio, lru);
}

/*
 * A time (ns) as it is stored in an lru word: even. In lru.next an odd
 * value is a tail page's head pointer to compound_head(); 1 ns is not
 * worth a histogram bucket.
 */
static unsigned long zswb_time_word(u64 ns)
{
	return (unsigned long)ns & ~1UL;
}

/*
 * A queued folio's lru.prev: the end time, rounded down to 64 ns, with the
 * counter slot in bits 1 to 5 and, in bit 0, whether the folio was locked
 * when it was queued (it then stays locked until it is freed or put back).
 * lru.prev is not compound_head: no walker reads these bits.
 */
#define ZSWB_QUEUED_LOCKED	1UL
#define ZSWB_QUEUED_LOW		(2UL * ZSWB_NR_SLOTS - 1)
static_assert((ZSWB_NR_SLOTS & (ZSWB_NR_SLOTS - 1)) == 0);

static int zswb_queued_slot(unsigned long word)
{
	return (word & ZSWB_QUEUED_LOW) >> 1;
}

/*
 * Queue @folio, whose write ended at @ended (ns), with the reference that
 * folio_end_writeback() held, on this CPU's list. The end time replaces the
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
static void zswb_queue(struct folio *folio, u64 ended, int slot)
{
	unsigned long word = ((unsigned long)ended & ~ZSWB_QUEUED_LOW) | slot << 1;
	struct zswb_pcp *pcp;

	if (folio_trylock(folio))
		word |= ZSWB_QUEUED_LOCKED;
	WRITE_ONCE(*zswb_mark_word(folio), word);
	pcp = get_cpu_ptr(&zswb_pcp);
	/*
	 * Up before the folio is on the list: a drain on another CPU may take
	 * it (and count it down) as soon as it is.
	 */
	this_cpu_inc(zswb_stats_of(slot)->queued);
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

#ifdef CONFIG_MEMCG
/*
 * Memcgs seen at their limit by zswb_reclaim_target(), hashed by the
 * cgroup id of the folio's memcg the lookup started from (an id is never
 * reused). @word: when (jiffies, the low 32 bits), that id's low
 * ZSWB_SEEN_ID_BITS and how many steps up from that memcg the one at its
 * limit was. @freed: in the low 32 bits, the pages the module freed of
 * that memcg since, naming the one at its limit; in the high 32, a tag of
 * the sighting's word (a count of another sighting is none). Shared by all
 * CPUs, as the writer sees the limit and the work item of the CPU where
 * the write ended frees the folio. @word is rewritten only when it is
 * ZSWB_SEEN_REFRESH old or, for another memcg, ZSWB_SEEN_HOLD old (one
 * memcg does not evict another's fresh sighting), a few times a second
 * at most; @freed is added to once per batch a drain puts or run of one
 * memcg, or once per ZSWB_SEEN_BATCH pages a CPU frees synchronously, by
 * plain loads and stores: an add lost to a race makes the count smaller,
 * and one for a sighting since replaced is dropped. Two memcgs alike in those
 * id bits name another ancestor or the root, as a wrong guess would: the
 * steps are walked up from the folio's own memcg, never from a stored
 * pointer.
 */
#define ZSWB_SEEN_BITS		6
#define ZSWB_SEEN_UP_BITS	4
#define ZSWB_SEEN_ID_BITS	28
#define ZSWB_SEEN_UP_MASK	((1U << ZSWB_SEEN_UP_BITS) - 1)
#define ZSWB_SEEN_ID_MASK	((1U << ZSWB_SEEN_ID_BITS) - 1)
/* How long a sighting names its memcg in any case, kept from another's. */
#define ZSWB_SEEN_HOLD		HZ
#define ZSWB_SEEN_REFRESH	(HZ / 8)
/* Pages freed on a CPU before they are added to the sighting. */
#define ZSWB_SEEN_BATCH		32

struct zswb_sighting {
	u64 word;
	u64 freed;
};

static struct zswb_sighting zswb_seen[1 << ZSWB_SEEN_BITS] ____cacheline_aligned;

/* The synchronous frees' pages not yet added, per CPU: see zswb_finish(). */
struct zswb_seen_pending {
	struct zswb_sighting *seen;
	u64 word;
	unsigned long pages;
};

static DEFINE_PER_CPU(struct zswb_seen_pending, zswb_seen_pending);

static u64 zswb_seen_word(u32 when, u64 cgid, unsigned int up)
{
	return (u64)when << 32 |
	       (cgid & ZSWB_SEEN_ID_MASK) << ZSWB_SEEN_UP_BITS | up;
}

/* Whether @word is of the memcg of cgroup id @cgid. */
static bool zswb_seen_of(u64 word, u64 cgid)
{
	return word && (u32)word >> ZSWB_SEEN_UP_BITS ==
		       (cgid & ZSWB_SEEN_ID_MASK);
}

/* The jiffies since @word was written. */
static u32 zswb_seen_age(u64 word)
{
	return (u32)jiffies - (u32)(word >> 32);
}

/* Note that the memcg of cgroup id @cgid has the memcg @up steps up at its limit. */
static void zswb_seen_note(struct zswb_sighting *s, u64 cgid, unsigned int up)
{
	u64 old = READ_ONCE(s->word);

	if (up > ZSWB_SEEN_UP_MASK)
		return;
	if (old && (zswb_seen_of(old, cgid) ?
		    (old & ZSWB_SEEN_UP_MASK) == up &&
		    zswb_seen_age(old) < ZSWB_SEEN_REFRESH :
		    zswb_seen_age(old) < ZSWB_SEEN_HOLD))
		return;
	WRITE_ONCE(s->word, zswb_seen_word((u32)jiffies, cgid, up));
}

/* The tag of a count: any rewrite of the word changes it. */
static u32 zswb_seen_tag(u64 word)
{
	return (u32)(word >> 32) ^ (u32)word;
}

/* The pages freed since the sighting @word of @s. */
static unsigned long zswb_seen_freed(struct zswb_sighting *s, u64 word)
{
	u64 freed = READ_ONCE(s->freed);

	return freed >> 32 == zswb_seen_tag(word) ? (u32)freed : 0;
}

/*
 * Add @pages freed since the sighting @word to @s if it is still that
 * sighting; else they are dropped, as the one that replaced it read the
 * usage after them. Returns the sighting's word now.
 */
static u64 zswb_seen_add(struct zswb_sighting *s, u64 word, unsigned long pages)
{
	unsigned long freed;
	u64 now = READ_ONCE(s->word);

	if (now != word || !pages)
		return now;
	freed = zswb_seen_freed(s, word);
	freed += min(pages, U32_MAX - freed);
	WRITE_ONCE(s->freed, (u64)zswb_seen_tag(word) << 32 | freed);
	return now;
}
#endif

/*
 * Where the frees of a run of folios of one memcg are named and counted:
 * zswb_remove() looks the target up for the run's first folio.
 */
struct zswb_run {
	struct mem_cgroup *memcg;	/* the run's memcg; NULL before the first */
	struct mem_cgroup *target;	/* named in its shadow entries */
#ifdef CONFIG_MEMCG
	struct zswb_sighting *seen;	/* its memcg's sighting, or NULL */
	u64 word;			/* that sighting's word at the lookup */
	unsigned long freed;		/* pages freed naming it, not yet added */
#endif
};

/*
 * The memcg whose reclaim stock would free @folio in, for its shadow
 * entry (zswap_wb_remove_folio() passes it to __remove_mapping(), as
 * reclaim passes sc->target_mem_cgroup). Stock leaves the written-back
 * folio on the LRU for the next reclaim that scans it: the limit reclaim
 * of the nearest memcg at its memory.max or memory.high, from the
 * folio's own up (try_charge_memcg() reclaims the lowest counter that
 * failed, reclaim_high() each memcg over its high), or else global
 * reclaim, whose target is NULL (the root). "At its limit": within a
 * charge batch of it, the most a charge can be ahead of the counter.
 *
 * Or at its limit as stock would count it: the module's own frees take a
 * memcg below its limit where stock's written-back folios would still be
 * charged, from the very reclaim that wrote them (the writer frees what
 * it wrote as it goes) until the workload has charged as much again. So
 * the memcg last seen at its limit, looked up from the same memcg, is
 * still the target while its usage plus the pages the module freed of
 * the folio's memcg since that sighting, naming it, is within a charge
 * batch of its limit: stock would still hold those charged until that
 * memcg's next reclaim. It does not depend on how fast the kernel runs.
 * Frees that named the root are not counted: stock's global reclaim
 * would free those too. Where the memcg at its limit is an ancestor, the
 * frees of its other children are not counted, and the count lags the
 * uncharges by a batch per CPU: mostly a smaller sum (the pages of a run
 * that ends within a drain's batch are added before the batch is put).
 * So for ZSWB_SEEN_HOLD
 * after the sighting the memcg is the target whatever the sum: stock's
 * usage itself hovers below the limit between its reclaims, by what one
 * frees beyond the charge that failed.
 *
 * Called with the folio locked, which keeps its memcg; ancestors live as
 * long as it does, and the steps up from one memcg always lead to the
 * same ancestor.
 */
static void zswb_reclaim_target(struct folio *folio, struct zswb_run *run)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg = folio_memcg(folio), *m;
	struct zswb_sighting *s;
	unsigned long limit, usage;
	unsigned int up = 0;
	u64 cgid, word;

	run->target = NULL;
	run->seen = NULL;
	if (!memcg)
		return;
	cgid = cgroup_id(memcg->css.cgroup);
	s = &zswb_seen[hash_64(cgid, ZSWB_SEEN_BITS)];
	/* The root's limits are PAGE_COUNTER_MAX: it never matches. */
	for (m = memcg; m; m = parent_mem_cgroup(m), up++) {
		limit = min(READ_ONCE(m->memory.max), READ_ONCE(m->memory.high));
		if (page_counter_read(&m->memory) + MEMCG_CHARGE_BATCH >= limit) {
			zswb_seen_note(s, cgid, up);
			break;
		}
	}
	run->target = m;
	word = READ_ONCE(s->word);
	if (!zswb_seen_of(word, cgid))
		return;
	if (!m) {
		for (m = memcg, up = word & ZSWB_SEEN_UP_MASK; m && up; up--)
			m = parent_mem_cgroup(m);
		/* Up to the root, by a wrong guess: that is naming none. */
		if (!m || !parent_mem_cgroup(m))
			return;
		limit = min(READ_ONCE(m->memory.max), READ_ONCE(m->memory.high));
		/* What stock would hold charged. */
		usage = page_counter_read(&m->memory) + zswb_seen_freed(s, word);
		if (zswb_seen_age(word) >= ZSWB_SEEN_HOLD &&
		    usage + MEMCG_CHARGE_BATCH < limit)
			return;
		run->target = m;
	}
	run->seen = s;
	run->word = word;
#endif
}

/*
 * Add the pages @run freed to its memcg's sighting. If the sighting was
 * refreshed meanwhile (the same memcg and steps up), they are dropped and
 * the run's next pages go to the new one.
 */
static void zswb_run_add(struct zswb_run *run)
{
#ifdef CONFIG_MEMCG
	u64 now;

	if (!run->seen)
		return;
	now = zswb_seen_add(run->seen, run->word, run->freed);
	if (now != run->word && (u32)now == (u32)run->word)
		run->word = now;
	run->freed = 0;
#endif
}

/*
 * zswap_wb_remove_folio() with the target for @folio's memcg, looked up
 * once per run of folios of one memcg: the lookup reads page counters
 * that every charge writes. @run carries it from folio to folio; start
 * with it zeroed and end it with zswb_run_add(). A folio's memcg is
 * stable while it is locked, and one still charged keeps its ancestors.
 */
static bool zswb_remove(struct folio *folio, struct zswb_run *run)
{
	if (!run->memcg || folio_memcg(folio) != run->memcg) {
		zswb_run_add(run);
		run->memcg = folio_memcg(folio);
		zswb_reclaim_target(folio, run);
	}
	if (!zswap_wb_remove_folio(folio, run->target))
		return false;
#ifdef CONFIG_MEMCG
	if (run->seen)
		run->freed += folio_nr_pages(folio);
#endif
	return true;
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
 * Add the pages of a synchronous free, @run's, to the sighting once
 * ZSWB_SEEN_BATCH of them are pending on this CPU, or when the pending
 * ones are of another sighting: the writer frees one folio at a time.
 * Pending pages of a sighting since replaced are dropped, and a CPU's
 * last few may never be added: a smaller count.
 */
static void zswb_pending_add(struct zswb_run *run)
{
#ifdef CONFIG_MEMCG
	struct zswb_seen_pending *p;

	if (!run->freed)
		return;
	p = get_cpu_ptr(&zswb_seen_pending);
	if (p->seen != run->seen || p->word != run->word) {
		if (p->seen)
			zswb_seen_add(p->seen, p->word, p->pages);
		p->seen = run->seen;
		p->word = run->word;
		p->pages = 0;
	}
	p->pages += run->freed;
	if (p->pages >= ZSWB_SEEN_BATCH) {
		zswb_seen_add(p->seen, p->word, p->pages);
		p->pages = 0;
	}
	put_cpu_ptr(&zswb_seen_pending);
	run->freed = 0;
#endif
}

/*
 * Free @folio, ours with one reference, or put it back on the LRU. Called
 * by the writer (reclaim, or zswap_store() with another folio locked), so
 * it does not wait for the folio lock: a folio locked by someone else was
 * claimed by a swapin, and goes back to the LRU unlocked, as any new folio.
 */
static void zswb_finish(struct folio *folio, int slot, enum zswb_stat_item freed)
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

static void zswb_drain(struct zswb_pcp *pcp, bool writer);

static bool zswb_scope_frees(struct mem_cgroup *memcg, bool sync, int *slot);

/*
 * zswap_wb_ops.alloc_off_lru: off the LRU if the policy of @memcg's scope,
 * or global's, frees the folio. Before an async writeback allocates its
 * folio, free the folios whose write ended on this CPU: the writer frees
 * what it wrote as it goes, in batches, before it charges the next folio,
 * up to ZSWB_WRITER_DRAIN of them, and the work item is left only what
 * ends after the last writeback, or a backlog. (Migrated meanwhile, it
 * frees another CPU's list: any list can be freed from anywhere.) @memcg
 * is the entry's owner, held by the hook, possibly offline, or NULL
 * (global).
 */
bool zswb_alloc_off_lru(swp_entry_t entry, bool sync, struct mem_cgroup *memcg)
{
	struct zswb_pcp *pcp = raw_cpu_ptr(&zswb_pcp);

	if (!sync && !llist_empty(&pcp->ended))
		zswb_drain(pcp, true);
	/*
	 * Not a decision that counts anywhere: writeback_prepare() looks the
	 * scope up again for an off-LRU folio, writeback_issued() counts an
	 * LRU one (allocated_on_lru).
	 */
	return zswb_scope_frees(memcg, sync, NULL);
}

/*
 * Not to be freed: mark @folio keep in @slot for writeback_issued(), which
 * puts it on the LRU, and let it rotate when its write ends, as stock does.
 */
static void zswb_keep(struct folio *folio, int slot)
{
	folio_set_reclaim(folio);
	WRITE_ONCE(*zswb_mark_word(folio), zswb_mark(ZSWB_KEEP, slot));
}

/*
 * The setting (sync_free if @sync, else async_free) of the scope of
 * @memcg, the entry's owner (global's for NULL), and in *@slot the
 * scope's slot, opened for the folio; @slot NULL only asks (alloc_off_lru(),
 * before the folio exists: nothing is counted for it yet).
 */
static bool zswb_scope_frees(struct mem_cgroup *memcg, bool sync, int *slot)
{
	const struct zswb_scope_core *sc;
	bool on;

	rcu_read_lock();
	sc = zswb_scope_of(memcg);
	/*
	 * Opened inside the section that found the scope: once rmdir's grace
	 * period is over its slot sees the folio, and is not reused until the
	 * folio's last count closes it. Slot 0 is never reused.
	 */
	if (slot) {
		*slot = sc->slot;
		if (sc->slot)
			this_cpu_inc(zswb_stats_of(sc->slot)->opened);
	}
	on = READ_ONCE(sc->set.v[sync ? ZSWB_P_sync_free : ZSWB_P_async_free]);
	rcu_read_unlock();
	return on;
}

/*
 * zswap_wb_ops.writeback_prepare: mark a folio free, keep or (async)
 * marked, as the scope of @memcg, the entry's owner, says. A folio
 * allocated off the LRU for a policy that is off by now (turned off, or
 * its scope unbound) is kept.
 */
void zswb_writeback_prepare(struct folio *folio, bool sync, struct mem_cgroup *memcg)
{
	struct zswb_pcpu_stats __percpu *st;
	int slot;

	if (!zswb_scope_frees(memcg, sync, &slot)) {
		zswb_keep(folio, slot);
		return;
	}
	if (sync) {
		WRITE_ONCE(*zswb_mark_word(folio), zswb_mark(ZSWB_FREE, slot));
		return;
	}
	st = zswb_stats_of(slot);
	/*
	 * Counted before the tryget, so that a reader of "inflight" after
	 * async_free went off sees a folio that a tryget still marks (one
	 * that saw zswb_live live just before the kill). Dead once
	 * async_free is off: then the folio is kept, and counts as queued
	 * and taken at once.
	 */
	this_cpu_inc(st->marked);
	/*
	 * Slot 0 is global's, whose setting decides: zswb_live alone is not
	 * enough, a scope keeps it live (and one being unbound, until the
	 * families re-arm after the key went off).
	 */
	if ((!slot && !READ_ONCE(zswb_global.set.v[ZSWB_P_async_free])) ||
	    !percpu_ref_tryget_live(&zswb_live)) {
		/*
		 * Up in both gauges before down: taken alone would leave
		 * queue_depth (queued - taken) one low for good.
		 */
		this_cpu_inc(st->queued);
		smp_wmb();	/* marked and queued before taken */
		this_cpu_inc(st->taken);
		zswb_keep(folio, slot);
		return;
	}
	/* Its write is not submitted yet: no end can read the word. */
	WRITE_ONCE(*zswb_mark_word(folio), zswb_mark(ZSWB_MARKED, slot));
	/* From here marked..taken keeps the slot. */
	zswb_close(slot);
}

/* Left on the LRU: a keep mark's folio, or one zswap did not allocate off it. */
static void zswb_fallback(struct folio *folio, int slot)
{
	zswb_count(slot, ZSWB_FALLBACKS);
	folio_add_lru(folio);
	folio_put(folio);
}

/*
 * A folio alloc_off_lru() allocated on the LRU, which writeback_prepare()
 * did not see: counted in its scope's slot inside the section that found
 * the scope. That is the scope of the memcg it is charged to: the owner's,
 * unless the owner was offline when zswap allocated it (then the writer's).
 */
static void zswb_count_on_lru(struct folio *folio)
{
	int slot;

	rcu_read_lock();
	slot = zswb_scope_of(folio_memcg(folio))->slot;
	zswb_count(slot, ZSWB_WRITTEN_BACK);
	zswb_count(slot, ZSWB_FALLBACKS);
	zswb_count(slot, ZSWB_ALLOCATED_ON_LRU);
	rcu_read_unlock();
}

/* zswap_wb_ops.writeback_issued: the folio and zswap's reference are ours. */
void zswb_writeback_issued(struct folio *folio, bool sync, bool off_lru)
{
	unsigned long *word = zswb_mark_word(folio);
	unsigned long old;
	int state, slot;

	if (!off_lru) {
		/* On the LRU since zswap allocated it, PG_reclaim set. */
		zswb_count_on_lru(folio);
		folio_put(folio);
		return;
	}
	old = READ_ONCE(*word);
	state = zswb_mark_state(old, &slot);
	zswb_count(slot, ZSWB_WRITTEN_BACK);
	if (state == ZSWB_KEEP || state == ZSWB_FREE) {
		/* Read: no mark goes on to the LRU or the next life of the page. */
		WRITE_ONCE(*word, 0);
		if (state == ZSWB_KEEP) {
			zswb_fallback(folio, slot);
			zswb_close(slot);
			return;
		}
	}
	if (sync) {
		zswb_finish(folio, slot, ZSWB_FREED_SYNC);
		/* A FREE mark's folio: a scope's; slot 0 opens nothing. */
		zswb_close(slot);
		return;
	}
	if (state != ZSWB_MARKED && state != ZSWB_ENDED) {
		/*
		 * Not marked: the policy was off when writeback_prepare() ran
		 * (it may be on again by now). Stock LRU, and counted either
		 * way, or a toggle would lose the folio from the accounting.
		 */
		zswb_fallback(folio, slot);
		return;
	}
	/*
	 * Drop zswap's reference before saying so: the work item must find
	 * only the swap cache's and the end's. Until the write ends the folio
	 * cannot leave the swap cache; once it has, the end's reference holds it.
	 */
	folio_put(folio);
	if (state == ZSWB_MARKED &&
	    try_cmpxchg(word, &old, zswb_mark(ZSWB_ISSUED, slot)))
		return;
	/* The write ended first and left the folio to us: queue it. */
	smp_rmb();	/* the end time, stored before the ended mark */
	zswb_count(slot, ZSWB_REQUEUED);
	zswb_queue(folio, (unsigned long)READ_ONCE(folio->lru.next), slot);
}

/* zswap_wb_ops.writeback_end: any context, under RCU. */
bool zswb_writeback_end(struct folio *folio)
{
	unsigned long *word = zswb_mark_word(folio);
	unsigned long old = READ_ONCE(*word);
	unsigned long i = zswb_mark_index(old);
	int slot = i % ZSWB_NR_SLOTS;
	u64 now;

	/* Marked or issued, of any slot: the first two rows of zswb_marks[]. */
	if (i >= 2 * ZSWB_NR_SLOTS)
		return false;
	/*
	 * sched_clock, not a clocksource read: where the TSC is unstable (as
	 * in an emulated guest) the clocksource is a device, read per call.
	 */
	now = local_clock();
	if (i < ZSWB_NR_SLOTS) {	/* marked */
		/*
		 * zswap still holds its reference: writeback_issued() queues
		 * it. Until then the folio sits unlocked in the swap cache
		 * with the time in compound_head's word: even.
		 */
		WRITE_ONCE(folio->lru.next, (struct list_head *)zswb_time_word(now));
		if (try_cmpxchg(word, &old, zswb_mark(ZSWB_ENDED, slot)))
			return true;
		/* It was issued meanwhile (old is now the issued mark). */
	}
	zswb_queue(folio, now, slot);
	return true;
}

/* What a drain did to a run of folios of one slot, added once per run. */
struct zswb_tally {
	int slot;
	unsigned long taken, freed, shadow_root;
	unsigned int lat[ZSWB_LAT_BUCKETS];
};

static void zswb_tally_add(struct zswb_tally *t)
{
	struct zswb_pcpu_stats __percpu *st = zswb_stats_of(t->slot);
	int i;

	if (!t->taken)
		return;
	zswb_count_add(t->slot, ZSWB_FREED_ASYNC, t->freed);
	if (t->shadow_root)
		zswb_count_add(t->slot, ZSWB_SHADOW_ROOT, t->shadow_root);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		if (t->lat[i])
			this_cpu_add(st->latency[i], t->lat[i]);
	/*
	 * The run first: once taken is added the slot can be quiet and be
	 * reused, and the run would count in the new scope's generation.
	 */
	preempt_disable();
	zswb_note_drain(t->slot, t->taken);
	smp_wmb();	/* the run and the counts above before taken */
	this_cpu_add(st->taken, t->taken);
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
		s64 ns;
		u64 us;

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
		ns = local_clock() - (word & ~ZSWB_QUEUED_LOW);
		us = ns > 0 ? div_u64(ns, NSEC_PER_USEC) : 0;
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
	/* The last put after a kill releases zswb_live: see zswb_live_release(). */
	if (taken)
		percpu_ref_put_many(&zswb_live, taken);
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
 * Arm the writeback point while a policy is on. Disarm it once none is and
 * zswb_live is back to zero: a marked folio whose writeback end is not
 * offered to us would stay off the LRU for good. Called with
 * zswb_param_mutex held; while folios are in flight, the release of
 * zswb_live runs zswb_disarm_work, which calls this again.
 */
static bool zswb_set_sync(const struct zswb_settings *set)
{
	return set->v[ZSWB_P_sync_free];
}

static bool zswb_set_async(const struct zswb_settings *set)
{
	return set->v[ZSWB_P_async_free];
}

static int zswb_pf_update(void)
{
	bool async = zswb_settings_any(zswb_set_async);
	bool sync = zswb_settings_any(zswb_set_sync);
	bool drained;

	lockdep_assert_held(&zswb_param_mutex);
	if (!zswb_registered())
		return 0;
	if (async && !zswb_live_on) {
		/*
		 * Pinned until every folio it marks is resolved. A write that
		 * races with rmmod finds the module going: nothing is marked.
		 */
		if (!zswb_pinned) {
			if (!try_module_get(THIS_MODULE))
				return -EBUSY;
			zswb_pinned = true;
		}
		/* Armed before anything is marked. */
		if (!zswb_wb_armed) {
			zswb_arm(ZSWAP_WB_WRITEBACK, true);
			zswb_wb_armed = true;
		}
		/* Back to live, whether its folios are still in flight or not. */
		if (percpu_ref_is_zero(&zswb_live))
			percpu_ref_reinit(&zswb_live);
		else
			percpu_ref_resurrect(&zswb_live);
		zswb_live_on = true;
	} else if (!async && zswb_live_on) {
		percpu_ref_kill(&zswb_live);
		zswb_live_on = false;
	}
	/* In atomic mode once dead: zero only when no marked folio is left. */
	drained = !zswb_live_on && percpu_ref_is_zero(&zswb_live);
	if ((sync || !drained) && !zswb_wb_armed) {
		zswb_arm(ZSWAP_WB_WRITEBACK, true);
		zswb_wb_armed = true;
	} else if (!sync && drained && zswb_wb_armed) {
		zswb_arm(ZSWAP_WB_WRITEBACK, false);
		zswb_wb_armed = false;
	}
	if (drained && zswb_pinned) {
		/* zswb_prompt_free_exit() waits for this work item to return. */
		module_put(THIS_MODULE);
		zswb_pinned = false;
	}
	return 0;
}

static void zswb_disarm_workfn(struct work_struct *work)
{
	mutex_lock(&zswb_param_mutex);
	/* Only turning the policy on can fail, and this does not. */
	zswb_pf_update();
	mutex_unlock(&zswb_param_mutex);
}

/* zswb_live reached zero after a kill: any context, under RCU. */
static void zswb_live_release(struct percpu_ref *ref)
{
	queue_delayed_work(system_wq, &zswb_disarm_work, 0);
}

/*
 * Before sync_free or async_free, the global one or a scope's, takes
 * @on: arm the point before the policy is visible. A writeback already
 * past the point's key could mark a folio whose end a CPU not yet patched
 * would not offer back, and it would stay off the LRU for good. (async_free
 * marks only once zswb_pf_update() made zswb_live live, after it armed;
 * sync_free marks nothing but reads the policy.) Under zswb_param_mutex.
 *
 * Turning async_free off does not wait for the folios in flight: marking
 * stops at once; the work item frees what is in flight as its writes end
 * ("inflight" in debugfs counts them down) and zswb_disarm_work disarms
 * the point after the last one. zswbctl waits for that, killably.
 */
static void zswb_prompt_free_prepare(const struct zswb_param *p, unsigned int on)
{
	lockdep_assert_held(&zswb_param_mutex);
	if (on && zswb_registered() && !zswb_wb_armed) {
		zswb_arm(ZSWAP_WB_WRITEBACK, true);
		zswb_wb_armed = true;
	}
}

static int zswb_prompt_free_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		INIT_DELAYED_WORK(&per_cpu_ptr(&zswb_pcp, cpu)->work, zswb_free_workfn);
	/* Dead and zero until async_free is on (zswb_pf_update()). */
	ret = percpu_ref_init(&zswb_live, zswb_live_release, PERCPU_REF_INIT_DEAD,
			      GFP_KERNEL);
	if (ret)
		return ret;
	/*
	 * Unbound, on the CPUs of wq_unbound_cpumask (not the isolated ones),
	 * and high priority: any CPU frees any CPU's list.
	 */
	zswb_wq = alloc_workqueue("zswap_wb", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!zswb_wq) {
		ret = -ENOMEM;
		goto err_ref;
	}
	ret = zswb_poison_init();
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(zswb_wq);
err_ref:
	percpu_ref_exit(&zswb_live);
	return ret;
}

/*
 * Arm or disarm what the settings ask for, after init registered (insmod
 * arguments may have turned a policy on) and after every change: fails
 * only to turn async_free on while the module is going.
 */
static int zswb_prompt_free_arm(void)
{
	return zswb_pf_update();
}

/*
 * After zswap_wb_unregister(), or when init fails before registering:
 * nothing is marked or queued any more, and zswb_live is dead and zero
 * (the module was pinned until it was).
 */
static void zswb_prompt_free_exit(void)
{
	int cpu;

	/* Nothing is queued: the probe finds nothing to take. */
	zswb_poison_exit();
	/*
	 * The release that queued the last disarm may still be returning,
	 * from a put under RCU or from percpu_ref's own RCU callback.
	 */
	rcu_barrier();
	cancel_delayed_work_sync(&zswb_disarm_work);
	/* A kick can outlive the folios it was for: the writer freed them. */
	for_each_possible_cpu(cpu)
		cancel_delayed_work_sync(&per_cpu_ptr(&zswb_pcp, cpu)->work);
	destroy_workqueue(zswb_wq);
	WARN_ON(zswb_live_on || zswb_pinned || !percpu_ref_is_zero(&zswb_live));
	percpu_ref_exit(&zswb_live);
}

const struct zswb_family zswb_prompt_free = {
	.init	= zswb_prompt_free_init,
	.arm	= zswb_prompt_free_arm,
	.exit	= zswb_prompt_free_exit,
	.prepare = zswb_prompt_free_prepare,
};
