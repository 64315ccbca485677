/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswap_wb: the contract between the module's files.
 *
 * main.c registers one struct zswap_wb_ops with the kernel hook
 * (include/linux/zswap.h), drives the policy families (struct zswb_family)
 * and arms the hook's points on their behalf; each family lives in the
 * file named after it and exports its hook callbacks here. params.c owns
 * the parameters (zswap_wb_params.h) and the global settings. stats.c owns
 * the counters (zswap_wb_stats.h) and the scopes' slots; debugfs.c, above
 * it, the debugfs directory, whose "schema" describes every statistic and
 * parameter. scope.c binds policy
 * settings to cgroups (configfs) and finds the scope of a memcg.
 */
#ifndef _ZSWAP_WB_H
#define _ZSWAP_WB_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/mutex.h>
#include <linux/jump_label.h>
#include <linux/memcontrol.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/zswap.h>

struct dentry;
struct mem_cgroup;
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

/* The gauges (zswap_wb_stats.h): zswb_stats_gauge(). */
enum zswb_gauge_item {
#define ZSWB_GAUGE(name, ...)	ZSWB_GAUGE_##name,
#include "zswap_wb_stats.h"
	NR_ZSWB_GAUGES,
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
	unsigned long queued;	/* put on this CPU's list, or not marked, here */
	unsigned long taken;	/* taken off a list (so resolved), or not marked, here */
	unsigned long drain_max; /* the most folios one drain on this CPU took */
	unsigned long drain_gen; /* the reset generation drain_max belongs to */
	/*
	 * A scope's folios (slot > 0) from the lookup that found the scope,
	 * in its RCU section, to their last count outside marked..taken:
	 * a slot is reused only once the two are equal (prompt_free.c).
	 */
	unsigned long opened, closed;
};

/*
 * Every event is counted once, in the slot of the scope it belongs to
 * (scope.c): slot 0 is "global", what no scope covers, and is the static
 * per-CPU variable, so that a host with no scope needs no allocation;
 * slots 1 to ZSWB_NR_SLOTS - 1 are allocated for the scopes as they are
 * made. The host's totals are the sums over every slot (stats.c).
 */
#define ZSWB_NR_SLOTS	32

DECLARE_PER_CPU(struct zswb_pcpu_stats, zswb_pcpu_stats);

/* The per-node counters of slot 0, per CPU: NR_ZSWB_NODE_STATS for each node. */
extern unsigned long __percpu *zswb_node_stats;

/* A scope's slot's counters: allocated with its first scope, freed at exit. */
struct zswb_slot_pcpu {
	struct zswb_pcpu_stats __percpu *stats;
	unsigned long __percpu *node;
};

extern struct zswb_slot_pcpu zswb_slot_pcpu[ZSWB_NR_SLOTS];

/* The counters of @slot; 0 is the static ones, as a constant where it is known. */
static inline struct zswb_pcpu_stats __percpu *zswb_stats_of(int slot)
{
	return slot ? zswb_slot_pcpu[slot].stats : &zswb_pcpu_stats;
}

/*
 * The free path's folios of a scope's slot, as stats.c keeps them so that
 * a removed scope's slot is reused only once they are all counted
 * (zswb_stats_slot_quiet()): open from the lookup that found the scope,
 * in its RCU section; closed once counted its last outside marked..taken.
 */
static inline void zswb_open(int slot)
{
	if (slot)
		this_cpu_inc(zswb_stats_of(slot)->opened);
}

static inline void zswb_close(int slot)
{
	if (slot) {
		smp_wmb();	/* the folio's counts (marked) before its close */
		this_cpu_inc(zswb_stats_of(slot)->closed);
	}
}

/*
 * The async folios of @slot (the "inflight" and "queue_depth" gauges):
 * offered for marking, put on a CPU's list, taken off one; a folio not
 * marked counts as queued and taken at once.
 */
static inline void zswb_count_marked(int slot)
{
	this_cpu_inc(zswb_stats_of(slot)->marked);
}

static inline void zswb_count_queued(int slot)
{
	this_cpu_inc(zswb_stats_of(slot)->queued);
}

static inline void zswb_count_taken(int slot, unsigned long nr)
{
	this_cpu_add(zswb_stats_of(slot)->taken, nr);
}

/* @nr frees of @slot's folios took a time of latency bucket @bucket. */
static inline void zswb_count_latency(int slot, unsigned int bucket,
				      unsigned long nr)
{
	this_cpu_add(zswb_stats_of(slot)->latency[bucket], nr);
}

static inline void zswb_count(int slot, enum zswb_stat_item item)
{
	this_cpu_inc(zswb_stats_of(slot)->count[item]);
}

static inline void zswb_count_add(int slot, enum zswb_stat_item item,
				  unsigned long nr)
{
	this_cpu_add(zswb_stats_of(slot)->count[item], nr);
}

static inline void zswb_node_count(int slot, int nid,
				   enum zswb_node_stat_item item, unsigned long nr)
{
	unsigned long __percpu *node = slot ? zswb_slot_pcpu[slot].node : zswb_node_stats;

	this_cpu_add(node[nid * NR_ZSWB_NODE_STATS + item], nr);
}

/* stats.c: a drain of one CPU's list took @nr folios of @slot (preemption off). */
void zswb_note_drain(int slot, unsigned long nr);

/* The kinds of parameter, as debugfs "schema" names them. */
enum zswb_param_kind {
	ZSWB_PARAM_KIND_BOOL,	/* zswb_parse_bool()'s words; reads Y or N */
	ZSWB_PARAM_KIND_UINT,	/* an integer from min to max */
	ZSWB_PARAM_KIND_CHOICE,	/* one of names[]; reads all, the current in brackets */
};

/* The parameters (zswap_wb_params.h), by row: zswb_params[ZSWB_P_<name>]. */
enum zswb_param_id {
#define ZSWB_PARAM_BOOL(name, ...)	ZSWB_P_##name,
#define ZSWB_PARAM_UINT(name, ...)	ZSWB_P_##name,
#define ZSWB_PARAM_CHOICE(name, ...)	ZSWB_P_##name,
#include "zswap_wb_params.h"
	NR_ZSWB_PARAMS,
};

/*
 * A set of policy settings, one value for each parameter, as
 * zswb_param_parse() stores it: 0 or 1, the integer, the index of the
 * choice; v[ZSWB_P_<name>]. The global settings are those of zswb_global;
 * each scope has its own (scope.c). Written under zswb_param_mutex by
 * zswb_param_write(), read locklessly by the hook callbacks.
 */
struct zswb_settings {
	unsigned int v[NR_ZSWB_PARAMS];
};

struct zswb_family;

/*
 * A parameter as a row of zswap_wb_params.h gives it: the module
 * parameter, the scopes' attribute and the "schema" line are made from it.
 */
struct zswb_param {
	const char *name;
	const char *help;		/* also its MODULE_PARM_DESC */
	enum zswb_param_kind kind;
	enum zswb_param_id id;		/* its row: its value is settings.v[id] */
	unsigned int flags;		/* ZSWB_PARAM_* */
	unsigned int def;		/* the default: 0/1, the integer, the index of the name */
	unsigned int min, max;		/* UINT */
	const char * const *names;	/* CHOICE: the names, as sysfs_match_string() takes them */
	unsigned int nr_names;
	const struct zswb_family *family; /* re-armed after every change */
};

extern const struct zswb_param zswb_params[NR_ZSWB_PARAMS];

/*
 * A policy family (shrinker.c, readahead.c, prompt_free.c), as main.c
 * drives it: init builds what can fail before the backend is registered;
 * arm arms what the global settings and the bound scopes ask for, after
 * init registered and after every change (zswb_param_mutex held; before
 * init has registered, it only returns 0); exit undoes init after
 * unregistering, or when a later init failed. prepare runs before a
 * parameter of the family takes a new value, for a family that must arm
 * before a policy is visible. Only arm may fail, when turning a policy on
 * while the module is going: the value is then put back.
 */
struct zswb_family {
	int (*init)(void);						/* (optional) */
	int (*arm)(void);						/* (required) */
	void (*exit)(void);						/* (optional) */
	void (*prepare)(const struct zswb_param *p, unsigned int val);	/* (optional) */
};

extern const struct zswb_family zswb_shrinker;
extern const struct zswb_family zswb_readahead;
extern const struct zswb_family zswb_prompt_free;

/* main.c */
extern struct mutex zswb_param_mutex;
void zswb_arm(enum zswap_wb_point point, bool armed);
bool zswb_registered(void);
void zswb_families_rearm(void);

/* params.c */
int zswb_parse_bool(const char *val, bool *res);
int zswb_param_parse(const struct zswb_param *p, const char *val,
		     unsigned int *res);
int zswb_param_emit(const struct zswb_param *p, unsigned int v, char *buf);
int zswb_param_write(struct zswb_settings *set, const struct zswb_param *p,
		     const char *val);
void zswb_params_show(struct seq_file *m);

/*
 * stats.c: the slots, and the views their readers sum: ZSWB_VIEW_HOST
 * (every slot), or a slot: 0 is "global" (with the slots no scope has and
 * what was folded), another that scope's alone. A view is read under
 * zswb_stats_lock().
 */
#define ZSWB_VIEW_HOST	(-1)
int zswb_stats_init(void);
void zswb_stats_exit(void);
int zswb_stats_slot_alloc(int slot);
bool zswb_stats_slot_quiet(int slot);
void zswb_stats_slot_fold(int slot);
void zswb_stats_slot_live(int slot, bool live);
void zswb_stats_lock(void);
void zswb_stats_unlock(void);
unsigned long zswb_stats_count(int view, unsigned int item);
unsigned long zswb_stats_node_count(int view, int nid, unsigned int item);
void zswb_stats_latency(int view, unsigned long lat[ZSWB_LAT_BUCKETS]);
void zswb_stats_reset(void);
unsigned long zswb_stats_gauge(int view, unsigned int gauge);

/* debugfs.c: the files of the views, above stats.c. */
void zswb_debugfs_init(void);
void zswb_debugfs_exit(void);
void zswb_debugfs_view_files(struct dentry *dir, int view);
struct dentry *zswb_debugfs_scopes_dir(void);

/*
 * What a lookup of a memcg finds (zswb_scope_of()): the slot and settings
 * of the scope that covers it, or zswb_global, slot 0, whose settings are
 * the module parameters, for what no scope covers. Never NULL.
 */
struct zswb_scope_core {
	int slot;
	struct zswb_settings set;
};

extern struct zswb_scope_core zswb_global;

/*
 * Scopes name cgroups of the memory controller and live in configfs: a
 * kernel without either builds the module without scope.c (Kbuild), and
 * every folio, call and fault follows the global parameters.
 */
#define ZSWB_HAVE_SCOPES (IS_ENABLED(CONFIG_MEMCG) && IS_ENABLED(CONFIG_CONFIGFS_FS))
#if ZSWB_HAVE_SCOPES
DECLARE_STATIC_KEY_FALSE(zswb_scoped);
extern struct srcu_struct zswb_scope_srcu;
const struct zswb_scope_core *zswb_scope_lookup(struct mem_cgroup *memcg);
/*
 * Whether a setting of the global parameters or of a bound scope
 * satisfies @pred: a family arms a point while one does. Under
 * zswb_param_mutex.
 */
bool zswb_settings_any(bool (*pred)(const struct zswb_settings *set));
int zswb_scopes_init(void);
void zswb_scopes_exit(void);

/* Whether any scope is bound to a cgroup: only then is anything looked up. */
static __always_inline bool zswb_scopes_on(void)
{
	return static_branch_unlikely(&zswb_scoped);
}

/* Hold the scopes across a call that sleeps (zswb_scope_srcu). */
static inline int zswb_scope_lock(void)
{
	return srcu_read_lock(&zswb_scope_srcu);
}

static inline void zswb_scope_unlock(int idx)
{
	srcu_read_unlock(&zswb_scope_srcu, idx);
}

/*
 * The scope of @mm's memcg, under RCU: its owner's, as
 * get_mem_cgroup_from_mm() finds it (none once the owner is gone: the
 * root's, global); the current task's for a NULL @mm (shmem).
 */
static inline const struct zswb_scope_core *zswb_scope_of_mm(struct mm_struct *mm)
{
	if (!zswb_scopes_on())
		return &zswb_global;
	if (!mm)
		return zswb_scope_lookup(mem_cgroup_from_task(current));
	return zswb_scope_lookup(mem_cgroup_from_task(rcu_dereference(mm->owner)));
}
#else
static __always_inline bool zswb_scopes_on(void)
{
	return false;
}

static inline int zswb_scope_lock(void)
{
	return 0;
}

static inline void zswb_scope_unlock(int idx)
{
}

static inline const struct zswb_scope_core *zswb_scope_lookup(struct mem_cgroup *memcg)
{
	return &zswb_global;
}

static inline const struct zswb_scope_core *zswb_scope_of_mm(struct mm_struct *mm)
{
	return &zswb_global;
}

static inline bool zswb_settings_any(bool (*pred)(const struct zswb_settings *set))
{
	lockdep_assert_held(&zswb_param_mutex);
	return pred(&zswb_global.set);
}

static inline int zswb_scopes_init(void)
{
	return 0;
}

static inline void zswb_scopes_exit(void)
{
}
#endif

/**
 * zswb_scope_of - the scope that covers a memcg
 * @memcg: the memcg, or NULL (the memory controller is disabled)
 *
 * Context: under RCU, or zswb_scope_srcu for a caller that sleeps, which
 * keep the result. With no scope bound this is one static branch.
 * Return: the scope of the nearest scoped ancestor of @memcg (or of
 * @memcg itself), or zswb_global.
 */
static __always_inline const struct zswb_scope_core *zswb_scope_of(struct mem_cgroup *memcg)
{
	if (!zswb_scopes_on())
		return &zswb_global;
	return zswb_scope_lookup(memcg);
}

/* shrinker.c: the hook's shrink callback */
int zswb_shrink_memcg(struct mem_cgroup *memcg, enum zswap_shrink_caller caller,
		      int folio_nid);

/* readahead.c: the hook's readahead callback */
bool zswb_readahead_skip(swp_entry_t entry, bool fault, struct mm_struct *mm);

/* prompt_free.c: the hook's writeback callbacks */
bool zswb_alloc_off_lru(swp_entry_t entry, bool sync, struct mem_cgroup *memcg);
void zswb_writeback_prepare(struct folio *folio, bool sync, struct mem_cgroup *memcg);
void zswb_writeback_issued(struct folio *folio, bool sync, bool off_lru);
bool zswb_writeback_end(struct folio *folio);

#endif /* _ZSWAP_WB_H */
