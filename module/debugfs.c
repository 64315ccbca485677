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
 * for each scope (scope.c), and scopes/global/ for what no scope covers:
 * each file reads a view of stats.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "zswap_wb.h"

static struct dentry *zswb_debugfs_root, *zswb_scopes_root;

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
	unsigned int item;		/* counters and gauges: the index */
	unsigned int pct;		/* percentiles */
} zswb_stats[] = {
#define ZSWB_COUNTER(_item, _name, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_COUNTER,	\
	  .item = ZSWB_##_item },
#define ZSWB_NODE_COUNTER(_item, _name, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_NODE_COUNTER, \
	  .item = ZSWB_NODE_##_item },
#define ZSWB_GAUGE(_name, _help)					\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_GAUGE,	\
	  .item = ZSWB_GAUGE_##_name },
#define ZSWB_PERCENTILE(_name, _pct, _help)				\
	{ .name = #_name, .help = _help, .kind = ZSWB_STAT_PERCENTILE,	\
	  .pct = _pct },
#include "zswap_wb_stats.h"
};

#define ZSWB_NR_ROWS	ARRAY_SIZE(zswb_stats)

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
 * The value of @s in @view (on node @nid for a per-node counter; from the
 * latency histogram @lat for a percentile). Under zswb_stats_lock().
 */
static unsigned long zswb_value(int view, const struct zswb_stat *s, int nid,
				const unsigned long *lat)
{
	switch (s->kind) {
	case ZSWB_STAT_COUNTER:
		return zswb_stats_count(view, s->item);
	case ZSWB_STAT_NODE_COUNTER:
		return zswb_stats_node_count(view, nid, s->item);
	case ZSWB_STAT_GAUGE:
		return zswb_stats_gauge(view, s->item);
	case ZSWB_STAT_PERCENTILE:
		return zswb_latency_pct(lat, s->pct);
	}
	return 0;
}

/*
 * A file's view, kept as its data plus one: the top-level files have none
 * (ZSWB_VIEW_HOST), a scope's directory its slot.
 */
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

	zswb_stats_lock();
	zswb_stats_latency(view, lat);
	for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
		if (s->kind != ZSWB_STAT_NODE_COUNTER)
			seq_printf(m, "%s %lu\n", s->name, zswb_value(view, s, 0, lat));
	for_each_node(i)
		for (s = zswb_stats; s < zswb_stats + ZSWB_NR_ROWS; s++)
			if (s->kind == ZSWB_STAT_NODE_COUNTER)
				seq_printf(m, "%s_node%d %lu\n", s->name, i,
					   zswb_value(view, s, i, NULL));
	zswb_stats_unlock();
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
	unsigned long lat[ZSWB_LAT_BUCKETS];
	int i, view = zswb_file_view(m);

	zswb_stats_lock();
	zswb_stats_latency(view, lat);
	zswb_stats_unlock();
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		seq_printf(m, "%lu %lu\n", 2UL << i, lat[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_latency);

/* A file's data: the row of zswb_stats[], plus ZSWB_NR_ROWS times its node. */
static int zswb_counter_get(void *data, u64 *val)
{
	unsigned long id = (unsigned long)data;

	zswb_stats_lock();
	*val = zswb_value(ZSWB_VIEW_HOST, &zswb_stats[id % ZSWB_NR_ROWS],
			  id / ZSWB_NR_ROWS, NULL);
	zswb_stats_unlock();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(zswb_counter_fops, zswb_counter_get, NULL, "%llu\n");

/* "reset": 1 (or y, on...) zeroes the counters; anything else is refused. */
static ssize_t zswb_reset_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	bool reset;
	int ret;

	ret = kstrtobool_from_user(buf, len, &reset);
	if (ret)
		return ret;
	if (!reset)
		return -EINVAL;
	zswb_stats_reset();
	return len;
}

static const struct file_operations zswb_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= zswb_reset_write,
	.llseek	= noop_llseek,
};

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
void zswb_debugfs_view_files(struct dentry *dir, int view)
{
	void *data = (void *)(long)(view + 1);

	debugfs_create_file("stats", 0400, dir, data, &zswb_stats_fops);
	debugfs_create_file("free_latency_us", 0400, dir, data, &zswb_latency_fops);
}

/* The directory of the scopes' files. */
struct dentry *zswb_debugfs_scopes_dir(void)
{
	return zswb_scopes_root;
}

/* After zswb_stats_init(): debugfs errors are not the module's to fail on. */
void zswb_debugfs_init(void)
{
	zswb_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	zswb_debugfs_values();
	zswb_debugfs_view_files(zswb_debugfs_root, ZSWB_VIEW_HOST);
	debugfs_create_file("schema", 0400, zswb_debugfs_root, NULL,
			    &zswb_schema_fops);
	debugfs_create_file("reset", 0200, zswb_debugfs_root, NULL,
			    &zswb_reset_fops);
	zswb_scopes_root = debugfs_create_dir("scopes", zswb_debugfs_root);
	zswb_debugfs_view_files(debugfs_create_dir("global", zswb_scopes_root), 0);
}

void zswb_debugfs_exit(void)
{
	debugfs_remove_recursive(zswb_debugfs_root);
}
