// SPDX-License-Identifier: GPL-2.0
/*
 * Swap readahead bypass for zswap entries (parameter readahead_policy).
 * What each policy does and where it comes from: design.rst, "Where the
 * policies come from".
 *
 * The hook asks about a fault before the window is computed, so a fault
 * read alone neither consumes nor resets the hits that disk readahead
 * earned: the windows of disk faults grow and shrink as they would if the
 * zswap faults had not happened.
 *
 * Scopes (scope.c): the memcg of the mm that faults decides, its owner's
 * (the hook passes the mm: khugepaged and swapoff fault for others), or
 * the current task's for shmem, which reads with no mm; looked up for
 * the fault and again for each neighbour of its window.
 *
 * SWP_SYNCHRONOUS_IO devices (zram) are never asked: they keep their own
 * rules. The answers are hints: an entry can be written back or freed
 * right after it was looked up, and readahead only ever reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include "zswap_wb.h"

/* The readahead policies (zswap_wb_params.h), readahead_policy's choices in order. */
#define ZSWB_CHOICE(name, fault_alone, skip_slots)	{ #name, fault_alone, skip_slots }
static const struct zswb_ra_policy {
	const char *name;
	bool fault_alone;	/* a fault on a zswap entry reads it alone */
	bool skip_slots;	/* a window leaves out its slots in zswap */
} zswb_ra_policies[] = ZSWB_RA_POLICIES;
#undef ZSWB_CHOICE

static bool zswb_ra_skips(const struct zswb_ra_policy *p)
{
	return p->fault_alone || p->skip_slots;
}

/* The window being read on this CPU, to count a shrunk window once. */
struct zswb_ra_window {
	struct task_struct *task;
	bool shrunk;
};

static DEFINE_PER_CPU(struct zswb_ra_window, zswb_ra_window);

/*
 * zswap_wb_ops.readahead_skip: under RCU, @entry's device pinned, @mm
 * kept alive by the caller (NULL for shmem). A fault
 * is asked before its window is computed: under either policy a fault on
 * a zswap entry is read alone and leaves the readahead statistics (the hits
 * and the VMA's last fault address) to the faults that read from disk.
 *
 * The scope is looked up for the fault and again for each neighbour, not
 * taken from the fault's window record: the fault's read may sleep in
 * reclaim between two neighbours, long enough for its scope to be removed
 * and its slot reused.
 */
bool zswb_readahead_skip(swp_entry_t entry, bool fault, struct mm_struct *mm)
{
	const struct zswb_scope_core *sc = zswb_scope_of_mm(mm);
	const struct zswb_ra_policy *p;
	struct zswb_ra_window *w;
	int slot = sc->slot;

	p = &zswb_ra_policies[READ_ONCE(sc->set.v[ZSWB_P_readahead_policy])];
	if (fault) {
		w = get_cpu_ptr(&zswb_ra_window);
		w->task = current;
		w->shrunk = false;
		put_cpu_ptr(&zswb_ra_window);
		if (!p->fault_alone || !zswap_entry_present(entry))
			return false;
		zswb_count(slot, ZSWB_RA_FAULTS_ALONE);
		zswb_count(slot, ZSWB_RA_WINDOWS_SHRUNK);
		return true;
	}

	if (!zswb_ra_skips(p))
		return false;
	if (!zswap_entry_present(entry)) {
		zswb_count(slot, ZSWB_RA_DISK_SLOTS);
		return false;
	}
	if (!p->skip_slots)
		return false;
	zswb_count(slot, ZSWB_RA_ZSWAP_SLOTS_SKIPPED);
	/* A task that moved CPU mid-window is not counted: a lower bound. */
	w = get_cpu_ptr(&zswb_ra_window);
	if (w->task == current && !w->shrunk) {
		w->shrunk = true;
		zswb_count(slot, ZSWB_RA_WINDOWS_SHRUNK);
	}
	put_cpu_ptr(&zswb_ra_window);
	return true;
}

static bool zswb_ra_set_skips(const struct zswb_settings *set)
{
	return zswb_ra_skips(&zswb_ra_policies[set->v[ZSWB_P_readahead_policy]]);
}

/*
 * Armed only while the global policy or a bound scope's is off stock:
 * then the fault path costs one static branch. Under zswb_param_mutex.
 */
static int zswb_readahead_arm(void)
{
	zswb_arm(ZSWAP_WB_READAHEAD, zswb_settings_any(zswb_ra_set_skips));
	return 0;
}

const struct zswb_family zswb_readahead = {
	.arm	= zswb_readahead_arm,
};
