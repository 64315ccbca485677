// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl ab: the report, from the runs alone (so that --from-csv can
 * report again on the runs a --csv file saved, with no module).
 *
 * Each run of a side X other than A is paired with the A run of its pair
 * nearest to it in time: the schedule puts one next to it (A B, B A, ...;
 * with more sides A B C A D E A F, then mirrored), so that a drift of the
 * host over the comparison cancels. Per metric and side, the pairs'
 * differences on one of three scales (enum scale) go to ab_stat.c: the
 * Hodges-Lehmann change with its exact interval, and the signed-rank
 * p-value.
 *
 * One primary metric (--metric, default wall_s) on side B is judged at
 * alpha. Every other metric, and every metric of the sides after B, is
 * secondary: one family, its p-values adjusted by Benjamini-Hochberg, so
 * that of the secondary results called different, at most a fraction
 * alpha are expected to be false. A comparison that moves many counters
 * at once (a policy that frees folios moves a dozen) keeps its power, as
 * it would not under a family-wise correction such as Holm's.
 *
 * zswbctl fleet reports through the same code, each run a host's value
 * (ab.fleet): paired by host where every host runs both arms (pair N is
 * host N, as above), unpaired where each runs one (ab.unpaired): then the
 * A hosts' values against the B hosts', by ab_stat_unpaired().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "ab_stat.h"
#include "json_writer.h"
#include "zswbctl.h"

const char * const ab_kind_names[] = {
	[RUN_WARMUP] = "warmup", [RUN_AA] = "aa", [RUN_PAIR] = "pair",
};

/*
 * For each metric and each side X against A, the difference of each pair,
 * X against its A run, on one of three scales:
 *  log:  ln(X/A), where every run of both sides is above 0 (a ratio,
 *        reported as a % change);
 *  rel:  (X - A) / A, where some run is 0 or below but every A run that is
 *        paired is above 0 (the pair's change relative to its own A,
 *        reported times 100 as a % change: -100% where X is 0, so never
 *        below -100% for a count);
 *  diff: X - A, where some A run that is paired is 0 or below (reported in
 *        the metric's units where A's median is 0, else as a % of A's
 *        median).
 */
enum scale { SCALE_LOG, SCALE_REL, SCALE_DIFF };

static const char * const scale_names[] = {
	[SCALE_LOG] = "log", [SCALE_REL] = "rel", [SCALE_DIFF] = "diff",
};

/* What the report says of one metric, for one side against A. */
struct cmp {
	int m, side;			/* the metric; the side, 1 for B */
	double med[2], min[2], max[2];	/* of A's pair runs, and the side's */
	enum scale scale;		/* of the differences */
	bool measured;			/* a value in some run */
	bool tested;			/* a pair, and not every difference 0 */
	bool primary;			/* --metric on side B */
	struct ab_paired st;		/* the change, its interval, p */
	double p_adj;			/* secondary: Benjamini-Hochberg; else NAN */
	double aa;			/* the A/A pair's difference, or NAN */
	double *d;			/* the pairs' differences, in run order */
};

/*
 * The A run paired with run @i, of another side: the nearest A run of its
 * pair whose command did not fail (a failed run is no measure).
 */
static const struct run *partner_find(int i)
{
	const struct run *best = NULL;
	int j, dist = 0;

	for (j = 0; j < ab.nr_runs; j++) {
		const struct run *a = &ab.runs[j];

		if (a->kind != RUN_PAIR || a->side != 'A' || a->pair != ab.runs[i].pair || a->exit)
			continue;
		if (!best || abs(j - i) < dist) {
			best = a;
			dist = abs(j - i);
		}
	}
	return best;
}

/* Each run's partner, found once for the runs there are (-1: none). */
static int *partners;
static int nr_partners;

static const struct run *partner(int i)
{
	const struct run *a;
	int *p, j;

	if (nr_partners != ab.nr_runs) {
		p = realloc(partners, (ab.nr_runs + 1) * sizeof(*p));
		if (!p)
			return partner_find(i);
		partners = p;
		for (j = 0; j < ab.nr_runs; j++) {
			a = partner_find(j);
			partners[j] = a ? (int)(a - ab.runs) : -1;
		}
		nr_partners = ab.nr_runs;
	}
	return partners[i] < 0 ? NULL : &ab.runs[partners[i]];
}

int ab_primary(void)
{
	int m;

	for (m = 0; m < ab.nr_metrics; m++)
		if (!strcmp(ab.metric_name[m], ab.metric))
			return m;
	return -1;
}

/* The difference of @x against @a on @c's scale. */
static double diff(const struct cmp *c, double a, double x)
{
	switch (c->scale) {
	case SCALE_LOG:
		return log(x) - log(a);
	case SCALE_REL:
		return (x - a) / a;
	default:
		return x - a;
	}
}

/*
 * The A run paired with run @i, a pair run of side @k, where both measured
 * @m and neither failed; else NULL.
 */
static const struct run *paired(int m, int k, int i)
{
	const struct run *r = &ab.runs[i], *a;

	if (r->kind != RUN_PAIR || r->side != 'A' + k || r->exit || isnan(r->val[m]))
		return NULL;
	a = partner(i);
	return a && !isnan(a->val[m]) ? a : NULL;
}

/*
 * Unpaired (ab.unpaired): the A hosts' values of metric @m against side
 * @k's into @c, as compare() does (@c->d: side k's values on @c's scale,
 * less the median of A's). -1 if out of memory.
 */
static int compare_unpaired(int m, int k, struct cmp *c)
{
	double *v[2], *w[2], first = NAN;
	int n[2] = { 0, 0 }, i, j;
	const struct run *r;
	bool log_ok = true;

	v[0] = malloc(4 * (ab.nr_runs + 1) * sizeof(*v[0]));
	if (!v[0])
		return -1;
	v[1] = v[0] + ab.nr_runs + 1;
	w[0] = v[1] + ab.nr_runs + 1;
	w[1] = w[0] + ab.nr_runs + 1;
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		if (isnan(r->val[m]) || r->exit || r->kind != RUN_PAIR ||
		    (r->side != 'A' && r->side != 'A' + k))
			continue;
		c->measured = true;
		j = r->side != 'A';
		v[j][n[j]++] = r->val[m];
		log_ok &= r->val[m] > 0;
		if (isnan(first))
			first = r->val[m];
		/* tested: some value differs from another */
		c->tested |= r->val[m] != first;
	}
	c->scale = log_ok ? SCALE_LOG : SCALE_DIFF;
	for (j = 0; j < 2; j++)
		for (i = 0; i < n[j]; i++)
			w[j][i] = log_ok ? log(v[j][i]) : v[j][i];
	c->tested &= n[0] && n[1];
	if (ab_stat_unpaired(w[0], n[0], w[1], n[1], ab.alpha, &c->st)) {
		free(v[0]);
		return -1;
	}
	c->d = malloc((n[1] + 1) * sizeof(*c->d));
	if (!c->d) {
		free(v[0]);
		return -1;
	}
	/* for the plot: each B host against A's median, on the scale */
	for (i = 0; i < n[1]; i++)
		c->d[i] = w[1][i] - ab_stat_median(w[0], n[0]);
	for (j = 0; j < 2; j++) {
		c->med[j] = ab_stat_median(v[j], n[j]);
		c->min[j] = n[j] ? v[j][0] : NAN;
		c->max[j] = n[j] ? v[j][n[j] - 1] : NAN;
	}
	free(v[0]);
	return 0;
}

/*
 * Compare metric @m of side @k (1: B, ...) with A into @c, @c->d allocated
 * (the caller frees it); -1 if out of memory.
 */
static int compare(int m, int k, struct cmp *c)
{
	double *v[2], aa[2];
	const struct run *r, *a;
	int n[2] = { 0, 0 }, i, j, nd = 0, naa = 0;
	bool log_ok = true, rel_ok = true;

	memset(c, 0, sizeof(*c));
	v[0] = malloc(2 * (ab.nr_runs + 1) * sizeof(*v[0]));
	if (!v[0])
		return -1;
	v[1] = v[0] + ab.nr_runs + 1;
	c->m = m;
	c->side = k;
	c->p_adj = NAN;
	c->aa = NAN;
	c->primary = k == 1 && m == ab_primary();
	if (ab.unpaired) {
		free(v[0]);
		if (!compare_unpaired(m, k, c))
			return 0;
		msg("out of memory");
		return -1;
	}
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		if (isnan(r->val[m]) || r->exit)
			continue;	/* a failed run is left out of everything */
		c->measured = true;
		if (r->kind == RUN_AA && naa < 2)
			aa[naa++] = r->val[m];
		if (r->kind != RUN_PAIR || (r->side != 'A' && r->side != 'A' + k))
			continue;
		j = r->side != 'A';
		v[j][n[j]++] = r->val[m];
		if (r->val[m] <= 0)
			log_ok = false;
	}
	for (j = 0; j < 2; j++) {
		c->med[j] = ab_stat_median(v[j], n[j]);	/* sorts: the ends are the range */
		c->min[j] = n[j] ? v[j][0] : NAN;
		c->max[j] = n[j] ? v[j][n[j] - 1] : NAN;
	}
	free(v[0]);
	c->d = malloc((ab.nr_runs + 1) * sizeof(*c->d));
	if (!c->d)
		return -1;
	for (i = 0; i < ab.nr_runs; i++) {
		a = paired(m, k, i);
		if (a && a->val[m] <= 0)
			rel_ok = false;
	}
	c->scale = log_ok ? SCALE_LOG : rel_ok ? SCALE_REL : SCALE_DIFF;
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		a = paired(m, k, i);
		if (!a)
			continue;
		c->d[nd] = diff(c, a->val[m], r->val[m]);
		if (!isfinite(c->d[nd]))
			continue;	/* beyond a double: as good as missing */
		c->tested |= c->d[nd++] != 0;
	}
	/* the A/A pair on the same scale: the second run against the first */
	if (naa == 2 && (c->scale == SCALE_DIFF || aa[0] > 0) &&
	    (c->scale != SCALE_LOG || aa[1] > 0))
		c->aa = diff(c, aa[0], aa[1]);
	if (ab_stat_paired(c->d, nd, ab.alpha, &c->st)) {
		msg("out of memory");
		return -1;
	}
	return 0;
}

/*
 * Whether @c says the side differs from A. Without ties the interval
 * excludes 0 exactly when p <= alpha; with ties (counters that move in
 * whole units) the two can disagree at the margin, and both must agree.
 */
static bool differs(const struct cmp *c)
{
	if (!c->tested || c->st.too_few || !(c->st.lo > 0 || c->st.hi < 0))
		return false;
	return (c->primary ? c->st.p : c->p_adj) <= ab.alpha;
}

/* @x, a difference on @c's scale, as a % change of A; NAN where A's median is 0 on diff. */
static double pct(const struct cmp *c, double x)
{
	switch (c->scale) {
	case SCALE_LOG:
		return 100 * expm1(x);
	case SCALE_REL:
		return 100 * x;
	default:
		return c->med[0] != 0 ? 100 * x / fabs(c->med[0]) : NAN;
	}
}

/* Every metric of every side against A, the secondary p-values adjusted; NULL if none. */
static struct cmp *compare_all(void)
{
	int nk = ab.nr_sides - 1, n = nk * ab.nr_metrics, i, k, m, bad = 0;
	struct cmp *c = calloc(n ? n : 1, sizeof(*c));
	double *p = malloc((n ? n : 1) * sizeof(*p)), *adj = malloc((n ? n : 1) * sizeof(*p));

	if (!c || !p || !adj)
		goto oom;
	for (k = 1; k <= nk; k++)
		for (m = 0; m < ab.nr_metrics; m++)
			bad |= compare(m, k, &c[(k - 1) * ab.nr_metrics + m]);
	if (bad)
		goto oom;
	for (i = 0; i < n; i++)
		p[i] = c[i].tested && !c[i].primary ? c[i].st.p : NAN;
	if (ab_stat_bh(p, adj, n))
		goto oom;
	for (i = 0; i < n; i++)
		c[i].p_adj = adj[i];
	free(p);
	free(adj);
	return c;
oom:
	msg("out of memory");
	for (i = 0; c && i < n; i++)
		free(c[i].d);
	free(c);
	free(p);
	free(adj);
	return NULL;
}

static void free_all(struct cmp *c)
{
	int i;

	for (i = 0; c && i < (ab.nr_sides - 1) * ab.nr_metrics; i++)
		free(c[i].d);
	free(c);
}

double ab_primary_halfwidth(void)
{
	double w, worst = 0;
	struct cmp c;
	int k, m = ab_primary();

	if (m < 0)
		return INFINITY;
	for (k = 1; k < ab.nr_sides; k++) {
		if (compare(m, k, &c)) {
			free(c.d);
			return INFINITY;
		}
		free(c.d);
		w = (pct(&c, c.st.hi) - pct(&c, c.st.lo)) / 2;
		if (c.st.too_few || isnan(w))
			return INFINITY;
		if (w > worst)
			worst = w;
	}
	return worst;
}

/* A p-value as a reader takes it in: two digits. */
static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 0.0001)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.2g", p);
}

/* The fewest pairs that can reach alpha: 2 / 2^n <= alpha. */
static int min_pairs(void)
{
	int n = 1;

	while (!ab_signrank_can_reach(n, ab.alpha))
		n++;
	return n;
}

/*
 * The fewest hosts in each arm that can reach alpha, unpaired: samples of
 * equal size do best.
 */
static int min_hosts(void)
{
	int n = 1;

	while (!ab_ranksum_can_reach(n, n, ab.alpha))
		n++;
	return n;
}

/* How many were compared, as a verdict says it: "10 pairs", "10 hosts", "5 + 6 hosts". */
static void fmt_count(char *buf, size_t len, const struct ab_paired *st)
{
	if (ab.unpaired)
		snprintf(buf, len, "%d + %d hosts", st->nx, st->ny);
	else
		snprintf(buf, len, "%d %s", st->n, ab.fleet ? "hosts" : "pairs");
}

/* Whether higher is slower: the command's run time. */
static bool is_time(int m)
{
	return !strcmp(ab.metric_name[m], "wall_s");
}

/* The verdict on @c in words, into @buf. */
static void verdict(const struct cmp *c, char *buf, size_t len)
{
	double e = pct(c, c->st.est), lo = pct(c, c->st.lo), hi = pct(c, c->st.hi);
	char p[32], n[32], side = 'A' + c->side;
	const char *adj = c->primary ? "" : " (adjusted)";
	double t;

	fmt_p(p, sizeof(p), c->primary ? c->st.p : c->p_adj);
	fmt_count(n, sizeof(n), &c->st);
	if (!c->st.n || (ab.unpaired && (!c->st.nx || !c->st.ny))) {
		snprintf(buf, len, "no %s measured it", ab.fleet ? "host of each arm" : "pair");
	} else if (!c->tested) {
		snprintf(buf, len, "no difference: the same in each of %s", n);
	} else if (c->st.too_few && ab.unpaired) {
		snprintf(buf, len, "too few hosts to judge: %s cannot reach p <= %g; %s %d %s",
			 n, ab.alpha, "it takes", min_hosts(), "in each arm");
	} else if (c->st.too_few) {
		snprintf(buf, len, "too few %s to judge: %d cannot reach p <= %g; %s %d",
			 ab.fleet ? "hosts" : "pairs", c->st.n, ab.alpha,
			 ab.fleet ? "it takes" : "run at least", min_pairs());
	} else if (differs(c) && isnan(e)) {
		snprintf(buf, len, "%c is %.4g %s [%.4g, %.4g] %s, p = %s%s, %s", side,
			 fabs(c->st.est), c->st.est > 0 ? "higher" : "lower",
			 c->st.est > 0 ? c->st.lo : -c->st.hi, c->st.est > 0 ? c->st.hi : -c->st.lo,
			 "where A's median is 0", p, adj, n);
	} else if (differs(c)) {
		if (e < 0) {	/* the interval as a magnitude, the smaller end first */
			t = -hi;
			hi = -lo;
			lo = t;
		}
		snprintf(buf, len, "%c is %.1f%% %s [%.1f%%, %.1f%%], p = %s%s, %s", side,
			 fabs(e), is_time(c->m) ? (e > 0 ? "slower" : "faster") :
			 (e > 0 ? "higher" : "lower"), lo, hi, p, adj, n);
	} else if (isnan(e)) {
		snprintf(buf, len, "no difference detected: [%+.4g, %+.4g] %s, p = %s%s, %s",
			 c->st.lo, c->st.hi, "where A's median is 0", p, adj, n);
	} else if (!c->primary && (c->st.lo > 0 || c->st.hi < 0)) {
		/* the interval is the metric's own: the family's correction is in p */
		snprintf(buf, len, "%s: [%+.1f%%, %+.1f%%] unadjusted, p = %s (adjusted), %s",
			 "not different after the adjustment", lo, hi, p, n);
	} else {
		snprintf(buf, len, "no difference detected: [%+.1f%%, %+.1f%%], p = %s%s, %s",
			 lo, hi, p, adj, n);
	}
}

/* @x in at most 6 characters: 4 digits, then k, M, G (a sysadmin reads 12.3M). */
static void fmt_num(char *buf, size_t len, double x, bool sign)
{
	static const char unit[] = "kMGTP";
	double a = fabs(x);
	int u = -1;

	if (isnan(x)) {
		snprintf(buf, len, "-");
		return;
	}
	if (a >= 9999.5) {
		do {
			a /= 1000;
			u++;
		} while (a >= 999.5 && u < (int)sizeof(unit) - 2);
	}
	if (u < 0)
		snprintf(buf, len, sign ? "%+.4g" : "%.4g", x);
	else
		snprintf(buf, len, "%s%.3g%c", x < 0 ? "-" : sign ? "+" : "", a, unit[u]);
}

/* A % change in at most 8 characters: whole from 1000% up; "-" if none. */
static void fmt_pct(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fabs(x) < 999.95 ? "%+.1f%%" : "%+.0f%%", x);
}

/* The change and its interval, as the table shows it. */
static void fmt_change(const struct cmp *c, char *buf, size_t len)
{
	double e = pct(c, c->st.est);
	char n[3][16];

	if (!c->st.n) {
		snprintf(buf, len, "-");
	} else if (isnan(e)) {
		fmt_num(n[0], sizeof(n[0]), c->st.est, true);
		fmt_num(n[1], sizeof(n[1]), c->st.lo, true);
		fmt_num(n[2], sizeof(n[2]), c->st.hi, true);
		snprintf(buf, len, "%s [%s, %s]", n[0], n[1], n[2]);
	} else {
		fmt_pct(n[0], sizeof(n[0]), e);
		fmt_pct(n[1], sizeof(n[1]), pct(c, c->st.lo));
		fmt_pct(n[2], sizeof(n[2]), pct(c, c->st.hi));
		snprintf(buf, len, "%s [%s, %s]", n[0], n[1], n[2]);
	}
}

/*
 * The table's columns: the name's width, the change's, and whether the
 * medians and n are shown (all of them but where the terminal is narrow:
 * table_fit()).
 */
static int name_width, change_width;
static bool show_med, show_n;

/* The narrowest name column: "B against A" heads it. */
#define NAME_MIN	11

/*
 * Fit the table of the @n comparisons in @all to @width columns (0: no
 * limit, the widths of a file). What gives, in order: the change column's
 * padding, the name column down to NAME_MIN (a longer name goes on a line
 * of its own, as it does anyway), n, then the medians. No number is cut.
 * Where every column fits in its width in a file, the table is the file's.
 */
static void table_fit(const struct cmp *all, int n, int width)
{
	char buf[96];
	int i, m, rest, full;

	name_width = 24;
	for (m = 0; m < ab.nr_metrics; m++)
		if ((int)strlen(ab.metric_name[m]) > name_width)
			name_width = strlen(ab.metric_name[m]);
	if (name_width > 36)
		name_width = 36;
	change_width = 28;
	show_med = true;
	show_n = true;
	/* as in a file where that fits: "  change p n *", " A B" */
	if (!width || name_width + 2 + 28 + 7 + 4 + 2 + 18 <= width)
		return;
	change_width = strlen("change [interval]");
	for (i = 0; i < n; i++) {
		fmt_change(&all[i], buf, sizeof(buf));
		if ((int)strlen(buf) > change_width)
			change_width = strlen(buf);
	}
	full = name_width;
	for (i = 0; i < 3; i++) {
		show_n = i < 1;
		show_med = i < 2;
		/* "  change p", the " *" of a difference, " A B", " n" */
		rest = 2 + change_width + 7 + 2 + (show_med ? 18 : 0) + (show_n ? 4 : 0);
		if (width - rest >= NAME_MIN || i == 2) {
			name_width = width - rest < full ? width - rest : full;
			if (name_width < NAME_MIN)
				name_width = NAME_MIN;
			return;
		}
	}
}

/* The table's head for side @k against A. */
static void table_head(FILE *f, int k)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%c against A", 'A' + k);
	fprintf(f, "\n%-*s", name_width, buf);
	if (show_med)
		fprintf(f, " %8s %8c", "A", 'A' + k);
	fprintf(f, "  %-*s %6s", change_width, "change [interval]", "p");
	if (show_n)
		fprintf(f, " %3s", "n");
	fputc('\n', f);
}

/*
 * One row of the table: the metric, the medians, the change, p, the pairs;
 * a name wider than its column on a line of its own, cut to @width (0: no
 * limit).
 */
static void row(FILE *f, const struct cmp *c, int width)
{
	char change[96], p[32], med[2][16], name[128];
	const char *mn = ab.metric_name[c->m];
	bool own = (int)strlen(mn) > name_width;

	fmt_change(c, change, sizeof(change));
	fmt_p(p, sizeof(p), c->primary ? c->st.p : c->p_adj);
	fmt_num(med[0], sizeof(med[0]), c->med[0], false);
	fmt_num(med[1], sizeof(med[1]), c->med[1], false);
	if (own)
		fprintf(f, "%s\n", fit_name(name, sizeof(name), mn, width));
	fprintf(f, "%-*s", name_width, own ? "" : mn);
	if (show_med)
		fprintf(f, " %8s %8s", med[0], med[1]);
	fprintf(f, "  %-*s %6s", change_width, change, p);
	if (show_n)
		fprintf(f, " %3d", c->st.n);
	fprintf(f, "%s\n", differs(c) ? " *" : "");
}

/* @c's A/A pair as a % change of its first run; NAN on diff or without the pair. */
static double aa_pct(const struct cmp *c)
{
	switch (c->scale) {
	case SCALE_LOG:
		return 100 * expm1(c->aa);
	case SCALE_REL:
		return 100 * c->aa;
	default:
		return NAN;
	}
}

/*
 * The host check: the A/A pair against the pairs' noise, for @c (the
 * primary); a warning in one line where fit_print() folds it (@width).
 */
static void host_check(FILE *f, const struct cmp *c, int width)
{
	double *r, s;
	bool pc;	/* on log and rel, a % of A */
	int i;

	if (isnan(c->aa)) {
		fputs("A/A pair: none (it checks that the host is steady)\n", f);
		return;
	}
	pc = c->scale != SCALE_DIFF;
	fprintf(f, "A/A pair: %s %+.2f%s", ab.metric_name[c->m], pc ? aa_pct(c) : c->aa,
		pc ? "%" : "");
	r = c->st.n >= 6 ? malloc(c->st.n * sizeof(*r)) : NULL;
	if (!r) {
		fputc('\n', f);
		return;
	}
	for (i = 0; i < c->st.n; i++)
		r[i] = fabs(c->d[i] - c->st.est);
	/* a robust standard deviation of a pair's difference: 1.4826 MAD */
	s = 1.4826 * ab_stat_median(r, c->st.n);
	free(r);
	fprintf(f, " (a pair's noise, robust sd: %.2f%s)\n", pc ? 100 * s : s, pc ? "%" : "");
	if (s > 0 && fabs(c->aa) > 3 * s)
		fprintf(f, "%s%s%s\n",
			"warning: the A/A pair differs by more than 3 times the pairs' noise: the",
			width ? " " : "\n",
			"host was not steady at the start; look at the runs (--csv)");
}

/* zswbctl fleet's first line: where the values came from, how many hosts. */
static void fleet_header(FILE *f)
{
	int n[2] = { 0, 0 }, i;

	for (i = 0; i < ab.nr_runs; i++)
		if (ab.runs[i].kind == RUN_PAIR && ab.runs[i].side <= 'B')
			n[ab.runs[i].side - 'A']++;
	fprintf(f, "zswbctl fleet: %s\n", ab.fleet_what ? ab.fleet_what : ab.from_csv);
	if (ab.unpaired)
		fprintf(f, "%d hosts in A, %d in B, each host in one arm (unpaired)\n", n[0], n[1]);
	else
		fprintf(f, "%d hosts, each running both arms (paired by host)\n", ab.pairs_run);
}

/*
 * The text report, as benchstat prints one: per side the primary metric,
 * the secondary metrics that differ (every metric with --all), then the
 * verdict in words. Within 100 columns, or @width (0: no limit).
 */
static void report_text(FILE *f, int width)
{
	int m, k, i, failed = 0, shown, rest, zero, nm = ab.nr_metrics, prim = ab_primary();
	struct cmp *all = compare_all(), *c;
	char buf[512];

	if (!all)
		return;
	if (ab.fleet)
		fleet_header(f);
	else
		fprintf(f, "zswbctl ab: %s, %d pairs\n", ab.from_csv ? ab.from_csv :
			ab.concurrent ? "concurrent (A and B at once, sides swapped each pair)" :
			ab.nr_sides == 2 ? "sequential (A B, B A, ...)" :
			"sequential (each side next to an A run, mirrored each pair)",
			ab.pairs_run);
	for (k = 0; k < ab.nr_sides; k++)
		fprintf(f, "%c: %s\n", 'A' + k, *ab.side[k].spec ? ab.side[k].spec : "(as set)");
	fprintf(f, "primary: %s, at alpha %g\n", ab.metric, ab.alpha);
	if (ab.unpaired)
		fprintf(f, "change: Hodges-Lehmann shift, with its %g%% interval; %s%s%s\n",
			100 * (1 - ab.alpha), "p: Wilcoxon rank-sum", width ? " " : "\n",
			"(Mann-Whitney), exact up to 100 hosts; each host in one arm, unpaired");
	else
		fprintf(f, "change: Hodges-Lehmann, with its %g%% interval; %s%s%s\n",
			100 * (1 - ab.alpha), "p: Wilcoxon signed-rank, exact up",
			width ? " " : "\n",
			ab.fleet ? "to 200 hosts; paired by host, each host runs both arms" :
			"to 200 pairs; the secondary metrics' p: Benjamini-Hochberg adjusted");
	if (prim >= 0 && !ab.fleet)
		host_check(f, &all[prim], width);
	table_fit(all, (ab.nr_sides - 1) * nm, width);
	for (k = 1; k < ab.nr_sides; k++) {
		table_head(f, k);
		if (prim >= 0)
			row(f, &all[(k - 1) * nm + prim], width);
		shown = 0;
		rest = 0;
		zero = 0;
		for (m = 0; m < nm; m++) {
			c = &all[(k - 1) * nm + m];
			if (m == prim || !c->measured)
				continue;
			if (c->med[0] == 0 && c->med[1] == 0 && c->min[0] == c->max[0] &&
			    c->min[1] == c->max[1]) {
				zero++;	/* 0 in every run */
				continue;
			}
			if (!ab.all && !differs(c)) {
				rest++;
				continue;
			}
			if (!shown++)
				fputs(ab.all ? "secondary:\n" :
				      "secondary, different after the adjustment:\n", f);
			row(f, c, width);
		}
		if (rest)
			fprintf(f, "(%d more metric%s not found to differ: %s)\n", rest,
				rest > 1 ? "s" : "", rest > 1 ? "--all shows them" :
				"--all shows it");
		if (zero && ab.all)
			fprintf(f, "(%d metric%s 0 in every run left out)\n", zero,
				zero > 1 ? "s" : "");
		if (prim >= 0) {
			verdict(&all[(k - 1) * nm + prim], buf, sizeof(buf));
			/* a long metric's verdict on a line of its own */
			fprintf(f, "%c against A on %s:%s%s\n", 'A' + k, ab.metric,
				(int)(strlen(ab.metric) + strlen(buf)) > (width ? width - 16 : 82) ?
				"\n  " : " ", buf);
		}
	}
	for (i = 0; i < ab.nr_runs; i++)
		failed += ab.runs[i].exit != 0;
	if (failed)
		fprintf(f, "\nthe command failed in %d of %d runs, %s\n%s\n", failed, ab.nr_runs,
			"left out of the comparison",
			"(the exit status of each is in --json and --csv)");
	free_all(all);
}

/*
 * The text report on @f, stdout, fitted to its terminal's width (or
 * $COLUMNS): from 100 columns up, as in a file; narrower, the table by
 * table_fit() and the lines of words by fit_print().
 */
void ab_report_text(FILE *f)
{
	int width = out_width();
	char *text = NULL;
	size_t len;
	FILE *mem;

	mem = width ? open_memstream(&text, &len) : NULL;
	if (!mem) {
		report_text(f, 0);
		return;
	}
	report_text(mem, width < 100 ? width : 0);
	if (fclose(mem)) {
		free(text);
		report_text(f, 0);
		return;
	}
	fit_print(f, text, width);
	free(text);
}

/* Write @v as a JSON number, or null when not measured or infinite. */
static void json_double(json_writer_t *w, double v)
{
	if (isnan(v) || isinf(v))
		jsonw_null(w);
	else
		jsonw_float_fmt(w, "%.15g", v);
}

static void json_double_field(json_writer_t *w, const char *name, double v)
{
	jsonw_name(w, name);
	json_double(w, v);
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

/* Side @j (0: A) of @c: its median and range; the comparison too for a side after A. */
static void json_cmp(json_writer_t *w, const struct cmp *c, int j)
{
	char buf[512];

	jsonw_start_object(w);
	json_double_field(w, "median", c->med[j]);
	json_double_field(w, "min", c->min[j]);
	json_double_field(w, "max", c->max[j]);
	if (!j) {
		jsonw_end_object(w);
		return;
	}
	jsonw_int_field(w, "pairs", c->st.n);
	if (ab.unpaired) {
		jsonw_int_field(w, "hosts_a", c->st.nx);
		jsonw_int_field(w, "hosts_b", c->st.ny);
	}
	jsonw_string_field(w, "scale", scale_names[c->scale]);
	json_double_field(w, "estimate", pct(c, c->st.est));
	json_double_field(w, "ci_low", pct(c, c->st.lo));
	json_double_field(w, "ci_high", pct(c, c->st.hi));
	if (c->scale == SCALE_DIFF) {
		jsonw_name(w, "difference");
		jsonw_start_array(w);
		json_double(w, c->st.est);
		json_double(w, c->st.lo);
		json_double(w, c->st.hi);
		jsonw_end_array(w);
	}
	json_double_field(w, "p_value", c->st.p);
	json_double_field(w, "p_adjusted", c->p_adj);
	jsonw_bool_field(w, "differs", differs(c));
	jsonw_bool_field(w, "primary", c->primary);
	jsonw_bool_field(w, "too_few", c->tested && c->st.too_few);
	jsonw_name(w, "ratios");
	jsonw_start_array(w);
	for (j = 0; c->scale != SCALE_DIFF && j < (ab.unpaired ? c->st.ny : c->st.n); j++)
		json_double(w, c->scale == SCALE_LOG ? exp(c->d[j]) : 1 + c->d[j]);
	jsonw_end_array(w);
	verdict(c, buf, sizeof(buf));
	jsonw_string_field(w, "verdict", buf);
	jsonw_end_object(w);
}

/*
 * The JSON report: the settings, the method, every run, and per metric A's
 * range and each side's comparison with A, named by its letter.
 */
void ab_report_json(void)
{
	json_writer_t *w = jsonw_new(stdout);
	struct cmp *all = compare_all(), *c;
	int i, m, k, prim = ab_primary();
	const struct run *r;
	char key[2] = "";

	if (!w || !all) {
		if (!w)
			msg("out of memory");
		jsonw_destroy(&w);
		free_all(all);
		return;
	}
	jsonw_pretty(w, true);
	jsonw_start_object(w);
	jsonw_string_field(w, "mode", ab.unpaired ? "fleet-unpaired" : ab.fleet ? "fleet-paired" :
			   ab.concurrent ? "concurrent" : "sequential");
	jsonw_int_field(w, "pairs", ab.pairs_run);
	jsonw_string_field(w, "primary", ab.metric);
	json_double_field(w, "alpha", ab.alpha);
	if (ab.fleet)
		jsonw_string_field(w, "source", ab.fleet_what ? ab.fleet_what : ab.from_csv);
	jsonw_name(w, "method");
	jsonw_start_object(w);
	if (ab.unpaired) {
		jsonw_string_field(w, "pairing", "none: each host in one arm");
		jsonw_string_field(w, "test",
				   "Wilcoxon rank-sum (Mann-Whitney), two-sided, exact up to 100 hosts");
		jsonw_string_field(w, "estimate",
				   "Hodges-Lehmann shift (median of B - A), as a % change of A");
		jsonw_string_field(w, "interval", "exact, from the rank-sum law");
		jsonw_string_field(w, "ratios", "each B host against A's median");
	} else {
		jsonw_string_field(w, "pairing", ab.fleet ? "by host: each host runs both arms" :
				   "each run of a side with the nearest A run of its pair");
		jsonw_string_field(w, "test",
				   "Wilcoxon signed-rank, two-sided, exact up to 200 pairs");
		jsonw_string_field(w, "estimate", "Hodges-Lehmann, as a % change of A");
		jsonw_string_field(w, "interval", "exact, from the signed-rank law");
	}
	jsonw_string_field(w, "secondary", "Benjamini-Hochberg adjusted p");
	jsonw_end_object(w);
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
	jsonw_name(w, "host_check");
	jsonw_start_object(w);
	c = prim >= 0 ? &all[prim] : NULL;
	json_double_field(w, "aa_pct", c ? aa_pct(c) : NAN);
	json_double_field(w, "aa_difference", c ? c->aa : NAN);
	jsonw_end_object(w);
	jsonw_name(w, "runs");
	jsonw_start_array(w);
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		key[0] = r->side;
		jsonw_start_object(w);
		jsonw_int_field(w, "run", i);
		jsonw_string_field(w, "kind", ab_kind_names[r->kind]);
		jsonw_int_field(w, "pair", r->pair);
		jsonw_string_field(w, "side", key);
		jsonw_int_field(w, "exit", r->exit);
		if (r->host)
			jsonw_string_field(w, "host", r->host);
		jsonw_name(w, "metrics");
		jsonw_start_object(w);
		for (m = 0; m < ab.nr_metrics; m++)
			json_double_field(w, ab.metric_name[m], r->val[m]);
		jsonw_end_object(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "report");
	jsonw_start_object(w);
	for (m = 0; m < ab.nr_metrics; m++) {
		jsonw_name(w, ab.metric_name[m]);
		jsonw_start_object(w);
		jsonw_name(w, "a");
		json_cmp(w, &all[m], 0);
		for (k = 1; k < ab.nr_sides; k++) {
			key[0] = 'a' + k;
			jsonw_name(w, key);
			json_cmp(w, &all[(k - 1) * ab.nr_metrics + m], 1);
		}
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	free_all(all);
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

int ab_write_csv(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	const struct run *r;
	int i, m, ret = 0;

	if (!f) {
		msg("cannot write %s: %s", path, strerror(errno));
		return 1;
	}
	/* zswbctl fleet's: a host column before the metrics */
	fputs(ab.fleet ? "run,kind,pair,side,settings,exit,host" :
	      "run,kind,pair,side,settings,exit", f);
	for (m = 0; m < ab.nr_metrics; m++)
		fprintf(f, ",%s", ab.metric_name[m]);
	fputc('\n', f);
	for (i = 0; i < ab.nr_runs; i++) {
		r = &ab.runs[i];
		fprintf(f, "%d,%s,%d,%c,", i, ab_kind_names[r->kind], r->pair, r->side);
		csv_settings(f, r->side - 'A');
		fprintf(f, ",%d", r->exit);
		if (ab.fleet)
			fprintf(f, ",%s", r->host ? r->host : "");
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

/*
 * Before row @lineno (a run of @kind, @pair, @side) is added: a pair has
 * one run of each side after A, and A runs beside them, at most one for
 * every two sides and one more (A B C A D E A F G A H); the A/A pair two.
 * 0, or EXIT_USAGE after saying why.
 */
static int csv_check_run(const char *path, int lineno, int kind, long pair, char side)
{
	int i, n = 0, most;

	most = kind == RUN_AA ? 2 : kind == RUN_WARMUP ? 1 :
	       side == 'A' ? AB_MAX_SIDES / 2 + 1 : 1;
	for (i = 0; i < ab.nr_runs; i++)
		n += ab.runs[i].kind == (enum run_kind)kind && ab.runs[i].pair == pair &&
		     ab.runs[i].side == side;
	if (n < most)
		return 0;
	msg("%s:%d: pair %ld has more than %d %s run%s of side %c", path, lineno, pair, most,
	    ab_kind_names[kind], most > 1 ? "s" : "", side);
	return EXIT_USAGE;
}

bool ab_fleet_unpaired(void)
{
	int i, j;

	for (i = 0; i < ab.nr_runs; i++)
		for (j = i + 1; j < ab.nr_runs; j++)
			if (ab.runs[i].kind == RUN_PAIR && ab.runs[j].kind == RUN_PAIR &&
			    ab.runs[i].pair == ab.runs[j].pair)
				return false;
	return true;
}

/*
 * After the rows: every side has pair runs, and each of its runs an A run
 * in its pair (a fleet's: or none has, each host in one arm).
 */
static int csv_check(const char *path)
{
	int k, i, n;

	if (ab.fleet && ab.nr_sides > 2) {
		msg("%s: a fleet's runs have two sides, A and B", path);
		return EXIT_USAGE;
	}
	ab.unpaired = ab.fleet && ab_fleet_unpaired();

	if (ab.nr_sides < 2) {
		msg("%s: no run of side B: nothing to compare with A", path);
		return EXIT_USAGE;
	}
	for (k = 0; k < ab.nr_sides; k++) {
		for (i = n = 0; i < ab.nr_runs; i++)
			n += ab.runs[i].kind == RUN_PAIR && ab.runs[i].side == 'A' + k;
		if (!n) {
			msg("%s: no pair run of side %c, but of side %c", path, 'A' + k,
			    'A' + ab.nr_sides - 1);
			return EXIT_USAGE;
		}
	}
	for (i = 0; i < ab.nr_runs; i++) {
		if (ab.runs[i].kind == RUN_PAIR && ab.runs[i].side != 'A' && !ab.unpaired &&
		    !partner(i)) {
			msg("%s: pair %d has a run of side %c but none of side A", path,
			    ab.runs[i].pair, ab.runs[i].side);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * --from-csv: read the runs a --csv file saved, to report on them again.
 * Every row is checked: a file zswbctl did not write is refused.
 */
int ab_read_csv(const char *path)
{
	char *line = NULL, *field[AB_MAX_METRICS + 8], *end;
	int n, nf = 0, i, lineno = 0, ret = 0, idx[AB_MAX_METRICS + 8], first = 6;
	size_t cap = 0;
	struct run *r;
	double v;
	long pair;
	FILE *f;
	int k;

	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		msg("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	ab.nr_sides = 0;
	while (!ret && getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';	/* a file saved with CRLF too */
		if (!*line)
			continue;
		n = csv_split(line, field, ARRAY_SIZE(field));
		if (lineno == 1) {
			if (n < 6 || strcmp(field[0], "run") || strcmp(field[5], "exit")) {
				msg("%s: not a zswbctl ab --csv file (its header is not %s)",
				    path, "run,kind,pair,side,settings,exit,...");
				ret = EXIT_USAGE;
			}
			/* zswbctl fleet's: each run a host's */
			first = 6;
			if (!ret && n > 6 && !strcmp(field[6], "host")) {
				ab.fleet = true;
				first = 7;
			}
			for (i = first; i < n && !ret; i++) {
				idx[i] = ab_metric_idx(field[i]);
				if (idx[i] < 0) {
					msg("%s: more than %d metrics", path, AB_MAX_METRICS);
					ret = EXIT_USAGE;
				}
			}
			nf = n;
			continue;
		}
		if (n != nf) {
			msg("%s:%d: %d fields, the header has %d", path, lineno, n, nf);
			ret = EXIT_USAGE;
			break;
		}
		for (k = 0; k < 3 && strcmp(field[1], ab_kind_names[k]); k++)
			;
		if (k == 3 || field[3][0] < 'A' || field[3][0] >= 'A' + AB_MAX_SIDES ||
		    field[3][1]) {
			msg("%s:%d: kind '%s', side '%s': not a run of zswbctl ab", path, lineno,
			    field[1], field[3]);
			ret = EXIT_USAGE;
			break;
		}
		errno = 0;
		pair = strtol(field[2], &end, 10);
		if (errno || end == field[2] || *end || pair < 0 || pair > AB_MAX_PAIRS) {
			msg("%s:%d: pair '%s' is not a number from 0 to %d", path, lineno, field[2],
			    AB_MAX_PAIRS);
			ret = EXIT_USAGE;
			break;
		}
		ret = csv_check_run(path, lineno, k, pair, field[3][0]);
		if (ret)
			break;
		r = ab_run_new(k, pair, field[3][0]);
		if (!r) {
			ret = 1;
			break;
		}
		r->exit = (int)strtol(field[5], &end, 10);
		if (*end || !*field[5]) {
			msg("%s:%d: exit '%s' is not a number", path, lineno, field[5]);
			ret = EXIT_USAGE;
			break;
		}
		if (r->kind == RUN_PAIR && r->pair > ab.pairs_run)
			ab.pairs_run = r->pair;
		k = r->side - 'A';
		if (k >= ab.nr_sides)
			ab.nr_sides = k + 1;
		if (!*ab.side[k].spec) {	/* "": not yet seen */
			free(ab.side[k].spec);
			ab.side[k].n = 0;
			ret = ab_side_parse(k, field[4]);
			if (ret)
				break;
		}
		if (ab.fleet && !*field[6]) {
			msg("%s:%d: no host", path, lineno);
			ret = EXIT_USAGE;
			break;
		}
		r->host = ab.fleet ? strdup(field[6]) : NULL;
		if (ab.fleet && !r->host) {
			msg("out of memory");
			ret = 1;
			break;
		}
		for (i = first; i < n; i++) {
			if (!*field[i])
				continue;
			if (!ab_parse_double(field[i], &v) || !isfinite(v)) {
				msg("%s:%d: %s is '%s', not a number", path, lineno,
				    ab.metric_name[idx[i]], field[i]);
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
	if (!ret)
		ret = csv_check(path);
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}
