// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: the module parameters, files in $ZSWB_SYSFS/parameters: what
 * values each takes, reading and setting them ("get", "set"), reading them
 * as their kinds for JSON and Prometheus (params_typed()), and turning the
 * free policies off before the module is removed ("unload"). What a
 * parameter is (its kind, values, flags) is the module's schema's alone;
 * a parameter it does not list is neither set nor typed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "zswbctl.h"

#define UNLOAD_TRIES	50

/* A parameter changed by this invocation and the value to put back. */
struct undo {
	const char *name;
	char *old;
};

/* One parameter line of --help: what @p takes and its default. */
static void print_param_help(const struct param_info *p)
{
	char **v;

	printf("  %-17s", p->name);
	switch (p->type) {
	case PARAM_UINT:
		printf("an integer from %lu to %lu", p->min, p->max);
		break;
	case PARAM_BOOL:	/* "1|0, y|n, ...": the module's pairs, on|off */
		fputs("boolean", stdout);
		for (v = p->values; v && v[0] && v[1]; v += 2)
			printf("%s %s|%s", v == p->values ? ":" : ",", v[1], v[0]);
		break;
	case PARAM_CHOICE:
		for (v = p->values; v && *v; v++)
			printf("%s%s", v == p->values ? "" : ", ", *v);
		break;
	}
	printf(" (default %s)\n", p->def);
}

/*
 * The parameter lines of --help, as the running module's schema describes
 * them; instead, why there are none when the module is not loaded or its
 * schema cannot be read.
 */
void print_params_help(void)
{
	const struct param_info *list;
	size_t i, n;

	if (access(sysfs_dir, F_OK)) {
		puts("  (read from the running " MODNAME ", which is not loaded)");
		return;
	}
	n = param_infos(&list);
	if (schema_error())
		printf("  (read from %s/schema, which cannot be read: %s)\n", debugfs_dir,
		       strerror(-schema_error()));
	for (i = 0; i < n; i++)
		print_param_help(&list[i]);
}

/* Build the path of parameter @name in @buf; false for a bad name. */
static bool param_path(char *buf, const char *name)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	return snprintf(buf, PATH_MAX, "%s/parameters/%s", sysfs_dir,
			name) < PATH_MAX;
}

/* Read parameter @name as its file reads, minus the trailing newline. */
char *param_read_raw(const char *name, int *err)
{
	char path[PATH_MAX], *val;
	size_t len;

	*err = -ENOENT;
	if (!param_path(path, name))
		return NULL;
	val = read_all(path, err);
	len = val ? strlen(val) : 0;
	if (len && val[len - 1] == '\n')
		val[len - 1] = '\0';
	return val;
}

/*
 * Read the value of parameter @name, as it is written: of a choice listed
 * with the others ("stock [per_node] carry"), the one in brackets.
 */
char *param_read(const char *name, int *err)
{
	char *val = param_read_raw(name, err), *cur;
	char buf[256];

	if (!val || !current_choice(val, buf, sizeof(buf)))
		return val;
	cur = strdup(buf);
	if (!cur)
		*err = -ENOMEM;
	free(val);
	return cur;
}

/* Set parameter @name to @val; 0 or -errno. */
static int param_write(const char *name, const char *val)
{
	char path[PATH_MAX];

	if (!param_path(path, name))
		return -ENOENT;
	return write_str(path, val);
}

/* Report that parameter @name could not be read; returns 1. */
int read_failed(const char *name, int err)
{
	if (err == -ENOENT)
		msg("unknown parameter '%s'", name);
	else
		msg("cannot read %s: %s", name, strerror(-err));
	return 1;
}

/* Put back the @n saved parameters in @u, newest first; 0 or 1. */
static int undo_all(struct undo *u, int n)
{
	int err, ret = 0;

	while (n-- > 0) {
		err = param_write(u[n].name, u[n].old);
		if (err) {
			msg("cannot restore %s to '%s': %s", u[n].name,
			    u[n].old, strerror(-err));
			ret = 1;
		}
	}
	return ret;
}

/* Free the saved values of the @n entries in @u and @u itself. */
static void undo_free(struct undo *u, int n)
{
	while (n-- > 0)
		free(u[n].old);
	free(u);
}

/* scandir() filter: skip "." and "..". */
static int not_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* List parameter names sorted; count, or -1 after reporting an error. */
int param_list(struct dirent ***ents)
{
	char path[PATH_MAX];
	int n;

	snprintf(path, sizeof(path), "%s/parameters", sysfs_dir);
	n = scandir(path, ents, not_dot, alphasort);
	if (n < 0)
		msg("cannot list %s: %s", path, strerror(errno));
	return n;
}

/* Free a list returned by param_list(). */
void param_list_free(struct dirent **ents, int n)
{
	while (n-- > 0)
		free(ents[n]);
	free(ents);
}

/* Whether @val is one of the NULL-terminated @words (@icase: in any case). */
static bool is_word(const char *val, char * const *words, bool icase)
{
	for (; *words; words++)
		if (icase ? !strcasecmp(val, *words) : !strcmp(val, *words))
			return true;
	return false;
}

/*
 * Boolean parameter @p's word @val (in any case, as the module reads it)
 * in *@on: a word of its pairs, off then on. False if it is none of them.
 */
static bool bool_word(const struct param_info *p, const char *val, bool *on)
{
	size_t i;

	for (i = 0; p->values[i]; i++)
		if (!strcasecmp(val, p->values[i])) {
			*on = i % 2;
			return true;
		}
	return false;
}

/*
 * Whether writing @val to parameter @name turns it off with folios left in
 * flight, to be waited for: the schema flags it "waits" and @val is an
 * off word of its boolean pairs.
 */
static bool waits_off(const char *name, const char *val)
{
	const struct param_info *p = param_info(name);
	bool on;

	return p && (p->flags & DRAIN_WAIT_OFF) && p->type == PARAM_BOOL &&
	       bool_word(p, val, &on) && !on;
}

/* Say that a parameter is not in the schema: "@what: not in ...". */
static void not_listed(const char *what)
{
	msg("%s: not in the module's schema (%s/schema)", what, debugfs_dir);
}

/*
 * Check @val for parameter @name as the module will, so that a bad value
 * is refused before anything is written; 0, or the exit code after saying
 * why: EXIT_USAGE for a bad value, 1 for a parameter the schema does not
 * list (zswbctl sets only what the module describes).
 */
int param_check(const char *name, const char *val)
{
	const struct param_info *p = param_info(name);
	unsigned long num;
	char what[300], *end, *raw;
	char **v;
	int err;

	if (!p) {
		/* A name without a file is unknown, whatever the schema says. */
		raw = param_read_raw(name, &err);
		if (!raw)
			return read_failed(name, err);
		free(raw);
		snprintf(what, sizeof(what), "cannot set %s", name);
		not_listed(what);
		return 1;
	}
	switch (p->type) {
	case PARAM_UINT:
		/* As kstrtouint(..., 0, ...): decimal, 0x hex or 0 octal. */
		errno = 0;
		num = isdigit((unsigned char)*val) ? strtoul(val, &end, 0) : 0;
		if (isdigit((unsigned char)*val) && !errno && !*end && num <= UINT_MAX &&
		    num >= p->min && num <= p->max)
			return 0;
		msg("invalid value '%s' for %s: an integer from %lu to %lu", val, name,
		    p->min, p->max);
		return EXIT_USAGE;
	case PARAM_BOOL:
	case PARAM_CHOICE:
		/* As the module: booleans in any case, names exactly. */
		if (is_word(val, p->values, p->type == PARAM_BOOL))
			return 0;
		fprintf(stderr, "zswbctl: invalid value '%s' for %s: one of", val, name);
		if (p->type == PARAM_BOOL)	/* the pairs on, off: "1, 0, y, n, ..." */
			for (v = p->values; v[0] && v[1]; v += 2)
				fprintf(stderr, "%s %s, %s", v == p->values ? "" : ",", v[1], v[0]);
		else
			for (v = p->values; *v; v++)
				fprintf(stderr, "%s %s", v == p->values ? "" : ",", *v);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Turning a parameter the schema flags "waits" off stops marking at once
 * but does not wait for the folios under writeback: a stalled swap device
 * would otherwise hold every parameter of the module. Wait here instead,
 * in user space, where Ctrl-C works, saying what is waited for, until
 * debugfs "inflight" reads 0 (or cannot be read). 0, or 1 if interrupted.
 */
static int wait_inflight(void)
{
	const struct timespec pause = { .tv_nsec = 100 * 1000 * 1000 };
	unsigned long long n, last = 0;
	char path[PATH_MAX], *val;
	int err, tick = 0, ret = 0;
	sigset_t intr, old;

	/* Ctrl-C ends the wait, not the process: say what is left. */
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	sigprocmask(SIG_BLOCK, &intr, &old);
	snprintf(path, sizeof(path), "%s/inflight", debugfs_dir);
	for (;;) {
		val = read_all(path, &err);
		if (val)
			val[strcspn(val, "\n")] = '\0';
		if (!val || !parse_num(val, &n) || !n) {
			free(val);
			break;
		}
		free(val);
		/* at most once a second, and only when it changed */
		if (tick++ % 10 == 0 && n != last) {
			msg("waiting for %llu folios under writeback (Ctrl-C stops waiting)", n);
			last = n;
		}
		if (sigtimedwait(&intr, NULL, &pause) == SIGINT) {
			msg("stopped: %llu folios are freed as their writes end", n);
			ret = 1;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * "get [--choices] NAME": print one parameter's value; with --choices, the
 * choices of a choice parameter, the current one in brackets, as the
 * module lists them.
 */
int cmd_get(char **argv)
{
	bool choices = !strcmp(argv[0], "-c") || !strcmp(argv[0], "--choices");
	const char *name = argv[choices];
	char *val, buf[256];
	int err;

	if (!name || argv[choices + 1])
		return print_usage(stderr, EXIT_USAGE);
	val = choices ? param_read_raw(name, &err) : param_read(name, &err);
	if (!val)
		return read_failed(name, err);
	if (choices && !current_choice(val, buf, sizeof(buf))) {
		msg("%s is not a choice parameter: its value is '%s'", name, val);
		free(val);
		return 1;
	}
	puts(val);
	free(val);
	return 0;
}

/*
 * Set parameter @name to @val as "set" does: one the schema flags "waits",
 * turned off, waits for the folios in flight. 0, -errno (nothing said), or
 * 1 when the wait was interrupted.
 */
int param_set(const char *name, const char *val)
{
	int err = param_write(name, val);

	if (err)
		return err;
	return waits_off(name, val) ? wait_inflight() : 0;
}

/* "set NAME VALUE...": set in order, undo all of them on a failure. */
int cmd_set(char **argv)
{
	int i, n, err, ret = 0;
	struct undo *u;

	for (n = 0; argv[n]; n++)
		;
	if (n % 2)
		return print_usage(stderr, EXIT_USAGE);
	n /= 2;
	/* Check every value first: a bad one then changes nothing. */
	for (i = 0; i < n; i++) {
		ret = param_check(argv[2 * i], argv[2 * i + 1]);
		if (ret)
			return ret;
	}
	u = calloc(n, sizeof(*u));
	if (!u) {
		msg("out of memory");
		return 1;
	}
	/* Read every old value first: an unknown name then changes nothing. */
	for (i = 0; i < n; i++) {
		u[i].name = argv[2 * i];
		u[i].old = param_read(u[i].name, &err);
		if (!u[i].old) {
			ret = read_failed(u[i].name, err);
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		err = param_write(u[i].name, argv[2 * i + 1]);
		if (err) {
			msg("cannot set %s to '%s': %s", u[i].name,
			    argv[2 * i + 1], strerror(-err));
			undo_all(u, i);
			ret = 1;
			break;
		}
	}
	/* Off means the folios in flight are freed too, once this returns. */
	for (i = 0; i < n && !ret; i++)
		if (waits_off(u[i].name, argv[2 * i + 1]))
			ret = wait_inflight();
out:
	undo_free(u, n);
	return ret;
}

/* Call delete_module(), retrying while the module is busy; 0 or errno. */
static int unload_module(void)
{
	const struct timespec pause = { .tv_nsec = 100 * 1000 * 1000 };
	int try;

	for (try = 1; ; try++) {
		if (!syscall(SYS_delete_module, MODNAME, O_NONBLOCK))
			return 0;
		if ((errno != EBUSY && errno != EAGAIN) || try == UNLOAD_TRIES)
			return errno;
		nanosleep(&pause, NULL);
	}
}

/*
 * Turn off each of the @n boolean parameters in @list that the schema
 * flags "drains", with the first word of its pairs, saving it in @u[*k];
 * 0 or 1.
 */
static int drain_free_params(const struct param_info *list, size_t n, struct undo *u,
			     int *k)
{
	const char *name;
	char *old;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (!(list[i].flags & DRAIN_ON_UNLOAD) || list[i].type != PARAM_BOOL)
			continue;
		name = list[i].name;
		old = param_read(name, &err);
		if (!old)
			return read_failed(name, err);
		err = param_write(name, list[i].values[0]);
		if (err) {
			msg("cannot set %s to '%s': %s", name, list[i].values[0], strerror(-err));
			free(old);
			return 1;
		}
		u[*k].name = name;
		u[(*k)++].old = old;
	}
	return 0;
}

/* "unload": drain via the free policies (their "drains" flag), then remove the module. */
int cmd_unload(char **argv __maybe_unused)
{
	const char *skip = getenv("ZSWB_NO_DELETE_MODULE");
	const struct param_info *list;
	struct undo *u;
	int k = 0, err, ret;
	size_t n;

	n = param_infos(&list);
	u = calloc(n + 1, sizeof(*u));
	if (!u)
		msg("out of memory");
	ret = u ? drain_free_params(list, n, u, &k) : 1;
	if (!ret)
		ret = wait_inflight();
	if (!ret && skip && !strcmp(skip, "1")) {
		printf("ZSWB_NO_DELETE_MODULE=1: would call delete_module(\"%s\", O_NONBLOCK)\n",
		       MODNAME);
	} else if (!ret) {
		err = unload_module();
		if (err) {
			msg("cannot unload " MODNAME ": %s", strerror(err));
			ret = 1;
		}
	}
	/* A module that stays loaded gets its old settings back. */
	if (ret)
		undo_all(u, k);
	undo_free(u, k);
	return ret;
}

/*
 * Read parameter value @pv->val as the schema's kind of @pv->info: a
 * boolean's word in @pv->on, a uint's decimal number (as the module prints
 * it) in @pv->num; any name is a choice's. False for a value that is not
 * one of its kind.
 */
static bool param_typed(struct param_val *pv)
{
	const struct param_info *p = pv->info;

	switch (p->type) {
	case PARAM_BOOL:
		return bool_word(p, pv->val, &pv->on);
	case PARAM_UINT:
		return *pv->val != '-' && parse_num(pv->val, &pv->num);
	case PARAM_CHOICE:
		break;
	}
	return true;
}

static const char * const param_kinds[] = {
	[PARAM_BOOL] = "a boolean", [PARAM_UINT] = "an integer", [PARAM_CHOICE] = "a choice",
};

/*
 * The parameters, sorted by name, each read as its kind (param_typed()),
 * for the outputs that type them (JSON, Prometheus): in *@vals, *@n of
 * them. A parameter the schema does not list, or whose value is not of
 * its kind, is left out, said on stderr. 0; 1 if a parameter could not be
 * read (the others are in *@vals, said on stderr); or the exit code of
 * schema_check(), with *@vals NULL.
 */
int params_typed(struct param_val **vals, size_t *n)
{
	struct param_val *v = NULL;
	struct dirent **ents;
	const char *name;
	int i, nr, err, ret;
	char what[300];

	*vals = NULL;
	*n = 0;
	ret = schema_check();
	if (ret)
		return ret;
	nr = param_list(&ents);
	if (nr < 0)
		return 1;
	v = calloc(nr + 1, sizeof(*v));
	if (!v) {
		param_list_free(ents, nr);
		msg("out of memory");
		return 1;
	}
	for (i = 0; i < nr; i++) {
		name = ents[i]->d_name;
		v[*n].val = param_read(name, &err);
		if (!v[*n].val) {
			ret = read_failed(name, err);
			continue;
		}
		snprintf(what, sizeof(what), "parameter '%s' left out", name);
		v[*n].info = param_info(name);
		if (!v[*n].info) {
			not_listed(what);
		} else if (!param_typed(&v[*n])) {
			msg("%s: '%s' is not %s, as the module's schema says it is", what,
			    v[*n].val, param_kinds[v[*n].info->type]);
		} else {
			(*n)++;
			continue;
		}
		free(v[*n].val);
		v[*n].val = NULL;
	}
	param_list_free(ents, nr);
	*vals = v;
	return ret;
}

/* Free what params_typed() gave. */
void params_typed_free(struct param_val *vals, size_t n)
{
	while (n-- > 0)
		free(vals[n].val);
	free(vals);
}
