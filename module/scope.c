// SPDX-License-Identifier: GPL-2.0
/*
 * Policy scopes per cgroup: /sys/kernel/config/zswap_wb/NAME/
 *
 * A scope binds a set of policy settings to a cgroup v2 directory. The
 * folios, faults and shrink calls of that cgroup and of its descendants
 * follow the scope's settings, the nearest scoped ancestor winning; all
 * else follows the module parameters ("global"). A scope is made with
 * mkdir and removed with rmdir; inside it, "cgroup" takes the path of the
 * cgroup as /proc/PID/cgroup shows it, and each policy parameter has an
 * attribute of its name that takes what the parameter takes (params.c's
 * zswb_param_parse()). A new scope starts with the global values and no
 * cgroup: it covers nothing until its cgroup is written.
 *
 * Which memcg decides: for sync_free and async_free, the zswap entry's
 * owner, which the hook passes (prompt_free.c); for shrink_policy and
 * shrink_batch, the memcg being shrunk (shrinker.c); for readahead_policy,
 * that of the mm that faults, which the hook passes too (readahead.c).
 *
 * The lookup (zswb_scope_of()) reads an RCU-protected array of the bound
 * scopes, deepest cgroup first, and returns the first whose cgroup is an
 * ancestor of (or is) the memcg's: cgroup_is_descendant() compares one
 * word of the memcg's cgroup->ancestors[], so a lookup costs one compare
 * per bound scope and takes no lock. The array is replaced, never changed,
 * under zswb_param_mutex; the old one is freed after an RCU and a
 * zswb_scope_srcu grace period (the shrinker holds the latter across its
 * walk, which sleeps). The zswb_scoped static key is on while the array is
 * not empty: with no scope bound, no hot path looks anything up.
 *
 * A scope holds a reference on its memcg's css, so the memcg cannot be
 * freed and its address (and cgroup) cannot be reused while it is bound:
 * a cgroup removed while scoped stays bound as a zombie, its folios in
 * flight still resolve as its scope says, and "cgroup" reads its path with
 * " (removed)". A new cgroup made at the same path is another cgroup and is
 * not covered: write the path again.
 *
 * Each scope counts in a slot of its own (stats.c): its debugfs files are
 * scopes/NAME/stats and scopes/NAME/free_latency_us. configfs holds a
 * reference on the module for each scope: rmmod is refused until they are
 * all removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cgroup.h>
#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "zswap_wb.h"

DEFINE_STATIC_KEY_FALSE(zswb_scoped);
DEFINE_SRCU(zswb_scope_srcu);

#define ZSWB_SCOPE_NAME_MAX	31

struct zswb_scope {
	struct zswb_scope_core core;	/* what a lookup finds */
	struct config_group group;
	struct list_head list;		/* zswb_scopes, under zswb_param_mutex */
	struct mem_cgroup *memcg;	/* bound, its css held; under zswb_param_mutex */
	char *path;			/* as written when bound */
	struct dentry *dir;		/* debugfs scopes/NAME */
};

/* Every scope; those with a memcg are bound. Under zswb_param_mutex. */
static LIST_HEAD(zswb_scopes);
/* The slots a scope has, under zswb_param_mutex; slot 0 is global's. */
static DECLARE_BITMAP(zswb_slots_taken, ZSWB_NR_SLOTS);

/* The bound scopes, the deepest cgroup first, as zswb_scope_of() walks them. */
struct zswb_scope_map {
	unsigned int nr;
	struct zswb_map_entry {
		struct cgroup *cgrp;
		const struct zswb_scope_core *scope;
	} e[];
};

static struct zswb_scope_map __rcu *zswb_map;

/*
 * mem_cgroup_disabled(), read as a value: its static branch would be a
 * jump entry on a key of the kernel's, for which loading the module must
 * allocate (jump_label_add_module() warns when that fails); mkdir and a
 * cgroup write are no hot path.
 */
static bool zswb_memcg_disabled(void)
{
	return !static_key_enabled(&memory_cgrp_subsys_enabled_key);
}

static struct zswb_scope *to_zswb_scope(struct config_item *item)
{
	return container_of(to_config_group(item), struct zswb_scope, group);
}

/**
 * zswb_scope_lookup - the scope that covers a memcg, looked up
 * @memcg: the memcg, or NULL (the memory controller is disabled)
 *
 * What zswb_scope_of() calls while a scope is bound.
 * Context: under RCU or zswb_scope_srcu, which keep the result.
 * Return: the scope of the nearest scoped ancestor of @memcg (or of
 * @memcg itself), or zswb_global.
 */
const struct zswb_scope_core *zswb_scope_lookup(struct mem_cgroup *memcg)
{
	const struct zswb_scope_map *map;
	struct cgroup *cgrp;
	unsigned int i;

	if (!memcg)
		return &zswb_global;
	map = rcu_dereference_check(zswb_map, srcu_read_lock_held(&zswb_scope_srcu));
	if (!map)
		return &zswb_global;
	cgrp = memcg->css.cgroup;
	for (i = 0; i < map->nr; i++)
		if (cgroup_is_descendant(cgrp, map->e[i].cgrp))
			return map->e[i].scope;
	return &zswb_global;
}

/**
 * zswb_settings_any - whether the global settings or a bound scope's satisfy @pred
 * @pred: the test
 *
 * A point is armed while the global setting or a bound scope's asks for
 * it. Called with zswb_param_mutex held.
 *
 * Return: true if one does.
 */
bool zswb_settings_any(bool (*pred)(const struct zswb_settings *set))
{
	struct zswb_scope *sc;

	lockdep_assert_held(&zswb_param_mutex);
	if (pred(&zswb_global.set))
		return true;
	list_for_each_entry(sc, &zswb_scopes, list)
		if (sc->memcg && pred(&sc->core.set))
			return true;
	return false;
}

/*
 * Publish the bound scopes as a new array, the deepest cgroup first, and
 * free the old one once no lookup can hold it. Under zswb_param_mutex.
 * @gfp: GFP_KERNEL, or with __GFP_NOFAIL when a scope is being removed.
 */
static int zswb_map_rebuild(gfp_t gfp)
{
	struct zswb_scope_map *map = NULL, *old;
	struct zswb_scope *sc;
	unsigned int n = 0, i, j;

	lockdep_assert_held(&zswb_param_mutex);
	list_for_each_entry(sc, &zswb_scopes, list)
		n += !!sc->memcg;
	if (n) {
		map = kzalloc(struct_size(map, e, n), gfp);
		if (!map)
			return -ENOMEM;
		list_for_each_entry(sc, &zswb_scopes, list) {
			struct zswb_map_entry e = {
				.cgrp = sc->memcg ? sc->memcg->css.cgroup : NULL,
				.scope = &sc->core,
			};

			if (!e.cgrp)
				continue;
			/* Insertion by level, deepest first: nearest ancestor wins. */
			for (i = map->nr; i && map->e[i - 1].cgrp->level < e.cgrp->level; i--)
				;
			for (j = map->nr; j > i; j--)
				map->e[j] = map->e[j - 1];
			map->e[i] = e;
			map->nr++;
		}
		static_branch_enable(&zswb_scoped);
	}
	old = rcu_replace_pointer(zswb_map, map, lockdep_is_held(&zswb_param_mutex));
	if (!n)
		static_branch_disable(&zswb_scoped);
	synchronize_rcu();
	synchronize_srcu(&zswb_scope_srcu);
	kfree(old);
	return 0;
}

/* A scope's setting reads as its parameter does. */
static ssize_t zswb_setting_show(struct config_item *item,
				 const struct zswb_param *p, char *page)
{
	struct zswb_scope *sc = to_zswb_scope(item);

	return zswb_param_emit(p, READ_ONCE(sc->core.set.v[p->id]), page);
}

/*
 * A scope's setting takes what its parameter takes, with the same
 * messages, and arms what it asks for as the parameter would.
 */
static ssize_t zswb_setting_store(struct config_item *item,
				  const struct zswb_param *p,
				  const char *page, size_t len)
{
	struct zswb_scope *sc = to_zswb_scope(item);
	int ret = zswb_param_write(&sc->core.set, p, page);

	if (ret == -EBUSY)
		pr_err("scope %s: %s: the module is being unloaded\n",
		       config_item_name(item), p->name);
	return ret ?: len;
}

/* The show and store of the attribute of each row of zswap_wb_params.h. */
#define ZSWB_SCOPE_SETTING(_name)					\
static ssize_t zswb_scope_##_name##_show(struct config_item *item, char *page) \
{									\
	return zswb_setting_show(item, &zswb_params[ZSWB_P_##_name], page); \
}									\
									\
static ssize_t zswb_scope_##_name##_store(struct config_item *item,	\
					  const char *page, size_t len)	\
{									\
	return zswb_setting_store(item, &zswb_params[ZSWB_P_##_name], page, len); \
}

#define ZSWB_PARAM_BOOL(name, ...)	ZSWB_SCOPE_SETTING(name)
#define ZSWB_PARAM_UINT(name, ...)	ZSWB_SCOPE_SETTING(name)
#define ZSWB_PARAM_CHOICE(name, ...)	ZSWB_SCOPE_SETTING(name)
#include "zswap_wb_params.h"

/* The attributes of the settings, by row, as CONFIGFS_ATTR() makes one. */
#define ZSWB_SCOPE_ATTR(_name)						\
	[ZSWB_P_##_name] = {						\
		.ca_owner = THIS_MODULE, .ca_name = #_name, .ca_mode = 0644, \
		.show = zswb_scope_##_name##_show,			\
		.store = zswb_scope_##_name##_store,			\
	},
static struct configfs_attribute zswb_scope_settings[NR_ZSWB_PARAMS] = {
#define ZSWB_PARAM_BOOL(name, ...)	ZSWB_SCOPE_ATTR(name)
#define ZSWB_PARAM_UINT(name, ...)	ZSWB_SCOPE_ATTR(name)
#define ZSWB_PARAM_CHOICE(name, ...)	ZSWB_SCOPE_ATTR(name)
#include "zswap_wb_params.h"
};

/*
 * "cgroup": the path of the bound cgroup in the reader's cgroup namespace,
 * "PATH (removed)" once the cgroup was removed,
 * with the path it was bound as, or nothing.
 */
static ssize_t zswb_scope_cgroup_show(struct config_item *item, char *page)
{
	struct zswb_scope *sc = to_zswb_scope(item);
	struct mem_cgroup *memcg;
	int len = 0;

	mutex_lock(&zswb_param_mutex);
	memcg = sc->memcg;
	if (memcg && css_is_dying(&memcg->css))
		len = sysfs_emit(page, "%s (removed)\n", sc->path);
	else if (memcg && cgroup_path_ns(memcg->css.cgroup, page, PAGE_SIZE,
					 current->nsproxy->cgroup_ns) >= 0)
		len = strlcat(page, "\n", PAGE_SIZE);
	else if (memcg)
		len = sysfs_emit(page, "%s\n", sc->path);
	mutex_unlock(&zswb_param_mutex);
	return len;
}

/*
 * The cgroup of @path with a memory controller of its own (its memcg's css
 * held), or an error, logged for scope @name.
 */
static struct mem_cgroup *zswb_path_memcg(const char *name, const char *path)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;

	if (zswb_memcg_disabled()) {
		pr_err("scope %s: the memory controller is disabled (cgroup_disable=memory): scopes need it\n",
		       name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (path[0] != '/') {
		pr_err("scope %s: '%s' is not a cgroup path (from /, as /proc/PID/cgroup shows it)\n",
		       name, path);
		return ERR_PTR(-EINVAL);
	}
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_err("scope %s: no cgroup %s\n", name, path);
		return ERR_CAST(cgrp);
	}
	if (!cgroup_parent(cgrp)) {
		pr_err("scope %s: %s is the whole host: set the module parameters instead\n",
		       name, path);
		cgroup_put(cgrp);
		return ERR_PTR(-EINVAL);
	}
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	cgroup_put(cgrp);
	if (css->cgroup != cgrp) {
		pr_err("scope %s: %s has no memory controller of its own: add memory to its parent's cgroup.subtree_control\n",
		       name, path);
		css_put(css);
		return ERR_PTR(-EINVAL);
	}
	return mem_cgroup_from_css(css);
}

/*
 * Bind the scope to a cgroup, or to none with an empty line. Another
 * scope's cgroup is refused: two scopes never cover the same memcg.
 */
static ssize_t zswb_scope_cgroup_store(struct config_item *item,
				       const char *page, size_t len)
{
	struct zswb_scope *sc = to_zswb_scope(item);
	const char *name = config_item_name(item);
	struct mem_cgroup *memcg = NULL, *old_memcg;
	char *path, *old_path;
	struct zswb_scope *other;
	int ret = 0;

	path = kstrndup(page, strcspn(page, "\n"), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	if (*path) {
		memcg = zswb_path_memcg(name, path);
		if (IS_ERR(memcg)) {
			kfree(path);
			return PTR_ERR(memcg);
		}
	}
	mutex_lock(&zswb_param_mutex);
	list_for_each_entry(other, &zswb_scopes, list) {
		if (memcg && other != sc && other->memcg == memcg) {
			pr_err("scope %s: %s is already the cgroup of scope %s\n",
			       name, path, config_item_name(&other->group.cg_item));
			ret = -EEXIST;
			goto out;
		}
	}
	old_memcg = sc->memcg;
	old_path = sc->path;
	sc->memcg = memcg;
	sc->path = path;
	ret = zswb_map_rebuild(GFP_KERNEL);
	if (ret) {
		sc->memcg = old_memcg;
		sc->path = old_path;
		goto out;
	}
	zswb_families_rearm();
	memcg = old_memcg;
	path = old_path;
out:
	mutex_unlock(&zswb_param_mutex);
	if (memcg)
		css_put(&memcg->css);
	kfree(path);
	return ret ?: len;
}

CONFIGFS_ATTR(zswb_scope_, cgroup);

/* "cgroup", then the settings in the rows' order (zswb_scopes_init()). */
static struct configfs_attribute *zswb_scope_attrs[1 + NR_ZSWB_PARAMS + 1] = {
	&zswb_scope_attr_cgroup,
};

static void zswb_scope_release(struct config_item *item)
{
	struct zswb_scope *sc = to_zswb_scope(item);

	kfree(sc->path);
	kfree(sc);
}

static struct configfs_item_operations zswb_scope_item_ops = {
	.release	= zswb_scope_release,
};

static const struct config_item_type zswb_scope_type = {
	.ct_item_ops	= &zswb_scope_item_ops,
	.ct_attrs	= zswb_scope_attrs,
	.ct_owner	= THIS_MODULE,
};

/* [A-Za-z0-9_.-]{1,31}, and not "global", the name of what no scope covers. */
static bool zswb_scope_name_ok(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || len > ZSWB_SCOPE_NAME_MAX || !strcmp(name, "global"))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) || (!isalnum(name[i]) && !strchr("_.-", name[i])))
			return false;
	return true;
}

/*
 * A slot for a new scope: one never used, or one whose removed scope has
 * no folio left in flight, folded into global first. Under zswb_param_mutex.
 */
static int zswb_slot_get(void)
{
	int slot, ret;

	for (slot = 1; slot < ZSWB_NR_SLOTS; slot++) {
		if (test_bit(slot, zswb_slots_taken) || !zswb_stats_slot_quiet(slot))
			continue;
		ret = zswb_stats_slot_alloc(slot);
		if (ret)
			return ret;
		zswb_stats_slot_fold(slot);
		__set_bit(slot, zswb_slots_taken);
		zswb_stats_slot_live(slot, true);
		return slot;
	}
	return -ENOSPC;
}

static struct config_group *zswb_scope_make(struct config_group *group,
					    const char *name)
{
	struct zswb_scope *sc;
	int slot;

	if (!zswb_scope_name_ok(name)) {
		pr_err("scope %s: a name is 1 to %d of A-Z a-z 0-9 _ . - and not global\n",
		       name, ZSWB_SCOPE_NAME_MAX);
		return ERR_PTR(-EINVAL);
	}
	if (zswb_memcg_disabled()) {
		pr_err("scope %s: the memory controller is disabled (cgroup_disable=memory): scopes need it\n",
		       name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&zswb_param_mutex);
	/*
	 * configfs is up before init registers the backend, and a failed
	 * register unregisters it again: a scope made meanwhile would be
	 * left behind, its css held, in a module being freed.
	 */
	if (!zswb_registered()) {
		mutex_unlock(&zswb_param_mutex);
		pr_err("scope %s: the module is still loading, try again\n", name);
		kfree(sc);
		return ERR_PTR(-EBUSY);
	}
	slot = zswb_slot_get();
	if (slot < 0) {
		mutex_unlock(&zswb_param_mutex);
		if (slot == -ENOSPC)
			pr_err("scope %s: %d scopes at most, counting removed ones whose folios are in flight\n",
			       name, ZSWB_NR_SLOTS - 1);
		kfree(sc);
		return ERR_PTR(slot);
	}
	sc->core.slot = slot;
	/* The global settings are written under the mutex too. */
	sc->core.set = zswb_global.set;
	list_add_tail(&sc->list, &zswb_scopes);
	mutex_unlock(&zswb_param_mutex);
	sc->dir = debugfs_create_dir(name, zswb_debugfs_scopes_dir());
	zswb_debugfs_view_files(sc->dir, slot);
	config_group_init_type_name(&sc->group, name, &zswb_scope_type);
	return &sc->group;
}

/*
 * rmdir: unbind, so that no lookup finds the scope once this returns; its
 * folios in flight resolve as they were marked and count in global.
 */
static void zswb_scope_drop(struct config_group *group, struct config_item *item)
{
	struct zswb_scope *sc = to_zswb_scope(item);
	struct mem_cgroup *memcg;

	mutex_lock(&zswb_param_mutex);
	list_del(&sc->list);
	memcg = sc->memcg;
	sc->memcg = NULL;
	if (memcg) {
		zswb_map_rebuild(GFP_KERNEL | __GFP_NOFAIL);
		zswb_families_rearm();
	}
	zswb_stats_slot_live(sc->core.slot, false);
	__clear_bit(sc->core.slot, zswb_slots_taken);
	mutex_unlock(&zswb_param_mutex);
	debugfs_remove_recursive(sc->dir);
	if (memcg)
		css_put(&memcg->css);
	config_item_put(item);
}

static struct configfs_group_operations zswb_root_group_ops = {
	.make_group	= zswb_scope_make,
	.drop_item	= zswb_scope_drop,
};

static const struct config_item_type zswb_root_type = {
	.ct_group_ops	= &zswb_root_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem zswb_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= KBUILD_MODNAME,
			.ci_type	= &zswb_root_type,
		},
	},
};

/* Before the backend is registered: mkdir refuses until init has armed. */
int zswb_scopes_init(void)
{
	int ret, i;

	for (i = 0; i < NR_ZSWB_PARAMS; i++)
		zswb_scope_attrs[1 + i] = &zswb_scope_settings[i];

	config_group_init(&zswb_subsys.su_group);
	mutex_init(&zswb_subsys.su_mutex);
	ret = configfs_register_subsystem(&zswb_subsys);
	if (ret)
		pr_err("cannot register /sys/kernel/config/%s: %d\n", KBUILD_MODNAME, ret);
	return ret;
}

/* No scope is left: each one holds a reference on the module. */
void zswb_scopes_exit(void)
{
	configfs_unregister_subsystem(&zswb_subsys);
	WARN_ON(!list_empty(&zswb_scopes) || rcu_access_pointer(zswb_map));
}
