// SPDX-License-Identifier: GPL-2.0
/*
 * zswb_dup - a second zswap writeback backend, for the selftests.
 *
 * Loading it registers a backend: while zswap_wb is loaded, the hook must
 * refuse it with -EEXIST, and insmod fails with that error. incomplete=1
 * registers a backend with alloc_off_lru but no writeback_issued, which
 * the hook must refuse with -EINVAL whatever else is loaded.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/zswap.h>

static bool incomplete;
module_param(incomplete, bool, 0400);
MODULE_PARM_DESC(incomplete, "register a backend lacking a required callback");

static bool dup_alloc_off_lru(swp_entry_t entry, bool sync, struct mem_cgroup *memcg)
{
	return false;
}

static void dup_writeback_issued(struct folio *folio, bool sync, bool off_lru)
{
	folio_put(folio);
}

static struct zswap_wb_ops dup_ops = {
	.alloc_off_lru		= dup_alloc_off_lru,
	.writeback_issued	= dup_writeback_issued,
	.name			= "zswb_dup",
	.owner			= THIS_MODULE,
};

static int __init dup_init(void)
{
	if (incomplete)
		dup_ops.writeback_issued = NULL;
	return zswap_wb_register(&dup_ops);
}

static void __exit dup_exit(void)
{
	zswap_wb_unregister(&dup_ops);
}

module_init(dup_init);
module_exit(dup_exit);
MODULE_IMPORT_NS(ZSWAP_WB);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A second zswap writeback backend, for testing registration");
