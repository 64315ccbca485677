// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg a freed writeback folio names in its shadow entry: the one
 * whose reclaim stock would free it in (zswb_reclaim_target()), looked up
 * once per run of folios of one memcg, and the sightings of memcgs at
 * their limit that keep naming a memcg the module's own frees took below
 * it. design.rst, "Freeing and its races", has the argument.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/memcontrol.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/swap.h>

#include "free_path.h"

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

/*
 * The jiffies from @word's writing to the start of a write that took
 * @took jiffies and ended @waited ns ago, 0 if it was written after. A
 * write is credited a hold at most: a sighting from before a longer one
 * says nothing of the memcg's reclaim at its end.
 */
static u32 zswb_seen_age_at(u64 word, u64 waited, unsigned long took)
{
	u32 age = zswb_seen_age(word);
	unsigned long since = nsecs_to_jiffies(waited) + min(took, ZSWB_SEEN_HOLD);

	return age > since ? age - since : 0;
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
 * memcg's next reclaim, counted in pages, not time.
 * Frees that named the root are not counted: stock's global reclaim
 * would free those too. Where the memcg at its limit is an ancestor, the
 * frees of its other children are not counted, and the count lags the
 * uncharges by a batch per CPU: mostly a smaller sum (the pages of a run
 * that ends within a drain's batch are added before the batch is put).
 * So for a folio whose write started within ZSWB_SEEN_HOLD of the
 * sighting the memcg is the target whatever the sum: stock's usage itself
 * hovers below the limit between its reclaims, by what one frees beyond
 * the charge that failed. The hold runs to the write's start, not to the
 * lookup: the writer was in that reclaim then, stock's folio waits for
 * the next one from the write's end, and neither the write's time nor
 * the time it waits queued is the workload's. It is jiffies, which a
 * kernel slow beside its work (a starved vCPU) spends faster; design.rst
 * has what that costs.
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
		if (zswb_seen_age_at(word, run->waited, run->took) >= ZSWB_SEEN_HOLD &&
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
void zswb_run_add(struct zswb_run *run)
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
 * with it zeroed (a synchronous free: the write ends now, and took no
 * time that counts: zram's and brd's writes are a copy), set its
 * @waited and @took to the time since each folio's write ended and the
 * time the write took before the call,
 * and end it with zswb_run_add(). A folio's memcg is stable while
 * it is locked, and one still charged keeps its ancestors.
 */
bool zswb_remove(struct folio *folio, struct zswb_run *run)
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
 * Add the pages of a synchronous free, @run's, to the sighting once
 * ZSWB_SEEN_BATCH of them are pending on this CPU, or when the pending
 * ones are of another sighting: the writer frees one folio at a time.
 * Pending pages of a sighting since replaced are dropped, and a CPU's
 * last few may never be added: a smaller count.
 */
void zswb_pending_add(struct zswb_run *run)
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
