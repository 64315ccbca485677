// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: "prometheus", the parameters, statistics and free-latency
 * histogram in the Prometheus text format (version 0.0.4), on stdout or
 * in a file replaced atomically for node_exporter's textfile collector.
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
#include <unistd.h>

#include "zswbctl.h"

/* Whether @s can be (the tail of) a Prometheus metric name. */
static bool prom_name_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
		     strlen(s);
}

/* Print @s as a Prometheus label value, quotes included. */
static void prom_label(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
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
 * The HELP of zswap_wb_param_info: the parameters whose value is a name
 * (of the @n in @ents, with their values in @vals), each with the
 * module's help, worded as "name: its help".
 */
static void prom_info_head(FILE *out, struct dirent **ents, char **vals, int n)
{
	const struct param_info *p;
	const char *sep = " (";
	size_t len;
	int i;

	fputs("# HELP zswap_wb_param_info Parameters whose value is a name", out);
	for (i = 0; i < n; i++) {
		if (!prom_name_ok(ents[i]->d_name) || value_kind(vals[i]) != VALUE_NAME)
			continue;
		p = param_info(ents[i]->d_name);
		len = p && p->help ? strlen(p->help) : 0;
		if (len && p->help[len - 1] == '.')
			len--;
		if (!len)
			continue;
		/* "How ... nodes." as "how ... nodes" */
		fprintf(out, "%s%s: %c%.*s", sep, ents[i]->d_name,
			tolower((unsigned char)p->help[0]), (int)len - 1, p->help + 1);
		sep = "; ";
	}
	fprintf(out, "%s, the value as a label.\n# TYPE zswap_wb_param_info gauge\n",
		*sep == ';' ? ")" : "");
}

/*
 * The parameters: booleans as 0/1 gauges, numbers as gauges, and the
 * others (the policies) as one info-style gauge with the value in a label.
 */
static int prom_params(FILE *out)
{
	const struct param_info *p;
	enum value_kind kind;
	struct dirent **ents;
	int i, n, err, ret = 0;
	bool names = false;
	char help[256];
	char **vals;

	n = param_list(&ents);
	if (n < 0)
		return 1;
	vals = calloc(n + 1, sizeof(*vals));
	if (!vals) {
		msg("out of memory");
		ret = 1;
	}
	for (i = 0; i < n && !ret; i++) {
		vals[i] = param_read(ents[i]->d_name, &err);
		if (!vals[i])
			ret = read_failed(ents[i]->d_name, err);
		else if (!prom_name_ok(ents[i]->d_name))
			msg("parameter '%s' left out: not a metric name", ents[i]->d_name);
	}
	for (i = 0; i < n && !ret; i++) {
		if (!prom_name_ok(ents[i]->d_name))
			continue;
		kind = value_kind(vals[i]);
		if (kind == VALUE_NAME) {
			names = true;
			continue;
		}
		p = param_info(ents[i]->d_name);
		snprintf(help, sizeof(help), MODNAME " parameter %.200s.", ents[i]->d_name);
		fprintf(out, "# HELP zswap_wb_param_%s %s\n# TYPE zswap_wb_param_%s gauge\n",
			ents[i]->d_name, p && p->help ? p->help : help, ents[i]->d_name);
		fprintf(out, "zswap_wb_param_%s ", ents[i]->d_name);
		if (kind == VALUE_BOOL)
			fputc(*vals[i] == 'Y' ? '1' : '0', out);
		else
			print_num(out, vals[i]);
		fputc('\n', out);
	}
	if (names && !ret)
		prom_info_head(out, ents, vals, n);
	for (i = 0; i < n && names && !ret; i++) {
		if (!prom_name_ok(ents[i]->d_name) || value_kind(vals[i]) != VALUE_NAME)
			continue;
		fprintf(out, "zswap_wb_param_info{name=\"%s\",value=", ents[i]->d_name);
		prom_label(out, vals[i]);
		fputs("} 1\n", out);
	}
	for (i = 0; vals && i < n; i++)
		free(vals[i]);
	free(vals);
	param_list_free(ents, n);
	return ret;
}

/* Whether statistic @e can be exported; its family name in @name. */
static bool prom_family(const struct stat_ent *e, char *name, size_t len)
{
	unsigned long long num;
	const struct stat_info *s;
	const char *node;
	size_t base;
	int n;

	if (!parse_num(e->val, &num) || !prom_name_ok(e->key))
		return false;
	s = stat_find(e->key);
	if (!node_key(e->key, &base, &node))
		base = strlen(e->key);
	if (s && s->usec)	/* "..._us" in seconds */
		n = snprintf(name, len, "zswap_wb_%.*s_seconds", (int)base - 3, e->key);
	else
		n = snprintf(name, len, "zswap_wb_%.*s%s", (int)base, e->key,
			     s && s->kind == STAT_GAUGE ? "" : "_total");
	return n > 0 && (size_t)n < len;
}

/*
 * The statistics: counters as "_total" counters, gauges as gauges, the
 * latency percentiles as gauges in seconds, per-node keys as one family
 * with a "node" label. A family is printed whole where its first key is.
 */
static void prom_stats(FILE *out, const struct stats *st)
{
	char name[256], other[256], help[256];
	const struct stat_info *s;
	unsigned long long us;
	const struct stat_ent *e;
	const char *node;
	size_t i, j, base;
	bool seen;

	for (i = 0; i < st->n; i++) {
		if (!prom_family(&st->ent[i], name, sizeof(name)))
			continue;
		for (seen = false, j = 0; j < i && !seen; j++)
			seen = prom_family(&st->ent[j], other, sizeof(other)) &&
			       !strcmp(name, other);
		if (seen)
			continue;
		s = stat_find(st->ent[i].key);
		snprintf(help, sizeof(help), MODNAME " statistic %.200s.", st->ent[i].key);
		prom_head(out, name, s && s->kind != STAT_COUNTER ? "gauge" : "counter",
			  s ? s->help : help);
		for (j = i; j < st->n; j++) {
			e = &st->ent[j];
			if (!prom_family(e, other, sizeof(other)) || strcmp(name, other))
				continue;
			fputs(name, out);
			if (node_key(e->key, &base, &node))
				fprintf(out, "{node=\"%s\"}", node);
			fputc(' ', out);
			if (s && s->usec && parse_num(e->val, &us))
				prom_seconds(out, us);
			else
				print_num(out, e->val);
			fputc('\n', out);
		}
	}
}

/*
 * free_latency_us as a histogram in seconds. The module counts a time at
 * or over the last bound in the last line, so that line has no upper
 * bound: it is only in "+Inf". There is no _sum: the module keeps bucket
 * counts only, and a sum made of bucket bounds would be a guess.
 */
static int prom_latency(FILE *out)
{
	const char *name = "zswap_wb_free_latency_seconds";
	unsigned long long total = 0;
	struct latency lat;
	int i, ret;

	ret = latency_load(&lat);
	if (ret)
		return ret;
	prom_head(out, name, "histogram", "Time from writeback end to free.");
	for (i = 0; i < lat.n - 1; i++) {
		total += lat.count[i];
		fprintf(out, "%s_bucket{le=\"", name);
		prom_seconds(out, lat.bound[i]);
		fprintf(out, "\"} %llu\n", total);
	}
	total += lat.count[lat.n - 1];
	fprintf(out, "%s_bucket{le=\"+Inf\"} %llu\n%s_count %llu\n", name, total, name, total);
	return 0;
}

/*
 * Replace @path with @len bytes of @buf, atomically: a temporary file in
 * the same directory, fsync, rename, fsync of the directory. On failure
 * @path is left as it was and no temporary file is left behind.
 */
static int write_atomic(const char *path, const char *buf, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX], *slash;
	const char *base;
	int fd, err = 0;
	size_t off = 0;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	base = slash ? path + (slash - dir) + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		msg("'%s' is not a file name", path);
		return EXIT_USAGE;
	}
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
 * "prometheus [FILE]": parameters, statistics and the free-latency
 * histogram in the Prometheus text format (version 0.0.4), for the
 * node_exporter textfile collector. Built in memory first: on any error
 * nothing is printed and FILE is not touched.
 */
int cmd_prometheus(char **argv)
{
	struct stats st = { 0 };
	size_t len = 0;
	char *buf = NULL;
	FILE *out;
	int ret;

	out = open_memstream(&buf, &len);
	if (!out) {
		msg("out of memory");
		return 1;
	}
	ret = prom_params(out);
	if (!ret)
		ret = stats_load(&st);
	if (!ret)
		prom_stats(out, &st);
	if (!ret)
		ret = prom_latency(out);
	stats_free(&st);
	if (fclose(out) && !ret) {
		msg("out of memory");
		ret = 1;
	}
	if (!ret && argv[0] && strcmp(argv[0], "-"))
		ret = write_atomic(argv[0], buf, len);
	else if (!ret)
		fwrite(buf, 1, len, stdout);
	free(buf);
	return ret;
}
