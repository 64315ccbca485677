// SPDX-License-Identifier: GPL-2.0
/*
 * Prompt freeing of zswap writeback folios (policies sync_free, async_free):
 * the hook's writeback callbacks, the marks, and the arming of the
 * writeback point. A folio zswap writes back is allocated off the LRU and
 * freed as soon as its write is done: in writeback_issued() on
 * SWP_SYNCHRONOUS_IO swap; on block and file swap from the free queue
 * (free_queue.c). The three files of the free path share free_path.h;
 * design.rst has the argument ("The mark", "The words of struct page",
 * "The free path", "Freeing and its races", "Lifetime", "Scopes"). What
 * this file keeps:
 *
 * - Only this file stores an address of zswb_marks[] in folio->lru.prev,
 *   and only in an off-LRU folio, which nothing else links through lru.
 *   The ended word overwrites the mark when the folio is queued, before it
 *   can be freed or go back to the LRU: a page never carries a mark into
 *   its next life, and no other folio's lru.prev holds one.
 * - A folio is queued only once zswap_writeback_entry() has dropped its
 *   reference and its write has ended: the mark moves by cmpxchg, and the
 *   side that comes second queues it.
 * - Each marked folio holds a reference on zswb_live, live while async_free
 *   is on; the module stays pinned and the writeback point armed until it
 *   is back to zero. Turning async_free off stops marking and waits for
 *   nothing.
 * - A folio's counters go to the slot its mark names, whatever happens to
 *   the scopes while it is in flight; its owner's scope decides (scope.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/swap.h>
#include <linux/workqueue.h>

#include "free_path.h"

/*
 * The states of a marked folio, stored as the address of one of these in
 * folio->lru.prev: marked (write not yet submitted or not yet ended, zswap
 * still holds its reference), issued (zswap dropped its reference first),
 * ended (the write ended first; folio->lru.next holds its ended word); and,
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
 * words of struct page"): lru.next is compound_head, lru.prev is not.
 */
static_assert(offsetof(struct folio, lru.next) == offsetof(struct page, compound_head));
static_assert(offsetof(struct folio, lru.prev) != offsetof(struct page, compound_head));
static_assert(offsetof(struct folio, lru.prev) < offsetof(struct folio, mapping));
static_assert(__alignof__(zswb_marks[0][0]) >= 2);

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
		zswb_open(sc->slot);
	}
	on = READ_ONCE(sc->set.v[sync ? ZSWB_P_sync_free : ZSWB_P_async_free]);
	rcu_read_unlock();
	return on;
}

/*
 * zswap_wb_ops.alloc_off_lru: off the LRU if the policy of @memcg's scope,
 * or global's, frees the folio. Before an async writeback allocates its
 * folio, the writer frees the folios whose write ended on its CPU
 * (zswb_writer_drain()). @memcg is the entry's owner, held by the hook,
 * possibly offline, or NULL (global).
 */
bool zswb_alloc_off_lru(swp_entry_t entry, bool sync, struct mem_cgroup *memcg)
{
	if (!sync)
		zswb_writer_drain();
	/*
	 * Not a decision that counts anywhere: writeback_prepare() looks the
	 * scope up again for an off-LRU folio, writeback_issued() counts an
	 * LRU one (allocated_on_lru).
	 */
	return zswb_scope_frees(memcg, sync, NULL);
}

/*
 * zswap_wb_ops.writeback_prepare: mark a folio free, keep or (async)
 * marked, as the scope of @memcg, the entry's owner, says. A folio
 * allocated off the LRU for a policy that is off by now (turned off, or
 * its scope unbound) is kept.
 */
void zswb_writeback_prepare(struct folio *folio, bool sync, struct mem_cgroup *memcg)
{
	int slot;

	if (!zswb_scope_frees(memcg, sync, &slot)) {
		zswb_keep(folio, slot);
		return;
	}
	if (sync) {
		WRITE_ONCE(*zswb_mark_word(folio), zswb_mark(ZSWB_FREE, slot));
		return;
	}
	/*
	 * Counted before the tryget, so that a reader of "inflight" after
	 * async_free went off sees a folio that a tryget still marks (one
	 * that saw zswb_live live just before the kill). Dead once
	 * async_free is off: then the folio is kept, and counts as queued
	 * and taken at once.
	 */
	zswb_count_marked(slot);
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
		zswb_count_queued(slot);
		smp_wmb();	/* marked and queued before taken */
		zswb_count_taken(slot, 1);
		zswb_keep(folio, slot);
		return;
	}
	/* Its write is not submitted yet: no end can read the words. */
	WRITE_ONCE(folio->lru.next, (struct list_head *)zswb_start_word());
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
	smp_rmb();	/* the ended word, stored before the ended mark */
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
	unsigned long ended;

	/* Marked or issued, of any slot: the first two rows of zswb_marks[]. */
	if (i >= 2 * ZSWB_NR_SLOTS)
		return false;
	/*
	 * sched_clock, not a clocksource read: where the TSC is unstable (as
	 * in an emulated guest) the clocksource is a device, read per call.
	 */
	ended = zswb_ended_word((unsigned long)READ_ONCE(folio->lru.next), local_clock());
	if (i < ZSWB_NR_SLOTS) {	/* marked */
		/*
		 * zswap still holds its reference: writeback_issued() queues
		 * it. Until then the folio sits unlocked in the swap cache
		 * with the ended word in compound_head's word: even.
		 */
		WRITE_ONCE(folio->lru.next, (struct list_head *)ended);
		if (try_cmpxchg(word, &old, zswb_mark(ZSWB_ENDED, slot)))
			return true;
		/* It was issued meanwhile (old is now the issued mark). */
	}
	zswb_queue(folio, ended, slot);
	return true;
}

/* @nr marked folios were freed or put back: the last put after a kill releases zswb_live. */
static void zswb_marked_done(unsigned long nr)
{
	percpu_ref_put_many(&zswb_live, nr);
}

/* Predicates for zswb_settings_any(): whether @set frees promptly. */
static bool zswb_frees_sync(const struct zswb_settings *set)
{
	return set->v[ZSWB_P_sync_free];
}

static bool zswb_frees_async(const struct zswb_settings *set)
{
	return set->v[ZSWB_P_async_free];
}

/*
 * zswb_free_rearm - the arm state machine of the prompt-free path
 *
 * Arm the writeback point while a policy is on. Disarm it once none is and
 * zswb_live is back to zero: a marked folio whose writeback end is not
 * offered to us would stay off the LRU for good. Called with
 * zswb_param_mutex held; while folios are in flight, the release of
 * zswb_live runs zswb_disarm_work, which calls this again.
 */
static int zswb_free_rearm(void)
{
	bool async = zswb_settings_any(zswb_frees_async);
	bool sync = zswb_settings_any(zswb_frees_sync);
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
	zswb_free_rearm();
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
 * marks only once zswb_free_rearm() made zswb_live live, after it armed;
 * sync_free's marks, free and keep, are never taken by writeback_end().)
 * Under zswb_param_mutex.
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
	int ret;

	/* Dead and zero until async_free is on (zswb_free_rearm()). */
	ret = percpu_ref_init(&zswb_live, zswb_live_release, PERCPU_REF_INIT_DEAD,
			      GFP_KERNEL);
	if (ret)
		return ret;
	ret = zswb_free_queue_init(zswb_marked_done);
	if (ret)
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
	return zswb_free_rearm();
}

/*
 * After zswap_wb_unregister(), or when init fails before registering:
 * nothing is marked or queued any more, and zswb_live is dead and zero
 * (the module was pinned until it was).
 */
static void zswb_prompt_free_exit(void)
{
	zswb_free_queue_exit();
	/*
	 * The release that queued the last disarm may still be returning,
	 * from a put under RCU or from percpu_ref's own RCU callback.
	 */
	rcu_barrier();
	cancel_delayed_work_sync(&zswb_disarm_work);
	WARN_ON(zswb_live_on || zswb_pinned || !percpu_ref_is_zero(&zswb_live));
	percpu_ref_exit(&zswb_live);
}

const struct zswb_family zswb_prompt_free = {
	.init	= zswb_prompt_free_init,
	.arm	= zswb_prompt_free_arm,
	.exit	= zswb_prompt_free_exit,
	.prepare = zswb_prompt_free_prepare,
};
