// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_wb: zswap writeback policies as a loadable backend.
 *
 * The module registers one backend with the zswap writeback hook. The
 * writeback and readahead points are armed only while a policy needs them;
 * the shrink point is armed while loaded, and its default policy walks as
 * the kernel does, counted. Policies are module parameters that can be
 * changed at any time; debugfs shows what each one did.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/zswap.h>

#include "zswap_wb.h"

static const struct zswap_wb_ops zswb_ops = {
	.alloc_off_lru		= zswb_alloc_off_lru,
	.writeback_prepare	= zswb_writeback_prepare,
	.writeback_issued	= zswb_writeback_issued,
	.writeback_end		= zswb_writeback_end,
	.shrink_memcg		= zswb_shrink_memcg,
	.readahead_skip		= zswb_readahead_skip,
	.name			= KBUILD_MODNAME,
};

/*
 * Serializes every parameter setter with init and exit. Parameter files
 * exist before module_init() runs: a setter that runs before init has
 * registered and armed (insmod arguments, or a write racing with insmod)
 * only stores its value, and init arms what the values ask for.
 */
DEFINE_MUTEX(zswb_param_mutex);

/* Set under zswb_param_mutex once init has armed the hook points. */
static bool zswb_is_registered;

/* Whether init has registered and armed: setters run before module_init too. */
bool zswb_registered(void)
{
	return READ_ONCE(zswb_is_registered);
}

/**
 * zswb_arm - arm or disarm a hook point for the module's policies
 * @point: the hook point
 * @armed: the new state
 *
 * Called with zswb_param_mutex held. Before init has registered (insmod
 * arguments) this does nothing: init arms what the parameters ask for.
 * Once registered it cannot fail: the backend is the registered one and
 * has every point's required callback.
 */
void zswb_arm(enum zswap_wb_point point, bool armed)
{
	lockdep_assert_held(&zswb_param_mutex);
	if (zswb_registered())
		WARN_ON_ONCE(zswap_wb_arm(&zswb_ops, point, armed));
}

/* The policy families, in the order init builds and arms them; exit goes back. */
static const struct zswb_family * const zswb_families[] = {
	&zswb_prompt_free,
	&zswb_shrinker,
	&zswb_readahead,
};

/*
 * Which scopes are bound changed: arm again what the global settings and
 * every bound scope ask for, as init does. Under zswb_param_mutex. Only
 * turning a policy on can fail, while the module is going; a scope holds
 * a reference on the module, so it is not.
 */
void zswb_families_rearm(void)
{
	unsigned int i;

	lockdep_assert_held(&zswb_param_mutex);
	if (!zswb_registered())
		return;
	for (i = 0; i < ARRAY_SIZE(zswb_families); i++)
		WARN_ON_ONCE(zswb_families[i]->arm());
}

/* Undo the init of the first @n families, the last one first. */
static void zswb_families_exit(int n)
{
	while (n--)
		if (zswb_families[n]->exit)
			zswb_families[n]->exit();
}

/*
 * Build everything that can fail first, register last, then arm: once the
 * backend is registered the kernel can call in, and a failed init could not
 * wait for those callers (the hook calls in whatever the module's state).
 * Nothing after zswap_wb_register() can fail.
 */
static int __init zswb_init(void)
{
	int i, ret;

	ret = zswb_stats_init();
	if (ret)
		return ret;
	zswb_debugfs_init();
	for (i = 0; i < ARRAY_SIZE(zswb_families); i++) {
		ret = zswb_families[i]->init ? zswb_families[i]->init() : 0;
		if (ret)
			goto err;
	}
	/* No scope can be made until init has armed (zswb_scope_make()). */
	if (!ZSWB_HAVE_SCOPES)
		pr_info("no policy scopes: the kernel has no %s\n",
			IS_ENABLED(CONFIG_MEMCG) ? "CONFIG_CONFIGFS_FS" : "CONFIG_MEMCG");
	ret = zswb_scopes_init();
	if (ret)
		goto err;
	ret = zswap_wb_register(&zswb_ops);
	if (ret) {
		pr_err("cannot register the zswap writeback backend: %d\n", ret);
		zswb_scopes_exit();
		goto err;
	}

	mutex_lock(&zswb_param_mutex);
	WRITE_ONCE(zswb_is_registered, true);
	/* The module is coming, not going: a family's reference on it is taken. */
	for (i = 0; i < ARRAY_SIZE(zswb_families); i++)
		WARN_ON_ONCE(zswb_families[i]->arm());
	mutex_unlock(&zswb_param_mutex);
	return 0;

err:
	zswb_families_exit(i);
	zswb_debugfs_exit();
	zswb_stats_exit();
	return ret;
}

/*
 * No scope is left here: configfs holds a reference on the module for
 * each one, so rmmod is refused until they are removed. No marked folio
 * is in flight either: the module holds a reference on itself while
 * async_free is on (globally or in a scope) or any is. Unregistering disarms every
 * point and waits for callers under RCU and under the hook's SRCU (those
 * that can sleep), so none is left.
 */
static void __exit zswb_exit(void)
{
	mutex_lock(&zswb_param_mutex);
	WRITE_ONCE(zswb_is_registered, false);
	mutex_unlock(&zswb_param_mutex);
	zswap_wb_unregister(&zswb_ops);
	zswb_scopes_exit();
	zswb_families_exit(ARRAY_SIZE(zswb_families));
	zswb_debugfs_exit();
	zswb_stats_exit();
}

module_init(zswb_init);
module_exit(zswb_exit);

MODULE_IMPORT_NS(ZSWAP_WB);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("zswap_wb maintainers");
MODULE_VERSION("0.1.0");
MODULE_DESCRIPTION("zswap writeback policies: prompt free, batched shrinking, readahead bypass");
