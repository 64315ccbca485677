// SPDX-License-Identifier: GPL-2.0
/*
 * ab_calibrate: are the verdicts of "zswbctl ab" calibrated? Thousands of
 * synthetic comparisons, each a CSV of runs as "zswbctl ab --csv" writes
 * them (an A/A pair, then N alternated pairs), are fed one by one through
 * "zswbctl ab --from-csv FILE --json", and the JSON verdicts are counted:
 *  - when nothing differs, how often the primary metric (wall_s of B)
 *    "differs" (the false-positive rate: at most 6% at alpha 0.05), under
 *    lognormal noise, heavy-tailed noise, a slow drift and an outlier run;
 *  - when nothing differs among 10 metrics and 5 sides, how often any of
 *    the 49 secondary comparisons "differs" (Benjamini-Hochberg controls
 *    that family-wise when every hypothesis is null);
 *  - with a true effect of 1.5 standard deviations of one run, how often
 *    the primary "differs" (the power: at least 80% with 10 pairs);
 *  - how often the 95% interval covers the true effect (at least 93%);
 *  - that fewer than 6 pairs give no verdict, and 6 pairs do.
 *
 * Every value comes from a PRNG of our own (xoshiro256**, seeded by
 * splitmix64 from a fixed seed, the comparison's scenario and its number),
 * so the rates are the same on every machine, and do not depend on how
 * many comparisons run at once (one more than the CPUs, at most 8).
 *
 * The outlier is one of the pair runs (not an A/A one), all its metrics
 * times 1.5. The null coverage is that of the first test's comparisons.
 * The run time is that of starting zswbctl some 14000 times, most of it
 * the kernel's fork and exec.
 *
 * Usage: ab_calibrate ZSWBCTL_BINARY [TMPDIR]
 * Build: gcc -O2 -Wall -Wextra -Werror -o ab_calibrate selftests/zswbctl/ab_calibrate.c -lm
 * Prints KTAP; exits 0 when every test passed, 1 otherwise, 2 on bad usage.
 * The CSV files are written in a new directory under TMPDIR ($TMPDIR or
 * /tmp by default), removed at the end unless a comparison failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SEED		0x7a73776263746c31ULL	/* "zswbctl1" */
#define MAX_JOBS	8
#define MAX_SIDES	8
#define MAX_METRICS	10
#define MAX_PAIRS	64
#define MAX_ERRORS	20	/* a scenario gives up after this many */
#define ALPHA		0.05
#define PRIMARY		"wall_s"

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* ------------------------------------------------------------ the PRNG -- */

struct rng {
	uint64_t s[4];
	bool have_spare;	/* Box-Muller makes two normals at a time */
	double spare;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The generator of comparison @idx of scenario @id: each its own stream. */
static void rng_seed(struct rng *r, uint64_t id, uint64_t idx)
{
	uint64_t x = SEED ^ (id << 40) ^ idx;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	r->have_spare = false;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna) */
static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in (0, 1): never 0, so its log is finite. */
static double rng_uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* A standard normal (Box-Muller). */
static double rng_normal(struct rng *r)
{
	double u, v, rad;

	if (r->have_spare) {
		r->have_spare = false;
		return r->spare;
	}
	u = rng_uniform(r);
	v = rng_uniform(r);
	rad = sqrt(-2.0 * log(u));
	r->spare = rad * sin(2.0 * M_PI * v);
	r->have_spare = true;
	return rad * cos(2.0 * M_PI * v);
}

/* Student's t with 3 degrees of freedom: a normal over sqrt(chi2_3 / 3); its sd is sqrt(3). */
static double rng_t3(struct rng *r)
{
	double z = rng_normal(r), c = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double n = rng_normal(r);

		c += n * n;
	}
	return z / sqrt(c / 3.0);
}

/* ------------------------------------------------------- the scenarios -- */

enum noise { LOGNORMAL, T3 };

struct scenario {
	int id;			/* seeds the PRNG: fixed, whatever the order */
	const char *name;
	int count;		/* comparisons */
	int pairs;
	int sides;		/* A and B, or A to F */
	int metrics;		/* wall_s, then m1, m2, ... */
	enum noise noise;
	double sigma;		/* sd of one run's noise on the log scale */
	double effect;		/* on the log scale, of B's wall_s */
	double drift;		/* on the log scale, per run */
	double outlier;		/* one pair run multiplied by this; 0: none */
};

/* What one comparison's JSON said. */
struct result {
	bool err;		/* the comparison could not be run or read */
	/* the primary: wall_s of B */
	bool differs, too_few;
	double estimate, ci_low, ci_high, p_value;	/* NAN when null */
	/* the secondaries */
	int sec_read, sec_differs, sec_p_low;	/* p_value <= ALPHA, unadjusted */
};

struct tally {
	int n, errors;
	char first_error[512];
	char kept_csv[4096];
	double seconds;
	struct result *res;	/* [count] */
};

static const char *tmpdir;
static const char *binary;
static int jobs;

/* ------------------------------------------------------------- the CSV -- */

struct csv_run {
	char kind;		/* 'a': aa, 'p': pair */
	int pair;
	int side;		/* 0: A */
};

/*
 * One round of every side: each side other than A next to an A run, as
 * the contract's pairing rule wants ("A B C A D E A F"); mirrored in even
 * rounds ("F A E D A C B A"). Two sides: "A B", then "B A". Returns how
 * many runs it wrote to @order.
 */
static int round_order(int sides, int pair, int *order)
{
	int n = 0, k, i, tmp;

	order[n++] = 0;
	order[n++] = 1;
	for (k = 2; k < sides; k += 2) {
		order[n++] = k;
		order[n++] = 0;
		if (k + 1 < sides)
			order[n++] = k + 1;
	}
	if (pair % 2 == 0)
		for (i = 0; i < n / 2; i++) {
			tmp = order[i];
			order[i] = order[n - 1 - i];
			order[n - 1 - i] = tmp;
		}
	return n;
}

static void csv_settings(FILE *f, int side)
{
	if (side == 0)
		fputs("\"async_free=N\"", f);
	else if (side == 1)
		fputs("\"async_free=Y\"", f);
	else
		fprintf(f, "\"async_free=Y shrink_batch=%d\"", 8 << side);
}

/* Write comparison @idx of @sc to @path; false (errno set) if it cannot. */
static bool csv_write(const struct scenario *sc, int idx, const char *path)
{
	struct csv_run runs[2 + MAX_PAIRS * 2 * MAX_SIDES];
	double base[MAX_METRICS], v;
	int order[2 * MAX_SIDES], nr = 0, p, i, n, m, outlier = -1;
	struct rng r;
	FILE *f;

	rng_seed(&r, sc->id, idx);
	runs[nr++] = (struct csv_run){ 'a', 0, 0 };
	runs[nr++] = (struct csv_run){ 'a', 0, 0 };
	for (p = 1; p <= sc->pairs; p++) {
		n = round_order(sc->sides, p, order);
		for (i = 0; i < n; i++)
			runs[nr++] = (struct csv_run){ 'p', p, order[i] };
	}
	if (sc->outlier)	/* one of the pair runs, not an A/A one */
		outlier = 2 + (int)(rng_next(&r) % (uint64_t)(nr - 2));
	for (m = 0; m < sc->metrics; m++)
		base[m] = m ? 1000.0 * m + 0.5 : 12.5;

	f = fopen(path, "w");
	if (!f)
		return false;
	fputs("run,kind,pair,side,settings,exit," PRIMARY, f);
	for (m = 1; m < sc->metrics; m++)
		fprintf(f, ",m%d", m);
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		fprintf(f, "%d,%s,%d,%c,", i, runs[i].kind == 'a' ? "aa" : "pair", runs[i].pair,
			'A' + runs[i].side);
		csv_settings(f, runs[i].side);
		fputs(",0", f);
		for (m = 0; m < sc->metrics; m++) {
			double noise = sc->noise == T3 ? sc->sigma * rng_t3(&r) / sqrt(3.0) :
					 sc->sigma * rng_normal(&r);

			v = base[m] * exp(noise) * exp(sc->drift * i);
			if (runs[i].side == 1 && m == 0)
				v *= exp(sc->effect);
			if (i == outlier)
				v *= sc->outlier;
			fprintf(f, ",%.17g", v);
		}
		fputc('\n', f);
	}
	return !fclose(f);
}

/* ----------------------------------------------------------- the JSON -- */

/*
 * A small scanner of the JSON zswbctl prints: walks from the top object
 * to "report", the metric, the side, skipping every other value whole
 * (strings with their escapes, nested objects and arrays), so neither
 * whitespace, nor the order of the fields, nor a name inside a string
 * can mislead it.
 */
static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* @p at a '"': just after the closing one, or NULL. */
static const char *js_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
	return *p ? p + 1 : NULL;
}

static const char *js_value(const char *p, int depth);

/* @p at '{' or '[': just after the matching '}' or ']', or NULL. */
static const char *js_container(const char *p, int depth)
{
	char close = *p == '{' ? '}' : ']';
	bool obj = *p == '{';

	p = js_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (obj) {
			if (*p != '"')
				return NULL;
			p = js_string(p);
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p != ':')
				return NULL;
			p = js_ws(p + 1);
		}
		p = js_value(p, depth + 1);
		if (!p)
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = js_ws(p + 1);
	}
}

/* @p at a value: just after it, or NULL. */
static const char *js_value(const char *p, int depth)
{
	const char *start = p;

	if (depth > 64)
		return NULL;
	if (*p == '{' || *p == '[')
		return js_container(p, depth);
	if (*p == '"')
		return js_string(p);
	while (*p && strchr("+-.0123456789eEaflnrstu", *p))	/* numbers, true, false, null */
		p++;
	return p > start ? p : NULL;
}

/* The value of member @key of the object at @obj, or NULL. */
static const char *js_member(const char *obj, const char *key)
{
	size_t len = strlen(key);
	const char *p, *k;
	bool match;

	if (!obj || *obj != '{')
		return NULL;
	p = js_ws(obj + 1);
	while (*p == '"') {
		k = p + 1;
		p = js_string(p);
		if (!p)
			return NULL;
		match = (size_t)(p - 1 - k) == len && !memcmp(k, key, len);
		p = js_ws(p);
		if (*p != ':')
			return NULL;
		p = js_ws(p + 1);
		if (match)
			return p;
		p = js_value(p, 1);
		if (!p)
			return NULL;
		p = js_ws(p);
		if (*p != ',')
			return NULL;
		p = js_ws(p + 1);
	}
	return NULL;
}

static bool js_end(const char *p)
{
	return !*p || strchr(" \t\r\n,}]", *p);
}

/* true or false at @p into @b; false if neither. */
static bool js_bool(const char *p, bool *b)
{
	if (p && !strncmp(p, "true", 4) && js_end(p + 4))
		*b = true;
	else if (p && !strncmp(p, "false", 5) && js_end(p + 5))
		*b = false;
	else
		return false;
	return true;
}

/* A number or null (NAN) at @p into @d; false if neither. */
static bool js_number(const char *p, double *d)
{
	char *end;

	if (!p)
		return false;
	if (!strncmp(p, "null", 4) && js_end(p + 4)) {
		*d = NAN;
		return true;
	}
	errno = 0;
	*d = strtod(p, &end);
	return end > p && !errno && js_end(end) && isfinite(*d);
}

/* --------------------------------------------------- the comparisons -- */

static __printf(2, 3) void set_error(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	t->errors++;
	if (t->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(t->first_error, sizeof(t->first_error), fmt, ap);
	va_end(ap);
}

static char *read_file(const char *path)
{
	size_t len = 0, cap = 65536, n;
	char *buf = malloc(cap), *tmp;
	FILE *f = fopen(path, "r");

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			tmp = realloc(buf, cap * 2);
			if (!tmp) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = tmp;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The first line of @path, for a message. */
static void first_line(const char *path, char *out, size_t size)
{
	char *buf = read_file(path);

	snprintf(out, size, "%s", buf && *buf ? buf : "(nothing)");
	out[strcspn(out, "\n")] = '\0';
	free(buf);
}

/* Read side @side of metric @metric in @report: 0, or a message in @why. */
static int read_side(const char *report, const char *metric, const char *side, bool primary,
		     struct result *res, char *why, size_t size)
{
	const char *obj = js_member(js_member(report, metric), side);
	bool differs, too_few;
	double p_value, lo, hi, est;

	if (!obj) {
		snprintf(why, size, "no \"report\".\"%s\".\"%s\" object", metric, side);
		return -1;
	}
	if (!js_bool(js_member(obj, "differs"), &differs)) {
		snprintf(why, size, "\"%s\".\"%s\": no \"differs\": true or false", metric, side);
		return -1;
	}
	if (!js_number(js_member(obj, "p_value"), &p_value)) {
		snprintf(why, size, "\"%s\".\"%s\": no \"p_value\"", metric, side);
		return -1;
	}
	if (!primary) {
		res->sec_read++;
		res->sec_differs += differs;
		res->sec_p_low += p_value <= ALPHA;
		return 0;
	}
	if (!js_number(js_member(obj, "ci_low"), &lo) ||
	    !js_number(js_member(obj, "ci_high"), &hi) ||
	    !js_number(js_member(obj, "estimate"), &est)) {
		snprintf(why, size, "\"%s\".\"%s\": no \"estimate\", \"ci_low\", \"ci_high\"",
			 metric, side);
		return -1;
	}
	if (!js_bool(js_member(obj, "too_few"), &too_few)) {
		snprintf(why, size, "\"%s\".\"%s\": no \"too_few\": true or false", metric, side);
		return -1;
	}
	res->differs = differs;
	res->too_few = too_few;
	res->p_value = p_value;
	res->estimate = est;
	res->ci_low = lo;
	res->ci_high = hi;
	return 0;
}

/* Read what comparison @idx's JSON in @path said into t->res[idx]. */
static void read_result(const struct scenario *sc, struct tally *t, int idx, const char *path)
{
	struct result *res = &t->res[idx];
	char *buf = read_file(path), why[256] = "", side[2] = "", metric[16];
	const char *root, *report;
	int m, k;

	root = buf ? js_ws(buf) : NULL;
	report = root && *root == '{' && js_value(root, 0) ? js_member(root, "report") : NULL;
	if (!report) {
		snprintf(why, sizeof(why), "%s", !buf ? "no output" : !root || *root != '{' ||
			 !js_value(root, 0) ? "not a JSON object" : "no \"report\"");
		goto fail;
	}
	for (k = 1; k < sc->sides; k++) {
		side[0] = 'a' + k;
		for (m = 0; m < sc->metrics; m++) {
			snprintf(metric, sizeof(metric), m ? "m%d" : PRIMARY, m);
			if (read_side(report, metric, side, k == 1 && !m, res, why, sizeof(why)))
				goto fail;
		}
	}
	free(buf);
	return;
fail:
	res->err = true;
	set_error(t, "comparison %d: %s", idx, why);
	free(buf);
}

struct job {
	pid_t pid;
	int idx;
	char csv[4096], out[4096], err[4096];
};

/* Start comparison @idx in @j: 0, or -1 after counting the error. */
static int job_start(const struct scenario *sc, struct tally *t, struct job *j, int slot,
		     int idx)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)binary, "ab", "--from-csv", j->csv, "--json", NULL };
	int err;

	j->idx = idx;
	snprintf(j->csv, sizeof(j->csv), "%s/cmp%d.csv", tmpdir, slot);
	snprintf(j->out, sizeof(j->out), "%s/cmp%d.json", tmpdir, slot);
	snprintf(j->err, sizeof(j->err), "%s/cmp%d.err", tmpdir, slot);
	if (!csv_write(sc, idx, j->csv)) {
		t->res[idx].err = true;
		set_error(t, "comparison %d: cannot write %s: %s", idx, j->csv, strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, j->out,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, j->err,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	err = posix_spawn(&j->pid, binary, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		t->res[idx].err = true;
		set_error(t, "comparison %d: cannot run %s: %s", idx, binary, strerror(err));
		return -1;
	}
	return 0;
}

/* Comparison in @j has ended with @status: read it. */
static void job_done(const struct scenario *sc, struct tally *t, struct job *j, int status)
{
	char line[300];

	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		first_line(j->err, line, sizeof(line));
		t->res[j->idx].err = true;
		set_error(t, "comparison %d: %s %s %d, stderr: %s", j->idx, binary,
			  WIFEXITED(status) ? "exited" : "killed by signal",
			  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), line);
	} else {
		read_result(sc, t, j->idx, j->out);
	}
	if (t->res[j->idx].err && !t->kept_csv[0]) {
		/* keep the first failed comparison's files for a look */
		snprintf(t->kept_csv, sizeof(t->kept_csv), "%s/failed-%d-%d.csv", tmpdir, sc->id,
			 j->idx);
		rename(j->csv, t->kept_csv);
		snprintf(line, sizeof(line), "%s/failed-%d-%d.json", tmpdir, sc->id, j->idx);
		rename(j->out, line);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run every comparison of @sc, up to @jobs at once, into @t. */
static void run_scenario(const struct scenario *sc, struct tally *t)
{
	struct job job[MAX_JOBS];
	bool busy[MAX_JOBS] = { false };
	int next = 0, running = 0, status, s;
	double start = now();
	pid_t pid;

	memset(t, 0, sizeof(*t));
	t->n = sc->count;
	t->res = calloc(sc->count, sizeof(*t->res));
	if (!t->res) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (;;) {
		for (s = 0; s < jobs && next < sc->count && t->errors < MAX_ERRORS; s++) {
			if (busy[s])
				continue;
			if (!job_start(sc, t, &job[s], s, next++)) {
				busy[s] = true;
				running++;
			}
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "waitpid: %s\n", strerror(errno));
			exit(1);
		}
		for (s = 0; s < jobs && !(busy[s] && job[s].pid == pid); s++)
			;
		if (s == jobs)
			continue;
		busy[s] = false;
		running--;
		job_done(sc, t, &job[s], status);
	}
	/* the comparisons never started count as errors too */
	for (; next < sc->count; next++) {
		t->res[next].err = true;
		t->errors++;
	}
	t->seconds = now() - start;
}

/* -------------------------------------------------------------- KTAP -- */

static int test_nr, passed, failed;

static __printf(2, 3) void ktap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

/* Say what went wrong in @t, if anything; true when nothing did. */
static bool report_errors(const struct scenario *sc, const struct tally *t)
{
	printf("# %s: %d comparisons of %d pairs in %.1f s\n", sc->name, sc->count, sc->pairs,
	       t->seconds);
	if (!t->errors)
		return true;
	printf("# %s: %d comparisons failed, the first: %s\n", sc->name, t->errors,
	       t->first_error);
	if (t->errors >= MAX_ERRORS)
		printf("# %s: gave up after %d errors\n", sc->name, MAX_ERRORS);
	if (t->kept_csv[0])
		printf("# %s: its CSV is kept: %s\n", sc->name, t->kept_csv);
	return false;
}

/* User and system time of @ru. */
static double cpu_seconds(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + ru->ru_stime.tv_sec +
	       ru->ru_stime.tv_usec / 1e6;
}

static double pct(int k, int n)
{
	return n ? 100.0 * k / n : 0;
}

/* A rate test: k of n "at most" (or "at least") limit_pct percent. */
static void rate_test(const struct tally *t, bool ok_errors, int k, bool at_most, int limit_pct,
		      const char *what)
{
	int n = t->n;
	bool ok = ok_errors && (at_most ? 100 * k <= limit_pct * n : 100 * k >= limit_pct * n);

	ktap(ok, "%s %.1f%% (%d of %d) %s %d%%", what, pct(k, n), k, n, at_most ? "<=" : ">=",
	     limit_pct);
}

static int count_primary_differs(const struct tally *t)
{
	int i, k = 0;

	for (i = 0; i < t->n; i++)
		k += !t->res[i].err && t->res[i].differs;
	return k;
}

static int count_covering(const struct tally *t, double truth)
{
	const struct result *r;
	int i, k = 0;

	for (i = 0; i < t->n; i++) {
		r = &t->res[i];
		k += !r->err && !isnan(r->ci_low) && !isnan(r->ci_high) && r->ci_low <= truth &&
		     truth <= r->ci_high;
	}
	return k;
}

/* The median of the primary's estimates, for a diagnostic line. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_estimate(const struct tally *t)
{
	double *v = malloc(t->n * sizeof(*v)), med = NAN;
	int i, n = 0;

	if (!v)
		return NAN;
	for (i = 0; i < t->n; i++)
		if (!t->res[i].err && !isnan(t->res[i].estimate))
			v[n++] = t->res[i].estimate;
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return med;
}

/* ---------------------------------------------------------- the tests -- */

#define EFFECT		0.03	/* 1.5 sd of one run at sigma 0.02 */

/*
 * The exact test's size at 10 pairs is 2 * 25/1024 = 4.88%: in 1000
 * comparisons, a perfectly calibrated engine would still count more than
 * 6% one time in 20 (1.6 sd); in 3000, once in 450 (2.9 sd). The null
 * tests run 3000 then; the family one, 5 times dearer, 1000.
 */
#define NULL_COUNT	3000

static struct scenario sc_lognormal = {
	.id = 1, .name = "null, lognormal cv 3%", .count = NULL_COUNT, .pairs = 10, .sides = 2,
	.metrics = 1, .noise = LOGNORMAL, .sigma = 0.03,
};

static struct scenario sc_t3 = {
	.id = 2, .name = "null, t3 sd 3%", .count = NULL_COUNT, .pairs = 10, .sides = 2,
	.metrics = 1, .noise = T3, .sigma = 0.03,
};

static struct scenario sc_drift = {
	.id = 3, .name = "null, drift 0.2%/run, lognormal 2%", .count = NULL_COUNT, .pairs = 10,
	.sides = 2, .metrics = 1, .noise = LOGNORMAL, .sigma = 0.02, .drift = 0.002,
};

static struct scenario sc_outlier = {
	.id = 4, .name = "null, one run x1.5, lognormal 3%", .count = NULL_COUNT, .pairs = 10,
	.sides = 2, .metrics = 1, .noise = LOGNORMAL, .sigma = 0.03, .outlier = 1.5,
};

static struct scenario sc_family = {
	.id = 5, .name = "null family, 10 metrics x 5 sides", .count = 1000, .pairs = 12,
	.sides = 6, .metrics = 10, .noise = LOGNORMAL, .sigma = 0.03,
};

static struct scenario sc_power = {
	.id = 6, .name = "effect 1.5 sd (3.05%), lognormal 2%", .count = 1000, .pairs = 10,
	.sides = 2, .metrics = 1, .noise = LOGNORMAL, .sigma = 0.02, .effect = EFFECT,
};

static struct scenario sc_few4 = {
	.id = 7, .name = "4 pairs, B 50% higher", .count = 100, .pairs = 4, .sides = 2,
	.metrics = 1, .noise = LOGNORMAL, .sigma = 0.02, .effect = 0.4054651081081644,
};

static struct scenario sc_few6 = {
	.id = 8, .name = "6 pairs, B 50% higher", .count = 100, .pairs = 6, .sides = 2,
	.metrics = 1, .noise = LOGNORMAL, .sigma = 0.02, .effect = 0.4054651081081644,
};

#define NR_TESTS	11

static void null_test(const struct scenario *sc, const struct tally *t)
{
	bool ok = report_errors(sc, t);
	char what[200];

	snprintf(what, sizeof(what), "%s, %d pairs: false-positive rate of the primary", sc->name,
		 sc->pairs);
	rate_test(t, ok, count_primary_differs(t), true, 6, what);
}

static void family_tests(const struct scenario *sc, const struct tally *t)
{
	bool ok = report_errors(sc, t);
	int i, any = 0, sec = 0, low = 0, nsec = sc->metrics * (sc->sides - 1) - 1;
	char what[200];

	for (i = 0; i < t->n; i++) {
		const struct result *r = &t->res[i];

		if (r->err)
			continue;
		if (r->sec_read != nsec && ok) {
			printf("# %s: comparison %d: %d secondaries read, not %d\n", sc->name, i,
			       r->sec_read, nsec);
			ok = false;
		}
		any += r->sec_differs > 0;
		sec += r->sec_differs;
		low += r->sec_p_low;
	}
	printf("# %s: of the %d secondary tests, %.2f%% had p_value <= %g\n", sc->name,
	       nsec * t->n, 100.0 * low / (nsec * t->n), ALPHA);
	printf("# %s: and %.3f%% differ, after Benjamini-Hochberg\n", sc->name,
	       100.0 * sec / (nsec * t->n));
	snprintf(what, sizeof(what), "%s, %d pairs: comparisons where a secondary of %d differs",
		 sc->name, sc->pairs, nsec);
	rate_test(t, ok, any, true, 6, what);
	snprintf(what, sizeof(what), "%s, %d pairs: false-positive rate of the primary", sc->name,
		 sc->pairs);
	rate_test(t, ok, count_primary_differs(t), true, 6, what);
}

static void too_few_test(const struct scenario *sc, const struct tally *t, bool want_differs)
{
	bool ok = report_errors(sc, t);
	int i, good = 0;

	for (i = 0; i < t->n; i++) {
		const struct result *r = &t->res[i];

		good += !r->err && r->differs == want_differs && r->too_few == !want_differs;
	}
	ktap(ok && good == t->n, "%s: \"differs\": %s and \"too_few\": %s in %d of %d",
	     sc->name, want_differs ? "true" : "false", want_differs ? "false" : "true", good,
	     t->n);
}

static char dir_buf[4096];

static bool make_tmpdir(const char *parent)
{
	snprintf(dir_buf, sizeof(dir_buf), "%s/ab_calibrate.XXXXXX", parent);
	if (!mkdtemp(dir_buf)) {
		fprintf(stderr, "ab_calibrate: cannot make a directory in %s: %s\n", parent,
			strerror(errno));
		return false;
	}
	tmpdir = dir_buf;
	return true;
}

/* Remove our directory and the files we put in it. */
static void remove_tmpdir(void)
{
	char path[4200];
	int s;

	for (s = 0; s < MAX_JOBS; s++) {
		snprintf(path, sizeof(path), "%s/cmp%d.csv", tmpdir, s);
		unlink(path);
		snprintf(path, sizeof(path), "%s/cmp%d.json", tmpdir, s);
		unlink(path);
		snprintf(path, sizeof(path), "%s/cmp%d.err", tmpdir, s);
		unlink(path);
	}
	if (rmdir(tmpdir))
		printf("# the files of the failed comparisons are kept in %s\n", tmpdir);
}

int main(int argc, char **argv)
{
	struct tally lognormal, t3, drift, outlier, family, power, few4, few6;
	const char *parent = getenv("TMPDIR");
	double start = now(), truth = 100.0 * expm1(EFFECT);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rusage self, children;
	char what[200];
	bool ok;

	if (argc < 2 || argc > 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s ZSWBCTL_BINARY [TMPDIR]\n", argv[0]);
		return 2;
	}
	binary = argv[1];
	if (argc == 3)
		parent = argv[2];
	if (!parent || !*parent)
		parent = "/tmp";
	/* one more than the CPUs: one comparison is written or read while others run */
	jobs = cpus < 1 ? 2 : cpus >= MAX_JOBS ? MAX_JOBS : (int)cpus + 1;

	printf("TAP version 13\n1..%d\n", NR_TESTS);
	printf("# %s ab --from-csv FILE --json, %d at once, seed %#llx\n", binary, jobs,
	       (unsigned long long)SEED);
	fflush(stdout);
	if (access(binary, X_OK) || !make_tmpdir(parent)) {
		if (access(binary, X_OK))
			printf("# cannot run %s: %s\n", binary, strerror(errno));
		while (test_nr < NR_TESTS)
			ktap(false, "not run");
		return 1;
	}

	run_scenario(&sc_lognormal, &lognormal);
	null_test(&sc_lognormal, &lognormal);
	run_scenario(&sc_t3, &t3);
	null_test(&sc_t3, &t3);
	run_scenario(&sc_drift, &drift);
	null_test(&sc_drift, &drift);
	run_scenario(&sc_outlier, &outlier);
	null_test(&sc_outlier, &outlier);
	run_scenario(&sc_family, &family);
	family_tests(&sc_family, &family);

	run_scenario(&sc_power, &power);
	ok = report_errors(&sc_power, &power);
	printf("# %s: median estimate %.3f%% (true %.3f%%)\n", sc_power.name,
	       median_estimate(&power), truth);
	snprintf(what, sizeof(what), "%s, %d pairs: power of the primary", sc_power.name,
		 sc_power.pairs);
	rate_test(&power, ok, count_primary_differs(&power), false, 80, what);
	snprintf(what, sizeof(what), "%s, %d pairs: 95%% interval covers the true %.3f%% in",
		 sc_power.name, sc_power.pairs, truth);
	rate_test(&power, ok, count_covering(&power, truth), false, 93, what);
	/* the null comparisons of the first test, again: their truth is 0 */
	printf("# %s: median estimate %.3f%% (true 0)\n", sc_lognormal.name,
	       median_estimate(&lognormal));
	snprintf(what, sizeof(what), "%s, %d pairs: 95%% interval covers the true 0%% in",
		 sc_lognormal.name, sc_lognormal.pairs);
	rate_test(&lognormal, lognormal.errors == 0, count_covering(&lognormal, 0), false, 93,
		  what);

	run_scenario(&sc_few4, &few4);
	too_few_test(&sc_few4, &few4, false);
	run_scenario(&sc_few6, &few6);
	too_few_test(&sc_few6, &few6, true);

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	printf("# %d comparisons in %.1f s (CPU: %.1f s here, %.1f s in zswbctl)\n",
	       lognormal.n + t3.n + drift.n + outlier.n + family.n + power.n + few4.n + few6.n,
	       now() - start, cpu_seconds(&self), cpu_seconds(&children));
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", passed, failed);
	remove_tmpdir();
	return failed ? 1 : 0;
}
