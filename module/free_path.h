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
 * A time (ns) as it is stored in an lru word: even. In lru.next an odd
 * value is a tail page's head pointer to compound_head(); 1 ns is not
 * worth a histogram bucket.
 */
static inline unsigned long zswb_time_word(u64 ns)
{
	return (unsigned long)ns & ~1UL;
}

/*
 * free_queue.c. @done is called with the number of folios each drain took
 * (freed or put back), after it has counted them: prompt_free.c drops
 * their references on zswb_live.
 */
int zswb_free_queue_init(void (*done)(unsigned long nr));
void zswb_free_queue_exit(void);
void zswb_queue(struct folio *folio, u64 ended, int slot);
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
