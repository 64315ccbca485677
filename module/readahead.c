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
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "zswap_wb.h"

/*
 * The readahead policies, one row each: the name, whether a fault on a
 * zswap entry reads it alone, whether a window leaves out its zswap slots.
 * The names, in this order, are readahead_policy's choices; the first row
 * is the default. A policy that skips nothing is stock: the point stays
 * disarmed.
 */
#define ZSWB_RA_POLICIES {						\
	ZSWB_RA_POLICY(stock,		false,	false),			\
	ZSWB_RA_POLICY(skip_fault,	true,	false),			\
	ZSWB_RA_POLICY(skip_zswap_slots, true,	true),			\
}

#define ZSWB_RA_POLICY(name, ...)	#name
static const char * const zswb_ra_policy_names[] = ZSWB_RA_POLICIES;
#undef ZSWB_RA_POLICY

#define ZSWB_RA_POLICY(name, fault_alone, skip_slots)			\
	{ #name, fault_alone, skip_slots }
static const struct zswb_ra_policy {
	const char *name;
	bool fault_alone;	/* a fault on a zswap entry reads it alone */
	bool skip_slots;	/* a window leaves out its slots in zswap */
} zswb_ra_policies[] = ZSWB_RA_POLICIES;
#undef ZSWB_RA_POLICY

/* The row of zswb_ra_policies[] in use. */
static int readahead_policy __read_mostly;

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

/* The policy and slot of @mm's scope (current's if NULL), under RCU. */
static void zswb_ra_scope(struct mm_struct *mm, int *policy, int *slot)
{
	const struct zswb_scope_core *sc = zswb_scope_of_mm(mm);

	if (sc) {
		*policy = READ_ONCE(sc->set.readahead_policy);
		*slot = sc->slot;
	}
}

/*
 * zswap_wb_ops.readahead_skip: under RCU, @entry's device pinned, @mm
 * kept alive by the caller (NULL for shmem). A fault
 * is asked before its window is computed: under either policy a fault on
 * a zswap entry is read alone and leaves the readahead statistics (the hits
 * and the VMA's last fault address) to the faults that read from disk.
 */
bool zswb_readahead_skip(swp_entry_t entry, bool fault, struct mm_struct *mm)
{
	bool scoped = zswb_scopes_on();
	int policy = READ_ONCE(readahead_policy), slot = 0;
	const struct zswb_ra_policy *p;
	struct zswb_ra_window *w;

	if (fault) {
		if (scoped)
			zswb_ra_scope(mm, &policy, &slot);
		p = &zswb_ra_policies[policy];
		/* Armed transiently while the policy moves to or from stock. */
		if (!scoped && !zswb_ra_skips(p))
			return false;
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

	/*
	 * Looked up again, not taken from the fault's window record: the
	 * fault's read may sleep in reclaim between two neighbours, long
	 * enough for its scope to be removed and its slot reused.
	 */
	if (scoped)
		zswb_ra_scope(mm, &policy, &slot);
	p = &zswb_ra_policies[policy];
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
	return zswb_ra_skips(&zswb_ra_policies[set->readahead_policy]);
}

/*
 * Armed only while the global policy or a bound scope's is off stock:
 * then the fault path costs one static branch. Under zswb_param_mutex.
 */
static void zswb_ra_policy_changed(int choice)
{
	zswb_arm(ZSWAP_WB_READAHEAD,
		 zswb_ra_skips(&zswb_ra_policies[READ_ONCE(readahead_policy)]) ||
		 zswb_scopes_any(zswb_ra_set_skips));
}

#define ZSWB_RA_POLICY_DESC "Which swap readahead to skip for zswap entries on a swapin fault."
const struct zswb_param zswb_ra_policy_param = {
	.name		= "readahead_policy",
	.help		= ZSWB_RA_POLICY_DESC,
	.kind		= ZSWB_PARAM_CHOICE,
	.choice		= &readahead_policy,
	.names		= zswb_ra_policy_names,
	.nr_names	= ARRAY_SIZE(zswb_ra_policy_names),
	.changed	= zswb_ra_policy_changed,
	.setting	= offsetof(struct zswb_settings, readahead_policy),
};
module_param_cb(readahead_policy, &zswb_choice_ops, (void *)&zswb_ra_policy_param, 0644);
MODULE_PARM_DESC(readahead_policy, ZSWB_RA_POLICY_DESC);

/* Arm the point if insmod arguments or a scope chose a policy, or disarm it. */
static void zswb_readahead_arm(void)
{
	zswb_ra_policy_changed(READ_ONCE(readahead_policy));
}

static const struct zswb_param * const zswb_readahead_params[] = {
	&zswb_ra_policy_param,
	NULL,
};

const struct zswb_family zswb_readahead = {
	.arm	= zswb_readahead_arm,
	.params	= zswb_readahead_params,
};
