// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl ab: the runs on the host. Each run of the command in a fresh
 * cgroup, and what is read around it: the command's time, /proc/vmstat
 * and the module's counters (the scope's with --concurrent), the cgroup's
 * cpu.stat, PSI, memory.events and memory.stat, and the command's own
 * figures ($ZSWBCTL_AB_METRICS). Sequential mode sets the module
 * parameters before each run and puts them back at the end; --concurrent
 * runs A and B at once in two sibling cgroups, each bound to a policy
 * scope of its own (configfs), the sides swapped from one pair to the next.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab.h"
#include "json_writer.h"
#include "zswbctl.h"

/* snprintf() for paths: a path too long for @len is cut, and made empty. */
static void __printf(3, 4) pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		*buf = '\0';
}

/* The signals that stop a comparison, its settings put back. */
const int ab_signals[AB_NR_SIGNALS] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The signal that asked us to stop (one of ab_signals), or 0. */
atomic_int ab_stop;

void ab_signal(int sig)
{
	int i;

	ab_stop = sig;
	/* A terminal's ^C reaches the command too; a kill(1) of us does not. */
	for (i = 0; i < 2; i++)
		if (ab.child[i] > 0)
			kill(ab.child[i], sig);
}

/* Set metric @name of @r to @v. */
static void run_set(struct run *r, const char *name, double v)
{
	int i = ab_metric_idx(name);

	if (i >= 0)
		r->val[i] = v;
}

/* Read "key value" lines of @path into @st (a plain file, not debugfs); 0 or -errno. */
static int kv_load(struct stats *st, const char *path)
{
	int err;

	st->ent = NULL;
	st->n = 0;
	st->buf = read_all(path, &err);
	if (!st->buf)
		return err;
	return stats_split(st);
}

/* The value of @key in @st as a number; NAN if absent. */
static double kv_num(const struct stats *st, const char *key)
{
	const char *v = st->buf ? stats_find(st, key) : NULL;
	double d;

	return v && ab_parse_double(v, &d) ? d : NAN;
}

/* What the kernel names in the files ab reads (its own names, not the module's). */
static const char * const cpu_keys[] = { "usage_usec", "user_usec", "system_usec" };
static const char * const event_keys[] = { "max", "oom", "oom_kill" };

static const char * const memstat_keys[] = {
	"pgscan", "pgsteal", "zswpout", "zswpin", "zswpwb", "workingset_refault_anon",
};

static const char * const vmstat_keys[] = {
	"pgrotated", "zswpwb", "pswpin", "pswpout", "swap_ra", "swap_ra_hit",
};

static const char * const psi_files[] = { "memory", "io", "cpu" };

/* A snapshot of the host (vmstat) and of the module's counters (of @stats). */
struct snap {
	struct stats vm, mod;
};

static const char *proc_dir(void)
{
	return env_or("ZSWB_PROC", "/proc");
}

/* Take a snapshot: /proc/vmstat and the module's counters in @stats; 0 or the exit code. */
static int snap_take(struct snap *s, const char *stats)
{
	char path[PATH_MAX];
	int err;

	pathf(path, sizeof(path), "%s/vmstat", proc_dir());
	err = kv_load(&s->vm, path);
	if (err) {
		msg("cannot read %s: %s", path, strerror(-err));
		return 1;
	}
	return stats_load_file(&s->mod, stats);
}

static void snap_free(struct snap *s)
{
	stats_free(&s->vm);
	stats_free(&s->mod);
	memset(s, 0, sizeof(*s));
}

/* The deltas from @a to @b: vmstat (sequential mode only) and module counters. */
static void snap_delta(struct run *r, const struct snap *a, const struct snap *b)
{
	unsigned long long x, y;
	char name[300];
	const char *old;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vmstat_keys) && !ab.concurrent; i++) {
		snprintf(name, sizeof(name), "vmstat.%s", vmstat_keys[i]);
		run_set(r, name, kv_num(&b->vm, vmstat_keys[i]) - kv_num(&a->vm, vmstat_keys[i]));
	}
	for (i = 0; i < b->mod.n; i++) {
		if (!stat_is_counter(b->mod.ent[i].key))
			continue;
		old = stats_find(&a->mod, b->mod.ent[i].key);
		if (!old || !parse_num(old, &x) || !parse_num(b->mod.ent[i].val, &y))
			continue;
		snprintf(name, sizeof(name), MODNAME ".%s", b->mod.ent[i].key);
		run_set(r, name, (double)(long long)(y - x));
	}
}

/* The "total=" of the "some" or "full" line of a PSI file, in microseconds. */
static double psi_total(const char *buf, const char *which)
{
	const char *line = buf;
	size_t len = strlen(which);

	while (line && *line) {
		if (!strncmp(line, which, len) && line[len] == ' ') {
			const char *t = strstr(line, "total=");
			const char *nl = strchr(line, '\n');

			if (t && (!nl || t < nl))
				return strtod(t + 6, NULL);
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NAN;
}

/* What the fresh cgroup @cg counted over its run: cpu.stat, PSI, memory.events, memory.stat. */
static void cgroup_metrics(struct run *r, const char *cg)
{
	char path[PATH_MAX], name[128], *buf;
	struct stats st;
	size_t i;
	int err;

	pathf(path, sizeof(path), "%s/cpu.stat", cg);
	if (!kv_load(&st, path))
		for (i = 0; i < ARRAY_SIZE(cpu_keys); i++) {
			snprintf(name, sizeof(name), "cpu.%s", cpu_keys[i]);
			run_set(r, name, kv_num(&st, cpu_keys[i]));
		}
	stats_free(&st);
	for (i = 0; i < ARRAY_SIZE(psi_files); i++) {
		pathf(path, sizeof(path), "%s/%s.pressure", cg, psi_files[i]);
		buf = read_all(path, &err);
		if (!buf)
			continue;
		snprintf(name, sizeof(name), "psi.%s_some_us", psi_files[i]);
		run_set(r, name, psi_total(buf, "some"));
		snprintf(name, sizeof(name), "psi.%s_full_us", psi_files[i]);
		run_set(r, name, psi_total(buf, "full"));
		free(buf);
	}
	pathf(path, sizeof(path), "%s/memory.events", cg);
	if (!kv_load(&st, path))
		for (i = 0; i < ARRAY_SIZE(event_keys); i++) {
			snprintf(name, sizeof(name), "memory.events.%s", event_keys[i]);
			run_set(r, name, kv_num(&st, event_keys[i]));
		}
	stats_free(&st);
	pathf(path, sizeof(path), "%s/memory.stat", cg);
	if (!kv_load(&st, path))
		for (i = 0; i < ARRAY_SIZE(memstat_keys); i++) {
			snprintf(name, sizeof(name), "memory.stat.%s", memstat_keys[i]);
			run_set(r, name, kv_num(&st, memstat_keys[i]));
		}
	stats_free(&st);
}

/* Write @val to file @name of directory @dir; 0 or -errno. */
static int write_in(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX];

	pathf(path, sizeof(path), "%s/%s", dir, name);
	return write_str(path, val);
}

/* Make run cgroup @name under ours, with the memory limits; 0 or 1 after saying why. */
static int cgroup_make(const char *name, char *path, size_t len)
{
	int err;

	pathf(path, len, "%s/%s", ab.cg_dir, name);
	if (mkdir(path, 0755) && errno != EEXIST) {
		msg("cannot make cgroup %s: %s", path, strerror(errno));
		return 1;
	}
	err = ab.memory_max ? write_in(path, "memory.max", ab.memory_max) : 0;
	if (err) {
		msg("cannot set memory.max of %s to '%s': %s", path, ab.memory_max, strerror(-err));
		rmdir(path);
		return 1;
	}
	err = ab.zswap_max ? write_in(path, "memory.zswap.max", ab.zswap_max) : 0;
	if (err) {
		msg("cannot set memory.zswap.max of %s to '%s': %s", path, ab.zswap_max,
		    strerror(-err));
		rmdir(path);
		return 1;
	}
	return 0;
}

/* Remove cgroup @path once its last process is gone (it may take a moment). */
static void cgroup_remove(const char *path)
{
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	int try;

	for (try = 0; try < 500 && rmdir(path) && errno == EBUSY; try++)
		nanosleep(&pause, NULL);
	if (!access(path, F_OK))
		msg("cannot remove cgroup %s: %s", path, strerror(errno));
}

/* The directory of configfs scope @k. */
static void scope_path(int k, char *buf, size_t len)
{
	pathf(buf, len, "%s/%s", env_or("ZSWB_CONFIGFS", "/sys/kernel/config/" MODNAME),
	      ab.scope[k]);
}

/* Give scope @k side @side's settings; 0, or the exit code after saying why. */
static int scope_set(int k, int side)
{
	char dir[PATH_MAX];
	int i, err;

	scope_path(k, dir, sizeof(dir));
	for (i = 0; i < ab.side[side].n; i++) {
		err = write_in(dir, ab.side[side].name[i], ab.side[side].val[i]);
		if (err == -ENOENT) {
			msg("unknown parameter '%s': a policy scope has no such setting",
			    ab.side[side].name[i]);
			return 1;
		}
		if (err) {
			msg("cannot set %s to '%s' in scope %s: %s", ab.side[side].name[i],
			    ab.side[side].val[i], ab.scope[k], strerror(-err));
			return err == -EINVAL ? EXIT_USAGE : 1;
		}
	}
	return 0;
}

/*
 * Bind scope @k to cgroup @rel (as /proc/PID/cgroup names it); 0 or 1. A
 * scope that will not be bound again (its last cgroup is gone) is made
 * anew, with the same name and settings.
 */
static int scope_bind(int k, int side, const char *rel)
{
	char dir[PATH_MAX];
	int err;

	scope_path(k, dir, sizeof(dir));
	err = write_in(dir, "cgroup", rel);
	if (err && err != -ENOENT && !rmdir(dir)) {
		ab.scope_made[k] = false;
		if (!mkdir(dir, 0755)) {
			ab.scope_made[k] = true;
			err = scope_set(k, side) ? -EINVAL : write_in(dir, "cgroup", rel);
		}
	}
	if (err)
		msg("cannot bind scope %s to %s: %s", ab.scope[k], rel, strerror(-err));
	return !!err;
}

/* Give the module side @side's settings (sequential mode); 0 or 1. */
static int params_set(int side)
{
	int i, err;

	ab.params_set = true;
	for (i = 0; i < ab.side[side].n; i++) {
		err = param_set(ab.side[side].name[i], ab.side[side].val[i]);
		if (err < 0)
			msg("cannot set %s to '%s': %s", ab.side[side].name[i],
			    ab.side[side].val[i], strerror(-err));
		if (err)
			return 1;
	}
	return 0;
}

/*
 * Empty the metrics directory: the runs' files, and whatever else a
 * command put beside its own.
 */
static void metrics_clean(void)
{
	struct dirent *e;
	DIR *dir;

	dir = opendir(ab.metrics_dir);
	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    unlinkat(dirfd(dir), e->d_name, 0))
			msg("cannot remove %s/%s: %s", ab.metrics_dir, e->d_name, strerror(errno));
	closedir(dir);
}

/*
 * Undo what ab made, in reverse: the parameters as they were, the scopes,
 * the cgroups, the metrics directory. Run on every way out, a signal's too.
 */
void ab_cleanup(void)
{
	char path[PATH_MAX];
	int i, err;

	for (i = ab.params_set ? ab.nr_saved - 1 : -1; i >= 0; i--) {
		err = param_set(ab.saved_name[i], ab.saved_val[i]);
		if (err < 0)
			msg("cannot restore %s to '%s': %s", ab.saved_name[i], ab.saved_val[i],
			    strerror(-err));
	}
	ab.nr_saved = 0;
	for (i = 0; i < 2; i++) {
		if (!ab.scope_made[i])
			continue;
		scope_path(i, path, sizeof(path));
		if (rmdir(path))
			msg("cannot remove scope %s: %s", path, strerror(errno));
		ab.scope_made[i] = false;
	}
	if (ab.cg_made)
		cgroup_remove(ab.cg_dir);
	ab.cg_made = false;
	if (*ab.metrics_dir) {
		metrics_clean();
		if (rmdir(ab.metrics_dir))
			msg("cannot remove %s: %s", ab.metrics_dir, strerror(errno));
		*ab.metrics_dir = 0;
	}
}

/* ---------------------------------------------------------- the runs -- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Empty the page cache, so that no run inherits the last one's; 0 or 1. */
static int drop_caches(void)
{
	char path[PATH_MAX];
	int err;

	sync();
	pathf(path, sizeof(path), "%s/sys/vm/%s", proc_dir(), "drop_caches");
	err = write_str(path, "3");
	if (err)
		msg("cannot drop the page cache (%s): %s", path, strerror(-err));
	return !!err;
}

/*
 * Start the command in cgroup @cg, as child @k of ab (ab.child[k]), for
 * side @side: the child moves itself in before exec, its stdout goes to
 * our stderr (the report is on stdout), $ZSWBCTL_AB_METRICS names the
 * file @metrics for its own figures and $ZSWBCTL_AB_SIDE the side's
 * letter (A, B, ...), for a setting that is not the module's. The pid,
 * or -1.
 */
static pid_t start(int k, char side, const char *cg, const char *metrics)
{
	char procs[PATH_MAX], letter[2] = { side, 0 };
	sigset_t stop, old;
	size_t i;
	pid_t pid;
	int err;

	pathf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	fflush(NULL);
	/*
	 * A signal that comes before ab.child[k] is set would not reach the
	 * command: hold the signals until it is, and start nothing once one
	 * came.
	 */
	sigemptyset(&stop);
	for (i = 0; i < ARRAY_SIZE(ab_signals); i++)
		sigaddset(&stop, ab_signals[i]);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (ab_stop) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	pid = fork();
	if (pid) {
		ab.child[k] = pid > 0 ? pid : 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pid < 0)
			msg("cannot fork: %s", strerror(errno));
		return pid;
	}
	for (i = 0; i < ARRAY_SIZE(ab_signals); i++)
		signal(ab_signals[i], SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	err = write_str(procs, "0");
	if (err) {
		msg("cannot move into %s: %s", procs, strerror(-err));
		_exit(126);
	}
	dup2(STDERR_FILENO, STDOUT_FILENO);
	if (*metrics ? setenv("ZSWBCTL_AB_METRICS", metrics, 1) :
		       unsetenv("ZSWBCTL_AB_METRICS")) {
		msg("cannot set ZSWBCTL_AB_METRICS: %s", strerror(errno));
		_exit(126);
	}
	if (setenv("ZSWBCTL_AB_SIDE", letter, 1)) {
		msg("cannot set ZSWBCTL_AB_SIDE: %s", strerror(errno));
		_exit(126);
	}
	execvp(ab.cmd[0], ab.cmd);
	err = errno;
	msg("cannot run %s: %s", ab.cmd[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* Wait for child @k; its status as a shell gives it, or -1. */
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			msg("cannot wait for %s: %s", ab.cmd[0], strerror(errno));
			return -1;
		}
	}
	return exit_code(status);
}

/*
 * The path of the metrics file of the run about to be added (@k: which
 * of a concurrent pair), none there yet; "" with no metrics directory.
 */
static void metrics_path(char *buf, size_t len, int k)
{
	*buf = 0;
	if (!*ab.metrics_dir)
		return;
	pathf(buf, len, "%s/run-%d%s", ab.metrics_dir, ab.nr_runs,
	      ab.concurrent ? (k ? "-b" : "-a") : "");
	unlink(buf);
}

/* A metric name of the command's: 1 to 64 of [a-z0-9_]. */
static bool cmd_metric_name(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n && n <= 64 && !s[n];
}

/*
 * The command's own figures, from its metrics file @path ("NAME VALUE"
 * lines, the last of a name wins), into @r as cmd.NAME. A line that is
 * not that is said and left out; no file is no figures.
 */
static void cmd_metrics(struct run *r, const char *path)
{
	char name[80], *line = NULL, *p, *q, *end;
	int nr = 0, i, seen = 0;
	size_t n, size = 0;
	double v;
	FILE *f;

	f = *path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	/* The names of the command's that the table has already. */
	for (i = 0; i < ab.nr_metrics; i++)
		seen += !strncmp(ab.metric_name[i], "cmd.", 4);
	while (getline(&line, &size, f) >= 0) {
		nr++;
		line[strcspn(line, "\r\n")] = 0;
		p = line + strspn(line, " \t");
		if (!*p)
			continue;
		n = strcspn(p, " \t");
		snprintf(name, sizeof(name), "cmd.%.*s", (int)(n > 64 ? 65 : n), p);
		q = p + n + strspn(p + n, " \t");
		errno = 0;
		v = strtod(q, &end);
		if (n > 64 || !cmd_metric_name(name + 4) || end == q || errno || !isfinite(v) ||
		    end[strspn(end, " \t")]) {
			msg("ab: run %d: metrics line %d: not NAME VALUE: '%.80s', left out",
			    (int)(r - ab.runs), nr, line);
			continue;
		}
		for (i = 0; i < ab.nr_metrics && strcmp(ab.metric_name[i], name); i++)
			;
		if (i == ab.nr_metrics && seen == AB_MAX_CMD_METRICS) {
			msg("ab: run %d: more than %d metrics of the command's, %s left out",
			    (int)(r - ab.runs), AB_MAX_CMD_METRICS, name);
			continue;
		}
		seen += i == ab.nr_metrics;
		if (ab_metric_idx(name) < 0)
			msg("ab: run %d: too many metrics, %s left out", (int)(r - ab.runs), name);
		run_set(r, name, v);
	}
	free(line);
	fclose(f);
	unlink(path);
}

/* One sequential run of side @side; 0 or 1. */
static int run_sequential(enum run_kind kind, int pair, int side)
{
	char cg[PATH_MAX] = "", name[32], metrics[PATH_MAX];
	struct snap before = { 0 }, after = { 0 };
	struct run *r;
	double t0;
	int ret;

	snprintf(name, sizeof(name), "run-%d", ab.nr_runs);
	metrics_path(metrics, sizeof(metrics), 0);
	ret = params_set(side);
	if (!ret && ab.drop_caches)
		ret = drop_caches();
	if (!ret)
		ret = cgroup_make(name, cg, sizeof(cg));
	if (!ret)
		ret = snap_take(&before, "stats");
	r = ret ? NULL : ab_run_new(kind, pair, 'A' + side);
	if (!r) {
		snap_free(&before);
		if (*cg)
			cgroup_remove(cg);
		return 1;
	}
	t0 = now();
	r->exit = start(0, r->side, cg, metrics) < 0 ? -1 : wait_child(ab.child[0]);
	run_set(r, "wall_s", now() - t0);
	ab.child[0] = 0;
	ret = snap_take(&after, "stats");
	if (!ret)
		snap_delta(r, &before, &after);
	cgroup_metrics(r, cg);
	cmd_metrics(r, metrics);
	cgroup_remove(cg);
	snap_free(&before);
	snap_free(&after);
	if (r->exit < 0)
		return 1;
	return ret;
}

/*
 * One concurrent run: A and B at once, each in its own cgroup bound to its
 * own scope. Scope k holds side k's settings; on even pairs the sides
 * swap cgroups, scopes and start order, so that neither position favours
 * one side. 0 or 1.
 */
static int run_concurrent(enum run_kind kind, int pair, int side0, int side1)
{
	char cg[2][PATH_MAX] = { "", "" }, name[32], rel[PATH_MAX + 40], stats[64];
	char metrics[2][PATH_MAX];
	struct snap before[2] = { 0 }, after = { 0 };
	int k, ret = 0, sides[2] = { side0, side1 }, done = 0;
	struct run *r[2];
	double t0[2];
	pid_t pid;

	if (ab.drop_caches && drop_caches())
		return 1;
	for (k = 0; k < 2; k++)
		metrics_path(metrics[k], sizeof(metrics[k]), k);
	for (k = 0; k < 2 && !ret; k++) {
		snprintf(name, sizeof(name), "run-%d-%c", ab.nr_runs, 'a' + k);
		ret = cgroup_make(name, cg[k], sizeof(cg[k]));
		if (!ret)
			ret = scope_set(k, sides[k]);
		pathf(rel, sizeof(rel), "%s/%s", ab.cg_rel, name);
		if (!ret)
			ret = scope_bind(k, sides[k], rel);
		snprintf(stats, sizeof(stats), "scopes/%s/stats", ab.scope[k]);
		if (!ret)
			ret = snap_take(&before[k], stats);
	}
	for (k = 0; k < 2 && !ret; k++) {
		r[k] = ab_run_new(kind, pair, sides[k] ? 'B' : 'A');
		if (!r[k])
			ret = 1;
	}
	/* r[] moves with ab.runs' realloc: take the pointers again. */
	if (!ret) {
		r[0] = &ab.runs[ab.nr_runs - 2];
		r[1] = &ab.runs[ab.nr_runs - 1];
	}
	for (k = 0; k < 2 && !ret; k++) {
		t0[k] = now();
		if (start(k, r[k]->side, cg[k], metrics[k]) < 0)
			ret = 1;
	}
	while (done < 2 && ab.child[0] + ab.child[1] > 0) {
		int status;

		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (k = 0; k < 2; k++) {
			if (pid != ab.child[k])
				continue;
			ab.child[k] = 0;
			done++;
			r[k]->exit = exit_code(status);
			run_set(r[k], "wall_s", now() - t0[k]);
			snprintf(stats, sizeof(stats), "scopes/%s/stats", ab.scope[k]);
			if (!snap_take(&after, stats))
				snap_delta(r[k], &before[k], &after);
			snap_free(&after);
			cgroup_metrics(r[k], cg[k]);
			cmd_metrics(r[k], metrics[k]);
		}
	}
	for (k = 0; k < 2; k++) {
		snap_free(&before[k]);
		if (*cg[k])
			cgroup_remove(cg[k]);
	}
	return ret || done < 2;
}

/*
 * The order of the sides in sequential pair @p, into @order; how many runs.
 * Each side after A runs next to an A run, its partner in the report:
 * A B for two sides, A B C A for three, A B C A D E A F for six, so that
 * a drift of the host over the comparison cancels in each pair. Every
 * other pair is mirrored (B A; A C B A; F A E D A C B A): each side runs
 * before its A as often as after it.
 */
static int pair_order(int p, int *order)
{
	int n = 0, k, t;

	for (k = 1; k < ab.nr_sides; k++) {
		if (k % 2)
			order[n++] = 0;
		order[n++] = k;
	}
	if (ab.nr_sides % 2)	/* the last side pairs with an A after it */
		order[n++] = 0;
	for (k = 0; p % 2 == 0 && k < n / 2; k++) {
		t = order[k];
		order[k] = order[n - 1 - k];
		order[n - 1 - k] = t;
	}
	return n;
}

/* Whether pair @p is the last: --pairs done and, with --precision, the interval narrow. */
static bool last_pair(int p)
{
	double w;

	if (p < ab.pairs)
		return false;
	if (!ab.precision || p >= ab.max_pairs)
		return true;
	w = ab_primary_halfwidth();
	if (w <= ab.precision)
		return true;
	if (p == ab.pairs || p % 10 == 0)
		msg("ab: %d pairs, %s's interval is +-%.2f%%: more pairs (at most %d)", p,
		    ab.metric, w, ab.max_pairs);
	return false;
}

/*
 * Run the schedule: warm-up, A/A pair, then pairs (A B, B A, ... or
 * pair_order()'s) until last_pair(); 0 or 1. A pair ends whole or the
 * comparison stops: a signal, or a run that could not be made.
 */
int ab_run_all(void)
{
	int p, i, n, order[AB_MAX_SIDES * 2], ret = 0;

	if (ab.warmup)
		ret = ab.concurrent ? run_concurrent(RUN_WARMUP, 0, 0, 0) :
				      run_sequential(RUN_WARMUP, 0, 0);
	if (!ret && !ab_stop)
		ret = ab.concurrent ? run_concurrent(RUN_AA, 0, 0, 0) :
				      run_sequential(RUN_AA, 0, 0);
	if (!ret && !ab_stop && !ab.concurrent)
		ret = run_sequential(RUN_AA, 0, 0);
	/* a cmd.NAME is known once the command has run */
	if (!ret && !ab_stop && ab_primary() < 0) {
		msg("ab: --metric '%s': the command did not report it in the A/A pair", ab.metric);
		return EXIT_USAGE;
	}
	for (p = 1; !ret && !ab_stop; p++) {
		if (ab.concurrent) {
			ret = p % 2 ? run_concurrent(RUN_PAIR, p, 0, 1) :
				      run_concurrent(RUN_PAIR, p, 1, 0);
		} else {
			n = pair_order(p, order);
			for (i = 0; i < n && !ret && !ab_stop; i++)
				ret = run_sequential(RUN_PAIR, p, order[i]);
		}
		if (ret || ab_stop)
			break;
		ab.pairs_run = p;
		if (last_pair(p))
			break;
	}
	return ret;
}

/*
 * Make our cgroup, with memory in its children's controllers, and a probe
 * child with the limits, so that a cgroup that cannot be made or a limit
 * the kernel refuses stops us before the first run. 0 or 1.
 */
int ab_cgroup_setup(void)
{
	char probe[PATH_MAX];
	const char *parent = ab.parent ? ab.parent : "";
	int err, n;

	pathf(ab.cg_root, sizeof(ab.cg_root), "%s", env_or("ZSWB_CGROUP", "/sys/fs/cgroup"));
	while (*parent == '/')
		parent++;
	n = snprintf(ab.cg_rel, sizeof(ab.cg_rel), "%s%s/zswbctl-ab.%d", *parent ? "/" : "",
		     parent, (int)getpid());
	if (n >= (int)sizeof(ab.cg_rel) ||
	    snprintf(ab.cg_dir, sizeof(ab.cg_dir), "%s%s", ab.cg_root, ab.cg_rel) >=
	    (int)sizeof(ab.cg_dir)) {
		msg("--parent '%s' is too long", ab.parent);
		return EXIT_USAGE;
	}
	pathf(probe, sizeof(probe), "%s%s%s/cgroup.subtree_control", ab.cg_root,
	      *parent ? "/" : "", parent);
	/* Already on is fine; a parent that cannot have it fails in the probe. */
	write_str(probe, "+memory");
	if (mkdir(ab.cg_dir, 0755)) {
		msg("cannot make cgroup %s: %s", ab.cg_dir, strerror(errno));
		return 1;
	}
	ab.cg_made = true;
	err = write_in(ab.cg_dir, "cgroup.subtree_control", "+memory");
	if (err) {
		msg("cannot enable the memory controller in %s: %s", ab.cg_dir, strerror(-err));
		return 1;
	}
	if (cgroup_make("probe", probe, sizeof(probe)))
		return 1;
	cgroup_remove(probe);
	return 0;
}

/*
 * The two scopes of --concurrent, made and given their settings once to
 * check them; 0 or the exit code after saying why.
 */
int ab_scopes_setup(void)
{
	const char *cfs = env_or("ZSWB_CONFIGFS", "/sys/kernel/config/" MODNAME);
	char path[PATH_MAX];
	struct stat st;
	int k, ret;

	if (stat(cfs, &st) || !S_ISDIR(st.st_mode)) {
		msg("no %s: --concurrent needs policy scopes: %s", cfs,
		    "a " MODNAME " with them, and configfs mounted on /sys/kernel/config");
		return 1;
	}
	for (k = 0; k < 2; k++) {
		snprintf(ab.scope[k], sizeof(ab.scope[k]), "zswbctl-ab-%d-%c", (int)getpid(),
			 'a' + k);
		scope_path(k, path, sizeof(path));
		if (mkdir(path, 0755)) {
			msg("cannot make scope %s: %s", path, strerror(errno));
			return 1;
		}
		ab.scope_made[k] = true;
		ret = scope_set(k, k);
		if (ret)
			return ret;
	}
	return 0;
}

/* Parse the options of ab; 0 or EXIT_USAGE. */

/* The directory of the runs' metrics files, private to us, if it can be made. */
void ab_metrics_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	pathf(ab.metrics_dir, sizeof(ab.metrics_dir), "%s/zswbctl-ab.XXXXXX",
	      tmp && *tmp ? tmp : "/tmp");
	if (!*ab.metrics_dir || !mkdtemp(ab.metrics_dir)) {
		msg("ab: no directory for the command's metrics in %s (%s), no ZSWBCTL_AB_METRICS",
		    tmp && *tmp ? tmp : "/tmp", strerror(errno));
		*ab.metrics_dir = 0;
	}
}

/*
 * Whether @name is a metric the runs will measure: one of the kernel's
 * files that ab reads, a counter of the module's schema, or cmd.NAME (the
 * command's own: known only once it has run). 0, or EXIT_USAGE after
 * saying why.
 */
int ab_check_metric_name(const char *name)
{
	const struct stat_info *st;
	char buf[128];
	size_t i, k;

	if (!strcmp(name, "wall_s"))
		return 0;
	if (!strncmp(name, "cmd.", 4) && cmd_metric_name(name + 4))
		return 0;
	if (!strncmp(name, MODNAME ".", strlen(MODNAME) + 1)) {
		st = stat_find(name + strlen(MODNAME) + 1);
		if (st && st->kind == STAT_COUNTER)
			return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cpu_keys); i++)
		if (!strncmp(name, "cpu.", 4) && !strcmp(name + 4, cpu_keys[i]))
			return 0;
	for (i = 0; i < ARRAY_SIZE(event_keys); i++)
		if (!strncmp(name, "memory.events.", 14) && !strcmp(name + 14, event_keys[i]))
			return 0;
	for (i = 0; i < ARRAY_SIZE(memstat_keys); i++)
		if (!strncmp(name, "memory.stat.", 12) && !strcmp(name + 12, memstat_keys[i]))
			return 0;
	for (i = 0; i < ARRAY_SIZE(vmstat_keys) && !ab.concurrent; i++)
		if (!strncmp(name, "vmstat.", 7) && !strcmp(name + 7, vmstat_keys[i]))
			return 0;
	for (i = 0; i < ARRAY_SIZE(psi_files); i++)
		for (k = 0; k < 2; k++) {
			snprintf(buf, sizeof(buf), "psi.%s_%s_us", psi_files[i],
				 k ? "full" : "some");
			if (!strcmp(name, buf))
				return 0;
		}
	msg("ab: --metric '%s': not a metric ab measures (zswbctl(8), \"ab\"): %s", name,
	    ab.concurrent ? "wall_s cpu.* psi.* memory.events.* memory.stat.* zswap_wb.* cmd.*" :
	    "wall_s cpu.* psi.* memory.events.* memory.stat.* vmstat.* zswap_wb.* cmd.*");
	return EXIT_USAGE;
}
