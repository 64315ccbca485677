// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_wb statistics in debugfs: /sys/kernel/debug/zswap_wb/
 *
 * One read-only file per counter and gauge, a "stats" file of "key value"
 * lines (like memory.stat) holding every counter, gauge and latency
 * percentile, "schema", which names and describes each of them and each
 * parameter, "free_latency_us", the histogram behind the percentiles, and
 * "reset", which zeroes the counters for an A/B run when 1 is written to
 * it. The statistics are the rows of zswap_wb_stats.h.
 *
 * scopes/NAME/ holds a "stats" and a "free_latency_us" of the same format
 * for each scope (scope.c), and scopes/global/ for what no scope covers.
 * Each event is counted in one slot (zswap_wb.h); a file sums a view of
 * the slots: the top-level files every slot, a scope's its slot, global's
 * slot 0 and the slots of removed scopes, so that the scopes, global
 * included, add up to the top-level files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/log2.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

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

static struct dentry *zswb_debugfs_root, *zswb_scopes_root;

/*
 * What a file sums: ZSWB_VIEW_HOST (every slot), or a slot: 0 is
 * "global" (with the slots no scope has and what was folded), another
 * that scope's alone. debugfs keeps it as the file's data, plus one.
 */
#define ZSWB_VIEW_HOST	(-1)

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

enum zswb_stat_kind {
	ZSWB_STAT_COUNTER,
	ZSWB_STAT_NODE_COUNTER,
	ZSWB_STAT_GAUGE,
	ZSWB_STAT_PERCENTILE,
};

/* Every statistic, a row of zswap_wb_stats.h each, in its order. */
static const struct zswb_stat {
	const char *name;
	const char *help;
	enum zswb_stat_kind kind;
	unsigned int item;		/* counters: the index of the count */
	unsigned int pct;		/* percentiles */
	unsigned long (*gauge)(int view);	/* gauges */
} zswb_stats[] = {
#define ZSWB_COUNTER(_item, _name, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_COUNTER,	\
	  .item = ZSWB_##_item },
#define ZSWB_NODE_COUNTER(_item, _name, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_NODE_COUNTER, \
	  .item = ZSWB_NODE_##_item },
#define ZSWB_GAUGE(_name, _help)					\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_GAUGE,	\
	  .gauge = zswb_gauge_##_name },
#define ZSWB_PERCENTILE(_name, _pct, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_PERCENTILE,	\
	  .pct = _pct },
#include "zswap_wb_stats.h"
};

#define ZSWB_NR_ROWS	ARRAY_SIZE(zswb_stats)

static unsigned long zswb_latency(int view, int i)
{
	return ZSWB_SUM(view, latency[i]);
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

/* The upper bound in us of the bucket holding the @pct percentile, or 0. */
static unsigned long zswb_latency_pct(const unsigned long *lat, unsigned int pct)
{
	unsigned long total = 0, seen = 0, want;
	int i;

	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		total += lat[i];
	if (!total)
		return 0;
	want = DIV_ROUND_UP(total * pct, 100);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++) {
		seen += lat[i];
		if (seen >= want)
			break;
	}
	return 2UL << min(i, ZSWB_LAT_BUCKETS - 1);
}

/*
 * The value of @s (on node @nid for a per-node counter; from the latency
 * snapshot @lat for a percentile). Under the mutex.
 */
static unsigned long zswb_value(int view, const struct zswb_stat *s, int nid,
				const unsigned long *lat)
{
	unsigned int i = nid * NR_ZSWB_NODE_STATS + s->item;

	lockdep_assert_held(&zswb_stats_mutex);
	switch (s->kind) {
	case ZSWB_STAT_COUNTER:
		return ZSWB_SUM(view, count[s->item]);
	case ZSWB_STAT_NODE_COUNTER:
		return zswb_node_sum(view, i);
	case ZSWB_STAT_GAUGE:
		return s->gauge(view);
	case ZSWB_STAT_PERCENTILE:
		return zswb_latency_pct(lat, s->pct);
	}
	return 0;
}

/* A file's view: its data less one (the top-level files have none). */
static int zswb_file_view(struct seq_file *m)
{
	return (long)m->private - 1;
}

/* Every row but the per-node ones, then those, node by node. */
static int zswb_stats_show(struct seq_file *m, void *v)
{
	unsigned long lat[ZSWB_LAT_BUCKETS];
	const struct zswb_stat *s;
	int i, view = zswb_file_view(m);

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		lat[i] = zswb_latency(view, i);
	for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
		if (s->kind != ZSWB_STAT_NODE_COUNTER)
			seq_printf(m, "%s %lu\n", s->name, zswb_value(view, s, 0, lat));
	for_each_node(i)
		for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
			if (s->kind == ZSWB_STAT_NODE_COUNTER)
				seq_printf(m, "%s_node%d %lu\n", s->name, i,
					   zswb_value(view, s, i, NULL));
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_stats);

/*
 * Every statistic, then every parameter, a line each of tab-separated
 * fields (Documentation/zswap_wb.rst, "schema"):
 * "stat name kind unit help" and "param name kind values default flags help".
 */
static int zswb_schema_show(struct seq_file *m, void *v)
{
	const struct zswb_stat *s;

	for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
		seq_printf(m, "stat\t%s%s\t%s\t%s\t%s\n", s->name,
			   s->kind == ZSWB_STAT_NODE_COUNTER ? "_node<N>" : "",
			   s->kind == ZSWB_STAT_COUNTER ||
			   s->kind == ZSWB_STAT_NODE_COUNTER ? "counter" : "gauge",
			   s->kind == ZSWB_STAT_PERCENTILE ? "us" : "-", s->help);
	zswb_params_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_schema);

static int zswb_latency_show(struct seq_file *m, void *v)
{
	int i, view = zswb_file_view(m);

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		seq_printf(m, "%lu %lu\n", 2UL << i, zswb_latency(view, i));
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_latency);

/* A file's data: the row of zswb_stats[], plus ZSWB_NR_ROWS times its node. */
static int zswb_counter_get(void *data, u64 *val)
{
	unsigned long id = (unsigned long)data;

	mutex_lock(&zswb_stats_mutex);
	*val = zswb_value(ZSWB_VIEW_HOST, &zswb_stats[id % ZSWB_NR_ROWS],
			  id / ZSWB_NR_ROWS, NULL);
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(zswb_counter_fops, zswb_counter_get, NULL, "%llu\n");

static ssize_t zswb_reset_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	bool reset;
	int i, slot, ret;

	ret = kstrtobool_from_user(buf, len, &reset);
	if (ret)
		return ret;
	if (!reset)
		return -EINVAL;
	/*
	 * Gauges describe the present and are not reset, except the maximum.
	 * Every slot is reset, and what removed scopes counted.
	 */
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
	return len;
}

static const struct file_operations zswb_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= zswb_reset_write,
	.llseek	= noop_llseek,
};

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

/* The files of the counters and gauges: one each, one per node for the per-node ones. */
static void zswb_debugfs_values(void)
{
	unsigned long id;
	char name[48];
	int nid;

	for (id = 0; id < ZSWB_NR_ROWS; id++) {
		const struct zswb_stat *s = &zswb_stats[id];

		switch (s->kind) {
		case ZSWB_STAT_COUNTER:
		case ZSWB_STAT_GAUGE:
			debugfs_create_file_unsafe(s->name, 0400, zswb_debugfs_root,
						   (void *)id, &zswb_counter_fops);
			break;
		case ZSWB_STAT_NODE_COUNTER:
			for_each_node(nid) {
				snprintf(name, sizeof(name), "%s_node%d", s->name, nid);
				debugfs_create_file_unsafe(name, 0400, zswb_debugfs_root,
							   (void *)(id + nid * ZSWB_NR_ROWS),
							   &zswb_counter_fops);
			}
			break;
		case ZSWB_STAT_PERCENTILE:	/* lines of "stats" only */
			break;
		}
	}
}

/*
 * The files of a view in @dir: "stats" and "free_latency_us", as the
 * top-level ones.
 */
void zswb_stats_slot_files(struct dentry *dir, int slot)
{
	void *data = (void *)(long)(slot + 1);

	debugfs_create_file("stats", 0400, dir, data, &zswb_stats_fops);
	debugfs_create_file("free_latency_us", 0400, dir, data, &zswb_latency_fops);
}

/* The directory of the scopes' files. */
struct dentry *zswb_stats_scopes_dir(void)
{
	return zswb_scopes_root;
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
	zswb_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	zswb_debugfs_values();
	debugfs_create_file("stats", 0400, zswb_debugfs_root, NULL,
			    &zswb_stats_fops);
	debugfs_create_file("schema", 0400, zswb_debugfs_root, NULL,
			    &zswb_schema_fops);
	debugfs_create_file("free_latency_us", 0400, zswb_debugfs_root, NULL,
			    &zswb_latency_fops);
	debugfs_create_file("reset", 0200, zswb_debugfs_root, NULL,
			    &zswb_reset_fops);
	zswb_scopes_root = debugfs_create_dir("scopes", zswb_debugfs_root);
	zswb_stats_slot_files(debugfs_create_dir("global", zswb_scopes_root), 0);
	return 0;
}

void zswb_stats_exit(void)
{
	debugfs_remove_recursive(zswb_debugfs_root);
	zswb_stats_free();
}
