// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_wb statistics in debugfs: /sys/kernel/debug/zswap_wb/
 *
 * One read-only file per counter, a "stats" file of "key value" lines
 * (like memory.stat) holding every counter, gauge and latency percentile,
 * "free_latency_us", the histogram behind the percentiles, and "reset",
 * which zeroes the counters for an A/B run when 1 is written to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "zswap_wb.h"

atomic_long_t zswb_stats[NR_ZSWB_STATS];
/* Folios on the per-CPU lists between writeback end and the work item. */
atomic_long_t zswb_queue_depth;
/* The largest queue depth seen since load or reset. */
atomic_long_t zswb_queue_depth_max;
/* Marked off-LRU folios whose write is not yet resolved (freed or put back). */
atomic_long_t zswb_inflight;
atomic_long_t zswb_free_latency[ZSWB_LAT_BUCKETS];
/* Entries shrink_memcg() scanned on each node (nr_node_ids long). */
atomic_long_t *zswb_node_scanned;
/* Entries shrink_memcg() wrote back from each node (nr_node_ids long). */
atomic_long_t *zswb_node_written;

static const char * const zswb_stat_names[NR_ZSWB_STATS] = {
	[ZSWB_WRITTEN_BACK]	= "written_back",
	[ZSWB_FREED_SYNC]	= "freed_sync",
	[ZSWB_FREED_ASYNC]	= "freed_async",
	[ZSWB_RACED]		= "raced",
	[ZSWB_WRITE_ERRORS]	= "write_errors",
	[ZSWB_FALLBACKS]	= "fallbacks",
	[ZSWB_MARK_FAILED]	= "mark_failed",
	[ZSWB_WORK_RUNS]	= "work_runs",
	[ZSWB_REQUEUED]		= "requeued",
	[ZSWB_SHRINK_CALLS_WORKER] = "shrink_calls_worker",
	[ZSWB_SHRINK_CALLS_STORE] = "shrink_calls_store",
	[ZSWB_SHRINK_ENOENT]	= "shrink_enoent",
	[ZSWB_SHRINK_EAGAIN]	= "shrink_eagain",
	[ZSWB_STORE_REJECTS]	= "store_rejects",
	[ZSWB_RA_FAULTS_ALONE]	= "ra_faults_alone",
	[ZSWB_RA_WINDOWS_SHRUNK] = "ra_windows_shrunk",
	[ZSWB_RA_ZSWAP_SLOTS_SKIPPED] = "ra_zswap_slots_skipped",
	[ZSWB_RA_DISK_SLOTS]	= "ra_disk_slots",
};

static struct dentry *zswb_debugfs_root;

/* Count a writeback-end-to-free time in its power-of-two microsecond bucket. */
void zswb_record_latency(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);
	unsigned int b = us ? ilog2(us) : 0;

	atomic_long_inc(&zswb_free_latency[min(b, ZSWB_LAT_BUCKETS - 1)]);
}

/* The upper bound in us of the bucket holding the @pct percentile, or 0. */
static unsigned long zswb_latency_pct(unsigned int pct)
{
	unsigned long total = 0, seen = 0, want;
	int i;

	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		total += atomic_long_read(&zswb_free_latency[i]);
	if (!total)
		return 0;
	want = DIV_ROUND_UP(total * pct, 100);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++) {
		seen += atomic_long_read(&zswb_free_latency[i]);
		if (seen >= want)
			break;
	}
	return 2UL << min(i, ZSWB_LAT_BUCKETS - 1);
}

static int zswb_stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < NR_ZSWB_STATS; i++)
		seq_printf(m, "%s %ld\n", zswb_stat_names[i],
			   atomic_long_read(&zswb_stats[i]));
	seq_printf(m, "queue_depth %ld\n", atomic_long_read(&zswb_queue_depth));
	seq_printf(m, "queue_depth_max %ld\n",
		   atomic_long_read(&zswb_queue_depth_max));
	seq_printf(m, "inflight %ld\n", atomic_long_read(&zswb_inflight));
	seq_printf(m, "free_latency_p50_us %lu\n", zswb_latency_pct(50));
	seq_printf(m, "free_latency_p99_us %lu\n", zswb_latency_pct(99));
	seq_printf(m, "free_latency_max_us %lu\n", zswb_latency_pct(100));
	for_each_node(i)
		seq_printf(m, "shrink_scanned_node%d %ld\nshrink_written_node%d %ld\n",
			   i, atomic_long_read(&zswb_node_scanned[i]),
			   i, atomic_long_read(&zswb_node_written[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_stats);

static int zswb_latency_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		seq_printf(m, "%lu %ld\n", 2UL << i,
			   atomic_long_read(&zswb_free_latency[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_latency);

static int zswb_counter_get(void *data, u64 *val)
{
	*val = atomic_long_read(data);
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
	for (i = 0; i < NR_ZSWB_STATS; i++)
		atomic_long_set(&zswb_stats[i], 0);
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		atomic_long_set(&zswb_free_latency[i], 0);
	for_each_node(i) {
		atomic_long_set(&zswb_node_scanned[i], 0);
		atomic_long_set(&zswb_node_written[i], 0);
	}
	atomic_long_set(&zswb_queue_depth_max, atomic_long_read(&zswb_queue_depth));
	return len;
}

static const struct file_operations zswb_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= zswb_reset_write,
	.llseek	= noop_llseek,
};

int zswb_stats_init(void)
{
	char name[32];
	int i;

	zswb_node_scanned = kcalloc(nr_node_ids, sizeof(*zswb_node_scanned), GFP_KERNEL);
	zswb_node_written = kcalloc(nr_node_ids, sizeof(*zswb_node_written), GFP_KERNEL);
	if (!zswb_node_scanned || !zswb_node_written) {
		kfree(zswb_node_scanned);
		kfree(zswb_node_written);
		return -ENOMEM;
	}
	zswb_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < NR_ZSWB_STATS; i++)
		debugfs_create_file_unsafe(zswb_stat_names[i], 0400,
					   zswb_debugfs_root, &zswb_stats[i],
					   &zswb_counter_fops);
	debugfs_create_file_unsafe("queue_depth", 0400, zswb_debugfs_root,
				   &zswb_queue_depth, &zswb_counter_fops);
	debugfs_create_file_unsafe("queue_depth_max", 0400, zswb_debugfs_root,
				   &zswb_queue_depth_max, &zswb_counter_fops);
	debugfs_create_file_unsafe("inflight", 0400, zswb_debugfs_root,
				   &zswb_inflight, &zswb_counter_fops);
	for_each_node(i) {
		snprintf(name, sizeof(name), "shrink_scanned_node%d", i);
		debugfs_create_file_unsafe(name, 0400, zswb_debugfs_root,
					   &zswb_node_scanned[i], &zswb_counter_fops);
		snprintf(name, sizeof(name), "shrink_written_node%d", i);
		debugfs_create_file_unsafe(name, 0400, zswb_debugfs_root,
					   &zswb_node_written[i], &zswb_counter_fops);
	}
	debugfs_create_file("stats", 0400, zswb_debugfs_root, NULL,
			    &zswb_stats_fops);
	debugfs_create_file("free_latency_us", 0400, zswb_debugfs_root, NULL,
			    &zswb_latency_fops);
	debugfs_create_file("reset", 0200, zswb_debugfs_root, NULL,
			    &zswb_reset_fops);
	return 0;
}

void zswb_stats_exit(void)
{
	debugfs_remove_recursive(zswb_debugfs_root);
	kfree(zswb_node_scanned);
	kfree(zswb_node_written);
}
