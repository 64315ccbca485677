// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_wb's policy parameters (zswap_wb_params.h): the global settings,
 * the module parameters that write them, and the one path by which a
 * value, global or a scope's (scope.c), is parsed, stored and re-armed.
 *
 * The global settings are those of zswb_global, the scope of slot 0 that
 * a lookup finds for what no scope covers: a hook reads its settings the
 * same way whether scopes are bound or not. Every value is stored under
 * zswb_param_mutex by zswb_param_set(), which runs the parameter's
 * family's prepare() before and arm() after: the points armed are always
 * those the global settings and the bound scopes ask for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "zswap_wb.h"

/* A choice parameter's names and their number, from its list (zswap_wb_params.h). */
#define ZSWB_CHOICE(name, ...)	#name
#define ZSWB_NAMES(...)							\
	.names = (const char * const [])__VA_ARGS__,			\
	.nr_names = sizeof((const char * const [])__VA_ARGS__) / sizeof(char *)

const struct zswb_param zswb_params[NR_ZSWB_PARAMS] = {
#define ZSWB_PARAM_BOOL(_name, _help, _def, _flags, _family)		\
	[ZSWB_P_##_name] = {						\
		.name = #_name, .help = _help, .id = ZSWB_P_##_name,	\
		.kind = ZSWB_PARAM_KIND_BOOL, .flags = _flags,		\
		.def = _def, .max = 1, .family = &zswb_##_family,	\
	},
#define ZSWB_PARAM_UINT(_name, _help, _def, _min, _max, _flags, _family) \
	[ZSWB_P_##_name] = {						\
		.name = #_name, .help = _help, .id = ZSWB_P_##_name,	\
		.kind = ZSWB_PARAM_KIND_UINT, .flags = _flags,		\
		.def = _def, .min = _min, .max = _max,			\
		.family = &zswb_##_family,				\
	},
#define ZSWB_PARAM_CHOICE(_name, _help, _choices, _flags, _family)	\
	[ZSWB_P_##_name] = {						\
		.name = #_name, .id = ZSWB_P_##_name,			\
		.help = (_help) + BUILD_BUG_ON_ZERO(sizeof(_help) <= 1), \
		.kind = ZSWB_PARAM_KIND_CHOICE, .flags = _flags,	\
		ZSWB_NAMES(_choices),					\
		.family = &zswb_##_family,				\
	},
#include "zswap_wb_params.h"
};

/*
 * The global settings: the defaults (a choice's first name) until a
 * parameter is written. A row without its help does not build (a
 * choice's is checked in zswb_params[]).
 */
struct zswb_scope_core zswb_global __read_mostly = {
	.slot = 0,
	.set.v = {
#define ZSWB_PARAM_BOOL(name, help, def, ...)				\
		[ZSWB_P_##name] = (def) + BUILD_BUG_ON_ZERO(sizeof(help) <= 1),
#define ZSWB_PARAM_UINT(name, help, def, ...)				\
		[ZSWB_P_##name] = (def) + BUILD_BUG_ON_ZERO(sizeof(help) <= 1),
#include "zswap_wb_params.h"
	},
};

static const char * const zswb_bool_words[] = ZSWB_BOOL_WORDS;

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
	case ZSWB_PARAM_KIND_BOOL:
		if (zswb_parse_bool(val, &on))
			break;
		*res = on;
		return 0;
	case ZSWB_PARAM_KIND_UINT:
		if (kstrtouint(val, 0, res) || *res < p->min || *res > p->max) {
			pr_err("%s: '%.*s' is not an integer from %u to %u\n",
			       p->name, len, val, p->min, p->max);
			return -EINVAL;
		}
		return 0;
	case ZSWB_PARAM_KIND_CHOICE:
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
	case ZSWB_PARAM_KIND_BOOL:
		return sysfs_emit(buf, "%c\n", v ? 'Y' : 'N');
	case ZSWB_PARAM_KIND_UINT:
		return sysfs_emit(buf, "%u\n", v);
	case ZSWB_PARAM_KIND_CHOICE:
		break;
	}
	for (n = 0; n < p->nr_names; n++)
		len += sysfs_emit_at(buf, len, n == v ? "%s[%s]" : "%s%s",
				     n ? " " : "", p->names[n]);
	return len + sysfs_emit_at(buf, len, "\n");
}

/*
 * Store @val in @set and arm what it asks for: the family's prepare(),
 * the store, the family's arm(); if arm() fails (the module is going),
 * the old value goes back. Under zswb_param_mutex.
 */
static int zswb_param_set(struct zswb_settings *set, const struct zswb_param *p,
			  unsigned int val)
{
	const struct zswb_family *f = p->family;
	unsigned int old = set->v[p->id];
	int ret;

	lockdep_assert_held(&zswb_param_mutex);
	if (f->prepare)
		f->prepare(p, val);
	WRITE_ONCE(set->v[p->id], val);
	ret = f->arm();
	if (ret) {
		WRITE_ONCE(set->v[p->id], old);
		f->arm();
	}
	return ret;
}

/**
 * zswb_param_write - write a value of a policy parameter
 * @set: the global settings (zswb_global.set) or a scope's
 * @p: the parameter
 * @val: the value written, possibly ending in one newline
 *
 * The one path of every module parameter and scope attribute: parsed by
 * zswb_param_parse() (which logs a refused value), then stored and armed
 * under zswb_param_mutex.
 *
 * Return: 0; -EINVAL for a refused value, nothing changed; -EBUSY when the
 * module is being unloaded, the old value back in place.
 */
int zswb_param_write(struct zswb_settings *set, const struct zswb_param *p,
		     const char *val)
{
	unsigned int v;
	int ret;

	ret = zswb_param_parse(p, val, &v);
	if (ret)
		return ret;
	mutex_lock(&zswb_param_mutex);
	ret = zswb_param_set(set, p, v);
	mutex_unlock(&zswb_param_mutex);
	return ret;
}

/*
 * A module parameter: kp->arg is its row of zswb_params[] (kernel_param's
 * arg is not const; these ops only read it). A refused value is logged
 * and changes nothing.
 *
 * The kernel holds every zswap_wb parameter's lock around these calls: a
 * setter must not wait for the folios in flight, which a stalled swap
 * device would hold for as long as it stalls (async_free's "waits").
 */
static int zswb_param_store(const char *val, const struct kernel_param *kp)
{
	const struct zswb_param *p = kp->arg;
	int ret = zswb_param_write(&zswb_global.set, p, val);

	if (ret == -EBUSY)
		pr_err("%s: the module is being unloaded\n", p->name);
	return ret;
}

static int zswb_param_show_value(char *buf, const struct kernel_param *kp)
{
	const struct zswb_param *p = kp->arg;

	return zswb_param_emit(p, READ_ONCE(zswb_global.set.v[p->id]), buf);
}

static const struct kernel_param_ops zswb_param_ops = {
	.set = zswb_param_store,
	.get = zswb_param_show_value,
};

/*
 * A module parameter for each row, of its name, with its help as its
 * description: two declarations, ended as those of DAMON's
 * modules-common.h are (selftests/run.sh lets checkpatch know).
 */
#define ZSWB_MODULE_PARAM(name, help, ...)				\
	module_param_cb(name, &zswb_param_ops,				\
			(void *)&zswb_params[ZSWB_P_##name], 0644);	\
	MODULE_PARM_DESC(name, help);
#define ZSWB_PARAM_BOOL		ZSWB_MODULE_PARAM
#define ZSWB_PARAM_UINT		ZSWB_MODULE_PARAM
#define ZSWB_PARAM_CHOICE	ZSWB_MODULE_PARAM
#include "zswap_wb_params.h"

/* How "schema" names the kinds, and the ZSWB_PARAM_* flags bit by bit. */
static const char * const zswb_param_kinds[] = {
	[ZSWB_PARAM_KIND_BOOL]	= "bool",
	[ZSWB_PARAM_KIND_UINT]	= "uint",
	[ZSWB_PARAM_KIND_CHOICE]	= "choice",
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
	case ZSWB_PARAM_KIND_BOOL:
		zswb_words_show(m, zswb_bool_words, ARRAY_SIZE(zswb_bool_words), ' ');
		seq_printf(m, "%c\t", p->def ? 'Y' : 'N');
		break;
	case ZSWB_PARAM_KIND_UINT:
		seq_printf(m, "%u..%u\t%u\t", p->min, p->max, p->def);
		break;
	case ZSWB_PARAM_KIND_CHOICE:
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

/* The "param" lines of debugfs "schema", in the rows' order. */
void zswb_params_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < NR_ZSWB_PARAMS; i++)
		zswb_param_show(m, &zswb_params[i]);
}
