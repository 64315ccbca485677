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

/*
 * Reset takes a snapshot instead of writing other CPUs' counters: a
 * counter reads as its sum less its value at the last reset. Under
 * zswb_stats_mutex, with every reader. The maximum restarts through a
 * generation that each CPU compares with its own before it updates it.
 */
static DEFINE_MUTEX(zswb_stats_mutex);
static unsigned long zswb_base[NR_ZSWB_STATS];
static unsigned long zswb_lat_base[ZSWB_LAT_BUCKETS];
static unsigned long *zswb_node_base;	/* as zswb_node_stats */
static unsigned long zswb_drain_gen;

static struct dentry *zswb_debugfs_root;

static unsigned long zswb_sum(size_t off)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(unsigned long *)((char *)per_cpu_ptr(&zswb_pcpu_stats, cpu) + off);
	return sum;
}

#define ZSWB_SUM(field) zswb_sum(offsetof(struct zswb_pcpu_stats, field))

/* The sum of per-node counter @i (a node's @item) over the CPUs. */
static unsigned long zswb_node_sum(unsigned int i)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(zswb_node_stats, cpu)[i];
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
 * never reads below the truth (a wait for 0 does not end early).
 */
static unsigned long zswb_gauge_queue_depth(void)
{
	unsigned long down = ZSWB_SUM(taken);

	smp_rmb();	/* the downs before the ups */
	return zswb_gauge(ZSWB_SUM(queued), down);
}

static unsigned long zswb_gauge_inflight(void)
{
	unsigned long down = ZSWB_SUM(taken);

	smp_rmb();	/* the downs before the ups */
	return zswb_gauge(ZSWB_SUM(marked), down);
}

static unsigned long zswb_gauge_queue_depth_max(void)
{
	unsigned long max = 0;
	int cpu;

	lockdep_assert_held(&zswb_stats_mutex);
	for_each_possible_cpu(cpu) {
		struct zswb_pcpu_stats *st = per_cpu_ptr(&zswb_pcpu_stats, cpu);

		if (READ_ONCE(st->drain_gen) == zswb_drain_gen)
			max = max(max, READ_ONCE(st->drain_max));
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
	unsigned long (*gauge)(void);	/* gauges */
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

static unsigned long zswb_latency(int i)
{
	return ZSWB_SUM(latency[i]) - zswb_lat_base[i];
}

/*
 * A drain on this CPU took @nr folios off a list: the longest list seen
 * since load or reset. Preemption is off; only this CPU writes its words.
 */
void zswb_note_drain(unsigned long nr)
{
	struct zswb_pcpu_stats *st = this_cpu_ptr(&zswb_pcpu_stats);
	unsigned long gen = READ_ONCE(zswb_drain_gen);

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
static unsigned long zswb_value(const struct zswb_stat *s, int nid,
				const unsigned long *lat)
{
	unsigned int i = nid * NR_ZSWB_NODE_STATS + s->item;

	lockdep_assert_held(&zswb_stats_mutex);
	switch (s->kind) {
	case ZSWB_STAT_COUNTER:
		return ZSWB_SUM(count[s->item]) - zswb_base[s->item];
	case ZSWB_STAT_NODE_COUNTER:
		return zswb_node_sum(i) - zswb_node_base[i];
	case ZSWB_STAT_GAUGE:
		return s->gauge();
	case ZSWB_STAT_PERCENTILE:
		return zswb_latency_pct(lat, s->pct);
	}
	return 0;
}

/* Every row but the per-node ones, then those, node by node. */
static int zswb_stats_show(struct seq_file *m, void *v)
{
	unsigned long lat[ZSWB_LAT_BUCKETS];
	const struct zswb_stat *s;
	int i;

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		lat[i] = zswb_latency(i);
	for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
		if (s->kind != ZSWB_STAT_NODE_COUNTER)
			seq_printf(m, "%s %lu\n", s->name, zswb_value(s, 0, lat));
	for_each_node(i)
		for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
			if (s->kind == ZSWB_STAT_NODE_COUNTER)
				seq_printf(m, "%s_node%d %lu\n", s->name, i,
					   zswb_value(s, i, NULL));
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
	int i;

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		seq_printf(m, "%lu %lu\n", 2UL << i, zswb_latency(i));
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_latency);

/* A file's data: the row of zswb_stats[], plus ZSWB_NR_ROWS times its node. */
static int zswb_counter_get(void *data, u64 *val)
{
	unsigned long id = (unsigned long)data;

	mutex_lock(&zswb_stats_mutex);
	*val = zswb_value(&zswb_stats[id % ZSWB_NR_ROWS], id / ZSWB_NR_ROWS, NULL);
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(zswb_counter_fops, zswb_counter_get, NULL, "%llu\n");

static ssize_t zswb_reset_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	bool reset;
	int i, ret;

	ret = kstrtobool_from_user(buf, len, &reset);
	if (ret)
		return ret;
	if (!reset)
		return -EINVAL;
	/* Gauges describe the present and are not reset, except the maximum. */
	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < NR_ZSWB_STATS; i++)
		zswb_base[i] = ZSWB_SUM(count[i]);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		zswb_lat_base[i] = ZSWB_SUM(latency[i]);
	for (i = 0; i < nr_node_ids * NR_ZSWB_NODE_STATS; i++)
		zswb_node_base[i] = zswb_node_sum(i);
	WRITE_ONCE(zswb_drain_gen, zswb_drain_gen + 1);
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
	free_percpu(zswb_node_stats);
	kfree(zswb_node_base);
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

int zswb_stats_init(void)
{
	unsigned int n = nr_node_ids * NR_ZSWB_NODE_STATS;

	zswb_node_stats = __alloc_percpu(n * sizeof(unsigned long), __alignof__(unsigned long));
	zswb_node_base = kcalloc(n, sizeof(*zswb_node_base), GFP_KERNEL);
	if (!zswb_node_stats || !zswb_node_base) {
		zswb_stats_free();
		return -ENOMEM;
	}
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
	return 0;
}

void zswb_stats_exit(void)
{
	debugfs_remove_recursive(zswb_debugfs_root);
	zswb_stats_free();
}
