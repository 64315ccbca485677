// SPDX-License-Identifier: GPL-2.0
/*
 * zswb_slowissue - widen the window between a writeback's end and
 * zswap_wb's writeback_issued(), for the selftests.
 *
 * With async_free on, a write that ends before zswap_writeback_entry()
 * hands its folio to the backend leaves the folio unlocked in the swap
 * cache, marked "ended", until writeback_issued() queues it (zswap_wb's
 * "requeued" counter). Every walker of physical memory can read its
 * struct page meanwhile. A kprobe on zswb_writeback_issued() spins for
 * delay_us first, so that many writes end in that window; then it reads
 * the folio's second word, page->compound_head, whose bit 0 means "tail
 * page": it must be clear in a head page, whatever the backend keeps in
 * folio->lru.next. tail_words counts the folios in which it was set.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/sysfs.h>

static unsigned int delay_us = 200;
module_param(delay_us, uint, 0600);
MODULE_PARM_DESC(delay_us, "spin this long on entry to zswb_writeback_issued()");

static atomic_long_t calls, tail_words;

static int slowissue_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops slowissue_count_ops = {
	.get = slowissue_get,
};

module_param_cb(calls, &slowissue_count_ops, &calls, 0400);
MODULE_PARM_DESC(calls, "calls of zswb_writeback_issued() delayed so far");
module_param_cb(tail_words, &slowissue_count_ops, &tail_words, 0400);
MODULE_PARM_DESC(tail_words, "folios whose compound_head word had bit 0 (tail page) set after the delay");

static int slowissue_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* zswb_writeback_issued(struct folio *folio, bool sync, bool off_lru) */
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);

	udelay(READ_ONCE(delay_us));
	atomic_long_inc(&calls);
	if (READ_ONCE(page->compound_head) & 1)
		atomic_long_inc(&tail_words);
	return 0;
}

static struct kprobe slowissue_kp = {
	.symbol_name	= "zswb_writeback_issued",
	.pre_handler	= slowissue_pre,
};

static int __init slowissue_init(void)
{
	int ret = register_kprobe(&slowissue_kp);

	if (ret)
		pr_err("zswb_slowissue: no kprobe on zswb_writeback_issued (%d): load zswap_wb first\n",
		       ret);
	return ret;
}

static void __exit slowissue_exit(void)
{
	unregister_kprobe(&slowissue_kp);
}

module_init(slowissue_init);
module_exit(slowissue_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zswap_wb selftest: widen the window before writeback_issued()");
