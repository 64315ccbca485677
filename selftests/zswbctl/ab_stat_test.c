// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of zswbctl ab's arithmetic (tools/zswbctl/ab_stat.c), linked
 * with it:
 *  - the signed-rank law and its critical values against the published
 *    tables checked in beside this file (ab_signrank_fixtures.txt), and
 *    against R's documented example (Hollander & Wolfe's depression data);
 *  - the exact p-value with ties and zeros against a count of every sign
 *    pattern, written here independently of ab_stat.c;
 *  - the Hodges-Lehmann estimate and its interval against their
 *    definitions, counted the slow way;
 *  - Benjamini-Hochberg on the example of their 1995 paper.
 * Prints KTAP.
 *
 *   ab_stat_test FIXTURES
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stat.h"
#include "ab_unit.h"

/* The same data on every machine. */
static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	return (xorshift64(&rng) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * The two-sided p-value by brute force: every one of the 2^m sign patterns
 * of the nonzero differences, the rank sum of the positive ones, with
 * mid-ranks of |d| over all n (zeros included, Pratt).
 */
static double brute_p(const double *d, int n)
{
	double rank[32], t = 0, mean = 0, s, hits = 0, total = 0;
	int i, j, lt, eq, m = 0, idx[32];
	unsigned long pat;

	for (i = 0; i < n; i++) {
		lt = 0;
		eq = 0;
		for (j = 0; j < n; j++) {
			lt += fabs(d[j]) < fabs(d[i]);
			eq += fabs(d[j]) == fabs(d[i]);
		}
		rank[i] = lt + (eq + 1) / 2.0;
		if (d[i] != 0) {
			idx[m++] = i;
			mean += rank[i] / 2;
			if (d[i] > 0)
				t += rank[i];
		}
	}
	for (pat = 0; pat < 1UL << m; pat++) {
		s = 0;
		for (j = 0; j < m; j++)
			if (pat & 1UL << j)
				s += rank[idx[j]];
		total++;
		/* mid-ranks: the sums and the mean are multiples of 0.25 */
		hits += fabs(s - mean) >= fabs(t - mean) - 0.125;
	}
	return hits / total;
}

/*
 * The fixtures (their format is in the file's header): "crit N ALPHA W"
 * and "tail N W COUNT TOTAL P" lines; how many were checked, -1 if none.
 */
static int fixtures(const char *path, int *bad)
{
	char line[256], kind[16], alpha_s[32], c_s[32];
	int n, w, checked = 0, c;
	double alpha, count, total, got;
	FILE *f = fopen(path, "r");

	*bad = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%15s", kind) != 1)
			continue;
		if (!strcmp(kind, "crit") &&
		    sscanf(line, "%*s %d %31s %31s", &n, alpha_s, c_s) == 3) {
			alpha = atof(alpha_s);
			c = strcmp(c_s, "-") ? atoi(c_s) : -1;
			got = ab_signrank_crit(n, alpha);
			if (got != c) {
				printf("# crit n=%d alpha=%s: table %d, ab_stat %g\n", n, alpha_s,
				       c, got);
				(*bad)++;
			}
			checked++;
		} else if (!strcmp(kind, "tail") &&
			   sscanf(line, "%*s %d %d %lf %lf", &n, &w, &count, &total) == 4) {
			got = ab_signrank_cdf(n, w);
			/* a count of sign patterns: exact in a double up to 2^53 */
			if (got * total != count) {
				printf("# tail n=%d w=%d: table %.0f/%.0f, ab_stat %.17g\n", n, w,
				       count, total, got);
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

int main(int argc, char **argv)
{
	/* Hollander & Wolfe's depression scores, R's ?wilcox.test example */
	static const double x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	static const double y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
	/* Benjamini & Hochberg (1995), section 4.1: 15 p-values, 4 rejected at 0.05 */
	static const double bh[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298,
				     0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590,
				     1.0000 };
	double d[32], adj[15], walsh[600], worst = 0, e, p, q;
	struct ab_paired r;
	int i, j, k, n, t, checked, bad, rej, cover_bad = 0, excluded;
	int significant;

	printf("TAP version 13\n1..8\n");

	checked = fixtures(argc > 1 ? argv[1] : "ab_signrank_fixtures.txt", &bad);
	result(checked > 0 && !bad,
	       "signed-rank critical values and tails: %g fixtures of published tables, %g differ",
	       checked, bad);

	for (i = 0; i < 9; i++)
		d[i] = x[i] - y[i];
	p = ab_signrank_p(d, 9);
	/* R: V = 40, p-value = 0.01953 one-sided, so 0.0390625 two-sided */
	result(fabs(p - 0.0390625) < TOL, "Hollander & Wolfe's example: p %.7g, R's %.7g",
	       p, 0.0390625);

	/* Ties and zeros: 400 data sets of 4 to 14 pairs, rounded so that they tie. */
	for (k = 0; k < 400; k++) {
		n = 4 + k % 11;
		for (i = 0; i < n; i++)
			d[i] = round((uniform() - 0.45) * 6) / 2;
		e = fabs(ab_signrank_p(d, n) - brute_p(d, n));
		if (e > worst)
			worst = e;
	}
	result(worst < TOL,
	       "exact p with ties and zeros against every sign pattern: largest error %g of %g sets",
	       worst, 400);

	/* Hodges-Lehmann: the median of the Walsh averages, the interval their c+1-th. */
	bad = 0;
	for (k = 0; k < 200; k++) {
		n = 6 + k % 25;
		for (i = 0; i < n; i++)
			d[i] = (uniform() - 0.3) * 10;
		t = 0;
		for (i = 0; i < n; i++)
			for (j = i; j < n; j++)
				walsh[t++] = (d[i] + d[j]) / 2;
		qsort(walsh, t, sizeof(*walsh), cmp);
		ab_stat_paired(d, n, 0.05, &r);
		e = t % 2 ? walsh[t / 2] : (walsh[t / 2 - 1] + walsh[t / 2]) / 2;
		j = ab_signrank_crit(n, 0.05);
		if (r.est != e || r.lo != walsh[j] || r.hi != walsh[t - 1 - j] || r.too_few)
			bad++;
	}
	result(!bad, "Hodges-Lehmann estimate and interval as defined: %g of %g differ", bad, 200);

	/*
	 * The interval and the test agree: 0 lies outside the interval exactly
	 * when p <= alpha (no ties: continuous data).
	 */
	bad = 0;
	for (k = 0; k < 500; k++) {
		n = 6 + k % 20;
		for (i = 0; i < n; i++)
			d[i] = uniform() - 0.35;
		ab_stat_paired(d, n, 0.05, &r);
		excluded = r.lo > 0 || r.hi < 0;
		significant = r.p <= 0.05;
		if (excluded != significant)
			cover_bad++;
	}
	result(!cover_bad, "interval excludes 0 exactly when p <= 0.05: %g of %g disagree",
	       cover_bad, 500);

	ab_stat_bh(bh, adj, 15);
	rej = 0;
	for (i = 0; i < 15; i++)
		rej += adj[i] <= 0.05;
	result(rej == 4 && fabs(adj[3] - 0.0095 * 15 / 4) < TOL,
	       "Benjamini-Hochberg on the paper's 15 p-values: %g rejected (the paper: %g)", rej,
	       4);

	/* Too few: 5 pairs cannot reach 0.05 (2/32), 6 can (2/64). */
	for (i = 0; i < 6; i++)
		d[i] = 1 + i;
	ab_stat_paired(d, 5, 0.05, &r);
	p = r.p;
	q = r.too_few;
	ab_stat_paired(d, 6, 0.05, &r);
	result(q && !r.too_few && fabs(p - 0.0625) < TOL && fabs(r.p - 0.03125) < TOL,
	       "too few pairs: 5 all one way give p %g, too few; 6 give p %g", p, r.p);

	/* Above the exact limit: the normal law, close to the exact one at the limit. */
	{
		int big = AB_STAT_EXACT_MAX + 1;
		double *v = malloc(big * sizeof(*v)), pe, pn;

		for (i = 0; v && i < big; i++)
			v[i] = uniform() - 0.45;
		pn = v ? ab_signrank_p(v, big) : NAN;
		pe = v ? ab_signrank_p(v, big - 1) : NAN;
		result(v && pn > 0 && pn < 1 && fabs(log(pn / pe)) < 0.5,
		       "201 pairs by the normal law: p %.3g, 200 pairs exactly: p %.3g", pn, pe);
		free(v);
	}
	printf("# %d passed, %d failed\n", test_nr - failed, failed);
	return failed ? 1 : 0;
}
