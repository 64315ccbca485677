/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free path of sync_free and async_free, between its three files:
 * prompt_free.c, the policy: the hook's writeback callbacks, the marks and
 * the arming of the writeback point; free_queue.c, the per-CPU lists of
 * ended folios, their drains and the work item, and the free of one folio;
 * reclaim_target.c, the memcg each free names in its shadow entry.
 * design.rst has the argument ("The mark", "The words of struct page",
 * "The free path", "Freeing and its races", "Lifetime").
 */
#ifndef _ZSWAP_WB_FREE_PATH_H
#define _ZSWAP_WB_FREE_PATH_H

#include "zswap_wb.h"

/*
 * A folio's mark, its state while the module holds it: lru.prev, which is
 * not compound_head. Only the free path writes it, and only in an
 * off-LRU folio, which nothing else links through lru.
 */
static inline unsigned long *zswb_mark_word(struct folio *folio)
{
	return (unsigned long *)&folio->lru.prev;
}

/*
 * The words of a marked folio's times. writeback_prepare() stores its
 * start in lru.next: jiffies times four, so that bit 0 (in compound_head's
 * word, "tail page") and bit 1 (page_is_pfmemalloc()) are clear. The end
 * replaces it with the ended word, kept in lru.next until the folio is
 * queued and then in its queued word (lru.prev) beside the slot and lock
 * bits: the end (local_clock()) in 64 ns units in bits 6 to 47, so that
 * differences are modulo 2^48 ns (78 hours), and the jiffies from the
 * start to the end in bits 48 to 62, at most 32,767. Its low 6 bits and
 * bit 63 are clear: no word of a page at free matches PP_SIGNATURE.
 */
#define ZSWB_END_SHIFT		6
#define ZSWB_END_MASK		GENMASK_ULL(47, ZSWB_END_SHIFT)
#define ZSWB_TOOK_SHIFT		48
#define ZSWB_TOOK_MAX		0x7fffUL
static_assert(((ZSWB_TOOK_MAX << ZSWB_TOOK_SHIFT) & ZSWB_END_MASK) == 0);
static_assert((ZSWB_TOOK_MAX << ZSWB_TOOK_SHIFT) < BIT(63));

static inline unsigned long zswb_start_word(void)
{
	unsigned long now = jiffies;

	return now * 4;
}

/* The ended word of a folio started at @start (its start word) ending at @now. */
static inline unsigned long zswb_ended_word(unsigned long start, u64 now)
{
	unsigned long took = (zswb_start_word() - start) / 4;

	return (now & ZSWB_END_MASK) | min(took, ZSWB_TOOK_MAX) << ZSWB_TOOK_SHIFT;
}

/* The ns from the end in @word to @now; 0 if @now reads before it (another CPU's clock). */
static inline u64 zswb_ended_since(unsigned long word, u64 now)
{
	u64 ns = ((now & ZSWB_END_MASK) - (word & ZSWB_END_MASK)) & ZSWB_END_MASK;

	return ns & BIT_ULL(47) ? 0 : ns;
}

/* The jiffies from the start to the end in @word. */
static inline unsigned long zswb_ended_took(unsigned long word)
{
	return word >> ZSWB_TOOK_SHIFT;
}

/*
 * free_queue.c. @done is called with the number of folios each drain took
 * (freed or put back), after it has counted them: prompt_free.c drops
 * their references on zswb_live.
 */
int zswb_free_queue_init(void (*done)(unsigned long nr));
void zswb_free_queue_exit(void);
void zswb_queue(struct folio *folio, unsigned long ended, int slot);
void zswb_writer_drain(void);
void zswb_finish(struct folio *folio, int slot, enum zswb_stat_item freed);

/*
 * reclaim_target.c: where the frees of a run of folios of one memcg are
 * named and counted; zswb_remove() looks the target up for the run's
 * first folio.
 */
struct zswb_sighting;

struct zswb_run {
	struct mem_cgroup *memcg;	/* the run's memcg; NULL before the first */
	struct mem_cgroup *target;	/* named in its shadow entries */
	u64 waited;			/* ns since the folio's write ended */
	unsigned long took;		/* jiffies its write took */
#ifdef CONFIG_MEMCG
	struct zswb_sighting *seen;	/* its memcg's sighting, or NULL */
	u64 word;			/* that sighting's word at the lookup */
	unsigned long freed;		/* pages freed naming it, not yet added */
#endif
};

bool zswb_remove(struct folio *folio, struct zswb_run *run);
void zswb_run_add(struct zswb_run *run);
void zswb_pending_add(struct zswb_run *run);

#endif /* _ZSWAP_WB_FREE_PATH_H */
