// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl - read and set zswap_wb module parameters and statistics.
 *
 * Parameters are files in $ZSWB_SYSFS/parameters (default
 * /sys/module/zswap_wb); statistics are "key value" lines in
 * $ZSWB_DEBUGFS/stats (default /sys/kernel/debug/zswap_wb).
 * Exit status: 0 success, 1 failure, 2 module or debugfs missing,
 * 64 bad usage; "diff" exits with the status of the command it ran.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MODNAME		"zswap_wb"
#define EXIT_NOMOD	2
#define EXIT_USAGE	64
#define UNLOAD_TRIES	50
#define NEED_SYSFS	1
#define NEED_DEBUGFS	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __maybe_unused	__attribute__((__unused__))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

static const char *sysfs_dir;
static const char *debugfs_dir;

struct stat_ent {
	const char *key;
	const char *val;
};

struct stats {
	char *buf;
	struct stat_ent *ent;
	size_t n;
};

/* A parameter changed by this invocation and the value to put back. */
struct undo {
	const char *name;
	char *old;
};

/* Print "zswbctl: <message>" on stderr. */
static void __printf(1, 2) msg(const char *fmt, ...)
{
	va_list ap;

	fputs("zswbctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Print the usage text on @f and return @code for main() to exit with. */
static int print_usage(FILE *f, int code)
{
	fputs("usage: zswbctl [status]\n"
	      "       zswbctl get NAME\n"
	      "       zswbctl set NAME VALUE [NAME VALUE ...]\n"
	      "       zswbctl stats [KEY ...]\n"
	      "       zswbctl diff -- CMD [ARGS ...]\n"
	      "       zswbctl reset\n"
	      "       zswbctl unload\n"
	      "       zswbctl -h | --help\n"
	      "\n"
	      "Environment: ZSWB_SYSFS (default /sys/module/" MODNAME "),\n"
	      "ZSWB_DEBUGFS (default /sys/kernel/debug/" MODNAME "),\n"
	      "ZSWB_NO_DELETE_MODULE=1 (unload: skip delete_module).\n", f);
	return code;
}

/* Check that the directories in @needs exist; 0 or EXIT_NOMOD. */
static int check_dirs(int needs)
{
	struct stat st;

	if ((needs & NEED_SYSFS) &&
	    (stat(sysfs_dir, &st) || !S_ISDIR(st.st_mode))) {
		msg(MODNAME " is not loaded (no %s)", sysfs_dir);
		return EXIT_NOMOD;
	}
	if ((needs & NEED_DEBUGFS) && stat(debugfs_dir, &st) && errno != ENOENT) {
		msg("cannot access %s: %s", debugfs_dir, strerror(errno));
		return EXIT_NOMOD;	/* e.g. not root: debugfs is 0700 */
	}
	if ((needs & NEED_DEBUGFS) &&
	    (stat(debugfs_dir, &st) || !S_ISDIR(st.st_mode))) {
		msg("no %s: is debugfs mounted (mount -t debugfs none /sys/kernel/debug)?",
		    debugfs_dir);
		return EXIT_NOMOD;
	}
	return 0;
}

/* Return -errno, never 0 (failed calls set errno; make sure anyway). */
static int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* Read all of @path as a new string; NULL with *@err = -errno on error. */
static char *read_all(const char *path, int *err)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *tmp;
	ssize_t n;
	int fd;

	*err = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = neg_errno();
		return NULL;
	}
	for (;;) {
		if (cap - len < 2) {
			cap = cap ? cap * 2 : 4096;
			tmp = realloc(buf, cap);
			if (!tmp) {
				*err = -ENOMEM;
				break;
			}
			buf = tmp;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			*err = neg_errno();
			break;
		}
		if (!n) {
			buf[len] = '\0';
			close(fd);
			return buf;
		}
		len += n;
	}
	close(fd);
	free(buf);
	return NULL;
}

/* Write @val to @path with a single write(), as sysfs wants; 0 or -errno. */
static int write_str(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	n = write(fd, val, len);
	if (n < 0)
		err = neg_errno();
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = neg_errno();
	return err;
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

/* Read parameter @name minus its trailing newline, as read_all(). */
static char *param_read(const char *name, int *err)
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

/* Set parameter @name to @val; 0 or -errno. */
static int param_write(const char *name, const char *val)
{
	char path[PATH_MAX];

	if (!param_path(path, name))
		return -ENOENT;
	return write_str(path, val);
}

/* Report that parameter @name could not be read; returns 1. */
static int read_failed(const char *name, int err)
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
static int param_list(struct dirent ***ents)
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
static void param_list_free(struct dirent **ents, int n)
{
	while (n-- > 0)
		free(ents[n]);
	free(ents);
}

/* Read the stats file; NULL after reporting an error. */
static char *stats_read(void)
{
	char path[PATH_MAX], *buf;
	int err;

	snprintf(path, sizeof(path), "%s/stats", debugfs_dir);
	buf = read_all(path, &err);
	if (!buf)
		msg("cannot read %s: %s", path, strerror(-err));
	return buf;
}

/* Print the stats file as it is; 0 or 1. */
static int stats_print(void)
{
	char *buf = stats_read();
	size_t len;

	if (!buf)
		return 1;
	len = strlen(buf);
	fputs(buf, stdout);
	if (len && buf[len - 1] != '\n')
		putchar('\n');
	free(buf);
	return 0;
}

/* Read and split the stats file into key/value pairs; 0 or 1. */
static int stats_load(struct stats *st)
{
	struct stat_ent *tmp;
	char *line, *save, *p;

	st->ent = NULL;
	st->n = 0;
	st->buf = stats_read();
	if (!st->buf)
		return 1;
	for (line = strtok_r(st->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tmp = realloc(st->ent, (st->n + 1) * sizeof(*tmp));
		if (!tmp) {
			msg("out of memory");
			return 1;
		}
		st->ent = tmp;
		p = line + strcspn(line, " \t");
		if (*p)
			*p++ = '\0';
		st->ent[st->n].key = line;
		st->ent[st->n++].val = p + strspn(p, " \t");
	}
	return 0;
}

/* Free what stats_load() allocated. */
static void stats_free(struct stats *st)
{
	free(st->ent);
	free(st->buf);
}

/* Return the value of @key in @st, or NULL. */
static const char *stats_find(const struct stats *st, const char *key)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->ent[i].key, key))
			return st->ent[i].val;
	return NULL;
}

/* Parse @s if it is a whole, optionally negative, decimal integer. */
static bool parse_num(const char *s, unsigned long long *v)
{
	bool neg = *s == '-';
	char *end;

	s += neg;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	if (neg)
		*v = -*v;
	return true;
}

/* "status": every parameter as "name = value", then the statistics. */
static int cmd_status(char **argv __maybe_unused)
{
	struct dirent **ents;
	int i, n, err, ret = 0;
	char *val;

	n = param_list(&ents);
	if (n < 0)
		return 1;
	for (i = 0; i < n; i++) {
		val = param_read(ents[i]->d_name, &err);
		if (!val) {
			ret = read_failed(ents[i]->d_name, err);
			continue;
		}
		printf("%s = %s\n", ents[i]->d_name, val);
		free(val);
	}
	param_list_free(ents, n);
	return stats_print() ? 1 : ret;
}

/* "get NAME": print one parameter's value. */
static int cmd_get(char **argv)
{
	char *val;
	int err;

	val = param_read(argv[0], &err);
	if (!val)
		return read_failed(argv[0], err);
	puts(val);
	free(val);
	return 0;
}

/* "set NAME VALUE...": set in order, undo all of them on a failure. */
static int cmd_set(char **argv)
{
	int i, n, err, ret = 0;
	struct undo *u;

	for (n = 0; argv[n]; n++)
		;
	if (n % 2)
		return print_usage(stderr, EXIT_USAGE);
	n /= 2;
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
out:
	undo_free(u, n);
	return ret;
}

/* "stats [KEY...]": print the statistics, or the values of some keys. */
static int cmd_stats(char **argv)
{
	const char *val;
	struct stats st;
	int i, ret;

	if (!*argv)
		return stats_print();
	ret = stats_load(&st);
	for (i = 0; argv[i] && !ret; i++) {
		if (!stats_find(&st, argv[i])) {
			msg("unknown statistic '%s'", argv[i]);
			ret = 1;
		}
	}
	/* Print nothing unless all keys exist: output lines match keys. */
	for (i = 0; argv[i] && !ret; i++) {
		val = stats_find(&st, argv[i]);
		if (val)
			puts(val);
	}
	stats_free(&st);
	return ret;
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
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

/* "diff -- CMD...": print how each numeric statistic changed over CMD. */
static int cmd_diff(char **argv)
{
	unsigned long long a, b;
	struct stats before, after;
	const char *old;
	int ret;
	size_t i;

	if (*argv && !strcmp(*argv, "--"))
		argv++;
	if (!*argv)
		return print_usage(stderr, EXIT_USAGE);
	if (stats_load(&before)) {
		stats_free(&before);
		return 1;
	}
	ret = run_cmd(argv);
	if (stats_load(&after)) {
		ret = ret ? ret : 1;	/* never claim success without deltas */
		goto out;
	}
	for (i = 0; i < after.n; i++) {
		old = stats_find(&before, after.ent[i].key);
		if (old && parse_num(old, &b) && parse_num(after.ent[i].val, &a))
			printf("%s %lld\n", after.ent[i].key, (long long)(a - b));
	}
out:
	stats_free(&after);
	stats_free(&before);
	return ret;
}

/* "reset": zero the statistics. */
static int cmd_reset(char **argv __maybe_unused)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/reset", debugfs_dir);
	err = write_str(path, "1");
	if (err)
		msg("cannot reset statistics: %s", strerror(-err));
	return !!err;
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

/* Set each boolean *_free parameter to 0, saving it in @u[*k]; 0 or 1. */
static int drain_free_params(struct dirent **ents, int n, struct undo *u,
			     int *k)
{
	const char *name;
	char *old;
	size_t len;
	int i, err;

	for (i = 0; i < n; i++) {
		name = ents[i]->d_name;
		len = strlen(name);
		if (len < 5 || strcmp(name + len - 5, "_free"))
			continue;
		old = param_read(name, &err);
		if (!old)
			return read_failed(name, err);
		/* Kernel bool and invbool parameters read as Y or N. */
		if (strcmp(old, "Y") && strcmp(old, "N")) {
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

/* "unload": drain via the *_free parameters, then remove the module. */
static int cmd_unload(char **argv __maybe_unused)
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

/* The subcommands, their argument counts and what they need to exist. */
static const struct {
	const char *name;
	int (*fn)(char **argv);	/* argv: the arguments, NULL-terminated */
	int min_args, max_args;	/* max_args < 0: no limit */
	int needs;
} commands[] = {
	{ "status", cmd_status, 0, 0, NEED_SYSFS | NEED_DEBUGFS },
	{ "get", cmd_get, 1, 1, NEED_SYSFS },
	{ "set", cmd_set, 2, -1, NEED_SYSFS },
	{ "stats", cmd_stats, 0, -1, NEED_DEBUGFS },
	{ "diff", cmd_diff, 1, -1, NEED_DEBUGFS },
	{ "reset", cmd_reset, 0, 0, NEED_DEBUGFS },
	{ "unload", cmd_unload, 0, 0, NEED_SYSFS },
};

/* Pick the paths, check the arguments and dispatch (default: status). */
int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "status";
	int nargs = argc > 1 ? argc - 2 : 0, ret;
	size_t i;

	sysfs_dir = getenv("ZSWB_SYSFS");
	if (!sysfs_dir || !*sysfs_dir)
		sysfs_dir = "/sys/module/" MODNAME;
	debugfs_dir = getenv("ZSWB_DEBUGFS");
	if (!debugfs_dir || !*debugfs_dir)
		debugfs_dir = "/sys/kernel/debug/" MODNAME;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return print_usage(stdout, 0);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		if (nargs < commands[i].min_args ||
		    (commands[i].max_args >= 0 &&
		     nargs > commands[i].max_args))
			return print_usage(stderr, EXIT_USAGE);
		ret = check_dirs(commands[i].needs);
		return ret ? ret : commands[i].fn(argv + argc - nargs);
	}
	msg("unknown command '%s'", cmd);
	return print_usage(stderr, EXIT_USAGE);
}
