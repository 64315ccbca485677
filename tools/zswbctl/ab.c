// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: "ab", an A/B comparison of two sets of settings on one host, as
 * the mm community runs one: an A/A pair first to size the noise, then
 * alternated pairs (A B, B A, ...), each run of the command in a fresh
 * cgroup, and per metric the medians, the spread, the paired ratios and a
 * verdict. Sequential mode sets the module parameters before each run and
 * puts them back at the end; --concurrent runs A and B at once in two
 * sibling cgroups, each bound to a policy scope of its own (configfs),
 * the sides swapped from one pair to the next.
 *
 * The report arithmetic (ab_report()) reads only the runs, so --from-csv
 * can report again on the runs a --csv file saved, with no module.
 *
 * The command's own figures (its throughput, its latency) are metrics
 * like the others: each run finds in $ZSWBCTL_AB_METRICS the path of a
 * file of its own, where it may write "NAME VALUE" lines; they are
 * reported as cmd.NAME.
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
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

#define AB_MAX_METRICS	256
#define AB_MAX_SETTINGS	16
#define AB_MAX_SIDES	8	/* A, B, then C to H: each compared with A */
#define AB_MAX_CMD_METRICS	64	/* of AB_MAX_METRICS, the command's own */
#define AB_DEFAULT_PAIRS 5
#define AB_MAX_PAIRS	1000

enum run_kind { RUN_WARMUP, RUN_AA, RUN_PAIR };
static const char * const kind_names[] = {
	[RUN_WARMUP] = "warmup", [RUN_AA] = "aa", [RUN_PAIR] = "pair",
};

/* One run of the command: which side, and every metric (NAN: not measured). */
struct run {
	enum run_kind kind;
	int pair;		/* 0: the warm-up and the A/A pair; 1..N */
	char side;		/* 'A', 'B', ... */
	int exit;		/* the command's status, as a shell gives it */
	double val[AB_MAX_METRICS];
};

/* A side's settings: the NAME=VALUE words of --a, --b, ... */
struct side {
	char *spec;		/* as given, for the report */
	int n;
	char *name[AB_MAX_SETTINGS], *val[AB_MAX_SETTINGS];
};

static struct {
	/* the options */
	bool concurrent, drop_caches, warmup;
	int pairs;
	const char *memory_max, *zswap_max, *csv, *from_csv, *parent;
	char **cmd;
	struct side side[AB_MAX_SIDES];	/* A, B, ... */
	int nr_sides;		/* 2, or more with --c ... (sequential only) */
	/* the metrics, by name, in the order they were first seen */
	char *metric[AB_MAX_METRICS];
	int nr_metrics;
	struct run *runs;
	int nr_runs;
	/* what was made, to be undone: cgroups, scopes, saved parameters */
	char cg_root[PATH_MAX], cg_dir[PATH_MAX], cg_rel[PATH_MAX];
	bool cg_made;
	char scope[2][32];
	bool scope_made[2];
	char metrics_dir[PATH_MAX];	/* the runs' metrics files, or "" */
	int nr_saved;
	bool params_set;	/* a parameter was written: put them back */
	char *saved_name[AB_MAX_SIDES * AB_MAX_SETTINGS];
	char *saved_val[AB_MAX_SIDES * AB_MAX_SETTINGS];
	pid_t child[2];
} ab = { .pairs = AB_DEFAULT_PAIRS, .nr_sides = 2 };

/* The signal that asked us to stop (SIGINT, SIGTERM), or 0. */
static atomic_int ab_stop;

static void ab_signal(int sig)
{
	int i;

	ab_stop = sig;
	/* A terminal's ^C reaches the command too; a kill(1) of us does not. */
	for (i = 0; i < 2; i++)
		if (ab.child[i] > 0)
			kill(ab.child[i], sig);
}

/* The index of metric @name, added if new; -1 if the table is full. */
static int metric_idx(const char *name)
{
	int i;

	for (i = 0; i < ab.nr_metrics; i++)
		if (!strcmp(ab.metric[i], name))
			return i;
	if (ab.nr_metrics == AB_MAX_METRICS)
		return -1;
	ab.metric[ab.nr_metrics] = strdup(name);
	return ab.metric[ab.nr_metrics] ? ab.nr_metrics++ : -1;
}

/* Set metric @name of @r to @v. */
static void run_set(struct run *r, const char *name, double v)
{
	int i = metric_idx(name);

	if (i >= 0)
		r->val[i] = v;
}

/* A new run at the end of the list, every metric NAN; NULL if out of memory. */
static struct run *run_new(enum run_kind kind, int pair, char side)
{
	struct run *tmp, *r;
	int i;

	tmp = realloc(ab.runs, (ab.nr_runs + 1) * sizeof(*tmp));
	if (!tmp) {
		msg("out of memory");
		return NULL;
	}
	ab.runs = tmp;
	r = &ab.runs[ab.nr_runs++];
	r->kind = kind;
	r->pair = pair;
	r->side = side;
	r->exit = 0;
	for (i = 0; i < AB_MAX_METRICS; i++)
		r->val[i] = NAN;
	return r;
}

/* ---------------------------------------------------------- arithmetic -- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the @n values in @v (sorted in place); NAN if none. */
static double median(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* B/A: 1 when both are 0, infinite when only A is. */
static double ratio(double a, double b)
{
	if (a == 0 && b == 0)
		return 1;
	if (a == 0)
		return INFINITY;
	return b / a;
}

/* What the report says of one metric, for one side against A. */
struct summary {
	char side;			/* the side compared with A: 'B', ... */
	double med[2], min[2], max[2];	/* of the pairs' A and that side's runs */
	double ratio[AB_MAX_PAIRS];	/* per pair, B/A */
	int nr_pairs;			/* pairs with both values */
	double ratio_med, aa, noise;	/* noise: |A/A - 1|, or A's spread */
	int outside;			/* pairs outside the noise, the median's way */
	bool measured, zero;		/* any value; every value 0 */
};

/* The runs of side @side in pair @pair (its first, or its @nth if two). */
static const struct run *run_of(int pair, enum run_kind kind, char side, int nth)
{
	int i;

	for (i = 0; i < ab.nr_runs; i++) {
		const struct run *r = &ab.runs[i];

		if (r->kind == kind && r->pair == pair && r->side == side && !nth--)
			return r;
	}
	return NULL;
}

/*
 * Summarize metric @m over the runs, side @side (1: B, 2: C, ...) against
 * A. A pair whose B/A is further from 1 than the noise, in the direction
 * of the median ratio, is outside the noise. A pair with a missing value
 * is left out. The noise is A's alone: the same for every side.
 */
static void summarize(int m, int side, struct summary *s)
{
	double v[2][AB_MAX_PAIRS];
	const struct run *a, *b;
	int n[2] = { 0, 0 }, i, k, p;
	double r[AB_MAX_PAIRS];
	bool up, med_up;

	memset(s, 0, sizeof(*s));
	s->side = 'A' + side;
	s->zero = true;
	for (i = 0; i < ab.nr_runs; i++) {
		double x = ab.runs[i].val[m];

		if (isnan(x))
			continue;
		s->measured = true;
		if (x != 0)
			s->zero = false;
		if (ab.runs[i].kind != RUN_PAIR)
			continue;
		if (ab.runs[i].side != 'A' && ab.runs[i].side != s->side)
			continue;
		k = ab.runs[i].side == s->side;
		if (n[k] < AB_MAX_PAIRS)
			v[k][n[k]++] = x;
	}
	for (k = 0; k < 2; k++) {
		s->med[k] = median(v[k], n[k]);	/* sorts: min and max at the ends */
		s->min[k] = n[k] ? v[k][0] : NAN;
		s->max[k] = n[k] ? v[k][n[k] - 1] : NAN;
	}
	for (p = 1; p <= ab.pairs && s->nr_pairs < AB_MAX_PAIRS; p++) {
		a = run_of(p, RUN_PAIR, 'A', 0);
		b = run_of(p, RUN_PAIR, s->side, 0);
		if (!a || !b || isnan(a->val[m]) || isnan(b->val[m]))
			continue;
		s->ratio[s->nr_pairs++] = ratio(a->val[m], b->val[m]);
	}
	memcpy(r, s->ratio, s->nr_pairs * sizeof(*r));
	s->ratio_med = median(r, s->nr_pairs);
	a = run_of(0, RUN_AA, 'A', 0);
	b = run_of(0, RUN_AA, 'A', 1);
	s->aa = a && b && !isnan(a->val[m]) && !isnan(b->val[m]) ?
		ratio(a->val[m], b->val[m]) : NAN;
	/*
	 * The noise: how far apart two runs of the same settings are, the A/A
	 * pair's or, if wider, the A runs' of the pairs (the drift of the host
	 * over the comparison, which sequential runs also carry).
	 */
	s->noise = isnan(s->aa) ? NAN : fabs(s->aa - 1);
	if (!isnan(s->noise) && n[0] > 1 && fabs(ratio(s->min[0], s->max[0]) - 1) > s->noise)
		s->noise = fabs(ratio(s->min[0], s->max[0]) - 1);
	med_up = s->ratio_med > 1;
	for (i = 0; i < s->nr_pairs && !isnan(s->noise) && s->ratio_med != 1; i++) {
		if (isinf(s->noise) || fabs(s->ratio[i] - 1) <= s->noise)
			continue;
		up = s->ratio[i] > 1;
		if (up == med_up)
			s->outside++;
	}
}

/*
 * Whether the summary says B differs: outside the noise in every pair.
 * Most pairs is not enough: an A/A comparison of three pairs on a quiet
 * VM put a few counters 0.3% apart in two of them, past an A/A pair that
 * happened to be closer.
 */
static bool differs(const struct summary *s)
{
	return s->nr_pairs && s->outside == s->nr_pairs;
}

/* The verdict on @name in words, on @f. */
static void print_verdict(FILE *f, const char *name, const struct summary *s)
{
	double pct = (s->ratio_med - 1) * 100;

	fprintf(f, "%s: ", name);
	if (!s->nr_pairs) {
		fputs("no pair measured it\n", f);
		return;
	}
	if (isnan(s->noise)) {
		fputs("no A/A pair measured it: the noise is unknown\n", f);
		return;
	}
	if (differs(s)) {
		if (isinf(pct))
			fprintf(f, "%c is above 0 where A is 0", s->side);
		else
			fprintf(f, "%c is %.1f%% %s than A", s->side, fabs(pct),
				pct > 0 ? "higher" : "lower");
		fprintf(f, ", outside the noise (%.1f%%) in %d of %d pairs\n",
			s->noise * 100, s->outside, s->nr_pairs);
		return;
	}
	fprintf(f, "within the noise (%c/A %.3f, noise %.1f%%; %d of %d pairs outside it)\n",
		s->side, s->ratio_med, s->noise * 100, s->outside, s->nr_pairs);
}

/* The table of side @k against A: a row per metric; how many were left out. */
static int report_table(FILE *f, int k)
{
	int m, i, left_out = 0;
	struct summary s;
	char cell[128], head[3][32];

	snprintf(head[0], sizeof(head[0]), "%c median [min..max]", 'A' + k);
	snprintf(head[1], sizeof(head[1]), "%c/A", 'A' + k);
	snprintf(head[2], sizeof(head[2]), "%c/A per pair", 'A' + k);
	fprintf(f, "%-32s %-30s %-30s %-8s %-8s %s\n", "metric", "A median [min..max]",
		head[0], head[1], "A/A", head[2]);
	for (m = 0; m < ab.nr_metrics; m++) {
		summarize(m, k, &s);
		if (!s.measured || s.zero) {
			left_out++;
			continue;
		}
		fprintf(f, "%-32s ", ab.metric[m]);
		for (i = 0; i < 2; i++) {
			snprintf(cell, sizeof(cell), "%.6g [%.6g..%.6g]", s.med[i], s.min[i],
				 s.max[i]);
			fprintf(f, "%-30s ", cell);
		}
		snprintf(cell, sizeof(cell), "%.3f", s.ratio_med);
		fprintf(f, "%-8s ", cell);
		snprintf(cell, sizeof(cell), "%.3f", s.aa);
		fprintf(f, "%-8s", cell);
		for (i = 0; i < s.nr_pairs; i++)
			fprintf(f, " %.3f", s.ratio[i]);
		fputc('\n', f);
	}
	return left_out;
}

/*
 * The text report: the settings, a table of the metrics (one per side
 * after A, each against A), then the verdicts.
 */
static void report_text(FILE *f)
{
	int m, k, left_out, failed = 0, i, differ = 0;
	struct summary s;

	fprintf(f, "zswbctl ab: %s, an A/A pair then %d pairs\n",
		ab.concurrent ? "concurrent (A and B at once, sides swapped each pair)" :
		ab.nr_sides == 2 ? "sequential (A B, B A, ...)" :
				   "sequential (each side once a pair, the order rotated)",
		ab.pairs);
	for (k = 0; k < ab.nr_sides; k++)
		fprintf(f, "%c: %s\n", 'A' + k,
			*ab.side[k].spec ? ab.side[k].spec : "(as set)");
	for (k = 1; k < ab.nr_sides; k++) {
		fputc('\n', f);
		if (ab.nr_sides > 2)
			fprintf(f, "%c against A:\n", 'A' + k);
		left_out = report_table(f, k);
		if (left_out)
			fprintf(f, "(%d metrics 0 or not measured in every run left out)\n",
				left_out);
	}
	fprintf(f, "\nVerdict (noise: the A/A pair's distance from 1, or the A runs' spread if\n"
		"wider; outside it: %s further from 1 than that in every pair, one way):\n",
		ab.nr_sides == 2 ? "B/A" : "a side's ratio to A");
	for (k = 1; k < ab.nr_sides; k++) {
		for (m = 0; m < ab.nr_metrics; m++) {
			summarize(m, k, &s);
			if (!s.measured || s.zero || !differs(&s))
				continue;
			fputs("  ", f);
			print_verdict(f, ab.metric[m], &s);
			differ++;
		}
	}
	if (!differ)
		fputs("  every metric is within the noise\n", f);
	else
		fputs("  every other metric is within the noise\n", f);
	for (i = 0; i < ab.nr_runs; i++)
		failed += ab.runs[i].exit != 0;
	if (failed)
		fprintf(f, "\nthe command failed in %d of %d runs (%s)\n", failed, ab.nr_runs,
			"the exit status of each is in --json and --csv");
}

/* Write @v as a JSON number, or null when not measured or infinite. */
static void json_double(json_writer_t *w, double v)
{
	if (isnan(v) || isinf(v))
		jsonw_null(w);
	else
		jsonw_float_fmt(w, "%.15g", v);
}

/* Write side @k's settings as a JSON object. */
static void json_side(json_writer_t *w, int k)
{
	int i;

	jsonw_start_object(w);
	for (i = 0; i < ab.side[k].n; i++)
		jsonw_string_field(w, ab.side[k].name[i], ab.side[k].val[i]);
	jsonw_end_object(w);
}

/*
 * Open an object with the median, smallest and largest of @s's side @k (0:
 * A); the caller may add to it, and closes it.
 */
static void json_range(json_writer_t *w, const struct summary *s, int k)
{
	jsonw_start_object(w);
	jsonw_name(w, "median");
	json_double(w, s->med[k]);
	jsonw_name(w, "min");
	json_double(w, s->min[k]);
	jsonw_name(w, "max");
	json_double(w, s->max[k]);
}

/* Write what @s compares of metric @m: the ratios, the outside count, the verdict. */
static void json_compared(json_writer_t *w, int m, const struct summary *s, bool noise)
{
	char verdict[512];
	FILE *vf;
	int i;

	jsonw_name(w, "ratios");
	jsonw_start_array(w);
	for (i = 0; i < s->nr_pairs; i++)
		json_double(w, s->ratio[i]);
	jsonw_end_array(w);
	jsonw_name(w, "ratio_median");
	json_double(w, s->ratio_med);
	if (noise) {
		jsonw_name(w, "aa_ratio");
		json_double(w, s->aa);
		jsonw_name(w, "noise");
		json_double(w, s->noise);
	}
	jsonw_int_field(w, "outside", s->outside);
	jsonw_bool_field(w, "differs", differs(s));
	vf = fmemopen(verdict, sizeof(verdict), "w");
	if (vf) {
		print_verdict(vf, ab.metric[m], s);
		fclose(vf);
		verdict[strcspn(verdict, "\n")] = '\0';
		/* the words without the metric's name */
		jsonw_string_field(w, "verdict", verdict + strlen(ab.metric[m]) + 2);
	}
}

/*
 * The JSON report: the settings, every run, and per metric the summary of
 * B against A; a side after B adds, per metric, an object named by its
 * letter with its own range, ratios and verdict (the noise is A's).
 */
static void report_json(void)
{
	json_writer_t *w = jsonw_new(stdout);
	struct summary s;
	const struct run *r;
	char key[2] = "";
	int i, m, k;

	if (!w) {
		msg("out of memory");
		return;
	}
	jsonw_pretty(w, true);
	jsonw_start_object(w);
	jsonw_string_field(w, "mode", ab.concurrent ? "concurrent" : "sequential");
	jsonw_int_field(w, "pairs", ab.pairs);
	jsonw_name(w, "command");
	jsonw_start_array(w);
	for (i = 0; ab.cmd && ab.cmd[i]; i++)
		jsonw_string(w, ab.cmd[i]);
	jsonw_end_array(w);
	for (k = 0; k < ab.nr_sides; k++) {
		key[0] = 'a' + k;
		jsonw_name(w, key);
		json_side(w, k);
	}
	jsonw_name(w, "runs");
	jsonw_start_array(w);
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		key[0] = r->side;
		jsonw_start_object(w);
		jsonw_int_field(w, "run", i);
		jsonw_string_field(w, "kind", kind_names[r->kind]);
		jsonw_int_field(w, "pair", r->pair);
		jsonw_string_field(w, "side", key);
		jsonw_int_field(w, "exit", r->exit);
		jsonw_name(w, "metrics");
		jsonw_start_object(w);
		for (m = 0; m < ab.nr_metrics; m++) {
			jsonw_name(w, ab.metric[m]);
			json_double(w, r->val[m]);
		}
		jsonw_end_object(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "report");
	jsonw_start_object(w);
	for (m = 0; m < ab.nr_metrics; m++) {
		summarize(m, 1, &s);
		jsonw_name(w, ab.metric[m]);
		jsonw_start_object(w);
		jsonw_name(w, "a");
		json_range(w, &s, 0);
		jsonw_end_object(w);
		jsonw_name(w, "b");
		json_range(w, &s, 1);
		jsonw_end_object(w);
		json_compared(w, m, &s, true);
		for (k = 2; k < ab.nr_sides; k++) {
			summarize(m, k, &s);
			key[0] = 'a' + k;
			jsonw_name(w, key);
			json_range(w, &s, 1);
			json_compared(w, m, &s, false);
			jsonw_end_object(w);
		}
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

/* The settings of side @k as one CSV field, quoted. */
static void csv_settings(FILE *f, int k)
{
	const char *s;

	fputc('"', f);
	for (s = ab.side[k].spec; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Every run as a CSV row, after a header row; 0 or 1. */
static int write_csv(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	const struct run *r;
	int i, m, ret = 0;

	if (!f) {
		msg("cannot write %s: %s", path, strerror(errno));
		return 1;
	}
	fputs("run,kind,pair,side,settings,exit", f);
	for (m = 0; m < ab.nr_metrics; m++)
		fprintf(f, ",%s", ab.metric[m]);
	fputc('\n', f);
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		fprintf(f, "%d,%s,%d,%c,", i, kind_names[r->kind], r->pair, r->side);
		csv_settings(f, r->side - 'A');
		fprintf(f, ",%d", r->exit);
		for (m = 0; m < ab.nr_metrics; m++) {
			fputc(',', f);
			if (!isnan(r->val[m]))
				fprintf(f, "%.17g", r->val[m]);
		}
		fputc('\n', f);
	}
	if (f != stdout && fclose(f))
		ret = 1;
	else if (f == stdout && fflush(f))
		ret = 1;
	if (ret)
		msg("cannot write %s: %s", path, strerror(errno));
	return ret;
}

/* Split a CSV line in place into at most @max fields; how many. */
static int csv_split(char *line, char **field, int max)
{
	char *out;
	int n = 0;

	while (n < max) {
		out = line;
		field[n++] = line;
		if (*line == '"') {
			for (line++; *line; line++) {
				if (*line == '"' && line[1] != '"')
					break;
				line += *line == '"';
				*out++ = *line;
			}
			line += *line == '"';
		} else {
			line += strcspn(line, ",\n");
			out = line;
		}
		if (*line != ',') {
			*out = '\0';
			return n;
		}
		*out = '\0';
		line++;
	}
	return n;
}

/* Parse a decimal number that fills @s; false if it is not one. */
static bool parse_double(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end;
}

static int side_parse(int k, const char *spec);

/*
 * --from-csv: read the runs a --csv file saved, to report on them again.
 * Every row is checked: a file zswbctl did not write is refused.
 */
static int read_csv(const char *path)
{
	char *line = NULL, *field[AB_MAX_METRICS + 8], *end;
	int n, nf = 0, i, lineno = 0, ret = 0, idx[AB_MAX_METRICS + 8];
	size_t cap = 0;
	struct run *r;
	double v;
	FILE *f;
	int k;

	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		msg("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	ab.pairs = 0;
	while (!ret && getline(&line, &cap, f) > 0) {
		lineno++;
		n = csv_split(line, field, ARRAY_SIZE(field));
		if (lineno == 1) {
			if (n < 6 || strcmp(field[0], "run") || strcmp(field[5], "exit")) {
				msg("%s: not a zswbctl ab --csv file (its header is not %s)",
				    path, "run,kind,pair,side,settings,exit,...");
				ret = EXIT_USAGE;
			}
			for (i = 6; i < n && !ret; i++)
				idx[i] = metric_idx(field[i]);
			nf = n;
			continue;
		}
		if (n != nf) {
			msg("%s:%d: %d fields, the header has %d", path, lineno, n, nf);
			ret = EXIT_USAGE;
			break;
		}
		for (k = 0; k < 3 && strcmp(field[1], kind_names[k]); k++)
			;
		if (k == 3 || field[3][0] < 'A' || field[3][0] >= 'A' + AB_MAX_SIDES ||
		    field[3][1]) {
			msg("%s:%d: kind '%s', side '%s': not a run of zswbctl ab", path, lineno,
			    field[1], field[3]);
			ret = EXIT_USAGE;
			break;
		}
		r = run_new(k, (int)strtol(field[2], &end, 10), field[3][0]);
		if (!r || *end || r->pair < 0 || r->pair > AB_MAX_PAIRS) {
			msg("%s:%d: pair '%s' is not a number from 0 to %d", path, lineno, field[2],
			    AB_MAX_PAIRS);
			ret = EXIT_USAGE;
			break;
		}
		r->exit = (int)strtol(field[5], &end, 10);
		if (r->pair > ab.pairs)
			ab.pairs = r->pair;
		k = r->side - 'A';
		if (k >= ab.nr_sides)
			ab.nr_sides = k + 1;
		if (!*ab.side[k].spec) {	/* "": not yet seen */
			free(ab.side[k].spec);
			ab.side[k].n = 0;
			ret = side_parse(k, field[4]);
			if (ret)
				break;
		}
		for (i = 6; i < n; i++) {
			if (!*field[i])
				continue;
			if (!parse_double(field[i], &v)) {
				msg("%s:%d: %s is '%s', not a number", path, lineno,
				    ab.metric[idx[i]], field[i]);
				ret = EXIT_USAGE;
				break;
			}
			r->val[idx[i]] = v;
		}
	}
	if (!ret && lineno < 2) {
		msg("%s: no runs", path);
		ret = EXIT_USAGE;
	}
	/* The sides in turn, as the options give them: A, B, then C, ... */
	for (k = 0; !ret && k < ab.nr_sides; k++) {
		for (i = 0; i < ab.nr_runs && ab.runs[i].side != 'A' + k; i++)
			;
		if (i == ab.nr_runs && (k < 2 ? ab.nr_sides > 2 : true)) {
			msg("%s: no run of side %c, but of side %c", path, 'A' + k,
			    'A' + ab.nr_sides - 1);
			ret = EXIT_USAGE;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

/* ---------------------------------------------------------- the host -- */

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

	return v && parse_double(v, &d) ? d : NAN;
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
		return 1;
	}
	err = ab.zswap_max ? write_in(path, "memory.zswap.max", ab.zswap_max) : 0;
	if (err) {
		msg("cannot set memory.zswap.max of %s to '%s': %s", path, ab.zswap_max,
		    strerror(-err));
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
static void ab_cleanup(void)
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
 * Start the command in cgroup @cg: the child moves itself in before exec,
 * its stdout goes to our stderr (the report is on stdout), and
 * $ZSWBCTL_AB_METRICS names the file @metrics for its own figures. The
 * pid, or -1.
 */
static pid_t start(const char *cg, const char *metrics)
{
	char procs[PATH_MAX];
	pid_t pid;
	int err;

	pathf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	fflush(NULL);
	pid = fork();
	if (pid)
		return pid < 0 ? (msg("cannot fork: %s", strerror(errno)), -1) : pid;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
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
		seen += !strncmp(ab.metric[i], "cmd.", 4);
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
		for (i = 0; i < ab.nr_metrics && strcmp(ab.metric[i], name); i++)
			;
		if (i == ab.nr_metrics && seen == AB_MAX_CMD_METRICS) {
			msg("ab: run %d: more than %d metrics of the command's, %s left out",
			    (int)(r - ab.runs), AB_MAX_CMD_METRICS, name);
			continue;
		}
		seen += i == ab.nr_metrics;
		if (metric_idx(name) < 0)
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
	char cg[PATH_MAX], name[32], metrics[PATH_MAX];
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
	r = ret ? NULL : run_new(kind, pair, 'A' + side);
	if (!r) {
		snap_free(&before);
		return 1;
	}
	t0 = now();
	ab.child[0] = start(cg, metrics);
	r->exit = ab.child[0] < 0 ? -1 : wait_child(ab.child[0]);
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
		r[k] = run_new(kind, pair, sides[k] ? 'B' : 'A');
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
		ab.child[k] = start(cg[k], metrics[k]);
		if (ab.child[k] < 0)
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

/* Run the schedule: warm-up, A/A pair, N pairs alternated; 0 or 1. */
static int run_all(void)
{
	int p, k, ret = 0;

	if (ab.warmup)
		ret = ab.concurrent ? run_concurrent(RUN_WARMUP, 0, 0, 0) :
				      run_sequential(RUN_WARMUP, 0, 0);
	if (ab.concurrent) {
		if (!ret && !ab_stop)
			ret = run_concurrent(RUN_AA, 0, 0, 0);
		for (p = 1; p <= ab.pairs && !ret && !ab_stop; p++)
			ret = p % 2 ? run_concurrent(RUN_PAIR, p, 0, 1) :
				      run_concurrent(RUN_PAIR, p, 1, 0);
		return ret;
	}
	if (!ret && !ab_stop)
		ret = run_sequential(RUN_AA, 0, 0);
	if (!ret && !ab_stop)
		ret = run_sequential(RUN_AA, 0, 0);
	/*
	 * Pair p runs every side once, starting from side p - 1 (mod the
	 * number of sides): A B, B A, ... for two; A B C, B C A, C A B, ...
	 * for three, so that each side runs at each place in turn.
	 */
	for (p = 1; p <= ab.pairs && !ret && !ab_stop; p++)
		for (k = 0; k < ab.nr_sides && !ret && !ab_stop; k++)
			ret = run_sequential(RUN_PAIR, p, (p - 1 + k) % ab.nr_sides);
	return ret;
}

/* ---------------------------------------------------------- checks -- */

/* Parse --a or --b into side @k; 0 or EXIT_USAGE after saying why. */
static int side_parse(int k, const char *spec)
{
	struct side *s = &ab.side[k];
	char *copy, *w, *save, *eq;
	int i;

	s->spec = strdup(spec);
	copy = strdup(spec);
	if (!s->spec || !copy) {
		msg("out of memory");
		return 1;
	}
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		eq = strchr(w, '=');
		if (!eq || eq == w || !eq[1]) {
			msg("--%c: '%s' is not NAME=VALUE", 'a' + k, w);
			return EXIT_USAGE;
		}
		*eq = '\0';
		for (i = 0; i < s->n; i++)
			if (!strcmp(s->name[i], w)) {
				msg("--%c sets %s twice", 'a' + k, w);
				return EXIT_USAGE;
			}
		if (s->n == AB_MAX_SETTINGS) {
			msg("--%c: more than %d settings", 'a' + k, AB_MAX_SETTINGS);
			return EXIT_USAGE;
		}
		s->name[s->n] = w;
		s->val[s->n++] = eq + 1;
	}
	return 0;
}

/*
 * Give every side the same names: what one side sets and another does
 * not, the other runs with as it is now (sequential), or as the scope
 * starts, the global value (concurrent). Saves each value to put back.
 * 0, or the exit code after saying why (an unknown parameter: 1).
 */
static int sides_complete(void)
{
	int k, o, i, j, err;
	bool used;
	char *cur;

	for (k = 0; k < ab.nr_sides; k++) {
		for (i = 0; i < ab.side[k].n; i++) {
			const char *name = ab.side[k].name[i];

			cur = param_read(name, &err);
			if (!cur)
				return read_failed(name, err);
			err = param_check(name, ab.side[k].val[i]);
			if (err) {
				free(cur);
				return err;
			}
			for (j = 0; j < ab.nr_saved && strcmp(ab.saved_name[j], name); j++)
				;
			if (j == ab.nr_saved && !ab.concurrent) {
				ab.saved_name[j] = (char *)name;
				ab.saved_val[j] = strdup(cur);
				ab.nr_saved = ab.saved_val[j] ? j + 1 : j;
			}
			used = false;
			for (o = 0; o < ab.nr_sides; o++) {
				struct side *so = &ab.side[o];

				for (j = 0; j < so->n && strcmp(so->name[j], name); j++)
					;
				if (j < so->n)
					continue;
				if (so->n == AB_MAX_SETTINGS) {
					msg("--%c: more than %d settings with the other sides'",
					    'a' + o, AB_MAX_SETTINGS);
					return EXIT_USAGE;
				}
				/* the sides share @cur: it lives as long as they do */
				so->name[so->n] = (char *)name;
				so->val[so->n++] = cur;
				used = true;
			}
			if (!used)
				free(cur);
		}
	}
	return 0;
}

/* Whether @cmd can be run as execvp() would find it. */
static bool cmd_found(const char *cmd)
{
	const char *path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
	char buf[PATH_MAX];
	size_t len;

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	while (*path) {
		len = strcspn(path, ":");
		pathf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", cmd);
		if (!access(buf, X_OK)) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode))
				return true;
		}
		path += len + (path[len] == ':');
	}
	return false;
}

/*
 * Make our cgroup, with memory in its children's controllers, and a probe
 * child with the limits, so that a cgroup that cannot be made or a limit
 * the kernel refuses stops us before the first run. 0 or 1.
 */
static int cgroup_setup(void)
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
static int scopes_setup(void)
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
static int ab_options(char **argv)
{
	const char *opt, *arg;
	char *end;
	bool seen[AB_MAX_SIDES] = { false }, any = false;
	int i, k, ret;

	for (i = 0; argv[i]; i++) {
		opt = argv[i];
		if (!strcmp(opt, "--")) {
			ab.cmd = argv + i + 1;
			break;
		}
		if (!strcmp(opt, "--concurrent")) {
			ab.concurrent = true;
			continue;
		}
		if (!strcmp(opt, "--drop-caches")) {
			ab.drop_caches = true;
			continue;
		}
		if (!strcmp(opt, "--warmup")) {
			ab.warmup = true;
			continue;
		}
		if (!strcmp(opt, "-j") || !strcmp(opt, "--json")) {
			json = true;
			continue;
		}
		if (opt[0] != '-') {
			ab.cmd = argv + i;
			break;
		}
		arg = argv[i + 1];
		if (!arg) {
			msg("ab: %s needs a value", opt);
			return EXIT_USAGE;
		}
		i++;
		if (opt[0] == '-' && opt[1] == '-' && opt[2] >= 'a' &&
		    opt[2] < 'a' + AB_MAX_SIDES && !opt[3]) {
			k = opt[2] - 'a';
			if (seen[k]) {
				msg("ab: %s given twice", opt);
				return EXIT_USAGE;
			}
			seen[k] = true;
			any = true;
			ret = side_parse(k, arg);
			if (ret)
				return ret;
			if (k >= ab.nr_sides)
				ab.nr_sides = k + 1;
		} else if (!strcmp(opt, "--pairs")) {
			errno = 0;
			ab.pairs = strtol(arg, &end, 10);
			if (errno || *end || ab.pairs < 1 || ab.pairs > AB_MAX_PAIRS) {
				msg("ab: --pairs '%s': a number from 1 to %d", arg, AB_MAX_PAIRS);
				return EXIT_USAGE;
			}
		} else if (!strcmp(opt, "--memory-max")) {
			ab.memory_max = arg;
		} else if (!strcmp(opt, "--zswap-max")) {
			ab.zswap_max = arg;
		} else if (!strcmp(opt, "--parent")) {
			ab.parent = arg;
		} else if (!strcmp(opt, "--csv")) {
			ab.csv = arg;
		} else if (!strcmp(opt, "--from-csv")) {
			ab.from_csv = arg;
		} else {
			msg("ab: unknown option '%s'", opt);
			return EXIT_USAGE;
		}
	}
	for (k = 0; k < AB_MAX_SIDES; k++) {
		if (!seen[k] && k > 0 && k < ab.nr_sides && ab.nr_sides > 2) {
			msg("ab: --%c without --%c: the sides after B are C, D, ... in turn",
			    'a' + ab.nr_sides - 1, 'a' + k);
			return EXIT_USAGE;
		}
		ret = seen[k] ? 0 : side_parse(k, "");
		if (ret)
			return ret;
	}
	if (ab.concurrent && ab.nr_sides > 2) {
		msg("ab: --concurrent runs two sides, A and B: --%c is for sequential runs",
		    'a' + ab.nr_sides - 1);
		return EXIT_USAGE;
	}
	if (ab.from_csv && ((ab.cmd && *ab.cmd) || any)) {
		msg("ab: --from-csv reports on saved runs: it takes no command or settings");
		return EXIT_USAGE;
	}
	if (!ab.from_csv && (!ab.cmd || !*ab.cmd)) {
		msg("ab: no command to run (ab [OPTIONS] -- CMD [ARGS])");
		return EXIT_USAGE;
	}
	return 0;
}

/* The directory of the runs' metrics files, private to us, if it can be made. */
static void metrics_setup(void)
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

/* Print the report as --json or text asks, and the CSV; 0 or 1. */
static int ab_output(void)
{
	int ret = 0;

	if (ab.csv)
		ret = write_csv(ab.csv);
	if (json)
		report_json();
	else
		report_text(stdout);
	return ret;
}

/*
 * "ab [OPTIONS] [--a 'NAME=VALUE ...'] [--b 'NAME=VALUE ...'] -- CMD
 * [ARGS]". Everything is checked before the first run: the module, every
 * name and value, the command, the cgroups and the scopes. Exits 0 when
 * every run of CMD exited 0, 1 when one did not, 128+N on signal N.
 */
int cmd_ab(char **argv)
{
	struct sigaction sa = { .sa_handler = ab_signal }, oint, oterm;
	int ret, i, failed = 0;

	ret = ab_options(argv);
	if (ret)
		return ret;
	if (ab.from_csv) {
		ret = read_csv(ab.from_csv);
		return ret ? ret : ab_output();
	}
	ret = check_dirs(NEED_DEBUGFS);
	if (!ret)
		ret = sides_complete();
	if (ret)
		return ret;
	if (!cmd_found(ab.cmd[0])) {
		msg("ab: cannot run %s: %s", ab.cmd[0], strerror(ENOENT));
		return 127;
	}
	/* From here on, everything made is undone on every way out. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	ret = ab.concurrent ? scopes_setup() : 0;
	if (!ret) {
		metrics_setup();
		ret = cgroup_setup();
	}
	if (!ret && !ab_stop)
		ret = run_all();
	ab_cleanup();
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	if (ab_stop) {
		msg("ab: stopped by signal %d; the settings are put back", (int)ab_stop);
		return 128 + ab_stop;
	}
	if (ret)
		return ret;
	ret = ab_output();
	for (i = 0; i < ab.nr_runs; i++)
		failed += ab.runs[i].exit != 0;
	return ret ? ret : failed ? 1 : 0;
}
