// SPDX-License-Identifier: GPL-2.0
/*
 * Prompt freeing of zswap writeback folios (policies sync_free, async_free).
 *
 * Stock zswap leaves the folio it writes back on the LRU with PG_reclaim;
 * reclaim rotates it when the write ends and frees it on a later scan. We
 * allocate it off the LRU instead and free it as soon as its write is done:
 *
 * - sync_free, SWP_SYNCHRONOUS_IO swap (zram, brd, pmem): the write has
 *   completed when writeback_issued() is called, so the folio is freed there.
 * - async_free, block and file swap: writeback_prepare() marks the folio
 *   before its write is submitted; folio_end_writeback() hands it back to
 *   writeback_end(), in any context, which pushes it on a per-CPU llist; a
 *   work item frees it.
 *
 * The mark is membership of zswb_marked, an xarray indexed by pfn, filled
 * before the write and read under RCU at writeback end. Only folios this
 * file put there match: normal reclaim's swap cache folios, which end
 * writeback through the same folio_end_writeback() with PG_reclaim set,
 * never were, and a marked folio is erased before it can be freed, so its
 * pfn cannot be reused while marked. No page flag is used: PG_reclaim is
 * reclaim's and is cleared on a write error, exactly when the folio must
 * go back to the LRU.
 *
 * Freeing goes through zswap_wb_remove_folio(), which refuses a folio that
 * is dirty (a failed write re-dirtied it, and its zswap copy is gone: it
 * holds the only copy), mapped or referenced (a swapin claimed it). Such a
 * folio is put back on the LRU and counted; reclaim handles it as stock.
 *
 * A folio is freed only once zswap_writeback_entry() has dropped its own
 * reference (ZSWB_ISSUED), so a fast completion cannot be mistaken for a
 * swapin race. The module holds a reference while any marked folio is
 * unresolved, and the writeback point stays armed until none is. Turning
 * async_free off stops marking at once and does not wait: the folios in
 * flight are freed as their writes end, however long a device stalls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "zswap_wb.h"

/* Free writeback folios right after their write on SWP_SYNCHRONOUS_IO swap. */
static bool sync_free __read_mostly;
/* Free writeback folios from a work item when their write ends, on async swap. */
static bool async_free __read_mostly;

/* Marked folios by pfn; ZSWB_ISSUED: zswap dropped its reference. */
static DEFINE_XARRAY(zswb_marked);
#define ZSWB_ISSUED XA_MARK_1

static DEFINE_PER_CPU(struct llist_head, zswb_ended);
static struct workqueue_struct *zswb_wq;
static void zswb_free_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(zswb_free_work, zswb_free_workfn);
static int zswb_cpuhp_state;
static void zswb_disarm_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(zswb_disarm_work, zswb_disarm_workfn);

/* The writeback point serves both policies; under zswb_param_mutex. */
static bool zswb_wb_armed;

static void zswb_inflight_inc(void)
{
	/* Pin the module while a marked folio is unresolved. */
	if (atomic_long_inc_return(&zswb_inflight) == 1)
		__module_get(THIS_MODULE);
}

static void zswb_inflight_dec(void)
{
	if (atomic_long_dec_and_test(&zswb_inflight))
		module_put(THIS_MODULE);
}

/* The llist node lives in folio->lru, which an off-LRU folio does not use. */
static struct llist_node *zswb_folio_node(struct folio *folio)
{
	return (struct llist_node *)&folio->lru.next;
}

static struct folio *zswb_node_folio(struct llist_node *node)
{
	return container_of((struct list_head *)node, struct folio, lru);
}

/* Free @folio, ours with one reference, or put it back on the LRU. */
static void zswb_finish(struct folio *folio, enum zswb_stat_item freed)
{
	folio_lock(folio);
	if (zswap_wb_remove_folio(folio)) {
		zswb_count(freed);
	} else {
		/*
		 * A failed write re-dirtied it in the swap cache: it holds the
		 * only copy. A swapin that freed the swap slot dirtied it too,
		 * but took it out of the swap cache: that is a race.
		 */
		zswb_count(folio_test_dirty(folio) && folio_test_swapcache(folio) ?
			   ZSWB_WRITE_ERRORS : ZSWB_RACED);
		folio_add_lru(folio);
	}
	folio_unlock(folio);
	folio_put(folio);
}

/* zswap_wb_ops.alloc_off_lru: off the LRU while the policy is on. */
bool zswb_alloc_off_lru(swp_entry_t entry, bool sync)
{
	return sync ? READ_ONCE(sync_free) : READ_ONCE(async_free);
}

/* zswap_wb_ops.writeback_prepare: mark an async folio before its write. */
void zswb_writeback_prepare(struct folio *folio, bool sync)
{
	if (sync)
		return;
	zswb_inflight_inc();
	/* Pairs with the barrier in zswb_pf_update(). */
	smp_mb__after_atomic();
	if (!READ_ONCE(async_free)) {
		zswb_inflight_dec();
		return;
	}
	if (xa_err(xa_store(&zswb_marked, folio_pfn(folio), folio, GFP_KERNEL))) {
		zswb_count(ZSWB_MARK_FAILED);
		zswb_inflight_dec();
	}
}

/* zswap_wb_ops.writeback_issued: the folio and zswap's reference are ours. */
void zswb_writeback_issued(struct folio *folio, bool sync, bool off_lru)
{
	unsigned long pfn = folio_pfn(folio);

	zswb_count(ZSWB_WRITTEN_BACK);
	if (!off_lru) {
		zswb_count(ZSWB_FALLBACKS);
		folio_put(folio);
		return;
	}
	if (sync) {
		zswb_finish(folio, ZSWB_FREED_SYNC);
		return;
	}
	if (xa_load(&zswb_marked, pfn) != folio) {
		/* Not marked (policy just turned off, or no memory): stock LRU. */
		if (!READ_ONCE(async_free))
			zswb_count(ZSWB_FALLBACKS);
		folio_add_lru(folio);
		folio_put(folio);
		return;
	}
	/* The swap cache and the end-of-writeback reference keep it alive. */
	folio_put(folio);
	xa_set_mark(&zswb_marked, pfn, ZSWB_ISSUED);
}

/* zswap_wb_ops.writeback_end: any context, under RCU. */
bool zswb_writeback_end(struct folio *folio)
{
	long depth, max;

	if (!atomic_long_read(&zswb_inflight) ||
	    xa_load(&zswb_marked, folio_pfn(folio)) != folio)
		return false;

	/* lru.next links the llist; lru.prev keeps the end time. */
	folio->lru.prev = (void *)(unsigned long)ktime_get_mono_fast_ns();
	llist_add(zswb_folio_node(folio), raw_cpu_ptr(&zswb_ended));
	depth = atomic_long_inc_return(&zswb_queue_depth);
	max = atomic_long_read(&zswb_queue_depth_max);
	while (depth > max &&
	       !atomic_long_try_cmpxchg(&zswb_queue_depth_max, &max, depth))
		;
	queue_delayed_work(zswb_wq, &zswb_free_work, 0);
	return true;
}

/* Free the folios queued on @cpu; requeue those zswap has not let go yet. */
static bool zswb_drain_cpu(int cpu)
{
	struct llist_node *pos, *next, *list;
	LLIST_HEAD(retry);
	bool requeue = false;

	list = llist_del_all(per_cpu_ptr(&zswb_ended, cpu));
	llist_for_each_safe(pos, next, list) {
		struct folio *folio = zswb_node_folio(pos);
		unsigned long pfn = folio_pfn(folio);
		u64 ended = (unsigned long)folio->lru.prev;

		if (!xa_get_mark(&zswb_marked, pfn, ZSWB_ISSUED)) {
			zswb_count(ZSWB_REQUEUED);
			llist_add(pos, &retry);
			requeue = true;
			continue;
		}
		xa_erase(&zswb_marked, pfn);
		atomic_long_dec(&zswb_queue_depth);
		zswb_record_latency(ktime_get_mono_fast_ns() - ended);
		zswb_finish(folio, ZSWB_FREED_ASYNC);
		zswb_inflight_dec();
		cond_resched();
	}
	llist_for_each_safe(pos, next, retry.first)
		llist_add(pos, per_cpu_ptr(&zswb_ended, cpu));
	return requeue;
}

static void zswb_free_workfn(struct work_struct *work)
{
	bool requeue = false;
	int cpu;

	zswb_count(ZSWB_WORK_RUNS);
	for_each_possible_cpu(cpu)
		requeue |= zswb_drain_cpu(cpu);
	if (requeue)
		queue_delayed_work(zswb_wq, &zswb_free_work, 1);
}

/* A CPU going offline: free what it queued now, not at the next run. */
static int zswb_cpu_offline(unsigned int cpu)
{
	if (zswb_drain_cpu(cpu))
		queue_delayed_work(zswb_wq, &zswb_free_work, 1);
	return 0;
}

/*
 * Arm the writeback point while a policy is on. Disarm it once none is and
 * no marked folio is left: a marked folio whose writeback end is not offered
 * to us would stay off the LRU for good. Called with zswb_param_mutex held;
 * while folios are in flight, zswb_disarm_work tries again later.
 */
static void zswb_pf_update(void)
{
	bool want = READ_ONCE(sync_free) || READ_ONCE(async_free);

	lockdep_assert_held(&zswb_param_mutex);
	if (!zswb_registered())
		return;
	if (want && !zswb_wb_armed) {
		zswb_arm(ZSWAP_WB_WRITEBACK, true);
		zswb_wb_armed = true;
	} else if (!want && zswb_wb_armed) {
		/* async_free is off: pairs with zswb_writeback_prepare() */
		smp_mb();
		if (atomic_long_read(&zswb_inflight)) {
			queue_delayed_work(system_wq, &zswb_disarm_work, HZ);
			return;
		}
		zswb_arm(ZSWAP_WB_WRITEBACK, false);
		zswb_wb_armed = false;
	}
}

static void zswb_disarm_workfn(struct work_struct *work)
{
	mutex_lock(&zswb_param_mutex);
	zswb_pf_update();
	mutex_unlock(&zswb_param_mutex);
}

static int zswb_free_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = zswb_parse_bool(val, &on);
	if (ret) {
		pr_err("%s: '%.*s' is not a boolean\n", kp->name,
		       (int)strcspn(val, "\n"), val);
		return ret;
	}
	/*
	 * Turning async_free off does not wait for the folios in flight: the
	 * kernel holds every zswap_wb parameter's lock around this call, and
	 * a stalled swap device would hold them all. Marking stops now; the
	 * work item frees what is in flight as its writes end ("inflight" in
	 * debugfs counts them down) and zswb_disarm_work disarms the point
	 * after the last one. zswbctl waits for that, killably.
	 */
	mutex_lock(&zswb_param_mutex);
	WRITE_ONCE(*(bool *)kp->arg, on);
	zswb_pf_update();
	mutex_unlock(&zswb_param_mutex);
	return 0;
}

static const struct kernel_param_ops zswb_free_param_ops = {
	.set = zswb_free_param_set,
	.get = param_get_bool,
};

/*
 * Free writeback folios right after their write on SWP_SYNCHRONOUS_IO swap
 * (zram, brd, pmem). Default N.
 */
module_param_cb(sync_free, &zswb_free_param_ops, &sync_free, 0644);
MODULE_PARM_DESC(sync_free, "Free zswap writeback folios right after their write on synchronous swap (default N)");

/*
 * Free writeback folios from a work item as soon as their write ends, on
 * block and file swap. Turning it off stops marking at once; folios in
 * flight are still freed as their writes end. Default N.
 */
module_param_cb(async_free, &zswb_free_param_ops, &async_free, 0644);
MODULE_PARM_DESC(async_free, "Free zswap writeback folios when their write ends on async swap (default N)");

int zswb_prompt_free_init(void)
{
	int ret;

	zswb_wq = alloc_workqueue("zswap_wb", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!zswb_wq)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "mm/zswap_wb:online",
					NULL, zswb_cpu_offline);
	if (ret < 0) {
		destroy_workqueue(zswb_wq);
		return ret;
	}
	zswb_cpuhp_state = ret;
	return 0;
}

/* Arm the writeback point if insmod arguments turned a policy on. */
void zswb_prompt_free_arm(void)
{
	zswb_pf_update();
}

/*
 * After zswap_wb_unregister(), or when init fails before registering:
 * nothing is marked or queued any more.
 */
void zswb_prompt_free_exit(void)
{
	cancel_delayed_work_sync(&zswb_disarm_work);
	cancel_delayed_work_sync(&zswb_free_work);
	cpuhp_remove_state_nocalls(zswb_cpuhp_state);
	destroy_workqueue(zswb_wq);
	WARN_ON(atomic_long_read(&zswb_inflight) || !xa_empty(&zswb_marked));
}
