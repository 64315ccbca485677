// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: the statistics, "key value" lines in $ZSWB_DEBUGFS/stats
 * (counters, gauges, latency percentiles) and the free-latency histogram
 * in $ZSWB_DEBUGFS/free_latency_us: "status", "stats", "diff", "reset".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_writer.h"
#include "zswbctl.h"

/*
 * Print stats file @name as it is; on a terminal narrower than a line,
 * each key cut to fit, the value whole (print_pair()). 0 or the exit code.
 */
static int stats_print(const char *name)
{
	int ret, width = out_width();
	struct stats st;
	size_t i, len;
	char *buf;

	if (width) {
		ret = stats_load_file(&st, name);
		for (i = 0; !ret && i < st.n; i++)
			print_pair(stdout, st.ent[i].key, *st.ent[i].val ? " " : "",
				   st.ent[i].val, width);
		stats_free(&st);
		return ret;
	}
	buf = debugfs_read(name, &ret);
	if (!buf)
		return ret;
	len = strlen(buf);
	fputs(buf, stdout);
	if (len && buf[len - 1] != '\n')
		putchar('\n');
	free(buf);
	return 0;
}

/*
 * Split @st->buf, "key value" lines as in "stats", into key/value pairs
 * in place; 0, or -ENOMEM.
 */
int stats_split(struct stats *st)
{
	struct stat_ent *tmp;
	char *line, *save, *p;

	for (line = strtok_r(st->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tmp = realloc(st->ent, (st->n + 1) * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		st->ent = tmp;
		p = line + strcspn(line, " \t");
		if (*p)
			*p++ = '\0';
		st->ent[st->n].key = line;
		st->ent[st->n++].val = p + strspn(p, " \t");
	}
	return 0;
}

/* Read and split debugfs file @name with stats_split(); 0 or the exit code. */
int stats_load_file(struct stats *st, const char *name)
{
	int ret;

	st->ent = NULL;
	st->n = 0;
	st->buf = debugfs_read(name, &ret);
	if (!st->buf)
		return ret;
	if (stats_split(st)) {
		msg("out of memory");
		return 1;
	}
	return 0;
}

/* Read and split the stats file into key/value pairs; 0 or the exit code. */
int stats_load(struct stats *st)
{
	return stats_load_file(st, "stats");
}

/* Free what stats_load() allocated. */
void stats_free(struct stats *st)
{
	free(st->ent);
	free(st->buf);
}

/* Return the value of @key in @st, or NULL. */
const char *stats_find(const struct stats *st, const char *key)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->ent[i].key, key))
			return st->ent[i].val;
	return NULL;
}

/* Split "<base>_node<N>" into the length of base and N; false otherwise. */
bool node_key(const char *key, size_t *base_len, const char **node)
{
	const char *p = strrchr(key, '_');

	if (!p || p == key || strncmp(p, "_node", 5) || !p[5])
		return false;
	if (strspn(p + 5, "0123456789") != strlen(p + 5))
		return false;
	*base_len = p - key;
	*node = p + 5;
	return true;
}

/* Whether @key is a counter, as the module's schema says. */
bool stat_is_counter(const char *key)
{
	const struct stat_info *s = stat_find(key);

	return s && s->kind == STAT_COUNTER;
}

/*
 * A JSON writer on stdout, indented as a person reads it; NULL if none.
 * What it writes is the answer, also on a failure (no json_error()).
 */
static json_writer_t *json_open(void)
{
	json_writer_t *w = jsonw_new(stdout);

	if (!w) {
		msg("out of memory");
		return NULL;
	}
	jsonw_pretty(w, true);
	json_printed = true;
	return w;
}

/*
 * Write statistic value @val as a JSON number: the schema's every kind,
 * counter, gauge and percentile, is one; null for a value that is none.
 */
static void json_value(json_writer_t *w, const char *val)
{
	unsigned long long num;

	if (val && parse_num(val, &num) && *val != '-')
		jsonw_lluint(w, num);
	else
		jsonw_null(w);
}

/*
 * Write the parameters as a JSON object, each as the schema's kind says:
 * a boolean true or false, a uint a number, a choice a string; null if
 * the schema cannot be read. 0 or the exit code (params_typed()).
 */
static int json_params(json_writer_t *w)
{
	struct param_val *v;
	size_t i, n;
	int ret;

	ret = params_typed(&v, &n);
	if (!v) {
		jsonw_null(w);
		return ret;
	}
	jsonw_start_object(w);
	for (i = 0; i < n; i++) {
		jsonw_name(w, v[i].info->name);
		switch (v[i].info->type) {
		case PARAM_BOOL:
			jsonw_bool(w, v[i].on);
			break;
		case PARAM_UINT:
			jsonw_lluint(w, v[i].num);
			break;
		case PARAM_CHOICE:
			jsonw_string(w, v[i].val);
			break;
		}
	}
	jsonw_end_object(w);
	params_typed_free(v, n);
	return ret;
}

/* Write the statistics of @st named in @keys (each in @st; none: all) as a JSON object. */
static void json_stats(json_writer_t *w, const struct stats *st, char **keys)
{
	size_t i;

	jsonw_start_object(w);
	for (i = 0; keys && keys[i]; i++) {
		jsonw_name(w, keys[i]);
		json_value(w, stats_find(st, keys[i]));
	}
	for (i = 0; (!keys || !*keys) && i < st->n; i++) {
		jsonw_name(w, st->ent[i].key);
		json_value(w, st->ent[i].val);
	}
	jsonw_end_object(w);
}

/*
 * "status --json": {"parameters": {...}, "statistics": {...}}, the
 * parameters typed by the module's schema (json_params()). What debugfs
 * cannot give, the schema or the statistics, is null, the cause on stderr
 * and the exit status.
 */
static int status_json(void)
{
	json_writer_t *w = json_open();
	struct stats st = { 0 };
	bool no_params, no_stats;
	int dbg, ret = 0, sret;

	if (!w)
		return 1;
	jsonw_start_object(w);
	jsonw_name(w, "parameters");
	dbg = check_debugfs();
	if (dbg)
		jsonw_null(w);
	else
		ret = json_params(w);
	jsonw_name(w, "statistics");
	sret = dbg ? dbg : stats_load(&st);
	if (sret)
		jsonw_null(w);
	else
		json_stats(w, &st, NULL);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	stats_free(&st);
	no_params = dbg || schema_error();
	no_stats = sret;
	if (no_params || no_stats)
		msg("%s%s%s not shown", no_params ? "parameters" : "",
		    no_params && no_stats ? " and " : "", no_stats ? "statistics" : "");
	return dbg ? dbg : ret ? ret : sret;
}

/*
 * "status": every parameter as "name = value", as its file reads, then
 * the statistics (on a narrow terminal, each name cut to fit:
 * print_pair()); with --json, status_json(). When debugfs cannot be read
 * the parameters are still shown, the cause is on stderr and is the exit
 * status.
 */
int cmd_status(char **argv __maybe_unused)
{
	int i, n, err, dbg, ret = 0, width = out_width();
	struct dirent **ents;
	char *val;

	if (json)
		return status_json();
	n = param_list(&ents);
	if (n < 0)
		return 1;
	for (i = 0; i < n; i++) {
		val = param_read(ents[i]->d_name, &err);
		if (!val) {
			ret = read_failed(ents[i]->d_name, err);
			continue;
		}
		print_pair(stdout, ents[i]->d_name, " = ", val, width);
		free(val);
	}
	param_list_free(ents, n);
	dbg = check_debugfs();
	if (!dbg)
		dbg = stats_print("stats");
	if (dbg)
		msg("statistics not shown, parameters only");
	return dbg ? dbg : ret;
}

/*
 * "--scope NAME": the file of scope NAME's statistics (debugfs
 * scopes/NAME/stats, "global" for what no scope covers) in @file; 0 or
 * the exit code.
 */
static int scope_stats_file(const char *name, char *file, size_t size)
{
	char path[PATH_MAX];
	struct stat sb;
	size_t n;

	for (n = 0; name[n]; n++)
		if (!isalnum((unsigned char)name[n]) && !strchr("_.-", name[n]))
			break;
	if (!n || n > 31 || name[n]) {
		msg("invalid scope name '%s': 1 to 31 of A-Z a-z 0-9 _ . -", name);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/scopes", debugfs_dir);
	if (stat(path, &sb)) {
		msg("%s: no such directory: is %s zswap_wb's debugfs?", path, debugfs_dir);
		return 1;
	}
	snprintf(file, size, "scopes/%s/stats", name);
	snprintf(path, sizeof(path), "%s/%s", debugfs_dir, file);
	if (stat(path, &sb)) {
		msg("no scope '%s' (%s/scopes lists them)", name, debugfs_dir);
		return 1;
	}
	return 0;
}

/*
 * "stats [--scope NAME] [KEY...]": print the statistics, or the values of
 * some keys, of the host or of one policy scope.
 */
int cmd_stats(char **argv)
{
	char file[PATH_MAX] = "stats";
	json_writer_t *w;
	struct stats st;
	const char *val;
	int i, ret;

	if (*argv && !strcmp(*argv, "--scope")) {
		if (!argv[1]) {
			msg("--scope needs a scope name");
			return EXIT_USAGE;
		}
		ret = scope_stats_file(argv[1], file, sizeof(file));
		if (ret)
			return ret;
		argv += 2;
	}
	if (!*argv && !json)
		return stats_print(file);
	ret = stats_load_file(&st, file);
	for (i = 0; argv[i] && !ret; i++) {
		if (!stats_find(&st, argv[i])) {
			msg("unknown statistic '%s'", argv[i]);
			ret = 1;
		}
	}
	if (json && !ret) {
		w = json_open();
		if (w) {
			json_stats(w, &st, argv);
			jsonw_destroy(&w);
		} else {
			ret = 1;
		}
	}
	/* Print nothing unless all keys exist: output lines match keys. */
	for (i = 0; argv[i] && !ret && !json; i++) {
		val = stats_find(&st, argv[i]);
		if (val)
			puts(val);
	}
	stats_free(&st);
	return ret;
}

/*
 * The status of a child as a shell gives it: its exit status, or 128 +
 * the signal that ended it.
 */
int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Run @argv and wait; its exit status, or 128 + signal like a shell. */
static int run_cmd(char **argv)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	int status, err;
	pid_t pid;

	fflush(NULL);
	/* Like system(): a ^C is for the command, we still print deltas. */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (!pid) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execvp(argv[0], argv);
		err = errno;
		msg("cannot run %s: %s", argv[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	if (pid < 0)
		msg("cannot fork: %s", strerror(errno));
	if (pid > 0 && waitpid(pid, &status, 0) < 0) {
		msg("cannot wait for %s: %s", argv[0], strerror(errno));
		pid = -1;
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (pid < 0)
		return 1;
	return exit_code(status);
}

/*
 * "diff -- CMD...": print how each counter changed over CMD. Gauges and
 * latency percentiles describe a moment, not a count: their difference
 * means nothing, so they are left out.
 */
int cmd_diff(char **argv)
{
	unsigned long long a, b;
	struct stats before, after;
	int ret, err, width;
	const char *old;
	char delta[24];
	size_t i;

	if (*argv && !strcmp(*argv, "--"))
		argv++;
	if (!*argv)
		return print_usage(stderr, EXIT_USAGE);
	ret = stats_load(&before);
	if (ret) {
		stats_free(&before);
		return ret;
	}
	ret = run_cmd(argv);
	/* the terminal CMD may have resized */
	width = out_width();
	err = stats_load(&after);
	if (err) {
		ret = ret ? ret : err;	/* never claim success without deltas */
		goto out;
	}
	for (i = 0; i < after.n; i++) {
		if (!stat_is_counter(after.ent[i].key))
			continue;
		old = stats_find(&before, after.ent[i].key);
		if (!old || !parse_num(old, &b) || !parse_num(after.ent[i].val, &a))
			continue;
		snprintf(delta, sizeof(delta), "%lld", (long long)(a - b));
		print_pair(stdout, after.ent[i].key, " ", delta, width);
	}
out:
	stats_free(&after);
	stats_free(&before);
	return ret;
}

/* "reset": zero the statistics. */
int cmd_reset(char **argv __maybe_unused)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/reset", debugfs_dir);
	err = write_str(path, "1");
	return err ? debugfs_failed("reset statistics", err) : 0;
}

/*
 * Read free_latency_us: "bound count" lines, bound in microseconds and
 * rising; the module counts a time at or over the last bound in the last
 * line. 0, or the exit code after saying why.
 */
int latency_load_file(struct latency *lat, const char *name)
{
	char *buf, *line, *save;
	int n = 0, ret;

	buf = debugfs_read(name, &ret);
	if (!buf)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		if (n == LAT_MAX_BUCKETS ||
		    sscanf(line, "%llu %llu", &lat->bound[n], &lat->count[n]) != 2 ||
		    strspn(line, "0123456789 ") != strlen(line) ||
		    (n && lat->bound[n] <= lat->bound[n - 1])) {
			msg("%s/%s: unexpected line '%s'", debugfs_dir, name, line);
			ret = 1;
		}
		n++;
	}
	free(buf);
	if (!n && !ret) {
		msg("%s/%s is empty", debugfs_dir, name);
		ret = 1;
	}
	lat->n = n;
	return ret;
}

/* latency_load_file() of the host's histogram, free_latency_us. */
int latency_load(struct latency *lat)
{
	return latency_load_file(lat, "free_latency_us");
}
