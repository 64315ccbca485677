// SPDX-License-Identifier: GPL-2.0
/*
 * zswb_holdfree - hold zswap_wb's free work item back, for the selftests.
 *
 * With async_free on, a folio whose write ended waits on its CPU's list
 * until the writer's next writeback or the work item frees it. A swapin
 * in that window finds it in the swap cache with zswap_wb's reference on
 * it. To put many swapins in the window, a kprobe on zswb_free_workfn()
 * makes it return at once while hold is 1, and queues the work item again
 * a few milliseconds later on the same workqueue and CPU, so that nothing
 * is lost: once hold is 0, the next run frees the list. (The writer's own
 * frees are not held: a test holds the work item when nothing writes back.)
 *
 * The return is the one bpf_override_return() makes: the probe sets the
 * instruction pointer to an empty function, whose return goes back to the
 * work item's caller with the stack as it was on entry. x86-64 only, as
 * the test VM.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

static bool hold = true;
module_param(hold, bool, 0600);
MODULE_PARM_DESC(hold, "hold zswap_wb's free work item back (default Y)");

static atomic_long_t held;

static int holdfree_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops holdfree_count_ops = {
	.get = holdfree_get,
};

module_param_cb(held, &holdfree_count_ops, &held, 0400);
MODULE_PARM_DESC(held, "runs of the free work item held back so far");

/* Where a held run "returns" from: an empty function. */
static noinline void holdfree_return(void)
{
	barrier();
}

static int holdfree_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* zswb_free_workfn(struct work_struct *work) */
	struct work_struct *work = (struct work_struct *)regs_get_kernel_argument(regs, 0);
	struct delayed_work *dwork = to_delayed_work(work);

	if (!READ_ONCE(hold))
		return 0;
	atomic_long_inc(&held);
	/* A work item may queue itself again from its own function. */
	queue_delayed_work_on(dwork->cpu, dwork->wq, dwork, msecs_to_jiffies(10));
	instruction_pointer_set(regs, (unsigned long)holdfree_return);
	return 1;
}

/* A post handler makes the probe an IP-modifying one (kprobe_ipmodify_ops). */
static void holdfree_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
}

static struct kprobe holdfree_kp = {
	.symbol_name	= "zswb_free_workfn",
	.pre_handler	= holdfree_pre,
	.post_handler	= holdfree_post,
};

static int __init holdfree_init(void)
{
	int ret = register_kprobe(&holdfree_kp);

	if (ret)
		pr_err("zswb_holdfree: no kprobe on zswb_free_workfn (%d): load zswap_wb first\n",
		       ret);
	return ret;
}

static void __exit holdfree_exit(void)
{
	unregister_kprobe(&holdfree_kp);
}

module_init(holdfree_init);
module_exit(holdfree_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zswap_wb selftest: hold the free work item back");
