// SPDX-License-Identifier: GPL-2.0
/*
 * Batched per-node zswap shrinking (parameters shrink_policy, shrink_batch).
 * What each policy does and where it comes from: design.rst, "Where the
 * policies come from".
 *
 * Whatever the policy, a node's walk is capped at its LRU length by
 * zswap_shrink_node(), so each entry is scanned at most once per call, and
 * a call from zswap_store(), which runs in the storing task with its folio
 * locked, scans at most SWAP_CLUSTER_MAX entries per node (design.rst, "A
 * batch written back by the storing task"). The shrink point is armed
 * while the module is loaded; under stock it walks exactly as the kernel
 * does.
 *
 * Scopes (scope.c): the memcg being shrunk decides, whichever caller asked:
 * its scope's shrink_policy and shrink_batch, its counters. A call
 * shrinking the root (the global pool limit's walk reaches it) or with
 * the memory controller disabled is "global".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nodemask.h>
#include <linux/swap.h>

#include "zswap_wb.h"

/* How a call's batch is spread over the nodes. */
enum zswb_spread {
	ZSWB_SPREAD_ONE,	/* one entry per node, as the kernel does */
	ZSWB_SPREAD_CARRY,	/* one budget, carried from node to node until spent */
	ZSWB_SPREAD_SPLIT,	/* the batch divided among the nodes with memory */
	ZSWB_SPREAD_EACH,	/* the whole batch on every node, nothing carried */
};

/* Where the walk over the nodes starts. */
enum zswb_start {
	ZSWB_START_NODE0,	/* node 0, in node order */
	ZSWB_START_FOLIO,	/* zswap_store(): the node of the folio being stored */
};

/* The shrink policies (zswap_wb_params.h), shrink_policy's choices in order. */
#define ZSWB_CHOICE(name, spread, start)				\
	{ #name, ZSWB_SPREAD_##spread, ZSWB_START_##start }
static const struct zswb_shrink_policy {
	const char *name;
	enum zswb_spread spread;
	enum zswb_start start;
} zswb_shrink_policies[] = ZSWB_SHRINK_POLICIES;
#undef ZSWB_CHOICE

/* The most one zswap_store() call may scan per node, whatever shrink_batch. */
#define ZSWB_STORE_BATCH	SWAP_CLUSTER_MAX

/* Walk one node with a budget, and count what it did. */
static unsigned long zswb_walk(struct mem_cgroup *memcg, int nid, int slot,
			       unsigned long budget, unsigned long *scanned)
{
	unsigned long left = budget, written;

	written = zswap_shrink_node(memcg, nid, &left);
	*scanned = budget - left;
	zswb_node_count(slot, nid, ZSWB_NODE_SCANNED, *scanned);
	zswb_node_count(slot, nid, ZSWB_NODE_WRITTEN, written);
	return written;
}

static int __zswb_shrink_memcg(struct mem_cgroup *memcg,
			       enum zswap_shrink_caller caller, int folio_nid,
			       int slot, int policy, unsigned long batch)
{
	const struct zswb_shrink_policy *p = &zswb_shrink_policies[policy];
	unsigned long remaining = batch, scanned = 0, written = 0, s;
	int i, nid, first = 0, ret;

	zswb_count(slot, caller == ZSWAP_SHRINK_STORE ? ZSWB_SHRINK_CALLS_STORE :
							ZSWB_SHRINK_CALLS_WORKER);
	if (p->start == ZSWB_START_FOLIO && folio_nid != NUMA_NO_NODE)
		first = folio_nid;
	/*
	 * zswap_store() shrinks in the storing task, with the folio locked,
	 * and does not recheck memory.zswap.max between entries: each of k
	 * concurrent storers over the limit writes back a whole batch. Give
	 * it at most SWAP_CLUSTER_MAX per node, as reclaim takes per pass.
	 */
	if (caller == ZSWAP_SHRINK_STORE) {
		batch = min_t(unsigned long, batch, ZSWB_STORE_BATCH);
		remaining = batch;
	}
	if (p->spread == ZSWB_SPREAD_SPLIT)
		batch = max(1UL, batch / num_node_state(N_NORMAL_MEMORY));

	for (i = 0; i < nr_node_ids; i++) {
		unsigned long budget;

		nid = (first + i) % nr_node_ids;
		if (!node_state(nid, N_NORMAL_MEMORY))
			continue;
		switch (p->spread) {
		case ZSWB_SPREAD_ONE:
			budget = 1;
			break;
		case ZSWB_SPREAD_CARRY:
			budget = remaining;
			break;
		default:	/* split, each */
			budget = batch;
			break;
		}
		written += zswb_walk(memcg, nid, slot, budget, &s);
		scanned += s;
		if (p->spread == ZSWB_SPREAD_CARRY) {
			remaining -= s;
			if (!remaining)
				break;
		}
	}

	ret = !scanned ? -ENOENT : written ? 0 : -EAGAIN;
	if (ret == -ENOENT)
		zswb_count(slot, ZSWB_SHRINK_ENOENT);
	else if (ret == -EAGAIN)
		zswb_count(slot, ZSWB_SHRINK_EAGAIN);
	/* zswap_store() rejects the folio when shrink_memcg() fails. */
	if (ret && caller == ZSWAP_SHRINK_STORE)
		zswb_count(slot, ZSWB_STORE_REJECTS);
	return ret;
}

/*
 * zswap_wb_ops.shrink_memcg: one call of shrink_memcg(), batched, as the
 * scope of @memcg says (zswb_global's with no scope bound). The walk
 * sleeps: the scope is held by zswb_scope_srcu, so that its slot counts
 * this call to its end.
 */
int zswb_shrink_memcg(struct mem_cgroup *memcg, enum zswap_shrink_caller caller,
		      int folio_nid)
{
	const struct zswb_scope_core *sc;
	int idx, ret;

	idx = zswb_scope_lock();
	sc = zswb_scope_of(memcg);
	ret = __zswb_shrink_memcg(memcg, caller, folio_nid, sc->slot,
				  READ_ONCE(sc->set.v[ZSWB_P_shrink_policy]),
				  READ_ONCE(sc->set.v[ZSWB_P_shrink_batch]));
	zswb_scope_unlock(idx);
	return ret;
}

/* Under zswb_param_mutex: the shrink point is armed. */
static bool zswb_shrink_armed;

/*
 * The shrink point is armed while the module is loaded; stock is counted
 * too. Armed once: a change of shrink_policy or shrink_batch, global or a
 * scope's, does not go through the hook's and the jump labels' locks.
 */
static int zswb_shrinker_arm(void)
{
	lockdep_assert_held(&zswb_param_mutex);
	if (zswb_registered() && !zswb_shrink_armed) {
		zswb_arm(ZSWAP_WB_SHRINK, true);
		zswb_shrink_armed = true;
	}
	return 0;
}

const struct zswb_family zswb_shrinker = {
	.arm	= zswb_shrinker_arm,
};
