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
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/zswap.h>

#include "zswap_wb.h"

/* zswb_parse_bool()'s words, in pairs: the one that turns a parameter off, then on. */
static const char * const zswb_bool_words[] = {
	"0", "1", "n", "y", "no", "yes", "off", "on", "false", "true",
};

/**
 * zswb_parse_bool - parse a boolean parameter value strictly
 * @val: the value written, possibly ending in one newline
 * @res: where to store the result
 *
 * Unlike kstrtobool(), which looks at the first characters only, this
 * takes whole words: 1, 0, y, n, yes, no, on, off, true, false, in any
 * case, so that a typo is refused rather than read as its first letter.
 * (sysfs_match_string() takes whole words, but only in one case.)
 *
 * Return: 0, or -EINVAL.
 */
int zswb_parse_bool(const char *val, bool *res)
{
	size_t len = strcspn(val, "\n");
	int i;

	if (val[len] && val[len + 1])
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(zswb_bool_words); i++) {
		if (strlen(zswb_bool_words[i]) == len &&
		    !strncasecmp(val, zswb_bool_words[i], len)) {
			*res = i & 1;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * zswb_param_parse - parse a value of a policy parameter
 * @p: the parameter
 * @val: the value written, possibly ending in one newline
 * @res: where to store it: 0 or 1, the integer, the index of the name
 *
 * The one parser of the module parameters and of the scopes' attributes
 * (scope.c), so that both take the same values: a boolean as
 * zswb_parse_bool() takes it, an integer from min to max, a choice's name
 * whole. A refused value is logged, naming the parameter.
 *
 * Return: 0, or -EINVAL.
 */
int zswb_param_parse(const struct zswb_param *p, const char *val,
		     unsigned int *res)
{
	int len = strcspn(val, "\n"), i;
	char list[128];
	size_t n = 0;
	bool on;

	switch (p->kind) {
	case ZSWB_PARAM_BOOL:
		if (zswb_parse_bool(val, &on))
			break;
		*res = on;
		return 0;
	case ZSWB_PARAM_UINT:
		if (kstrtouint(val, 0, res) || *res < p->min || *res > p->max) {
			pr_err("%s: '%.*s' is not an integer from %u to %u\n",
			       p->name, len, val, p->min, p->max);
			return -EINVAL;
		}
		return 0;
	case ZSWB_PARAM_CHOICE:
		i = __sysfs_match_string(p->names, p->nr_names, val);
		if (i >= 0) {
			*res = i;
			return 0;
		}
		for (i = 0; i < p->nr_names; i++)
			n += scnprintf(list + n, sizeof(list) - n, "%s%s",
				       i ? ", " : "", p->names[i]);
		pr_err("%s: '%.*s' is not one of %s\n", p->name, len, val, list);
		return -EINVAL;
	}
	pr_err("%s: '%.*s' is not a boolean\n", p->name, len, val);
	return -EINVAL;
}

/**
 * zswb_param_emit - print a value of a policy parameter, as sysfs shows it
 * @p: the parameter
 * @v: the value, as zswb_param_parse() stores it
 * @buf: a sysfs (PAGE_SIZE) buffer
 *
 * A boolean reads Y or N, an integer in decimal, a choice as every name
 * with @v's in brackets, as block/elevator.c prints them.
 *
 * Return: the length printed.
 */
int zswb_param_emit(const struct zswb_param *p, unsigned int v, char *buf)
{
	unsigned int n;
	int len = 0;

	switch (p->kind) {
	case ZSWB_PARAM_BOOL:
		return sysfs_emit(buf, "%c\n", v ? 'Y' : 'N');
	case ZSWB_PARAM_UINT:
		return sysfs_emit(buf, "%u\n", v);
	case ZSWB_PARAM_CHOICE:
		break;
	}
	for (n = 0; n < p->nr_names; n++)
		len += sysfs_emit_at(buf, len, n == v ? "%s[%s]" : "%s%s",
				     n ? " " : "", p->names[n]);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* The global value of policy parameter @p, as zswb_param_parse() stores it. */
unsigned int zswb_param_global(const struct zswb_param *p)
{
	switch (p->kind) {
	case ZSWB_PARAM_BOOL:
		return READ_ONCE(*(bool *)p->value);
	case ZSWB_PARAM_UINT:
		return READ_ONCE(*(unsigned int *)p->value);
	case ZSWB_PARAM_CHOICE:
		break;
	}
	return READ_ONCE(*p->choice);
}

/*
 * A choice parameter: kp->arg is its struct zswb_param (kernel_param's arg
 * is not const; these ops only read it). A name is taken whole, as written
 * or with one trailing newline; anything else is refused, logged, and
 * changes nothing.
 */
static int zswb_choice_set(const char *val, const struct kernel_param *kp)
{
	const struct zswb_param *p = kp->arg;
	unsigned int i;
	int ret = zswb_param_parse(p, val, &i);

	if (ret)
		return ret;
	mutex_lock(&zswb_param_mutex);
	WRITE_ONCE(*p->choice, i);
	if (p->changed)
		p->changed(i);
	mutex_unlock(&zswb_param_mutex);
	return 0;
}

/* Every choice, the current one in brackets, as block/elevator.c prints them. */
static int zswb_choice_get(char *buf, const struct kernel_param *kp)
{
	const struct zswb_param *p = kp->arg;

	return zswb_param_emit(p, READ_ONCE(*p->choice), buf);
}

const struct kernel_param_ops zswb_choice_ops = {
	.set = zswb_choice_set,
	.get = zswb_choice_get,
};

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
 * A scope's settings changed, or which scopes are bound: arm again what
 * the global parameters and every bound scope ask for, as init does.
 * Under zswb_param_mutex.
 */
void zswb_families_rearm(void)
{
	unsigned int i;

	lockdep_assert_held(&zswb_param_mutex);
	if (!zswb_registered())
		return;
	for (i = 0; i < ARRAY_SIZE(zswb_families); i++)
		zswb_families[i]->arm();
}

/* How "schema" names the kinds, and the ZSWB_PARAM_* flags bit by bit. */
static const char * const zswb_param_kinds[] = {
	[ZSWB_PARAM_BOOL]	= "bool",
	[ZSWB_PARAM_UINT]	= "uint",
	[ZSWB_PARAM_CHOICE]	= "choice",
};

static const char * const zswb_param_flags[] = { "drains", "waits" };

static void zswb_words_show(struct seq_file *m, const char * const *words,
			    unsigned int n, char sep)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		seq_printf(m, "%s%c", words[i], i + 1 < n ? sep : '\t');
}

/* One "param" line of "schema": name, kind, values, default, flags, help. */
static void zswb_param_show(struct seq_file *m, const struct zswb_param *p)
{
	const char *flags[ARRAY_SIZE(zswb_param_flags)];
	unsigned int i, n = 0;

	seq_printf(m, "param\t%s\t%s\t", p->name, zswb_param_kinds[p->kind]);
	switch (p->kind) {
	case ZSWB_PARAM_BOOL:
		zswb_words_show(m, zswb_bool_words, ARRAY_SIZE(zswb_bool_words), ' ');
		seq_printf(m, "%c\t", p->def ? 'Y' : 'N');
		break;
	case ZSWB_PARAM_UINT:
		seq_printf(m, "%u..%u\t%u\t", p->min, p->max, p->def);
		break;
	case ZSWB_PARAM_CHOICE:
		zswb_words_show(m, p->names, p->nr_names, ' ');
		seq_printf(m, "%s\t", p->names[p->def]);
		break;
	}
	for (i = 0; i < ARRAY_SIZE(zswb_param_flags); i++)
		if (p->flags & BIT(i))
			flags[n++] = zswb_param_flags[i];
	if (!n)
		flags[n++] = "-";
	zswb_words_show(m, flags, n, ',');
	seq_printf(m, "%s\n", p->help);
}

/* The "param" lines of debugfs "schema", family by family. */
void zswb_params_show(struct seq_file *m)
{
	const struct zswb_param * const *p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(zswb_families); i++)
		for (p = zswb_families[i]->params; *p; p++)
			zswb_param_show(m, *p);
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
	for (i = 0; i < ARRAY_SIZE(zswb_families); i++)
		zswb_families[i]->arm();
	mutex_unlock(&zswb_param_mutex);
	return 0;

err:
	zswb_families_exit(i);
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
	zswb_stats_exit();
}

module_init(zswb_init);
module_exit(zswb_exit);

MODULE_IMPORT_NS(ZSWAP_WB);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("zswap_wb maintainers");
MODULE_VERSION("0.1.0");
MODULE_DESCRIPTION("zswap writeback policies: prompt free, batched shrinking, readahead bypass");
