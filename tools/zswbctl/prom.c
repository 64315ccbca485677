// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: "prometheus", the parameters, statistics and free-latency
 * histogram in the Prometheus text format (version 0.0.4), the host's and
 * each policy scope's (a "scope" label), after zswap_wb_up and the build
 * info, on stdout or in a file replaced atomically for node_exporter's
 * textfile collector. A module that cannot be read is zswap_wb_up 0 and
 * the build info alone: none of its series outlives it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "zswbctl.h"

/* Whether @s can be (the tail of) a Prometheus metric name. */
static bool prom_name_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
		     strlen(s);
}

/* Print @s escaped as (part of) a Prometheus label value, without quotes. */
static void prom_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Print @s as a Prometheus label value, quotes included. */
static void prom_label(FILE *out, const char *s)
{
	fputc('"', out);
	prom_escaped(out, s);
	fputc('"', out);
}

/* Print # HELP and # TYPE of metric @name. */
static void prom_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Print @us microseconds as seconds, exactly. */
static void prom_seconds(FILE *out, unsigned long long us)
{
	fprintf(out, "%llu.%06llu", us / 1000000, us % 1000000);
}

/*
 * The HELP of zswap_wb_param_info: the choice parameters (of the @n in
 * @v), each with the module's help, worded as "name: its help".
 */
static void prom_info_head(FILE *out, const struct param_val *v, size_t n)
{
	const struct param_info *p;
	const char *sep = " (";
	size_t i, len;

	fputs("# HELP zswap_wb_param_info Parameters whose value is a name", out);
	for (i = 0; i < n; i++) {
		p = v[i].info;
		if (p->type != PARAM_CHOICE || !prom_name_ok(p->name))
			continue;
		len = strlen(p->help);
		if (len && p->help[len - 1] == '.')
			len--;
		if (!len)
			continue;
		/* "How ... nodes." as "how ... nodes" */
		fprintf(out, "%s%s: %c%.*s", sep, p->name,
			tolower((unsigned char)p->help[0]), (int)len - 1, p->help + 1);
		sep = "; ";
	}
	fprintf(out, "%s, the value as a label.\n# TYPE zswap_wb_param_info gauge\n",
		*sep == ';' ? ")" : "");
}

/*
 * The parameters, each as the module's schema types it (params_typed()):
 * booleans as 0/1 gauges, uints as gauges, and the choices (the policies)
 * as one info-style gauge with the value in a label.
 */
static int prom_params(FILE *out)
{
	const struct param_info *p;
	struct param_val *v;
	bool names = false;
	char help[256];
	size_t i, n;
	int ret;

	ret = params_typed(&v, &n);
	if (ret) {
		params_typed_free(v, n);
		return ret;
	}
	for (i = 0; i < n; i++) {
		p = v[i].info;
		if (!prom_name_ok(p->name)) {
			msg("parameter '%s' left out: not a metric name", p->name);
			continue;
		}
		if (p->type == PARAM_CHOICE) {
			names = true;
			continue;
		}
		snprintf(help, sizeof(help), MODNAME " parameter %.200s.", p->name);
		fprintf(out, "# HELP zswap_wb_param_%s %s\n# TYPE zswap_wb_param_%s gauge\n",
			p->name, *p->help ? p->help : help, p->name);
		fprintf(out, "zswap_wb_param_%s %llu\n", p->name,
			p->type == PARAM_BOOL ? v[i].on : v[i].num);
	}
	if (names)
		prom_info_head(out, v, n);
	for (i = 0; i < n && names; i++) {
		p = v[i].info;
		if (p->type != PARAM_CHOICE || !prom_name_ok(p->name))
			continue;
		fprintf(out, "zswap_wb_param_info{name=\"%s\",value=", p->name);
		prom_label(out, v[i].val);
		fputs("} 1\n", out);
	}
	params_typed_free(v, n);
	return 0;
}

/*
 * Whether statistic @e can be exported (the schema describes it, and its
 * value is a number); its family name, after @prefix ("zswap_wb_", or
 * "zswap_wb_scope_"), in @name: the schema's kind and unit say which.
 */
static bool prom_family(const struct stat_ent *e, const char *prefix, char *name, size_t len)
{
	unsigned long long num;
	const struct stat_info *s;
	const char *node;
	size_t base;
	int n;

	s = stat_find(e->key);
	if (!s || !parse_num(e->val, &num) || !prom_name_ok(e->key))
		return false;
	if (!node_key(e->key, &base, &node))
		base = strlen(e->key);
	if (s->usec)	/* "..._us" in seconds */
		n = snprintf(name, len, "%s%.*s_seconds", prefix, (int)base - 3, e->key);
	else
		n = snprintf(name, len, "%s%.*s%s", prefix, (int)base, e->key,
			     s->kind == STAT_GAUGE ? "" : "_total");
	return n > 0 && (size_t)n < len;
}

/* Print the labels of a sample: its scope (if @scope), its node (if per node). */
static void prom_labels(FILE *out, const char *scope, const char *key)
{
	const char *node;
	size_t base;
	bool per_node = node_key(key, &base, &node);

	if (!scope && !per_node)
		return;
	fputc('{', out);
	if (scope) {
		fputs("scope=", out);
		prom_label(out, scope);
	}
	if (per_node)
		fprintf(out, "%snode=\"%s\"", scope ? "," : "", node);
	fputc('}', out);
}

/*
 * The statistics of the @n sets in @st (of the scopes in @scope, or one
 * set with no scope label if @scope is NULL), each family after @prefix:
 * counters as "_total" counters, gauges as gauges, the latency
 * percentiles as gauges in seconds, per-node keys as one family with a
 * "node" label. A family is printed whole where its first key is in the
 * first set; every set has the keys of the first (one stats format).
 */
static void prom_stats_of(FILE *out, const char *prefix, const struct stats *st,
			  char **scope, int n)
{
	char name[256], other[256];
	const struct stat_info *s;
	unsigned long long us;
	const struct stat_ent *e;
	size_t i, j;
	bool seen;
	int k;

	for (i = 0; i < st[0].n; i++) {
		if (!prom_family(&st[0].ent[i], prefix, name, sizeof(name)))
			continue;
		for (seen = false, j = 0; j < i && !seen; j++)
			seen = prom_family(&st[0].ent[j], prefix, other, sizeof(other)) &&
			       !strcmp(name, other);
		if (seen)
			continue;
		/* prom_family() exported it: the schema describes it. */
		s = stat_find(st[0].ent[i].key);
		prom_head(out, name, s->kind != STAT_COUNTER ? "gauge" : "counter", s->help);
		for (k = 0; k < n; k++) {
			for (j = 0; j < st[k].n; j++) {
				e = &st[k].ent[j];
				if (!prom_family(e, prefix, other, sizeof(other)) ||
				    strcmp(name, other))
					continue;
				fputs(name, out);
				prom_labels(out, scope ? scope[k] : NULL, e->key);
				fputc(' ', out);
				if (s->usec && parse_num(e->val, &us))
					prom_seconds(out, us);
				else
					print_num(out, e->val);
				fputc('\n', out);
			}
		}
	}
}

/* The host's statistics, as the module has always exported them. */
static void prom_stats(FILE *out, const struct stats *st)
{
	prom_stats_of(out, "zswap_wb_", st, NULL, 1);
}

/*
 * A free_latency_us histogram in seconds, as family @name, from debugfs
 * files @file of the @n scopes in @scope (or one with no scope label if
 * @scope is NULL). The module counts a time at or over the last bound in
 * the last line, so that line has no upper bound: it is only in "+Inf".
 * There is no _sum: the module keeps bucket counts only, and a sum made of
 * bucket bounds would be a guess.
 */
static int prom_latency_of(FILE *out, const char *name, char **file, char **scope, int n)
{
	unsigned long long total;
	struct latency lat;
	int i, k, ret;

	prom_head(out, name, "histogram", "Time from writeback end to free.");
	for (k = 0; k < n; k++) {
		ret = latency_load_file(&lat, file[k]);
		if (ret)
			return ret;
		for (total = 0, i = 0; i < lat.n - 1; i++) {
			total += lat.count[i];
			fprintf(out, "%s_bucket{", name);
			if (scope) {
				fputs("scope=", out);
				prom_label(out, scope[k]);
				fputc(',', out);
			}
			fputs("le=\"", out);
			prom_seconds(out, lat.bound[i]);
			fprintf(out, "\"} %llu\n", total);
		}
		total += lat.count[lat.n - 1];
		fprintf(out, "%s_bucket{", name);
		if (scope) {
			fputs("scope=", out);
			prom_label(out, scope[k]);
			fputc(',', out);
		}
		fprintf(out, "le=\"+Inf\"} %llu\n%s_count", total, name);
		if (scope) {
			fputs("{scope=", out);
			prom_label(out, scope[k]);
			fputc('}', out);
		}
		fprintf(out, " %llu\n", total);
	}
	return 0;
}

/* The host's free-latency histogram. */
static int prom_latency(FILE *out)
{
	char *file = "free_latency_us";

	return prom_latency_of(out, "zswap_wb_free_latency_seconds", &file, NULL, 1);
}

/* A scope's settings: "name=value" words, sorted by name, and their count. */
struct settings {
	int n;
	char *name[64], *val[64];
};

static void settings_free(struct settings *s)
{
	while (s->n-- > 0) {
		free(s->name[s->n]);
		free(s->val[s->n]);
	}
	s->n = 0;
}

/* Add setting @name = @val (of a choice, the current one) to @s; false if out of memory. */
static bool settings_add(struct settings *s, const char *name, const char *val)
{
	char buf[256];
	const char *v = current_choice(val, buf, sizeof(buf));

	if (s->n == (int)ARRAY_SIZE(s->name))
		return true;	/* more than any module has */
	s->name[s->n] = strdup(name);
	s->val[s->n] = strdup(v ? v : val);
	if (!s->name[s->n] || !s->val[s->n]) {
		free(s->name[s->n]);
		free(s->val[s->n]);
		return false;
	}
	s->n++;
	return true;
}

/*
 * The settings of scope @name: the attributes of its configfs directory
 * but "cgroup" (in @cgroup); of "global", the module parameters. 0 or 1.
 */
static int settings_load(const char *cfs, const char *name, struct settings *s, char **cgroup)
{
	char path[PATH_MAX + 256], *val;
	struct dirent **ents;
	bool global = !strcmp(name, "global");
	int i, n, err, ret = 0;

	*cgroup = NULL;
	if (global) {
		n = param_list(&ents);
	} else {
		snprintf(path, sizeof(path), "%s/%s", cfs, name);
		n = scandir(path, &ents, NULL, alphasort);
		if (n < 0)
			msg("cannot list %s: %s", path, strerror(errno));
	}
	if (n < 0)
		return 1;
	for (i = 0; i < n && !ret; i++) {
		if (ents[i]->d_name[0] == '.')
			continue;
		if (global) {
			val = param_read_raw(ents[i]->d_name, &err);
		} else {
			snprintf(path, sizeof(path), "%s/%s/%s", cfs, name, ents[i]->d_name);
			val = read_all(path, &err);
			if (val)
				val[strcspn(val, "\n")] = '\0';
		}
		if (!val) {
			msg("cannot read setting %s of scope %s: %s", ents[i]->d_name, name,
			    strerror(-err));
			ret = 1;
		} else if (!global && !strcmp(ents[i]->d_name, "cgroup")) {
			*cgroup = val;
			continue;
		} else if (prom_name_ok(ents[i]->d_name) &&
			   !settings_add(s, ents[i]->d_name, val)) {
			msg("out of memory");
			ret = 1;
		}
		free(val);
	}
	param_list_free(ents, n);
	return ret;
}

/*
 * zswap_wb_scope_info: one sample per scope, 1, its cgroup and settings
 * as labels: each setting by its name, and all of them in "settings"
 * ("name=value ...", sorted by name), for rules that group by setting.
 */
static int prom_scope_info(FILE *out, char **scope, int n)
{
	const char *cfs = env_or("ZSWB_CONFIGFS", "/sys/kernel/config/" MODNAME);
	struct settings s = { 0 };
	char *cgroup;
	int i, k, ret = 0;

	prom_head(out, "zswap_wb_scope_info", "gauge",
		  "A policy scope, 1: its cgroup (global: none, the rest of the host) and its settings as labels.");
	for (k = 0; k < n && !ret; k++) {
		ret = settings_load(cfs, scope[k], &s, &cgroup);
		if (ret)
			break;
		fputs("zswap_wb_scope_info{scope=", out);
		prom_label(out, scope[k]);
		fputs(",cgroup=", out);
		prom_label(out, cgroup ? cgroup : "");
		for (i = 0; i < s.n; i++) {
			if (!strcmp(s.name[i], "scope") || !strcmp(s.name[i], "cgroup") ||
			    !strcmp(s.name[i], "settings"))
				continue;
			fprintf(out, ",%s=", s.name[i]);
			prom_label(out, s.val[i]);
		}
		fputs(",settings=\"", out);
		for (i = 0; i < s.n; i++) {
			fprintf(out, "%s%s=", i ? " " : "", s.name[i]);
			prom_escaped(out, s.val[i]);
		}
		fputs("\"} 1\n", out);
		free(cgroup);
		settings_free(&s);
	}
	settings_free(&s);
	return ret;
}

/* scandir() filter: a scope's directory ("." and ".." left out). */
static int is_scope(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The policy scopes: each scope's statistics and histogram as the
 * zswap_wb_scope_* families with a "scope" label, "global" for everything
 * outside the scopes, and their settings as zswap_wb_scope_info. The
 * module always has "scopes/global", built with scopes or not.
 */
static int prom_scopes(FILE *out)
{
	char dir[PATH_MAX], **scope = NULL, **file = NULL;
	struct stats *st = NULL;
	struct dirent **ents = NULL;
	int i, n, ret = 0;

	snprintf(dir, sizeof(dir), "%s/scopes", debugfs_dir);
	n = scandir(dir, &ents, is_scope, alphasort);
	if (n < 0) {
		msg("cannot list %s: %s", dir, strerror(errno));
		return 1;
	}
	if (!n) {
		free(ents);
		return 0;
	}
	scope = calloc(n, sizeof(*scope));
	file = calloc(n, sizeof(*file));
	st = calloc(n, sizeof(*st));
	if (!scope || !file || !st) {
		msg("out of memory");
		ret = 1;
	}
	for (i = 0; i < n && !ret; i++) {
		scope[i] = ents[i]->d_name;
		if (asprintf(&file[i], "scopes/%s/stats", scope[i]) < 0) {
			file[i] = NULL;
			ret = 1;
		}
		if (!ret)
			ret = stats_load_file(&st[i], file[i]);
		free(file[i]);
		if (asprintf(&file[i], "scopes/%s/free_latency_us", scope[i]) < 0) {
			file[i] = NULL;
			ret = 1;
		}
	}
	if (!ret)
		prom_stats_of(out, "zswap_wb_scope_", st, scope, n);
	if (!ret)
		ret = prom_latency_of(out, "zswap_wb_scope_free_latency_seconds", file, scope, n);
	if (!ret)
		ret = prom_scope_info(out, scope, n);
	for (i = 0; i < n; i++) {
		if (st)
			stats_free(&st[i]);
		if (file)
			free(file[i]);
		free(ents[i]);
	}
	free(ents);
	free(st);
	free(file);
	free(scope);
	return ret;
}

/*
 * Where "prometheus FILE" writes: @path split into its directory (in @dir)
 * and its name (*@base), checked before anything is read. 0, or
 * EXIT_USAGE after saying why.
 */
static int prom_target(const char *path, char *dir, size_t len, const char **base)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	*base = slash ? path + (slash - dir) + 1 : path;
	if (!slash)
		snprintf(dir, len, ".");
	else
		slash[slash == dir] = '\0';
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		msg("'%s' is not a file name", path);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Replace @path, of directory @dir and name @base, with @len bytes of
 * @buf, atomically: a temporary file in the same directory, fsync,
 * rename, fsync of the directory. On failure @path is left as it was and
 * no temporary file is left behind.
 */
static int write_atomic(const char *path, const char *dir, const char *base,
			const char *buf, size_t len)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	size_t off = 0;
	ssize_t n;

	/* Hidden, and not "*.prom": node_exporter never reads it half-written. */
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base) >= (int)sizeof(tmp)) {
		msg("cannot write %s: %s", path, strerror(ENAMETOOLONG));
		return 1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		msg("cannot create a temporary file in %s: %s", dir, strerror(errno));
		return 1;
	}
	while (off < len && !err) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno != EINTR)
			err = neg_errno();
		else if (n > 0)
			off += n;
	}
	/* Readable by node_exporter, which does not run as root. */
	if (!err && fchmod(fd, 0644))
		err = neg_errno();
	if (!err && fsync(fd))
		err = neg_errno();
	if (close(fd) && !err)
		err = neg_errno();
	if (!err && rename(tmp, path))
		err = neg_errno();
	if (err) {
		msg("cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
		return 1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		msg("wrote %s, but cannot sync %s: %s", path, dir, strerror(errno));
		err = 1;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * zswap_wb_up, 1 if @up (the module read whole), and zswap_wb_build_info:
 * the loaded module's version (left out when it cannot be read), zswbctl's
 * and the running kernel's release as labels.
 */
static void prom_up(FILE *out, bool up)
{
	char path[PATH_MAX], *ver;
	struct utsname u;
	int err;

	prom_head(out, "zswap_wb_up", "gauge",
		  "Whether zswbctl read the module: 0 when it is not loaded, the kernel has no hook or a file of it cannot be read, and then no other zswap_wb series is exported.");
	fprintf(out, "zswap_wb_up %d\n", up);
	prom_head(out, "zswap_wb_build_info", "gauge",
		  "Always 1: the loaded module's version, zswbctl's version and the running kernel's release as labels.");
	fputs("zswap_wb_build_info{", out);
	snprintf(path, sizeof(path), "%s/version", sysfs_dir);
	ver = read_all(path, &err);
	if (ver) {
		ver[strcspn(ver, "\n")] = '\0';
		fputs("version=", out);
		prom_label(out, ver);
		fputc(',', out);
		free(ver);
	}
	fputs("zswbctl=", out);
	prom_label(out, ZSWBCTL_VERSION);
	fputs(",kernel=", out);
	prom_label(out, uname(&u) ? "" : u.release);
	fputs("} 1\n", out);
}

/*
 * The text in *@buf, *@len bytes: zswap_wb_up 1 and everything the module
 * has if @up, else zswap_wb_up 0 and the build info alone. 0, or the exit
 * code of what stopped the reading, after saying why; then *@buf is NULL.
 */
static int prom_build(char **buf, size_t *len, bool up)
{
	struct stats st = { 0 };
	FILE *out;
	int ret = 0;

	*buf = NULL;
	out = open_memstream(buf, len);
	if (!out) {
		msg("out of memory");
		return 1;
	}
	prom_up(out, up);
	if (up) {
		ret = prom_params(out);
		if (!ret)
			ret = stats_load(&st);
		if (!ret)
			prom_stats(out, &st);
		if (!ret)
			ret = prom_latency(out);
		if (!ret)
			ret = prom_scopes(out);
		stats_free(&st);
	}
	if (fclose(out) && !ret) {
		msg("out of memory");
		ret = 1;
	}
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	return ret;
}

/*
 * The text of the module as it is, or, if it cannot be read (not loaded,
 * no hook, debugfs or a file refused), the text of a module down, in
 * *@buf (NULL if even that failed). 0, or the exit code that says why the
 * module could not be read.
 */
static int prom_text(char **buf, size_t *len)
{
	int ret = check_dirs(NEED_SCHEMA);

	if (!ret)
		ret = prom_build(buf, len, true);
	if (ret)
		prom_build(buf, len, false);
	return ret;
}

/*
 * "prometheus [FILE]": zswap_wb_up, the build info, then the parameters,
 * statistics and the free-latency histogram of the host, then those of
 * each policy scope with a "scope" label, in the Prometheus text format
 * (version 0.0.4), for the node_exporter textfile collector. Built in
 * memory first, then printed or written over FILE at once. When the
 * module cannot be read (not loaded, no hook, a file refused), the text is
 * zswap_wb_up 0 and the build info alone, so that no series of the module
 * outlives it, and the exit code says why. A bad FILE changes nothing.
 */
int cmd_prometheus(char **argv)
{
	const char *file = argv[0] && strcmp(argv[0], "-") ? argv[0] : NULL;
	char dir[PATH_MAX], *buf = NULL;
	const char *base = NULL;
	size_t len = 0;
	int ret, wret;

	if (file) {
		ret = prom_target(file, dir, sizeof(dir), &base);
		if (ret)
			return ret;
	}
	ret = prom_text(&buf, &len);
	if (!buf)
		return ret;
	if (file) {
		wret = write_atomic(file, dir, base, buf, len);
		ret = wret ? wret : ret;
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	return ret;
}
