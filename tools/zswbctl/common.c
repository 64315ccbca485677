// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: reading and writing sysfs and debugfs files, numbers and
 * choices as the kernel prints them, why the module or debugfs is not
 * there (the exit codes of zswbctl.h), and the width text output fits.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json_writer.h"
#include "zswbctl.h"

#define HOOK_SYMBOL	"zswap_wb_register"
#define DEBUGFS_MAGIC	0x64626720

/* With --json, what msg() said, for json_error(). */
static char said[1024];

/* msg(): print @text on stderr, and keep it with --json; NULL: no memory. */
void msg_put(const char *text)
{
	size_t n = strlen(said);

	if (!text)
		text = "out of memory";
	fprintf(stderr, "zswbctl: %s\n", text);
	if (json && n < sizeof(said) - 2)
		snprintf(said + n, sizeof(said) - n, "%s%s", n ? " " : "", text);
}

/*
 * A failure with exit status @code, of command @cmd (NULL: none picked),
 * as bpftool reports one: {"error": "<what msg() said>"} on stdout.
 */
void json_error(const char *cmd, int code)
{
	json_writer_t *w = jsonw_new(stdout);
	char buf[128];

	if (!w)
		return;
	if (!*said && code == EXIT_USAGE)
		snprintf(buf, sizeof(buf), "bad usage: 'zswbctl help%s%s' lists the arguments",
			 cmd ? " " : "", cmd ? cmd : "");
	else if (!*said)
		snprintf(buf, sizeof(buf), "failed with exit status %d", code);
	jsonw_pretty(w, true);
	jsonw_start_object(w);
	jsonw_string_field(w, "error", *said ? said : buf);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

/* getenv(@name), or @def when it is unset or empty. */
const char *env_or(const char *name, const char *def)
{
	const char *val = getenv(name);

	return val && *val ? val : def;
}

/* Return -errno, never 0 (failed calls set errno; make sure anyway). */
int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* Whether some line of @path passes @match: 1 yes, 0 no, -1 unreadable. */
static int file_has_line(const char *path, bool (*match)(const char *line))
{
	size_t cap = 0;
	char *line = NULL;
	int found = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) > 0)
		found = match(line);
	if (ferror(f))
		found = -1;
	free(line);
	fclose(f);
	return found;
}

/* A /proc/kallsyms line "address type name[\t[module]]" naming the hook. */
static bool is_hook_symbol(const char *line)
{
	size_t len = strlen(HOOK_SYMBOL);
	const char *p;

	p = strchr(line, ' ');
	p = p ? strchr(p + 1, ' ') : NULL;
	if (!p || strncmp(p + 1, HOOK_SYMBOL, len))
		return false;
	p += 1 + len;
	return !*p || *p == '\n' || *p == '\t';
}

/* A kernel config line that turns the hook on. */
static bool is_hook_config(const char *line)
{
	return !strcmp(line, HOOK_CONFIG "=y\n") || !strcmp(line, HOOK_CONFIG "=y");
}

/*
 * The module is not loaded: say whether it can be, and return the exit
 * code. The running kernel has the hook if /proc/kallsyms lists its
 * register function; without kallsyms, if its /boot config turns it on.
 */
static int not_loaded(void)
{
	const char *ksyms = env_or("ZSWB_KALLSYMS", "/proc/kallsyms");
	char conf[PATH_MAX];
	struct utsname u;
	int has;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(conf, sizeof(conf), "/boot/config-%s", u.release);
	snprintf(conf, sizeof(conf), "%s", env_or("ZSWB_KCONFIG", conf));
	has = file_has_line(ksyms, is_hook_symbol);
	if (!has) {
		msg(MODNAME " cannot be loaded: the running kernel has no zswap writeback hook");
		msg("(%s has no %s in %s): boot a kernel built with %s=y", u.release,
		    HOOK_SYMBOL, ksyms, HOOK_CONFIG);
		return EXIT_NOHOOK;
	}
	if (has < 0 && !file_has_line(conf, is_hook_config)) {
		msg(MODNAME " cannot be loaded: the running kernel has no zswap writeback hook");
		msg("(%s has no %s=y in %s): boot a kernel built with it", u.release,
		    HOOK_CONFIG, conf);
		return EXIT_NOHOOK;
	}
	msg(MODNAME " is not loaded (no %s): load it with 'modprobe " MODNAME "'", sysfs_dir);
	return EXIT_NOMOD;
}

/* The kernel lockdown mode in @mode if it is not "none"; else false. */
static bool locked_down(char *mode, size_t len)
{
	const char *path = env_or("ZSWB_LOCKDOWN", "/sys/kernel/security/lockdown");
	char buf[128], *start, *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "none [integrity] confidentiality": the current mode is in brackets. */
	start = strchr(buf, '[');
	end = start ? strchr(start, ']') : NULL;
	if (!end)
		return false;
	*end = '\0';
	snprintf(mode, len, "%s", start + 1);
	return strcmp(mode, "none");
}

/*
 * Report that debugfs refused "cannot @what" with @err, naming the cause
 * when it is known; return the exit code.
 */
int debugfs_failed(const char *what, int err)
{
	char mode[32];

	if (err == -EACCES) {
		msg("cannot %s: %s: debugfs is for root, run zswbctl as root", what,
		    strerror(-err));
		return EXIT_NOACCESS;
	}
	if (err == -EPERM && locked_down(mode, sizeof(mode))) {
		msg("cannot %s: %s: the kernel is locked down (%s), see kernel_lockdown(7)",
		    what, strerror(-err), mode);
		return EXIT_LOCKDOWN;
	}
	msg("cannot %s: %s", what, strerror(-err));
	return EXIT_FAIL;
}

/* Check that the module is loaded; 0, or the exit code after saying why. */
static int check_sysfs(void)
{
	struct stat st;

	if (stat(sysfs_dir, &st) || !S_ISDIR(st.st_mode))
		return not_loaded();
	return 0;
}

/* Check that the module's debugfs directory is there; 0 or the exit code. */
int check_debugfs(void)
{
	char what[PATH_MAX + 16], parent[PATH_MAX], *slash;
	struct statfs sfs;
	struct stat st;
	int err;

	if (!stat(debugfs_dir, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		msg("%s is not a directory", debugfs_dir);
		return EXIT_FAIL;
	}
	err = neg_errno();
	if (err != -ENOENT) {
		snprintf(what, sizeof(what), "access %s", debugfs_dir);
		return debugfs_failed(what, err);	/* e.g. not root: 0700 */
	}
	snprintf(parent, sizeof(parent), "%s", debugfs_dir);
	for (slash = strrchr(parent, '/'); slash && slash > parent && !slash[1];
	     slash = strrchr(parent, '/'))
		*slash = '\0';		/* trailing slashes */
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		slash[slash == parent] = '\0';
	if (!statfs(parent, &sfs) && sfs.f_type == DEBUGFS_MAGIC) {
		msg("no %s: debugfs is mounted on %s, but " MODNAME " has no directory in it",
		    debugfs_dir, parent);
		return EXIT_FAIL;
	}
	msg("no %s: debugfs is not mounted on %s (mount -t debugfs none %s)",
	    debugfs_dir, parent, parent);
	return EXIT_NODEBUGFS;
}

/*
 * Check what @needs (nothing for 0): the statistics and the schema are the
 * module's, so their commands check that it is loaded first, to name that
 * cause rather than debugfs, and debugfs before the schema in it.
 */
int check_dirs(int needs)
{
	int ret = needs ? check_sysfs() : 0;

	if (!ret && (needs & (NEED_DEBUGFS | NEED_SCHEMA)))
		ret = check_debugfs();
	if (!ret && (needs & NEED_SCHEMA))
		ret = schema_check();
	return ret;
}

/* Read all of @path as a new string; NULL with *@err = -errno on error. */
char *read_all(const char *path, int *err)
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
int write_str(const char *path, const char *val)
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

/* Read debugfs file @name; NULL after reporting why, with the exit code in *@code. */
char *debugfs_read(const char *name, int *code)
{
	char path[PATH_MAX], what[PATH_MAX + 8], *buf;
	int err;

	snprintf(path, sizeof(path), "%s/%s", debugfs_dir, name);
	buf = read_all(path, &err);
	*code = 0;
	if (!buf) {
		snprintf(what, sizeof(what), "read %s", path);
		*code = debugfs_failed(what, err);
	}
	return buf;
}

/* Parse @s if it is a whole, optionally negative, decimal integer. */
bool parse_num(const char *s, unsigned long long *v)
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

/* Print @s, which parse_num() accepted, on @f in canonical form. */
void print_num(FILE *f, const char *s)
{
	unsigned long long v = 0;

	parse_num(s, &v);
	if (*s == '-')
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", v);
}

/*
 * The choice of a value that lists every choice with the current one in
 * brackets, as block/elevator.c prints them ("stock [per_node] carry"),
 * in @buf of @len; NULL for any other value.
 */
const char *current_choice(const char *val, char *buf, size_t len)
{
	const char *open = strchr(val, '['), *close;
	size_t n;

	if (!open || (open > val && open[-1] != ' ') || memchr(val, ']', open - val))
		return NULL;
	n = strcspn(open + 1, " []");
	close = open + 1 + n;
	if (!n || n >= len || *close != ']' || (close[1] && close[1] != ' ') ||
	    strpbrk(close + 1, "[]"))
		return NULL;
	memcpy(buf, open + 1, n);
	buf[n] = '\0';
	return buf;
}

/*
 * The columns text output fits in: $COLUMNS if it is a number above 0,
 * else the width of the terminal on stdout, else 0, no limit: what goes
 * to a pipe or a file is the same whatever the terminal.
 */
int out_width(void)
{
	const char *s = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long n;

	if (s && *s) {
		errno = 0;
		n = strtol(s, &end, 10);
		if (!errno && !*end && n > 0 && n <= INT_MAX)
			return n;
	}
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

/*
 * Name @s in at most @width columns (0: no limit, and never less than
 * FIT_MARKER and a character), cut with FIT_MARKER at its end, in @buf of
 * @len. Only for names: a number is never cut.
 */
const char *fit_name(char *buf, size_t len, const char *s, int width)
{
	size_t keep, min = strlen(FIT_MARKER) + 1;

	if (!width || strlen(s) <= (size_t)width || strlen(s) <= min) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	keep = ((size_t)width > min ? (size_t)width : min) - strlen(FIT_MARKER);
	snprintf(buf, len, "%.*s%s", (int)keep, s, FIT_MARKER);
	return buf;
}

/*
 * "@name@sep@val" on @f, in @width columns (0: no limit): the name gives,
 * cut by fit_name(), and the value is whole.
 */
void print_pair(FILE *f, const char *name, const char *sep, const char *val, int width)
{
	char buf[256];
	int room = width - (int)(strlen(sep) + strlen(val));

	fprintf(f, "%s%s%s\n", fit_name(buf, sizeof(buf), name, width ? (room > 1 ? room : 1) : 0),
		sep, val);
}

/*
 * @text on @f, each line wider than @width (0: no limit) broken at its
 * spaces, the lines it goes on indented two more than it. A word wider
 * than the room is never cut: a table fits itself before it gets here.
 */
void fit_print(FILE *f, const char *text, int width)
{
	const char *line = text, *nl, *p, *from, *brk, *end;
	int indent, cont, room;

	while (*line) {
		nl = strchrnul(line, '\n');
		indent = strspn(line, " ");
		cont = indent + 2 < width / 2 ? indent + 2 : 0;
		room = width;
		for (p = line; width && nl - p > room; room = width - cont) {
			/* not within the line's own indent */
			from = p + (p == line ? indent : 0) + 1;
			for (brk = p + room; brk >= from && *brk != ' '; brk--)
				;
			if (brk < from) {	/* a word wider than the room: after it */
				brk = strchrnul(from, ' ');
				if (brk >= nl)
					break;
			}
			for (end = brk; end > from && end[-1] == ' '; end--)
				;
			fprintf(f, "%.*s\n%*s", (int)(end - p), p, cont, "");
			p = brk + strspn(brk, " ");
		}
		fprintf(f, "%.*s\n", (int)(nl - p), p);
		line = *nl ? nl + 1 : nl;
	}
}
