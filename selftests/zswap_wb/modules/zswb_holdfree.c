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
 * The probe handler runs in the breakpoint's exception on the debug kernel,
 * where lockdep counts a lock taken as taken in NMI context, and in
 * ftrace's handler with preemption off on the test kernel: it takes no
 * lock. It sets the instruction pointer to holdfree_requeue(), with the
 * registers and the stack as they were on the work item's entry, as
 * bpf_override_return() does: that function runs in the worker's own
 * context with the work item as its argument, queues it again, and
 * returns to the work item's caller. x86-64 only, as the test VM.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
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

/*
 * What a held run of zswb_free_workfn(work) runs instead, in the worker:
 * a work item may queue itself again from its own function. dwork->cpu and
 * dwork->wq are those of its last queueing: zswap_wb queues it with a
 * delay (ZSWB_FREE_DELAY), which is what sets them.
 */
static noinline void holdfree_requeue(struct work_struct *work)
{
	struct delayed_work *dwork = to_delayed_work(work);

	queue_delayed_work_on(dwork->cpu, dwork->wq, dwork, msecs_to_jiffies(10));
}

static int holdfree_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!READ_ONCE(hold))
		return 0;
	atomic_long_inc(&held);
	instruction_pointer_set(regs, (unsigned long)holdfree_requeue);
	return 1;
}

/*
 * A post handler makes the probe an IP-modifying one on ftrace
 * (kprobe_ipmodify_ops) and keeps a breakpoint probe from being optimized
 * into a jump, which would not follow the changed instruction pointer.
 */
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
	/*
	 * unregister_kprobe() waits for the handlers, not for a worker sent
	 * into holdfree_requeue(): a task RCU grace period does, every task
	 * having switched voluntarily since.
	 */
	synchronize_rcu_tasks();
}

module_init(holdfree_init);
module_exit(holdfree_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zswap_wb selftest: hold the free work item back");
