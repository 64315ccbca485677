// SPDX-License-Identifier: GPL-2.0
/*
 * zswb_dup - a second zswap writeback backend, for the selftests.
 *
 * Loading it registers a backend: while zswap_wb is loaded, the hook must
 * refuse it with -EEXIST, and insmod fails with that error. incomplete=1
 * registers a backend with alloc_off_lru but no writeback_issued, which
 * the hook must refuse with -EINVAL whatever else is loaded.
 *
 * remove_pfn=PFN registers nothing: it hands the folio of PFN, if that is
 * a clean, unmapped swap cache folio on the LRU, to zswap_wb_remove_folio()
 * as a backend would (locked, with a reference), which must refuse it,
 * and logs "zswb_dup: pfn PFN: refused", "removed" or "skipped" (not such
 * a folio, or its lock taken). The module then loads, to be removed.
 */
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/zswap.h>

static bool incomplete;
module_param(incomplete, bool, 0400);
MODULE_PARM_DESC(incomplete, "register a backend lacking a required callback");

static unsigned long remove_pfn;
module_param(remove_pfn, ulong, 0400);
MODULE_PARM_DESC(remove_pfn, "hand this pfn's LRU folio to zswap_wb_remove_folio()");

static const char *dup_remove(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	const char *what = "skipped";
	struct folio *folio;

	if (!page)
		return what;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		return what;
	if (folio_trylock(folio)) {
		if (folio_test_lru(folio) && folio_test_swapcache(folio) &&
		    !folio_mapped(folio) && !folio_test_dirty(folio) &&
		    !folio_test_writeback(folio))
			what = zswap_wb_remove_folio(folio, NULL) ? "removed" : "refused";
		folio_unlock(folio);
	}
	folio_put(folio);
	return what;
}

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
};

static bool dup_registered;

static int __init dup_init(void)
{
	int ret;

	if (remove_pfn) {
		pr_info("zswb_dup: pfn %lu: %s\n", remove_pfn, dup_remove(remove_pfn));
		return 0;
	}
	if (incomplete)
		dup_ops.writeback_issued = NULL;
	ret = zswap_wb_register(&dup_ops);
	dup_registered = !ret;
	return ret;
}

static void __exit dup_exit(void)
{
	if (dup_registered)
		zswap_wb_unregister(&dup_ops);
}

module_init(dup_init);
module_exit(dup_exit);
MODULE_IMPORT_NS(ZSWAP_WB);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A second zswap writeback backend, for testing registration");
