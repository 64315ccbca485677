// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl - read and set zswap_wb module parameters and statistics.
 *
 * Parameters are files in $ZSWB_SYSFS/parameters (default
 * /sys/module/zswap_wb); statistics are "key value" lines in
 * $ZSWB_DEBUGFS/stats (default /sys/kernel/debug/zswap_wb), and the
 * free-latency histogram is in $ZSWB_DEBUGFS/free_latency_us.
 * Each cause of failure has its exit status (EXIT_* below, --help, and
 * zswbctl(8)); "diff" exits with the status of the command it ran.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef ZSWBCTL_VERSION
#error "ZSWBCTL_VERSION is not set: build with tools/zswbctl/Makefile, which reads dkms.conf"
#endif

#define MODNAME		"zswap_wb"
#define HOOK_SYMBOL	"zswap_wb_register"
#define HOOK_CONFIG	"CONFIG_ZSWAP_WRITEBACK_HOOK"
#define DEBUGFS_MAGIC	0x64626720

/* Exit status: one for each cause, listed by --help and in zswbctl(8). */
#define EXIT_FAIL	1	/* an operation failed */
#define EXIT_NOMOD	2	/* the module is not loaded */
#define EXIT_NOHOOK	3	/* the running kernel has no writeback hook */
#define EXIT_NODEBUGFS	4	/* debugfs is not mounted */
#define EXIT_NOACCESS	5	/* debugfs refused us: not root */
#define EXIT_LOCKDOWN	6	/* kernel lockdown refused a debugfs file */
#define EXIT_USAGE	64	/* bad command line or value */

#define UNLOAD_TRIES	50
#define NEED_SYSFS	1
#define NEED_DEBUGFS	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __maybe_unused	__attribute_maybe_unused__

static const char *sysfs_dir;
static const char *debugfs_dir;
static bool json;

enum param_type { PARAM_BOOL, PARAM_UINT, PARAM_ENUM };

static const char * const bool_words[] = {
	"1", "0", "y", "n", "yes", "no", "on", "off", "true", "false", NULL,
};

/* The words that turn a boolean parameter off. */
static const char * const false_words[] = {
	"0", "n", "no", "off", "false", NULL,
};

static const char * const shrink_policies[] = {
	"stock", "carry", "split", "per_node", "local_first", NULL,
};

static const char * const readahead_policies[] = {
	"stock", "skip_fault", "skip_zswap_slots", NULL,
};

/*
 * The module's parameters, worded as in Documentation/zswap_wb.rst: set
 * checks values against this before writing anything, and --help and the
 * Prometheus HELP lines print it. A parameter not listed is passed through.
 */
static const struct param_info {
	const char *name;
	enum param_type type;
	const char * const *values;	/* PARAM_ENUM, PARAM_BOOL: NULL-terminated */
	unsigned long min, max;		/* PARAM_UINT: the range */
	const char *def;
	const char *help;
} params[] = {
	{ "sync_free", PARAM_BOOL, bool_words, 0, 0, "N",
	  "Free writeback folios right after their write on SWP_SYNCHRONOUS_IO swap (zram, brd, pmem)."
	},
	{ "async_free", PARAM_BOOL, bool_words, 0, 0, "N",
	  "Free writeback folios from a work item as soon as their write ends, on block and file swap."
	},
	{ "shrink_policy", PARAM_ENUM, shrink_policies, 0, 0, "stock",
	  "How shrink_memcg() spreads its batch over the nodes." },
	{ "shrink_batch", PARAM_UINT, NULL, 1, 1024, "32",
	  "Entries one shrink_memcg() call may scan, 1..1024." },
	{ "readahead_policy", PARAM_ENUM, readahead_policies, 0, 0, "stock",
	  "Which swap readahead to skip for zswap entries on a swapin fault." },
};

enum stat_kind { STAT_COUNTER, STAT_GAUGE, STAT_LATENCY };

/*
 * The statistics, worded as in Documentation/zswap_wb.rst. Only counters
 * have deltas (diff) and are Prometheus counters; a key not listed is
 * taken as a counter. Per-node keys are "<key>_node<N>".
 */
static const struct stat_info {
	const char *key;
	enum stat_kind kind;
	const char *help;
} stat_infos[] = {
	{ "written_back", STAT_COUNTER, "Folios written back while the backend was armed." },
	{ "freed_sync", STAT_COUNTER, "Freed right after a synchronous write (sync_free)." },
	{ "freed_async", STAT_COUNTER,
	  "Freed by the work item after the write ended (async_free)." },
	{ "raced", STAT_COUNTER, "Claimed by a swapin (mapped, or out of swap cache), put back." },
	{ "write_errors", STAT_COUNTER, "Re-dirtied by a failed write, never mapped, put back." },
	{ "fallbacks", STAT_COUNTER, "Left on the LRU because the policy was off." },
	{ "mark_failed", STAT_COUNTER,
	  "Could not be marked, put on the LRU after the write." },
	{ "work_runs", STAT_COUNTER, "Runs of the deferred-free work item." },
	{ "requeued", STAT_COUNTER,
	  "Ended before zswap let it go; queued by writeback_issued() once it did." },
	{ "shrink_calls_worker", STAT_COUNTER, "shrink_memcg() calls from shrink_worker()." },
	{ "shrink_calls_store", STAT_COUNTER, "shrink_memcg() calls from zswap_store()." },
	{ "shrink_enoent", STAT_COUNTER, "Calls that found nothing to scan (-ENOENT)." },
	{ "shrink_eagain", STAT_COUNTER, "Calls that scanned but wrote nothing back (-EAGAIN)." },
	{ "store_rejects", STAT_COUNTER, "zswap_store() calls rejected because shrinking failed." },
	{ "shrink_scanned", STAT_COUNTER, "Entries shrink_memcg() scanned on node N." },
	{ "shrink_written", STAT_COUNTER, "Entries shrink_memcg() wrote back from node N." },
	{ "ra_faults_alone", STAT_COUNTER,
	  "Faults on a zswap entry read alone (both skip policies)." },
	{ "ra_windows_shrunk", STAT_COUNTER, "Readahead windows the policy made smaller." },
	{ "ra_zswap_slots_skipped", STAT_COUNTER,
	  "Neighbour slots left out because they were in zswap." },
	{ "ra_disk_slots", STAT_COUNTER, "Neighbour slots on disk left in the window." },
	{ "queue_depth", STAT_GAUGE,
	  "Folios on the per-CPU lists between writeback end and the work item." },
	{ "queue_depth_max", STAT_GAUGE,
	  "The most folios one drain took off a CPU's list since load or reset." },
	{ "inflight", STAT_GAUGE,
	  "Marked off-LRU folios whose write is not yet resolved (freed or put back)." },
	{ "free_latency_p50_us", STAT_LATENCY,
	  "50th percentile of the time from writeback end to free, as the upper bound of a power-of-two microsecond bucket."
	},
	{ "free_latency_p99_us", STAT_LATENCY,
	  "99th percentile of the time from writeback end to free, as the upper bound of a power-of-two microsecond bucket."
	},
	{ "free_latency_max_us", STAT_LATENCY,
	  "Maximum of the time from writeback end to free, as the upper bound of a power-of-two microsecond bucket."
	},
};

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

/* Print "zswbctl: <message>" on stderr; @fmt is a string literal. */
#define msg(fmt, ...)	fprintf(stderr, "zswbctl: " fmt "\n", ##__VA_ARGS__)

/* Print the usage text on @f and return @code for main() to exit with. */
static int print_usage(FILE *f, int code)
{
	fputs("usage: zswbctl [-j|--json] [status]\n"
	      "       zswbctl get NAME\n"
	      "       zswbctl set NAME VALUE [NAME VALUE ...]\n"
	      "       zswbctl [-j|--json] stats [KEY ...]\n"
	      "       zswbctl diff [--] CMD [ARGS ...]\n"
	      "       zswbctl prometheus [FILE]\n"
	      "       zswbctl reset\n"
	      "       zswbctl unload\n"
	      "       zswbctl -h|--help | -V|--version\n", f);
	if (code)
		fputs("Run 'zswbctl --help' for the commands, values and exit codes.\n", f);
	return code;
}

/* "--help": the usage, then the commands, parameters and exit codes. */
static int print_help(void)
{
	const char * const *v;
	size_t i;

	print_usage(stdout, 0);
	fputs("\nCommands:\n"
	      "  status      every parameter as \"name = value\", then the statistics\n"
	      "              (the default command); the parameters alone, and a note\n"
	      "              on stderr, when debugfs cannot be read\n"
	      "  get         print the value of parameter NAME\n"
	      "  set         set parameters in order; if one fails, put back those set\n"
	      "  stats       print the statistics, or the values of the KEYs in order\n"
	      "  diff        run CMD and print how each counter changed (gauges and\n"
	      "              latency percentiles are left out: they are not deltas);\n"
	      "              exits with the status of CMD\n"
	      "  prometheus  parameters, statistics and the free-latency histogram in\n"
	      "              the Prometheus text format, for node_exporter's textfile\n"
	      "              collector; FILE is replaced atomically, else stdout\n"
	      "  reset       zero the counters (gauges are kept)\n"
	      "  unload      turn the *_free policies off, waiting for the folios in\n"
	      "              flight, then remove the module\n"
	      "\nOptions:\n"
	      "  -j, --json     print status and stats as JSON\n"
	      "  -h, --help     print this help\n"
	      "  -V, --version  print the version\n"
	      "\nParameters (/sys/module/" MODNAME "/parameters):\n", stdout);
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		printf("  %-17s", params[i].name);
		if (params[i].type == PARAM_UINT)
			printf("an integer from %lu to %lu", params[i].min, params[i].max);
		else if (params[i].type == PARAM_BOOL)
			fputs("boolean: 1|0, y|n, yes|no, on|off, true|false", stdout);
		for (v = params[i].values; params[i].type == PARAM_ENUM && *v; v++)
			printf("%s%s", v == params[i].values ? "" : ", ", *v);
		printf(" (default %s)\n", params[i].def);
	}
	fputs("\nExit status:\n"
	      "  0   success\n"
	      "  1   failure: unknown parameter or statistic, a value the module\n"
	      "      refused, a file that cannot be read or written\n"
	      "  2   " MODNAME " is not loaded (load it: modprobe " MODNAME ")\n"
	      "  3   the running kernel has no zswap writeback hook (" HOOK_CONFIG ")\n"
	      "  4   debugfs is not mounted\n"
	      "  5   permission denied: debugfs is for root\n"
	      "  6   the kernel is locked down and refused a debugfs file\n"
	      "  64  bad usage: unknown command or option, wrong arguments, invalid value\n"
	      "  diff exits with the status of CMD (126, 127: cannot run; 128+N: signal N)\n"
	      "\nEnvironment: ZSWB_SYSFS (default /sys/module/" MODNAME "),\n"
	      "ZSWB_DEBUGFS (default /sys/kernel/debug/" MODNAME "),\n"
	      "ZSWB_KALLSYMS (default /proc/kallsyms), ZSWB_KCONFIG (default\n"
	      "/boot/config-$(uname -r)), ZSWB_LOCKDOWN (default\n"
	      "/sys/kernel/security/lockdown), ZSWB_NO_DELETE_MODULE=1 (unload: skip\n"
	      "delete_module). See zswbctl(8).\n", stdout);
	return 0;
}

/* getenv(@name), or @def when it is unset or empty. */
static const char *env_or(const char *name, const char *def)
{
	const char *val = getenv(name);

	return val && *val ? val : def;
}

/* Return -errno, never 0 (failed calls set errno; make sure anyway). */
static int neg_errno(void)
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
static int debugfs_failed(const char *what, int err)
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
static int check_debugfs(void)
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
 * Check what @needs: the statistics are the module's, so their commands
 * check that it is loaded first, to name that cause rather than debugfs.
 */
static int check_dirs(int needs)
{
	int ret = check_sysfs();

	if (!ret && (needs & NEED_DEBUGFS))
		ret = check_debugfs();
	return ret;
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

/* Read debugfs file @name; NULL after reporting why, with the exit code in *@code. */
static char *debugfs_read(const char *name, int *code)
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

/* Print the stats file as it is; 0 or the exit code. */
static int stats_print(void)
{
	size_t len;
	char *buf;
	int ret;

	buf = debugfs_read("stats", &ret);
	if (!buf)
		return ret;
	len = strlen(buf);
	fputs(buf, stdout);
	if (len && buf[len - 1] != '\n')
		putchar('\n');
	free(buf);
	return 0;
}

/* Read and split the stats file into key/value pairs; 0 or the exit code. */
static int stats_load(struct stats *st)
{
	struct stat_ent *tmp;
	char *line, *save, *p;
	int ret;

	st->ent = NULL;
	st->n = 0;
	st->buf = debugfs_read("stats", &ret);
	if (!st->buf)
		return ret;
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

/* Print @s, which parse_num() accepted, on @f in canonical form. */
static void print_num(FILE *f, const char *s)
{
	unsigned long long v = 0;

	parse_num(s, &v);
	if (*s == '-')
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", v);
}

/* The description of parameter @name, or NULL if zswbctl does not know it. */
static const struct param_info *param_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

/* Whether @val is one of the NULL-terminated @words (@icase: in any case). */
static bool is_word(const char *val, const char * const *words, bool icase)
{
	for (; *words; words++)
		if (icase ? !strcasecmp(val, *words) : !strcmp(val, *words))
			return true;
	return false;
}

/*
 * Check @val for parameter @name as the module will, so that a bad value
 * is refused before anything is written; 0, or EXIT_USAGE after saying why.
 * Values of parameters zswbctl does not know are left to the module.
 */
static int param_check(const char *name, const char *val)
{
	const struct param_info *p = param_find(name);
	const char * const *v;
	unsigned long num;
	char *end;

	if (!p)
		return 0;
	switch (p->type) {
	case PARAM_BOOL:
		if (is_word(val, p->values, true))
			return 0;
		msg("invalid value '%s' for %s: one of 1, 0, y, n, yes, no, on, off, true, false",
		    val, name);
		return EXIT_USAGE;
	case PARAM_UINT:
		/* As kstrtouint(..., 0, ...): decimal, 0x hex or 0 octal. */
		errno = 0;
		num = isdigit((unsigned char)*val) ? strtoul(val, &end, 0) : 0;
		if (isdigit((unsigned char)*val) && !errno && !*end &&
		    num >= p->min && num <= p->max)
			return 0;
		msg("invalid value '%s' for %s: an integer from %lu to %lu", val, name,
		    p->min, p->max);
		return EXIT_USAGE;
	case PARAM_ENUM:
		if (is_word(val, p->values, false))
			return 0;
		fprintf(stderr, "zswbctl: invalid value '%s' for %s: one of", val, name);
		for (v = p->values; *v; v++)
			fprintf(stderr, "%s %s", v == p->values ? "" : ",", *v);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	return 0;
}

/* Split "<base>_node<N>" into the length of base and N; false otherwise. */
static bool node_key(const char *key, size_t *base_len, const char **node)
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

/* The description of statistic @key (or of its per-node base), or NULL. */
static const struct stat_info *stat_find(const char *key)
{
	const char *node;
	size_t i, len;

	if (!node_key(key, &len, &node))
		len = strlen(key);
	for (i = 0; i < ARRAY_SIZE(stat_infos); i++)
		if (strlen(stat_infos[i].key) == len && !strncmp(stat_infos[i].key, key, len))
			return &stat_infos[i];
	return NULL;
}

/* Whether @key is a counter: what zswbctl does not know is taken as one. */
static bool stat_is_counter(const char *key)
{
	const struct stat_info *s = stat_find(key);

	return !s || s->kind == STAT_COUNTER;
}

/* Print @s as a JSON string. */
static void json_string(const char *s)
{
	unsigned char c;

	putchar('"');
	for (; *s; s++) {
		c = *s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/*
 * Print "@key": @val as a member of a JSON object, after a comma unless
 * *@first; Y and N (kernel booleans) become true and false, integers
 * numbers, anything else a string.
 */
static void json_member(const char *indent, const char *key, const char *val, bool *first)
{
	unsigned long long num;

	printf("%s\n%s", *first ? "" : ",", indent);
	*first = false;
	json_string(key);
	fputs(": ", stdout);
	if (!strcmp(val, "Y") || !strcmp(val, "N"))
		fputs(*val == 'Y' ? "true" : "false", stdout);
	else if (parse_num(val, &num))
		print_num(stdout, val);
	else
		json_string(val);
}

/* Print the statistics of @st as a JSON object whose members are @indent deep. */
static void json_stats(const struct stats *st, const char *indent)
{
	bool first = true;
	size_t i;

	putchar('{');
	for (i = 0; i < st->n; i++)
		json_member(indent, st->ent[i].key, st->ent[i].val, &first);
	printf("\n%.*s}", (int)strlen(indent) - 2, indent);
}

/*
 * "status": every parameter as "name = value", then the statistics; or
 * with --json, {"parameters": {...}, "statistics": {...} or null}. When
 * debugfs cannot be read the parameters are still shown, the cause is on
 * stderr and is the exit status.
 */
static int cmd_status(char **argv __maybe_unused)
{
	struct dirent **ents;
	int i, n, err, dbg, ret = 0;
	struct stats st = { 0 };
	bool first = true;
	char *val;

	n = param_list(&ents);
	if (n < 0)
		return 1;
	if (json)
		fputs("{\n  \"parameters\": {", stdout);
	for (i = 0; i < n; i++) {
		val = param_read(ents[i]->d_name, &err);
		if (!val) {
			ret = read_failed(ents[i]->d_name, err);
			continue;
		}
		if (json)
			json_member("    ", ents[i]->d_name, val, &first);
		else
			printf("%s = %s\n", ents[i]->d_name, val);
		free(val);
	}
	param_list_free(ents, n);
	if (json)
		fputs("\n  },\n  \"statistics\": ", stdout);
	dbg = check_debugfs();
	if (!dbg)
		dbg = json ? stats_load(&st) : stats_print();
	if (json && !dbg)
		json_stats(&st, "    ");
	else if (json)
		fputs("null", stdout);
	if (json)
		fputs("\n}\n", stdout);
	stats_free(&st);
	if (dbg)
		msg("statistics not shown, parameters only");
	return dbg ? dbg : ret;
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
		if (!strcmp(u[i].name, "async_free") &&
		    is_word(argv[2 * i + 1], false_words, true))
			ret = wait_inflight();
out:
	undo_free(u, n);
	return ret;
}

/* "stats [KEY...]": print the statistics, or the values of some keys. */
static int cmd_stats(char **argv)
{
	struct stats st;
	bool first = true;
	const char *val;
	int i, ret;

	if (!*argv && !json)
		return stats_print();
	ret = stats_load(&st);
	for (i = 0; argv[i] && !ret; i++) {
		if (!stats_find(&st, argv[i])) {
			msg("unknown statistic '%s'", argv[i]);
			ret = 1;
		}
	}
	if (json && !ret && !*argv) {
		json_stats(&st, "  ");
		putchar('\n');
	} else if (json && !ret) {
		putchar('{');
		for (i = 0; argv[i]; i++)
			json_member("  ", argv[i], stats_find(&st, argv[i]), &first);
		puts("\n}");
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

/*
 * "diff -- CMD...": print how each counter changed over CMD. Gauges and
 * latency percentiles describe a moment, not a count: their difference
 * means nothing, so they are left out.
 */
static int cmd_diff(char **argv)
{
	unsigned long long a, b;
	struct stats before, after;
	const char *old;
	int ret, err;
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
	err = stats_load(&after);
	if (err) {
		ret = ret ? ret : err;	/* never claim success without deltas */
		goto out;
	}
	for (i = 0; i < after.n; i++) {
		if (!stat_is_counter(after.ent[i].key))
			continue;
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
	return err ? debugfs_failed("reset statistics", err) : 0;
}

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
 * The parameters: booleans as 0/1 gauges, numbers as gauges, and the
 * others (the policies) as one info-style gauge with the value in a label.
 */
static int prom_params(FILE *out)
{
	const struct param_info *p;
	unsigned long long num;
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
		if (strcmp(vals[i], "Y") && strcmp(vals[i], "N") && !parse_num(vals[i], &num)) {
			names = true;
			continue;
		}
		p = param_find(ents[i]->d_name);
		snprintf(help, sizeof(help), MODNAME " parameter %.200s.", ents[i]->d_name);
		fprintf(out, "# HELP zswap_wb_param_%s %s\n# TYPE zswap_wb_param_%s gauge\n",
			ents[i]->d_name, p ? p->help : help, ents[i]->d_name);
		fprintf(out, "zswap_wb_param_%s ", ents[i]->d_name);
		if (!strcmp(vals[i], "Y") || !strcmp(vals[i], "N"))
			fputc(*vals[i] == 'Y' ? '1' : '0', out);
		else
			print_num(out, vals[i]);
		fputc('\n', out);
	}
	if (names && !ret)
		prom_head(out, "zswap_wb_param_info", "gauge",
			  "Parameters whose value is a name (shrink_policy: how shrink_memcg() spreads its batch over the nodes; readahead_policy: which swap readahead to skip for zswap entries), the value as a label.");
	for (i = 0; i < n && names && !ret; i++) {
		if (!prom_name_ok(ents[i]->d_name) || !strcmp(vals[i], "Y") ||
		    !strcmp(vals[i], "N") || parse_num(vals[i], &num))
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
	if (s && s->kind == STAT_LATENCY)	/* "..._us" in seconds */
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
			if (s && s->kind == STAT_LATENCY && parse_num(e->val, &us))
				prom_seconds(out, us);
			else
				print_num(out, e->val);
			fputc('\n', out);
		}
	}
}

#define LAT_MAX_BUCKETS	64

/*
 * free_latency_us ("bound count" lines, bound in microseconds) as a
 * histogram in seconds. The module counts a time at or over the last
 * bound in the last line, so that line has no upper bound: it is only in
 * "+Inf". There is no _sum: the module keeps bucket counts only, and a sum
 * made of bucket bounds would be a guess.
 */
static int prom_latency(FILE *out)
{
	unsigned long long bound[LAT_MAX_BUCKETS], count[LAT_MAX_BUCKETS], total = 0;
	const char *name = "zswap_wb_free_latency_seconds";
	char *buf, *line, *save;
	int i, n = 0, ret;

	buf = debugfs_read("free_latency_us", &ret);
	if (!buf)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		if (n == LAT_MAX_BUCKETS ||
		    sscanf(line, "%llu %llu", &bound[n], &count[n]) != 2 ||
		    strspn(line, "0123456789 ") != strlen(line) ||
		    (n && bound[n] <= bound[n - 1])) {
			msg("%s/free_latency_us: unexpected line '%s'", debugfs_dir, line);
			ret = 1;
		}
		n++;
	}
	free(buf);
	if (!n && !ret) {
		msg("%s/free_latency_us is empty", debugfs_dir);
		ret = 1;
	}
	if (ret)
		return ret;
	prom_head(out, name, "histogram", "Time from writeback end to free.");
	for (i = 0; i < n - 1; i++) {
		total += count[i];
		fprintf(out, "%s_bucket{le=\"", name);
		prom_seconds(out, bound[i]);
		fprintf(out, "\"} %llu\n", total);
	}
	total += count[n - 1];
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
static int cmd_prometheus(char **argv)
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

/* The subcommands, their argument counts and what they need to exist. */
static const struct {
	const char *name;
	int (*fn)(char **argv);	/* argv: the arguments, NULL-terminated */
	int min_args, max_args;	/* max_args < 0: no limit */
	int needs;
	bool json;		/* takes --json, also among its arguments */
} commands[] = {
	/* status checks debugfs itself: it shows the parameters without it */
	{ "status", cmd_status, 0, 0, NEED_SYSFS, true },
	{ "get", cmd_get, 1, 1, NEED_SYSFS, false },
	{ "set", cmd_set, 2, -1, NEED_SYSFS, false },
	{ "stats", cmd_stats, 0, -1, NEED_DEBUGFS, true },
	{ "diff", cmd_diff, 1, -1, NEED_DEBUGFS, false },
	{ "prometheus", cmd_prometheus, 0, 1, NEED_DEBUGFS, false },
	{ "reset", cmd_reset, 0, 0, NEED_DEBUGFS, false },
	{ "unload", cmd_unload, 0, 0, NEED_SYSFS, false },
};

/* Remove -j and --json from the @n arguments in @argv; the new count. */
static int take_json(char **argv, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			json = true;
		else
			argv[k++] = argv[i];
	}
	argv[k] = NULL;
	return k;
}

/* Pick the paths, the options and the command, and dispatch (default: status). */
int main(int argc, char **argv)
{
	const char *cmd;
	int a, nargs, ret;
	size_t i;

	sysfs_dir = env_or("ZSWB_SYSFS", "/sys/module/" MODNAME);
	debugfs_dir = env_or("ZSWB_DEBUGFS", "/sys/kernel/debug/" MODNAME);

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return print_help();
		if (!strcmp(argv[a], "-V") || !strcmp(argv[a], "--version")) {
			puts("zswbctl " ZSWBCTL_VERSION);
			return 0;
		}
		if (strcmp(argv[a], "-j") && strcmp(argv[a], "--json")) {
			msg("unknown option '%s'", argv[a]);
			return print_usage(stderr, EXIT_USAGE);
		}
		json = true;
	}
	cmd = a < argc ? argv[a++] : "status";
	nargs = argc - a;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		if (commands[i].json)
			nargs = take_json(argv + a, nargs);
		if (json && !commands[i].json) {
			msg("--json is for status and stats, not %s", cmd);
			return print_usage(stderr, EXIT_USAGE);
		}
		if (nargs < commands[i].min_args ||
		    (commands[i].max_args >= 0 &&
		     nargs > commands[i].max_args))
			return print_usage(stderr, EXIT_USAGE);
		ret = check_dirs(commands[i].needs);
		if (!ret)
			ret = commands[i].fn(argv + a);
		/* Output that did not reach its reader is a failure too. */
		if (fflush(stdout) || ferror(stdout)) {
			msg("cannot write to stdout: %s", strerror(errno));
			ret = ret ? ret : 1;
		}
		return ret;
	}
	msg("unknown command '%s'", cmd);
	return print_usage(stderr, EXIT_USAGE);
}
