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
/* Entries shrink_memcg() scanned on each node (nr_node_ids long, per CPU). */
unsigned long __percpu *zswb_node_scanned;
/* Entries shrink_memcg() wrote back from each node (nr_node_ids long, per CPU). */
unsigned long __percpu *zswb_node_written;

/*
 * Reset takes a snapshot instead of writing other CPUs' counters: a
 * counter reads as its sum less its value at the last reset. Under
 * zswb_stats_mutex, with every reader. The maximum restarts through a
 * generation that each CPU compares with its own before it updates it.
 */
static DEFINE_MUTEX(zswb_stats_mutex);
static unsigned long zswb_base[NR_ZSWB_STATS];
static unsigned long zswb_lat_base[ZSWB_LAT_BUCKETS];
static unsigned long *zswb_node_base;	/* scanned, then written: 2 x nr_node_ids */
static unsigned long zswb_drain_gen;

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

static unsigned long zswb_sum(size_t off)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(unsigned long *)((char *)per_cpu_ptr(&zswb_pcpu_stats, cpu) + off);
	return sum;
}

#define ZSWB_SUM(field) zswb_sum(offsetof(struct zswb_pcpu_stats, field))

static unsigned long zswb_node_sum(unsigned long __percpu *arr, int nid)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(arr, cpu)[nid];
	return sum;
}

/* A gauge: what went up less what went down, never below 0 when read. */
static unsigned long zswb_gauge(unsigned long up, unsigned long down)
{
	long v = (long)(up - down);

	return v > 0 ? v : 0;
}

/* Each value shown, by name; a debugfs file holds its index as data. */
enum {
	ZSWB_QUEUE_DEPTH = NR_ZSWB_STATS,
	ZSWB_QUEUE_DEPTH_MAX,
	ZSWB_INFLIGHT,
	ZSWB_NODE_SCANNED,	/* + 2 * nid */
};

/* The value of @id (a counter, a gauge or a node counter). Under the mutex. */
static unsigned long zswb_value(unsigned long id)
{
	unsigned long max = 0, down;
	int cpu, nid;

	lockdep_assert_held(&zswb_stats_mutex);
	if (id < NR_ZSWB_STATS)
		return ZSWB_SUM(count[id]) - zswb_base[id];
	switch (id) {
	/*
	 * What went down first: each folio is counted up before it is
	 * counted down, so a sum of ups read after the sum of downs covers
	 * every down seen, and a gauge never reads below the truth (a wait
	 * for 0 does not end early).
	 */
	case ZSWB_QUEUE_DEPTH:
		down = ZSWB_SUM(taken);
		smp_rmb();	/* the downs before the ups */
		return zswb_gauge(ZSWB_SUM(queued), down);
	case ZSWB_INFLIGHT:
		down = ZSWB_SUM(taken);
		smp_rmb();	/* the downs before the ups */
		return zswb_gauge(ZSWB_SUM(marked), down);
	case ZSWB_QUEUE_DEPTH_MAX:
		for_each_possible_cpu(cpu) {
			struct zswb_pcpu_stats *st = per_cpu_ptr(&zswb_pcpu_stats, cpu);

			if (READ_ONCE(st->drain_gen) == zswb_drain_gen)
				max = max(max, READ_ONCE(st->drain_max));
		}
		return max;
	}
	id -= ZSWB_NODE_SCANNED;
	nid = id / 2;
	if (id & 1)
		return zswb_node_sum(zswb_node_written, nid) - zswb_node_base[nr_node_ids + nid];
	return zswb_node_sum(zswb_node_scanned, nid) - zswb_node_base[nid];
}

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

static int zswb_stats_show(struct seq_file *m, void *v)
{
	unsigned long lat[ZSWB_LAT_BUCKETS];
	int i;

	mutex_lock(&zswb_stats_mutex);
	for (i = 0; i < NR_ZSWB_STATS; i++)
		seq_printf(m, "%s %lu\n", zswb_stat_names[i], zswb_value(i));
	seq_printf(m, "queue_depth %lu\n", zswb_value(ZSWB_QUEUE_DEPTH));
	seq_printf(m, "queue_depth_max %lu\n", zswb_value(ZSWB_QUEUE_DEPTH_MAX));
	seq_printf(m, "inflight %lu\n", zswb_value(ZSWB_INFLIGHT));
	for (i = 0; i < ZSWB_LAT_BUCKETS; i++)
		lat[i] = zswb_latency(i);
	seq_printf(m, "free_latency_p50_us %lu\n", zswb_latency_pct(lat, 50));
	seq_printf(m, "free_latency_p99_us %lu\n", zswb_latency_pct(lat, 99));
	seq_printf(m, "free_latency_max_us %lu\n", zswb_latency_pct(lat, 100));
	for_each_node(i)
		seq_printf(m, "shrink_scanned_node%d %lu\nshrink_written_node%d %lu\n",
			   i, zswb_value(ZSWB_NODE_SCANNED + 2 * i),
			   i, zswb_value(ZSWB_NODE_SCANNED + 2 * i + 1));
	mutex_unlock(&zswb_stats_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zswb_stats);

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

static int zswb_counter_get(void *data, u64 *val)
{
	mutex_lock(&zswb_stats_mutex);
	*val = zswb_value((unsigned long)data);
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
	for_each_node(i) {
		zswb_node_base[i] = zswb_node_sum(zswb_node_scanned, i);
		zswb_node_base[nr_node_ids + i] = zswb_node_sum(zswb_node_written, i);
	}
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
	free_percpu(zswb_node_scanned);
	free_percpu(zswb_node_written);
	kfree(zswb_node_base);
}

static void zswb_debugfs_value(const char *name, unsigned long id)
{
	debugfs_create_file_unsafe(name, 0400, zswb_debugfs_root, (void *)id,
				   &zswb_counter_fops);
}

int zswb_stats_init(void)
{
	size_t size = nr_node_ids * sizeof(unsigned long);
	char name[32];
	int i;

	zswb_node_scanned = __alloc_percpu(size, __alignof__(unsigned long));
	zswb_node_written = __alloc_percpu(size, __alignof__(unsigned long));
	zswb_node_base = kcalloc(2 * nr_node_ids, sizeof(*zswb_node_base), GFP_KERNEL);
	if (!zswb_node_scanned || !zswb_node_written || !zswb_node_base) {
		zswb_stats_free();
		return -ENOMEM;
	}
	zswb_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < NR_ZSWB_STATS; i++)
		zswb_debugfs_value(zswb_stat_names[i], i);
	zswb_debugfs_value("queue_depth", ZSWB_QUEUE_DEPTH);
	zswb_debugfs_value("queue_depth_max", ZSWB_QUEUE_DEPTH_MAX);
	zswb_debugfs_value("inflight", ZSWB_INFLIGHT);
	for_each_node(i) {
		snprintf(name, sizeof(name), "shrink_scanned_node%d", i);
		zswb_debugfs_value(name, ZSWB_NODE_SCANNED + 2 * i);
		snprintf(name, sizeof(name), "shrink_written_node%d", i);
		zswb_debugfs_value(name, ZSWB_NODE_SCANNED + 2 * i + 1);
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
	zswb_stats_free();
}
