// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests and calibration of the unpaired comparison of zswbctl fleet
 * (Wilcoxon's rank-sum test and the two-sample Hodges-Lehmann shift, in
 * tools/zswbctl/ab_stat.c), linked with it:
 *  - the law of U and its critical values against the published table and
 *    the exact counts checked in beside this file (ab_ranksum_fixtures.txt),
 *    and R's documented example (Hollander & Wolfe's permeability data);
 *  - the exact p-value with ties against a count of every assignment of
 *    the ranks, written here independently of ab_stat.c;
 *  - the estimate and its interval against their definitions;
 *  - the normal law above the exact limit, close to the exact one;
 *  - a calibration with a fixed seed: with no difference, the share of
 *    comparisons with p <= 0.05 (at most 6%), and with a known shift the
 *    share of intervals that cover it (at least 93%), for a normal and a
 *    heavy-tailed noise, small fleets (exact) and large ones (normal law).
 * Prints KTAP, and the rates measured as comments.
 *
 *   ab_ranksum_test FIXTURES
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stat.h"
#include "ab_unit.h"

/* How close two computed estimates or counts must be, relatively. */
#define RTOL	(1.0 / (1ULL << 30))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_CAL	((int)ARRAY_SIZE(cal))

/* The same data on every machine. */
static unsigned long long rng = 0x2545f4914f6cdd1dULL;

static double uniform(void)
{
	return ((xorshift64(&rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* Student's t with 3 degrees of freedom: heavy tails, outliers. */
static double t3(void)
{
	double z = normal(), c = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double g = normal();

		c += g * g;
	}
	return z / sqrt(c / 3);
}

/*
 * The two-sided p-value by brute force: every subset of size @n of the
 * m + n values is y once, its sum of mid-ranks against the mean.
 */
static double brute_p(const double *x, int m, const double *y, int n)
{
	double v[24], rank[24], t = 0, mean = 0, s, hits = 0, total = 0;
	int i, j, lt, eq, nn = m + n;
	unsigned long pat;

	for (i = 0; i < nn; i++)
		v[i] = i < m ? x[i] : y[i - m];
	for (i = 0; i < nn; i++) {
		lt = 0;
		eq = 0;
		for (j = 0; j < nn; j++) {
			lt += v[j] < v[i];
			eq += v[j] == v[i];
		}
		rank[i] = lt + (eq + 1) / 2.0;
		mean += rank[i] * n / nn;
		if (i >= m)
			t += rank[i];
	}
	for (pat = 0; pat < 1UL << nn; pat++) {
		if (__builtin_popcountl(pat) != n)
			continue;
		s = 0;
		for (j = 0; j < nn; j++)
			if (pat & 1UL << j)
				s += rank[j];
		total++;
		hits += fabs(s - mean) >= fabs(t - mean) - RTOL;
	}
	return hits / total;
}

/*
 * The fixtures (their format is in the file's header): "crit M N ALPHA U"
 * and "tail M N U COUNT TOTAL" lines; how many were checked, -1 if none.
 */
static int fixtures(const char *path, int *bad)
{
	char line[256], kind[16], alpha_s[32], c_s[32];
	int m, n, u, checked = 0, c;
	double alpha, count, total, got;
	FILE *f = fopen(path, "r");

	*bad = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%15s", kind) != 1)
			continue;
		if (!strcmp(kind, "crit") &&
		    sscanf(line, "%*s %d %d %31s %31s", &m, &n, alpha_s, c_s) == 4) {
			alpha = atof(alpha_s);
			c = strcmp(c_s, "-") ? atoi(c_s) : -1;
			/* the table is symmetric in M and N: both ways */
			got = ab_ranksum_crit(m, n, alpha);
			if (got != c || ab_ranksum_crit(n, m, alpha) != c) {
				printf("# crit m=%d n=%d alpha=%s: table %d, ab_stat %g\n", m, n,
				       alpha_s, c, got);
				(*bad)++;
			}
			checked++;
		} else if (!strcmp(kind, "tail") &&
			   sscanf(line, "%*s %d %d %d %lf %lf", &m, &n, &u, &count, &total) == 5) {
			got = ab_ranksum_cdf(m, n, u);
			if (fabs(got * total - count) > RTOL * count) {
				printf("# tail m=%d n=%d u=%d: table %.0f/%.0f, ab_stat %.17g\n", m,
				       n, u, count, total, got);
				(*bad)++;
			}
			checked++;
		}
	}
	fclose(f);
	return checked;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Calibration: @count comparisons of @m against @n values, B shifted by
 * @shift (in the logs), the noise @heavy-tailed or normal; the % with
 * p <= 0.05 into @rej, the % whose interval covers the shift into @cov.
 */
static void calibrate(int count, int m, int n, double shift, int heavy, double *rej,
		      double *cov)
{
	double x[200], y[200];
	struct ab_paired r;
	int i, k, nrej = 0, ncov = 0;

	for (k = 0; k < count; k++) {
		for (i = 0; i < m; i++)
			x[i] = heavy ? t3() : normal();
		for (i = 0; i < n; i++)
			y[i] = shift + (heavy ? t3() : normal());
		ab_stat_unpaired(x, m, y, n, 0.05, &r);
		nrej += r.p <= 0.05;
		ncov += r.lo <= shift && shift <= r.hi;
	}
	*rej = 100.0 * nrej / count;
	*cov = 100.0 * ncov / count;
}

int main(int argc, char **argv)
{
	/* Hollander & Wolfe's permeability data, R's ?wilcox.test example */
	static const double hx[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	static const double hy[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	static const struct {
		int m, n, heavy;
		double shift;
		const char *what;
	} cal[] = {
		{ 8, 8, 0, 0, "8 + 8 hosts, normal noise, exact" },
		{ 6, 14, 1, 0, "6 + 14 hosts, t3 noise, exact" },
		{ 60, 70, 0, 0, "60 + 70 hosts, normal noise, normal law" },
		{ 12, 12, 1, 1.5, "12 + 12 hosts, t3 noise, shift 1.5, exact" },
		{ 60, 70, 0, 0.5, "60 + 70 hosts, normal noise, shift 0.5, normal law" },
	};
	double x[32], y[32], dif[600], p, q, e, rej, cov, worst = 0;
	char buf[256];
	struct ab_paired r;
	int i, j, k, m, n, c, checked, bad, lt, le, disagree = 0, significant;

	printf("TAP version 13\n1..%d\n", 8 + 2 * NR_CAL);

	checked = fixtures(argc > 1 ? argv[1] : "ab_ranksum_fixtures.txt", &bad);
	result(checked > 0 && !bad,
	       "rank-sum critical values and tails: %g fixtures of published tables, %g differ",
	       checked, bad);

	bad = 0;
	for (m = 1; m <= 12; m++)
		for (n = 1; n <= 12; n++)
			bad += ab_ranksum_can_reach(m, n, 0.05) !=
			       (ab_ranksum_crit(m, n, 0.05) >= 0);
	result(!bad, "too few hosts exactly when no critical value: %g of %g sizes disagree",
	       bad, 144);

	/* R: wilcox.test(x, y, conf.int = TRUE): W = 35, 2 * 0.1272, location 0.305 */
	ab_stat_unpaired(hy, 5, hx, 10, 0.05, &r);
	result(fabs(r.p - 764.0 / 3003) < TOL && fabs(r.est - 0.305) < RTOL,
	       "Hollander & Wolfe's example: p %.7g (764/3003), shift %.4g (R's 0.305)",
	       r.p, r.est);

	/* Ties (values on a grid of 4): the exact law given the ties, counted. */
	for (k = 0; k < 200; k++) {
		m = 2 + k % 7;
		n = 2 + (k / 7) % 8;
		for (i = 0; i < m; i++)
			x[i] = floor(4 * uniform());
		for (i = 0; i < n; i++)
			y[i] = floor(4 * uniform()) + (k % 3 == 0);
		e = fabs(ab_ranksum_p(x, m, y, n) - brute_p(x, m, y, n));
		if (e > worst)
			worst = e;
	}
	result(worst < TOL, "exact p with ties against every assignment counted: %g off (%g cases)",
	       worst, 200);

	/* The estimate and the interval as defined, counted the slow way. */
	bad = 0;
	for (k = 0; k < 200; k++) {
		m = 3 + k % 9;
		n = 3 + (k / 9) % 11;
		for (i = 0; i < m; i++)
			x[i] = normal();
		for (i = 0; i < n; i++)
			y[i] = normal() + (k % 4) * 0.5;
		ab_stat_unpaired(x, m, y, n, 0.05, &r);
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++)
				dif[i * n + j] = y[j] - x[i];
		qsort(dif, m * n, sizeof(*dif), cmp);
		e = (m * n) % 2 ? dif[m * n / 2] : (dif[m * n / 2 - 1] + dif[m * n / 2]) / 2;
		c = ab_ranksum_crit(m, n, 0.05);
		/* the low end: c differences below it, at least c + 1 at or below */
		lt = 0;
		le = 0;
		for (i = 0; c >= 0 && i < m * n; i++) {
			lt += dif[i] < r.lo;
			le += dif[i] <= r.lo;
		}
		if (fabs(r.est - e) > TOL || r.nx != m || r.ny != n ||
		    (c >= 0 && (lt > c || le < c + 1 || r.hi != dif[m * n - 1 - c])) ||
		    (c < 0 && !isnan(r.lo)))
			bad++;
		/* no ties: the interval excludes 0 exactly when p <= 0.05 */
		significant = r.p <= 0.05;
		if (c >= 0 && (r.lo > 0 || r.hi < 0) != significant)
			disagree++;
	}
	result(!bad, "Hodges-Lehmann shift and interval as defined: %g of %g differ", bad, 200);
	result(!disagree, "interval excludes 0 exactly when p <= 0.05: %g of %g disagree",
	       disagree, 200);

	/* 3 + 3 cannot reach 0.05 (2/20); 4 + 4 all one way can (2/70). */
	for (i = 0; i < 4; i++) {
		x[i] = i;
		y[i] = 10 + i;
	}
	ab_stat_unpaired(x, 3, y, 3, 0.05, &r);
	p = r.p;
	q = r.too_few && isnan(r.lo);
	ab_stat_unpaired(x, 4, y, 4, 0.05, &r);
	result(q && !r.too_few && fabs(p - 0.1) < TOL && fabs(r.p - 2.0 / 70) < TOL,
	       "too few hosts: 3 + 3 apart give p %g, too few; 4 + 4 give p %g", p, r.p);

	/* Above the exact limit: the normal law, close to the exact one at the limit. */
	{
		int half = AB_STAT_RANKSUM_EXACT_MAX / 2;
		double *v = malloc(2 * (half + 1) * sizeof(*v)), pe, pn;

		for (i = 0; v && i < 2 * (half + 1); i++)
			v[i] = normal() + (i % 2 ? 0.3 : 0);
		/* even: A, odd: B; the exact law at 50 + 50, the normal one at 51 + 51 */
		for (i = 0; v && i < half + 1; i++) {
			x[0] = v[2 * i];
			v[2 * i] = v[i];
			v[i] = x[0];
		}
		pe = v ? ab_ranksum_p(v, half, v + half + 1, half) : NAN;
		pn = v ? ab_ranksum_p(v, half + 1, v + half + 1, half + 1) : NAN;
		result(v && pn > 0 && pn < 1 && fabs(log(pn / pe)) < 0.7,
		       "51 + 51 hosts by the normal law: p %.3g, 50 + 50 exactly: p %.3g", pn, pe);
		free(v);
	}

	for (k = 0; k < NR_CAL; k++) {
		calibrate(2000, cal[k].m, cal[k].n, cal[k].shift, cal[k].heavy, &rej, &cov);
		printf("# calibration, %s: p <= 0.05 in %.2f%%, %s %.2f%% of 2000\n",
		       cal[k].what, rej, "the interval covers the shift in", cov);
		if (cal[k].shift == 0)
			snprintf(buf, sizeof(buf), "%s: false positives %%.2f%%%% <= 6%%%%%%.0s",
				 cal[k].what);
		else
			snprintf(buf, sizeof(buf), "%s: a real shift found in %%.2f%%%%%%.0s",
				 cal[k].what);
		result(cal[k].shift == 0 ? rej <= 6 : rej >= 50, buf, rej, 0);
		snprintf(buf, sizeof(buf), "%s: %s %%.2f%%%%%s", cal[k].what,
			 "the 95%% interval covers the shift in", " >= 93%%%.0s");
		result(cov >= 93, buf, cov, 0);
	}
	printf("# %d passed, %d failed\n", test_nr - failed, failed);
	return failed ? 1 : 0;
}
