/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswap_wb: the contract between the module's files.
 *
 * main.c registers one struct zswap_wb_ops with the kernel hook
 * (include/linux/zswap.h), drives the policy families (struct zswb_family)
 * and arms the hook's points on their behalf; each family lives in the
 * file named after it and exports its hook callbacks here. stats.c owns
 * the counters (zswap_wb_stats.h) and the debugfs directory, whose
 * "schema" describes every statistic and parameter.
 */
#ifndef _ZSWAP_WB_H
#define _ZSWAP_WB_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/zswap.h>

struct seq_file;

/* The counters (zswap_wb_stats.h): zswb_count() and zswb_count_add(). */
enum zswb_stat_item {
#define ZSWB_COUNTER(item, ...)	ZSWB_##item,
#include "zswap_wb_stats.h"
	NR_ZSWB_STATS,
};

/* The per-node counters (zswap_wb_stats.h): zswb_node_count(). */
enum zswb_node_stat_item {
#define ZSWB_NODE_COUNTER(item, ...)	ZSWB_NODE_##item,
#include "zswap_wb_stats.h"
	NR_ZSWB_NODE_STATS,
};

/* Histogram of writeback-end-to-free times: bucket i counts [2^i, 2^(i+1)) us. */
#define ZSWB_LAT_BUCKETS 24

/*
 * Every counter and gauge is per CPU, written only by its CPU with
 * this_cpu operations (no lock prefix, safe against interrupts) and
 * summed when read (stats.c), as count_vm_event() does: a writeback end,
 * a fault or a shrink call touches no cache line that other CPUs write.
 * A gauge is the difference of two sums: a folio queued on one CPU and
 * freed on another counts up here and down there.
 */
struct zswb_pcpu_stats {
	unsigned long count[NR_ZSWB_STATS];
	unsigned long latency[ZSWB_LAT_BUCKETS];
	unsigned long marked;	/* async folios offered for marking on this CPU */
	unsigned long queued;	/* folios put on this CPU's list */
	unsigned long taken;	/* taken off a list (so resolved), or not marked, here */
	unsigned long drain_max; /* the most folios one drain on this CPU took */
	unsigned long drain_gen; /* the reset generation drain_max belongs to */
};

DECLARE_PER_CPU(struct zswb_pcpu_stats, zswb_pcpu_stats);

static inline void zswb_count(enum zswb_stat_item item)
{
	this_cpu_inc(zswb_pcpu_stats.count[item]);
}

static inline void zswb_count_add(enum zswb_stat_item item, unsigned long nr)
{
	this_cpu_add(zswb_pcpu_stats.count[item], nr);
}

/* The per-node counters, per CPU: NR_ZSWB_NODE_STATS for each node. */
extern unsigned long __percpu *zswb_node_stats;

static inline void zswb_node_count(int nid, enum zswb_node_stat_item item,
				   unsigned long nr)
{
	this_cpu_add(zswb_node_stats[nid * NR_ZSWB_NODE_STATS + item], nr);
}

/* stats.c: a drain of one CPU's list took @nr folios (preemption off). */
void zswb_note_drain(unsigned long nr);

/* The kinds of parameter, as debugfs "schema" names them. */
enum zswb_param_kind {
	ZSWB_PARAM_BOOL,	/* zswb_parse_bool()'s words; reads Y or N */
	ZSWB_PARAM_UINT,	/* an integer from min to max */
	ZSWB_PARAM_CHOICE,	/* one of names[]; reads all, the current in brackets */
};

/*
 * What turning a parameter off means for the folios in flight, for the
 * tools that unload the module or wait for them (zswbctl):
 */
#define ZSWB_PARAM_DRAINS	BIT(0)	/* turned off before unloading, then inflight waited for */
#define ZSWB_PARAM_WAITS	BIT(1)	/* off leaves folios in flight: wait for inflight 0 */

/*
 * A parameter as debugfs "schema" describes it: one for each
 * module_param_cb(), listed by its family. The help is the parameter's
 * MODULE_PARM_DESC, from the same string. A choice parameter uses
 * zswb_choice_ops, with its struct zswb_param as kp->arg.
 */
struct zswb_param {
	const char *name;
	const char *help;
	enum zswb_param_kind kind;
	unsigned int flags;		/* ZSWB_PARAM_* */
	unsigned int def;		/* the default: 0/1, the integer, the index of the name */
	unsigned int min, max;		/* UINT */
	int *choice;			/* CHOICE: the index of the current name */
	const char * const *names;	/* CHOICE: the names, as sysfs_match_string() takes them */
	unsigned int nr_names;
	void (*changed)(int choice);	/* CHOICE (optional): under zswb_param_mutex, once stored */
};

/*
 * A policy family (shrinker.c, readahead.c, prompt_free.c), as main.c
 * drives it: init builds what can fail before the backend is registered,
 * arm arms what the parameters ask for once it is (zswb_param_mutex held),
 * exit undoes init after unregistering, or when a later init failed.
 */
struct zswb_family {
	int (*init)(void);			/* (optional) */
	void (*arm)(void);			/* (required) */
	void (*exit)(void);			/* (optional) */
	const struct zswb_param * const *params; /* NULL-terminated */
};

extern const struct zswb_family zswb_shrinker;
extern const struct zswb_family zswb_readahead;
extern const struct zswb_family zswb_prompt_free;

/* main.c */
extern struct mutex zswb_param_mutex;
extern const struct kernel_param_ops zswb_choice_ops;
int zswb_parse_bool(const char *val, bool *res);
void zswb_arm(enum zswap_wb_point point, bool armed);
bool zswb_registered(void);
void zswb_params_show(struct seq_file *m);

/* stats.c */
int zswb_stats_init(void);
void zswb_stats_exit(void);

/* shrinker.c: the hook's shrink callback */
int zswb_shrink_memcg(struct mem_cgroup *memcg, enum zswap_shrink_caller caller,
		      int folio_nid);

/* readahead.c: the hook's readahead callback */
bool zswb_readahead_skip(swp_entry_t entry, bool fault);

/* prompt_free.c: the hook's writeback callbacks */
bool zswb_alloc_off_lru(swp_entry_t entry, bool sync);
void zswb_writeback_prepare(struct folio *folio, bool sync);
void zswb_writeback_issued(struct folio *folio, bool sync, bool off_lru);
bool zswb_writeback_end(struct folio *folio);

#endif /* _ZSWAP_WB_H */
