// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: what the running module says of its statistics and parameters,
 * read from $ZSWB_DEBUGFS/schema: each statistic's kind, unit and help,
 * each parameter's kind, values, default, what turning it off means for the
 * folios in flight (its flags) and help. zswbctl keeps no list of its own.
 *
 * Without that file (a zswap_wb older than it, or a debugfs that cannot be
 * read), a minimal fallback reads what the other files say: a parameter
 * whose value lists names with one in brackets takes one of those names,
 * Y or N is a boolean and a number an integer, their values left to the
 * module to check; a statistic is a counter; and the drain contract is
 * that of the modules before the schema (param_flags()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "zswbctl.h"

static struct {
	bool tried, loaded;
	char *buf;
	struct stat_info *stat;
	size_t nr_stats;
	struct param_info *param;
	size_t nr_params;
} schema;

/* Split @s at each @sep into a new NULL-terminated array; NULL if out of memory. */
static char **split_words(char *s, const char *sep)
{
	char **v = NULL, **tmp, *w;
	size_t n = 0;

	for (;;) {
		w = strsep(&s, sep);
		tmp = realloc(v, (n + 1) * sizeof(*v));
		if (!tmp) {
			free(v);
			return NULL;
		}
		v = tmp;
		v[n++] = w;
		if (!w)
			return v;
	}
}

/* Grow @arr of @n elements of @size by one zeroed element; NULL if out of memory. */
static void *grow(void *arr, size_t *n, size_t size)
{
	char *tmp = realloc(arr, (*n + 1) * size);

	if (tmp)
		memset(tmp + (*n)++ * size, 0, size);
	return tmp;
}

/* "stat NAME KIND UNIT HELP": a per-node NAME ends in "_node<N>". */
static bool parse_stat(char **f)
{
	static const char node[] = "_node<N>";
	struct stat_info *s, *tmp;
	size_t len = strlen(f[1]);

	if (strcmp(f[2], "counter") && strcmp(f[2], "gauge"))
		return false;
	tmp = grow(schema.stat, &schema.nr_stats, sizeof(*tmp));
	if (!tmp)
		return false;
	schema.stat = tmp;
	s = &tmp[schema.nr_stats - 1];
	s->key = f[1];
	if (len > strlen(node) && !strcmp(f[1] + len - strlen(node), node)) {
		f[1][len - strlen(node)] = '\0';
		s->per_node = true;
	}
	s->kind = !strcmp(f[2], "counter") ? STAT_COUNTER : STAT_GAUGE;
	s->usec = !strcmp(f[3], "us");
	s->help = f[4];
	return true;
}

/* "param NAME KIND VALUES DEFAULT FLAGS HELP". */
static bool parse_param(char **f)
{
	static const char * const types[] = {
		[PARAM_BOOL] = "bool", [PARAM_UINT] = "uint", [PARAM_CHOICE] = "choice",
	};
	struct param_info *p, *tmp;
	char **flags, **fl;
	size_t t;

	for (t = 0; t < ARRAY_SIZE(types) && strcmp(f[2], types[t]); t++)
		;
	if (t == ARRAY_SIZE(types))
		return false;
	tmp = grow(schema.param, &schema.nr_params, sizeof(*tmp));
	if (!tmp)
		return false;
	schema.param = tmp;
	p = &tmp[schema.nr_params - 1];
	p->name = f[1];
	p->type = t;
	if (p->type == PARAM_UINT) {
		p->ranged = sscanf(f[3], "%lu..%lu", &p->min, &p->max) == 2;
	} else {
		p->values = split_words(f[3], " ");
		if (!p->values)
			return false;
	}
	p->def = f[4];
	flags = split_words(f[5], ",");
	for (fl = flags; fl && *fl; fl++) {
		if (!strcmp(*fl, "drains"))
			p->flags |= DRAIN_ON_UNLOAD;
		else if (!strcmp(*fl, "waits"))
			p->flags |= DRAIN_WAIT_OFF;
	}
	free(flags);
	p->help = f[6];
	return true;
}

/*
 * Read the schema once, if the module has one; a line zswbctl cannot read
 * is left out, said once on stderr.
 */
static void schema_load(void)
{
	char path[PATH_MAX], *line, *save, *copy, **f;
	bool ok, warned = false;
	size_t n;
	int err;

	if (schema.tried)
		return;
	schema.tried = true;
	snprintf(path, sizeof(path), "%s/schema", debugfs_dir);
	schema.buf = read_all(path, &err);
	if (!schema.buf)
		return;
	schema.loaded = true;
	for (line = strtok_r(schema.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		copy = strdup(line);	/* the fields are split in place */
		f = split_words(line, "\t");
		for (n = 0; f && f[n]; n++)
			;
		ok = f && ((n == 5 && !strcmp(f[0], "stat") && parse_stat(f)) ||
			   (n == 7 && !strcmp(f[0], "param") && parse_param(f)));
		if (!ok && !warned) {
			msg("%s: a line left out: '%s'", path, copy ? copy : "?");
			warned = true;
		}
		free(copy);
		free(f);
	}
}

/* The description of statistic @key (or of its per-node base), or NULL. */
const struct stat_info *stat_find(const char *key)
{
	const char *node;
	size_t i, len;
	bool per_node;

	schema_load();
	per_node = node_key(key, &len, &node);
	if (!per_node)
		len = strlen(key);
	for (i = 0; i < schema.nr_stats; i++)
		if (schema.stat[i].per_node == per_node &&
		    strlen(schema.stat[i].key) == len &&
		    !strncmp(schema.stat[i].key, key, len))
			return &schema.stat[i];
	return NULL;
}

/* The parameters the schema lists, in its order, in *@list; how many. */
size_t param_infos(const struct param_info **list)
{
	schema_load();
	*list = schema.param;
	return schema.nr_params;
}

/* The words of a value that lists every choice, brackets taken off; NULL if out of memory. */
static char **choice_words(const char *val)
{
	char *s = strdup(val), *b;

	if (!s)
		return NULL;
	for (b = s; *b; b++)
		if (*b == '[' || *b == ']')
			memmove(b, b + 1, strlen(b));
	return split_words(s, " ");
}

/* The fallback's rows, each made once and kept: callers hold them. */
static struct param_info **guessed;
static size_t nr_guessed;

/*
 * What zswbctl knows of parameter @name: the schema's row, or what the
 * fallback reads from its file; NULL if it cannot be read.
 */
const struct param_info *param_info(const char *name)
{
	struct param_info **tmp, *p;
	char *val, buf[256];
	size_t i;
	int err;

	schema_load();
	for (i = 0; i < schema.nr_params; i++)
		if (!strcmp(schema.param[i].name, name))
			return &schema.param[i];
	for (i = 0; i < nr_guessed; i++)
		if (!strcmp(guessed[i]->name, name))
			return guessed[i];
	val = param_read_raw(name, &err);
	if (!val)
		return NULL;
	p = calloc(1, sizeof(*p));
	tmp = p ? grow(guessed, &nr_guessed, sizeof(*tmp)) : NULL;
	if (!tmp) {
		free(p);
		free(val);
		msg("out of memory");
		return NULL;
	}
	guessed = tmp;
	guessed[nr_guessed - 1] = p;
	p->name = strdup(name);
	if (current_choice(val, buf, sizeof(buf)))
		p->type = PARAM_CHOICE;
	else if (value_kind(val) == VALUE_BOOL)
		p->type = PARAM_BOOL;
	else
		p->type = value_kind(val) == VALUE_NUM ? PARAM_UINT : PARAM_OTHER;
	if (p->type == PARAM_CHOICE)
		p->values = choice_words(val);
	free(val);
	if (!p->name || (p->type == PARAM_CHOICE && !p->values)) {
		nr_guessed--;
		free(p);
		msg("out of memory");
		return NULL;
	}
	return p;
}

/*
 * The DRAIN_* flags of parameter @name, as the schema gives them. A module
 * without a schema is an older one, whose contract was in the names: every
 * parameter named "*_free" is a free policy that unload turns off (if it
 * reads as a boolean), and async_free leaves folios in flight when set off.
 */
unsigned int param_flags(const char *name)
{
	size_t i, len = strlen(name);
	unsigned int flags = 0;

	schema_load();
	for (i = 0; i < schema.nr_params; i++)
		if (!strcmp(schema.param[i].name, name))
			return schema.param[i].flags;
	if (schema.loaded)
		return 0;
	if (len >= 5 && !strcmp(name + len - 5, "_free"))
		flags |= DRAIN_ON_UNLOAD;
	if (!strcmp(name, "async_free"))
		flags |= DRAIN_WAIT_OFF;
	return flags;
}
