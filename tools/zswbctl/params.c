// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: the module parameters, files in $ZSWB_SYSFS/parameters: what
 * values each takes, reading and setting them ("get", "set"), and turning
 * the free policies off before the module is removed ("unload").
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
		if (p->ranged)
			printf("an integer from %lu to %lu", p->min, p->max);
		else
			fputs("an integer", stdout);
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
	case PARAM_OTHER:
		fputs("a value", stdout);
		break;
	}
	if (p->def)
		printf(" (default %s)", p->def);
	putchar('\n');
}

/*
 * The parameter lines of --help, as the running module describes them; a
 * module without a schema, by what their files say; none if it is not
 * loaded.
 */
void print_params_help(void)
{
	const struct param_info *list, *p;
	struct dirent **ents;
	size_t i;
	int n;

	if (access(sysfs_dir, F_OK)) {
		puts("  (read from the running " MODNAME ", which is not loaded)");
		return;
	}
	n = param_infos(&list);
	for (i = 0; i < (size_t)n; i++)
		print_param_help(&list[i]);
	if (n)
		return;
	n = param_list(&ents);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		p = param_info(ents[i]->d_name);
		if (p)
			print_param_help(p);
	}
	if (n > 0)
		param_list_free(ents, n);
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
	if (n < 0 && errno == ENOENT) {
		*ents = NULL;
		return 0;	/* a module without parameters */
	}
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
 * Whether writing @val turned boolean parameter @p off: an off word of
 * the module's pairs; without them, whether the parameter now reads N.
 */
static bool turned_off(const struct param_info *p, const char *val)
{
	char **v, *now;
	bool off;
	int err;

	for (v = p->values; v && v[0]; v += 2)
		if (!strcasecmp(val, v[0]))
			return true;
	if (p->values)
		return false;
	now = param_read(p->name, &err);
	off = now && !strcmp(now, "N");
	free(now);
	return off;
}

/*
 * Check @val for parameter @name as the module will, so that a bad value
 * is refused before anything is written; 0, or EXIT_USAGE after saying why.
 * What the module does not describe (values of a parameter it does not
 * list, of a module without a schema) is left to the module.
 */
int param_check(const char *name, const char *val)
{
	const struct param_info *p = param_info(name);
	unsigned long num;
	char **v;
	char *end;

	if (!p)
		return 0;
	switch (p->type) {
	case PARAM_UINT:
		if (!p->ranged)
			return 0;
		/* As kstrtouint(..., 0, ...): decimal, 0x hex or 0 octal. */
		errno = 0;
		num = isdigit((unsigned char)*val) ? strtoul(val, &end, 0) : 0;
		if (isdigit((unsigned char)*val) && !errno && !*end &&
		    num >= p->min && num <= p->max)
			return 0;
		msg("invalid value '%s' for %s: an integer from %lu to %lu", val, name,
		    p->min, p->max);
		return EXIT_USAGE;
	case PARAM_BOOL:
	case PARAM_CHOICE:
		/* As the module: booleans in any case, names exactly. */
		if (!p->values || is_word(val, p->values, p->type == PARAM_BOOL))
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
	case PARAM_OTHER:
		break;
	}
	return 0;
}

/*
 * Turning async_free off stops marking at once but does not wait for the
 * folios under writeback: a stalled swap device would otherwise hold every
 * parameter of the module. Wait here instead, in user space, where Ctrl-C
 * works, saying what is waited for. Without debugfs there is nothing to
 * watch: unload then relies on its retries. 0, or 1 if interrupted.
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
 * Set parameter @name to @val as "set" does: a free policy turned off
 * waits for the folios in flight. 0, -errno (nothing said), or 1 when the
 * wait was interrupted.
 */
int param_set(const char *name, const char *val)
{
	const struct param_info *p;
	int err = param_write(name, val);

	if (err)
		return err;
	if (!(param_flags(name) & DRAIN_WAIT_OFF))
		return 0;
	p = param_info(name);
	return p && turned_off(p, val) ? wait_inflight() : 0;
}

/* "set NAME VALUE...": set in order, undo all of them on a failure. */
int cmd_set(char **argv)
{
	const struct param_info *p;
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
	for (i = 0; i < n && !ret; i++) {
		if (!(param_flags(u[i].name) & DRAIN_WAIT_OFF))
			continue;
		p = param_info(u[i].name);
		if (p && turned_off(p, argv[2 * i + 1]))
			ret = wait_inflight();
	}
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

/* Set each boolean DRAIN_ON_UNLOAD parameter to 0, saving it in @u[*k]; 0 or 1. */
static int drain_free_params(struct dirent **ents, int n, struct undo *u,
			     int *k)
{
	const char *name;
	char *old;
	int i, err;

	for (i = 0; i < n; i++) {
		name = ents[i]->d_name;
		if (!(param_flags(name) & DRAIN_ON_UNLOAD))
			continue;
		old = param_read(name, &err);
		if (!old)
			return read_failed(name, err);
		/* Kernel bool and invbool parameters read as Y or N. */
		if (value_kind(old) != VALUE_BOOL) {
			free(old);
			continue;
		}
		err = param_write(name, "0");
		if (err) {
			msg("cannot set %s to '0': %s", name, strerror(-err));
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
	struct dirent **ents;
	struct undo *u;
	int n, k = 0, err, ret;

	n = param_list(&ents);
	if (n < 0)
		return 1;
	u = calloc(n + 1, sizeof(*u));
	if (!u)
		msg("out of memory");
	ret = u ? drain_free_params(ents, n, u, &k) : 1;
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
	param_list_free(ents, n);
	return ret;
}
