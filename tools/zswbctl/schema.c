// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: what the running module says of its statistics and parameters,
 * read from $ZSWB_DEBUGFS/schema: each statistic's kind, unit and help,
 * each parameter's kind, values, default, what turning it off means for the
 * folios in flight (its flags) and help. zswbctl keeps no list of its own:
 * a parameter's type in JSON and Prometheus, the values set takes, what
 * unload turns off and what set waits for are the schema's alone. A
 * command that needs them fails when the schema cannot be read
 * (schema_check()); none guesses them from a value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "zswbctl.h"

static struct {
	bool tried;
	int err;		/* -errno of the read, 0 once it is read */
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
	unsigned long min = 0, max = 0;
	struct param_info *p, *tmp;
	char **flags, **fl, **values = NULL;
	size_t t;

	for (t = 0; t < ARRAY_SIZE(types) && strcmp(f[2], types[t]); t++)
		;
	if (t == ARRAY_SIZE(types))
		return false;
	/* Every integer parameter has its range: a line without is none. */
	if (t == PARAM_UINT && sscanf(f[3], "%lu..%lu", &min, &max) != 2)
		return false;
	if (t != PARAM_UINT) {
		values = split_words(f[3], " ");
		if (!values)
			return false;
	}
	/* Only a line read whole is a parameter of the schema. */
	tmp = grow(schema.param, &schema.nr_params, sizeof(*tmp));
	if (!tmp) {
		free(values);
		return false;
	}
	schema.param = tmp;
	p = &tmp[schema.nr_params - 1];
	p->name = f[1];
	p->type = t;
	p->min = min;
	p->max = max;
	p->values = values;
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
 * Read the schema once (schema.err says if it could not be); a line
 * zswbctl cannot read is left out, said once on stderr.
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
	schema.err = err;
	if (!schema.buf)
		return;
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

/* The -errno of reading the schema, 0 if it was read. */
int schema_error(void)
{
	schema_load();
	return schema.err;
}

/*
 * Check that the schema can be read, once check_dirs() found the module
 * and its debugfs directory: 0, or the exit code after saying why.
 */
int schema_check(void)
{
	char what[PATH_MAX + 16];

	if (!schema_error())
		return 0;
	snprintf(what, sizeof(what), "read %s/schema", debugfs_dir);
	return debugfs_failed(what, schema.err);
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

/* The schema's row of parameter @name, or NULL if it lists none. */
const struct param_info *param_info(const char *name)
{
	size_t i;

	schema_load();
	for (i = 0; i < schema.nr_params; i++)
		if (!strcmp(schema.param[i].name, name))
			return &schema.param[i];
	return NULL;
}
