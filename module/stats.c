// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_wb statistics: the per-CPU words the free path and the policies
 * count in (zswap_wb.h), summed when read.
 *
 * Each event is counted in one slot (zswap_wb.h): slot 0 is global's, the
 * others are given to the scopes (scope.c) as they are made. A view is
 * what a reader sums: ZSWB_VIEW_HOST every slot, a scope's its slot,
 * global's slot 0 and the slots of removed scopes, so that the scopes,
 * global included, add up to the host. This file owns the slots (their
 * snapshots, what a removed scope left, whether one is quiet) and reset;
 * debugfs.c presents the views, under zswb_stats_lock().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "zswap_wb.h"

DEFINE_PER_CPU(struct zswb_pcpu_stats, zswb_pcpu_stats);
/* The per-node counters: NR_ZSWB_NODE_STATS for each of nr_node_ids, per CPU. */
unsigned long __percpu *zswb_node_stats;
/* The scopes' slots' counters; [0] is unused: slot 0 is the two above. */
struct zswb_slot_pcpu zswb_slot_pcpu[ZSWB_NR_SLOTS];

/*
 * The words of struct zswb_pcpu_stats that are summed: the counters and
 * the latency buckets (reset zeroes them), then the gauges' ups and downs
 * (reset keeps them).
 */
#define ZSWB_RESET_WORDS	(offsetof(struct zswb_pcpu_stats, marked) / sizeof(long))
#define ZSWB_SUM_WORDS		(offsetof(struct zswb_pcpu_stats, drain_max) / sizeof(long))
static_assert(offsetof(struct zswb_pcpu_stats, count) == 0);
static_assert(offsetof(struct zswb_pcpu_stats, latency) ==
	      NR_ZSWB_STATS * sizeof(long));
static_assert(offsetof(struct zswb_pcpu_stats, marked) ==
	      offsetof(struct zswb_pcpu_stats, latency[ZSWB_LAT_BUCKETS]));
static_assert(offsetof(struct zswb_pcpu_stats, taken) + sizeof(long) ==
	      offsetof(struct zswb_pcpu_stats, drain_max));

/*
 * Reset takes a snapshot instead of writing other CPUs' counters: a
 * counter reads as its sum less its value at the last reset. Under
 * zswb_stats_mutex, with every reader. The maximum restarts through a
 * generation, one per slot, that each CPU compares with its own before it
 * updates it.
 *
 * A slot is used once a scope had it; live while a scope has it. A slot
 * given to a new scope first folds what it counted into zswb_retired,
 * which global's view adds, and takes a snapshot of everything: the new
 * scope starts at zero, and the host's totals do not move.
 */
static DEFINE_MUTEX(zswb_stats_mutex);
static struct zswb_slot {
	unsigned long base[ZSWB_SUM_WORDS];	/* the snapshot */
	unsigned long *node_base;		/* as its node counters */
	bool used, live;
} zswb_slots[ZSWB_NR_SLOTS];
static unsigned long zswb_retired[ZSWB_SUM_WORDS];
static unsigned long *zswb_retired_node;
/* Read locklessly by zswb_note_drain(). */
static unsigned long zswb_slot_gen[ZSWB_NR_SLOTS];

/* Readers of the views (debugfs.c) hold the mutex across a file's values. */
void zswb_stats_lock(void)
{
	mutex_lock(&zswb_stats_mutex);
}

void zswb_stats_unlock(void)
{
	mutex_unlock(&zswb_stats_mutex);
}

static bool zswb_in_view(int view, int slot)
{
	if (!zswb_slots[slot].used)
		return false;
	if (view == ZSWB_VIEW_HOST)
		return true;
	if (!view)
		return !slot || !zswb_slots[slot].live;
	return slot == view;
}

/* Sum word @w of struct zswb_pcpu_stats of @slot over the CPUs. */
static unsigned long zswb_slot_sum(int slot, unsigned int w)
{
	struct zswb_pcpu_stats __percpu *st = zswb_stats_of(slot);
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += ((unsigned long *)per_cpu_ptr(st, cpu))[w];
	return sum;
}

/* Word @w summed over @view, less the snapshots. Under the mutex. */
static unsigned long zswb_view_sum(int view, unsigned int w)
{
	unsigned long sum = view <= 0 ? zswb_retired[w] : 0;
	int slot;

	lockdep_assert_held(&zswb_stats_mutex);
	for (slot = 0; slot < ZSWB_NR_SLOTS; slot++)
		if (zswb_in_view(view, slot))
			sum += zswb_slot_sum(slot, w) - zswb_slots[slot].base[w];
	return sum;
}

#define ZSWB_WORD(field)	(offsetof(struct zswb_pcpu_stats, field) / sizeof(long))
#define ZSWB_SUM(view, field)	zswb_view_sum(view, ZSWB_WORD(field))

static unsigned long __percpu *zswb_node_of(int slot)
{
	return slot ? zswb_slot_pcpu[slot].node : zswb_node_stats;
}

/* The sum of per-node counter @i (a node's @item) of @slot over the CPUs. */
static unsigned long zswb_node_slot_sum(int slot, unsigned int i)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(zswb_node_of(slot), cpu)[i];
	return sum;
}

static unsigned long zswb_node_sum(int view, unsigned int i)
{
	unsigned long sum = view <= 0 ? zswb_retired_node[i] : 0;
	int slot;

	lockdep_assert_held(&zswb_stats_mutex);
	for (slot = 0; slot < ZSWB_NR_SLOTS; slot++)
		if (zswb_in_view(view, slot))
			sum += zswb_node_slot_sum(slot, i) - zswb_slots[slot].node_base[i];
	return sum;
}

/* A gauge: what went up less what went down, never below 0 when read. */
static unsigned long zswb_gauge(unsigned long up, unsigned long down)
{
	long v = (long)(up - down);

	return v > 0 ? v : 0;
}

/*
 * The gauges of zswap_wb_stats.h, under the mutex. What went down is read
 * first: each folio is counted up before it is counted down, so a sum of
 * ups read after the sum of downs covers every down seen, and a gauge
 * never reads below the truth (a wait for 0 does not end early). A folio
 * is counted up and down in the same slot: the one its mark carries.
 */
static unsigned long zswb_gauge_queue_depth(int view)
{
	unsigned long down = ZSWB_SUM(view, taken);

	smp_rmb();	/* the downs before the ups */
	return zswb_gauge(ZSWB_SUM(view, queued), down);
}

static unsigned long zswb_gauge_inflight(int view)
{
	unsigned long down = ZSWB_SUM(view, taken);

	smp_rmb();	/* the downs before the ups */
	return zswb_gauge(ZSWB_SUM(view, marked), down);
}

/* The most folios of @view one drain took off a CPU's list. */
static unsigned long zswb_gauge_queue_depth_max(int view)
{
	unsigned long max = 0;
	int cpu, slot;

	lockdep_assert_held(&zswb_stats_mutex);
	for (slot = 0; slot < ZSWB_NR_SLOTS; slot++) {
		if (!zswb_in_view(view, slot))
			continue;
		for_each_possible_cpu(cpu) {
			struct zswb_pcpu_stats *st = per_cpu_ptr(zswb_stats_of(slot), cpu);

			if (READ_ONCE(st->drain_gen) == zswb_slot_gen[slot])
				max = max(max, READ_ONCE(st->drain_max));
		}
	}
	return max;
}

/* Gauge @gauge of @view: zswb_gauge_<name>() of its row. */
unsigned long zswb_stats_gauge(int view, unsigned int gauge)
{
	static unsigned long (* const gauges[])(int view) = {
#define ZSWB_GAUGE(name, ...)	zswb_gauge_##name,
#include "zswap_wb_stats.h"
	};

	lockdep_assert_held(&zswb_stats_mutex);
	return gauges[gauge](view);
}

/* Counter @item of @view. */
unsigned long zswb_stats_count(int view, unsigned int item)
{
	return ZSWB_SUM(view, count[item]);
}

/* Per-node counter @item of node @nid of @view. */
unsigned long zswb_stats_node_count(int view, int nid, unsigned int item)
{
	return zswb_node_sum(view, nid * NR_ZSWB_NODE_STATS + item);
}

/* The free latency histogram of @view. */
void zswb_stats_latency(int view, unsigned long lat[ZSWB_LAT_BUCKETS])
{
	int i;

	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		lat[i] = ZSWB_SUM(view, latency[i]);
}

/*
 * A drain on this CPU took @nr folios of @slot off a list: the longest
 * run seen since load or reset. Preemption is off; only this CPU writes
 * its words.
 */
void zswb_note_drain(int slot, unsigned long nr)
{
	struct zswb_pcpu_stats *st = this_cpu_ptr(zswb_stats_of(slot));
	unsigned long gen = READ_ONCE(zswb_slot_gen[slot]);

	if (st->drain_gen != gen) {
		WRITE_ONCE(st->drain_max, 0);
		WRITE_ONCE(st->drain_gen, gen);
	}
	if (nr > st->drain_max)
		WRITE_ONCE(st->drain_max, nr);
}

/*
 * zswb_stats_reset - zero every counter of every view
 *
 * A counter reads as its sum less its value here; the latency histogram
 * too.
 * Gauges describe the present and are not reset, except the maximum.
 * Every slot is reset, and what removed scopes counted.
 */
void zswb_stats_reset(void)
{
	int i, slot;

	mutex_lock(&zswb_stats_mutex);
	for (slot = 0; slot < ZSWB_NR_SLOTS; slot++) {
		struct zswb_slot *sl = &zswb_slots[slot];

		if (!sl->used)
			continue;
		for (i = 0; i < ZSWB_RESET_WORDS; i++)
			sl->base[i] = zswb_slot_sum(slot, i);
		for (i = 0; i < nr_node_ids * NR_ZSWB_NODE_STATS; i++)
			sl->node_base[i] = zswb_node_slot_sum(slot, i);
		WRITE_ONCE(zswb_slot_gen[slot], zswb_slot_gen[slot] + 1);
	}
	memset(zswb_retired, 0, ZSWB_RESET_WORDS * sizeof(long));
	memset(zswb_retired_node, 0,
	       nr_node_ids * NR_ZSWB_NODE_STATS * sizeof(long));
	mutex_unlock(&zswb_stats_mutex);
}

static void zswb_stats_free(void)
{
	int slot;

	for (slot = 1; slot < ZSWB_NR_SLOTS; slot++) {
		free_percpu(zswb_slot_pcpu[slot].stats);
		free_percpu(zswb_slot_pcpu[slot].node);
		zswb_slot_pcpu[slot].stats = NULL;
		zswb_slot_pcpu[slot].node = NULL;
	}
	for (slot = 0; slot < ZSWB_NR_SLOTS; slot++) {
		kfree(zswb_slots[slot].node_base);
		zswb_slots[slot].node_base = NULL;
		zswb_slots[slot].used = false;
	}
	free_percpu(zswb_node_stats);
	kfree(zswb_retired_node);
}

/**
 * zswb_stats_slot_alloc - give slot @slot counters, if it has none yet
 * @slot: 1 to ZSWB_NR_SLOTS - 1
 *
 * Kept until the module is unloaded: a folio in flight counts in the slot
 * its mark carries, whatever became of its scope. Under zswb_param_mutex.
 *
 * Return: 0, or -ENOMEM.
 */
int zswb_stats_slot_alloc(int slot)
{
	struct zswb_slot_pcpu *pc = &zswb_slot_pcpu[slot];
	unsigned int n = nr_node_ids * NR_ZSWB_NODE_STATS;
	struct zswb_slot *sl = &zswb_slots[slot];

	if (sl->used)
		return 0;
	pc->stats = alloc_percpu(struct zswb_pcpu_stats);
	pc->node = __alloc_percpu(n * sizeof(unsigned long), __alignof__(unsigned long));
	sl->node_base = kcalloc(n, sizeof(*sl->node_base), GFP_KERNEL);
	if (!pc->stats || !pc->node || !sl->node_base) {
		free_percpu(pc->stats);
		free_percpu(pc->node);
		kfree(sl->node_base);
		pc->stats = NULL;
		pc->node = NULL;
		sl->node_base = NULL;
		return -ENOMEM;
	}
	mutex_lock(&zswb_stats_mutex);
	sl->used = true;
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}

/*
 * Whether no folio that slot @slot's scope marked is still in flight, and
 * none it looked up is still to be counted (opened, closed): then, with no
 * scope left to count in it, nothing counts in it again.
 */
bool zswb_stats_slot_quiet(int slot)
{
	unsigned long closed = 0, opened = 0;
	bool quiet = true;
	int cpu;

	mutex_lock(&zswb_stats_mutex);
	/* A slot never used has no counters to read. */
	if (zswb_slots[slot].used) {
		for_each_possible_cpu(cpu)
			closed += READ_ONCE(per_cpu_ptr(zswb_stats_of(slot), cpu)->closed);
		/*
		 * The closes before the ups (marked, opened): zswb_close()
		 * orders a folio's marked before its close, so a close seen
		 * here shows its marked too. Every open that counts was made
		 * in an RCU section that rmdir's grace period waited for.
		 */
		smp_rmb();
		for_each_possible_cpu(cpu)
			opened += READ_ONCE(per_cpu_ptr(zswb_stats_of(slot), cpu)->opened);
		quiet = !zswb_gauge_inflight(slot) && opened == closed;
	}
	mutex_unlock(&zswb_stats_mutex);
	return quiet;
}

/*
 * Fold what quiet slot @slot counted into zswb_retired (global's view)
 * and take a snapshot of every word, for a new scope to start at zero.
 */
void zswb_stats_slot_fold(int slot)
{
	struct zswb_slot *sl = &zswb_slots[slot];
	unsigned long v;
	int i;

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < ZSWB_SUM_WORDS; i++) {
		v = zswb_slot_sum(slot, i);
		zswb_retired[i] += v - sl->base[i];
		sl->base[i] = v;
	}
	for (i = 0; i < nr_node_ids * NR_ZSWB_NODE_STATS; i++) {
		v = zswb_node_slot_sum(slot, i);
		zswb_retired_node[i] += v - sl->node_base[i];
		sl->node_base[i] = v;
	}
	WRITE_ONCE(zswb_slot_gen[slot], zswb_slot_gen[slot] + 1);
	mutex_unlock(&zswb_stats_mutex);
}

/* A scope has slot @slot (@live), or had it: its counts go to global's view. */
void zswb_stats_slot_live(int slot, bool live)
{
	mutex_lock(&zswb_stats_mutex);
	zswb_slots[slot].live = live;
	mutex_unlock(&zswb_stats_mutex);
}

int zswb_stats_init(void)
{
	unsigned int n = nr_node_ids * NR_ZSWB_NODE_STATS;

	zswb_node_stats = __alloc_percpu(n * sizeof(unsigned long), __alignof__(unsigned long));
	zswb_slots[0].node_base = kcalloc(n, sizeof(long), GFP_KERNEL);
	zswb_retired_node = kcalloc(n, sizeof(long), GFP_KERNEL);
	if (!zswb_node_stats || !zswb_slots[0].node_base || !zswb_retired_node) {
		zswb_stats_free();
		return -ENOMEM;
	}
	zswb_slots[0].used = true;
	return 0;
}

void zswb_stats_exit(void)
{
	zswb_stats_free();
}
