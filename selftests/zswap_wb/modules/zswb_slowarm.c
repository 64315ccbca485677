// SPDX-License-Identifier: GPL-2.0
/*
 * zswb_slowarm - widen the window between registration and the last step
 * of zswap_wb's init, for the selftests.
 *
 * A kprobe on zswap_wb_arm() spins for delay_ms when insmod or modprobe
 * calls it, that is while zswap_wb's init arms its points. A parameter
 * write that races with insmod then has delay_ms to land in the middle of
 * init, where a module that armed a point before it had built what the
 * point calls (its workqueue) would crash on the next writeback end.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

static unsigned int delay_ms = 300;
module_param(delay_ms, uint, 0600);
MODULE_PARM_DESC(delay_ms, "spin this long in zswap_wb_arm() called by insmod/modprobe");

static unsigned long hits;
module_param(hits, ulong, 0400);
MODULE_PARM_DESC(hits, "calls delayed so far");

static int slowarm_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (strcmp(current->comm, "insmod") && strcmp(current->comm, "modprobe"))
		return 0;
	hits++;
	mdelay(READ_ONCE(delay_ms));
	return 0;
}

static struct kprobe slowarm_kp = {
	.symbol_name	= "zswap_wb_arm",
	.pre_handler	= slowarm_pre,
};

static int __init slowarm_init(void)
{
	return register_kprobe(&slowarm_kp);
}

static void __exit slowarm_exit(void)
{
	unregister_kprobe(&slowarm_kp);
}

module_init(slowarm_init);
module_exit(slowarm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zswap_wb selftest: slow down zswap_wb_arm() during insmod");
