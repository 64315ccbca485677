// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl ab's statistics (ab_stat.h). The runs come in pairs adjacent in
 * time, so a comparison is one of paired differences: for each pair the
 * log of X/A, or where some value is 0 its change relative to its A run,
 * or X - A (ab_report.c's enum scale). On those:
 *
 *  - Wilcoxon's signed-rank test, two-sided. Under "no difference" each
 *    pair's sign is a coin toss whatever the run-to-run noise's shape, so
 *    the exact law of the rank sum gives a p-value that is right for a
 *    heavy-tailed metric, an outlier run or six pairs, where a t-test's is
 *    not. Computed exactly by counting the sign patterns (dynamic
 *    programming on the rank sums) up to AB_STAT_EXACT_MAX pairs, with
 *    ties as mid-ranks (sums of doubled ranks stay integers) and zeros
 *    ranked but unsigned (Pratt): that is still the exact law given the
 *    data. Above that, the normal law with the tie-corrected variance.
 *  - The Hodges-Lehmann estimate, the median of the Walsh averages
 *    (d_i + d_j) / 2 for i <= j, which is the shift the signed-rank test
 *    is centred on, and its interval: the Walsh averages of order c + 1
 *    and M - c, M = n(n+1)/2, c the test's critical value. That interval
 *    is exact (it covers the true shift with probability at least
 *    1 - alpha for any symmetric noise) and needs no resampling: a
 *    bootstrap with 10 pairs has too few distinct resamples to be
 *    trusted, and is not reproducible without fixing its seed.
 *  - Where each host runs one arm (zswbctl fleet), the samples are not
 *    paired: Wilcoxon's rank-sum test (Mann-Whitney's U), two-sided, whose
 *    law under "no difference" is that of every assignment of the ranks
 *    to the two samples, equally likely: exact by counting them (dynamic
 *    programming on the number taken and their rank sum) up to
 *    AB_STAT_RANKSUM_EXACT_MAX values, ties as doubled mid-ranks as
 *    above; the normal law with the tie-corrected variance above that.
 *    Its estimate is the two-sample Hodges-Lehmann shift, the median of
 *    the differences y_j - x_i, and its interval the differences of
 *    order c + 1 and mn - c, c the critical value of U: exact for a shift
 *    of any continuous law.
 *  - Benjamini-Hochberg over a family of p-values.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stat.h"

/* Rounding's slack when a probability is compared with alpha. */
#define SLACK	(4096 * DBL_EPSILON)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double ab_stat_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The law of the sum of the weights @w[0..n-1] that a fair coin keeps, as
 * probabilities: @prob[s] for s = 0..total. The caller frees it; NULL if
 * out of memory.
 */
static double *sign_law(const int *w, int n, int *total)
{
	double *prob;
	int i, s, top = 0;

	for (i = 0; i < n; i++)
		top += w[i];
	prob = calloc(top + 1, sizeof(*prob));
	if (!prob)
		return NULL;
	prob[0] = 1;
	top = 0;
	for (i = 0; i < n; i++) {
		top += w[i];
		/* new[s] = (old[s] + old[s - w]) / 2, in place from the top */
		for (s = top; s >= 0; s--)
			prob[s] = (prob[s] + (s >= w[i] ? prob[s - w[i]] : 0)) / 2;
	}
	*total = top;
	return prob;
}

/* P(W+ <= w), no ties, from the exact law; NAN if out of memory. */
double ab_signrank_cdf(int n, int w)
{
	double *prob, sum = 0;
	int *rank, i, total;

	if (w < 0)
		return 0;
	if (n <= 0)
		return 1;
	rank = malloc(n * sizeof(*rank));
	if (!rank)
		return NAN;
	for (i = 0; i < n; i++)
		rank[i] = i + 1;
	prob = sign_law(rank, n, &total);
	free(rank);
	if (!prob)
		return NAN;
	for (i = 0; i <= w && i <= total; i++)
		sum += prob[i];
	free(prob);
	return sum > 1 ? 1 : sum;
}

/* The quantile of the standard normal law at @q, 0 < q < 1 (Acklam's, |error| < 1.2e-9). */
static double norm_quantile(double q)
{
	static const double a[] = { -39.69683028665376, 220.9460984245205, -275.9285104469687,
				    138.3577518672690, -30.66479806614716, 2.506628277459239 };
	static const double b[] = { -54.47609879822406, 161.5858368580409, -155.6989798598866,
				    66.80131188771972, -13.28068155288572 };
	static const double c[] = { -0.007784894002430293, -0.3223964580411365,
				    -2.400758277161838, -2.549732539343734, 4.374664141464968,
				    2.938163982698783 };
	static const double d[] = { 0.007784695709041462, 0.3224671290700398,
				    2.445134137142996, 3.754408661907416 };
	double r, x;

	if (q < 0.02425) {
		x = sqrt(-2 * log(q));
		return (((((c[0] * x + c[1]) * x + c[2]) * x + c[3]) * x + c[4]) * x + c[5]) /
		       ((((d[0] * x + d[1]) * x + d[2]) * x + d[3]) * x + 1);
	}
	if (q > 1 - 0.02425)
		return -norm_quantile(1 - q);
	x = q - 0.5;
	r = x * x;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * x /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

int ab_signrank_crit(int n, double alpha)
{
	double *prob, sum = 0, mean, sd;
	int *rank, i, total, c = -1;

	if (n <= 0 || !(alpha > 0 && alpha < 1))
		return -1;
	if (n > AB_STAT_EXACT_MAX) {
		mean = n * (n + 1.0) / 4;
		sd = sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24);
		return (int)floor(mean + norm_quantile(alpha / 2) * sd - 0.5);
	}
	rank = malloc(n * sizeof(*rank));
	if (!rank)
		return -1;
	for (i = 0; i < n; i++)
		rank[i] = i + 1;
	prob = sign_law(rank, n, &total);
	free(rank);
	if (!prob)
		return -1;
	/* a relative slack: 0.05 / 2 must not miss a tail of exactly that */
	for (i = 0; i <= total && (sum += prob[i]) <= alpha / 2 * (1 + SLACK); i++)
		c = i;
	free(prob);
	return c;
}

bool ab_signrank_can_reach(int n, double alpha)
{
	/* the most extreme of 2^n sign patterns, either way: 2 / 2^n */
	return n > 0 && ldexp(2, -n) <= alpha * (1 + SLACK);
}

/* The mid-ranks of |d|, doubled to stay integers, into @r2. */
static void doubled_ranks(const double *d, int n, int *r2)
{
	double *a = malloc(n * sizeof(*a));
	int i, j, k, lt, eq;

	if (a) {
		/* n log n: sort the magnitudes, then find each one's run of ties */
		for (i = 0; i < n; i++)
			a[i] = fabs(d[i]);
		qsort(a, n, sizeof(*a), cmp_double);
		for (i = 0; i < n; i++) {
			double x = fabs(d[i]);
			int l = 0, h = n;

			while (l < h) {	/* the first index of x */
				k = (l + h) / 2;
				if (a[k] < x)
					l = k + 1;
				else
					h = k;
			}
			for (j = l; j < n && a[j] == x; j++)
				;
			/* ranks l + 1 .. j: their mean doubled is l + 1 + j */
			r2[i] = l + 1 + j;
		}
		free(a);
		return;
	}
	/* out of memory: the quadratic way, with nothing to allocate */
	for (i = 0; i < n; i++) {
		lt = 0;
		eq = 0;
		for (j = 0; j < n; j++) {
			lt += fabs(d[j]) < fabs(d[i]);
			eq += fabs(d[j]) == fabs(d[i]);
		}
		r2[i] = 2 * lt + 1 + eq;
	}
}

double ab_signrank_p(const double *d, int n)
{
	double *prob, t = 0, mean = 0, var = 0, dev, p = 0, z;
	int *r2, *w, i, m = 0, total, s;

	if (n <= 0)
		return NAN;
	r2 = malloc(n * sizeof(*r2));
	w = malloc(n * sizeof(*w));
	if (!r2 || !w) {
		free(r2);
		free(w);
		return NAN;
	}
	doubled_ranks(d, n, r2);
	/* Pratt: a zero keeps its rank among the others but has no sign */
	for (i = 0; i < n; i++) {
		if (d[i] == 0)
			continue;
		w[m++] = r2[i];
		if (d[i] > 0)
			t += r2[i];
		mean += r2[i] / 2.0;
		var += (double)r2[i] * r2[i] / 4.0;
	}
	free(r2);
	if (!m) {
		free(w);
		return 1;
	}
	dev = fabs(t - mean);
	if (n > AB_STAT_EXACT_MAX) {
		free(w);
		/* doubled ranks: a step of the sum is 2, so the correction is 1 */
		z = (dev - 1) / sqrt(var);
		/* never below the exact law's least p, 2 / 2^m */
		return z <= 0 ? 1 : fmax(erfc(z / sqrt(2)), ldexp(2, -m));
	}
	prob = sign_law(w, m, &total);
	free(w);
	if (!prob)
		return NAN;
	/* P(|T - E| >= |t - E|): the law is symmetric about its mean */
	for (s = 0; s <= total; s++)
		if (fabs(s - mean) >= dev - 0.25)	/* both are multiples of 0.5 */
			p += prob[s];
	free(prob);
	return p > 1 ? 1 : p;
}

int ab_stat_paired(const double *d, int n, double alpha, struct ab_paired *out)
{
	long m = (long)n * (n + 1) / 2, k = 0;
	double *walsh;
	int i, j, c;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->est = NAN;
	out->lo = NAN;
	out->hi = NAN;
	out->p = NAN;
	if (n <= 0)
		return 0;
	walsh = malloc(m * sizeof(*walsh));
	if (!walsh)
		return -1;
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			walsh[k++] = (d[i] + d[j]) / 2;
	out->est = ab_stat_median(walsh, m);	/* sorts them */
	out->p = ab_signrank_p(d, n);
	out->exact = n <= AB_STAT_EXACT_MAX;
	out->too_few = !ab_signrank_can_reach(n, alpha);
	c = ab_signrank_crit(n, alpha);
	/* too few: no interval reaches 1 - alpha, and none is given */
	if (c >= 0 && c < m / 2) {
		out->lo = walsh[c];
		out->hi = walsh[m - 1 - c];
	}
	free(walsh);
	return isnan(out->p) ? -1 : 0;
}

/*
 * The law of the sum of @k of the @nw weights @w drawn without
 * replacement, every subset alike: @prob[s] for s = 0..*total. The caller
 * frees it; NULL if out of memory. Counts in doubles: C(100, 50) is 1e29.
 */
static double *subset_law(const int *w, int nw, int k, int *total)
{
	double *cnt, *prob, all = 0;
	int i, j, s, top = 0, seen = 0;

	for (i = 0; i < nw; i++)
		top += w[i];
	cnt = calloc((size_t)(k + 1) * (top + 1), sizeof(*cnt));
	prob = calloc(top + 1, sizeof(*prob));
	if (!cnt || !prob) {
		free(cnt);
		free(prob);
		return NULL;
	}
	/* cnt[j * (top + 1) + s]: subsets of j of the weights so far summing to s */
	cnt[0] = 1;
	for (i = 0; i < nw; i++) {
		seen += w[i];
		for (j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
			for (s = seen; s >= w[i]; s--)
				cnt[j * (top + 1) + s] += cnt[(j - 1) * (top + 1) + s - w[i]];
	}
	for (s = 0; s <= top; s++)
		all += cnt[k * (top + 1) + s];
	for (s = 0; s <= top; s++)
		prob[s] = cnt[k * (top + 1) + s] / all;
	free(cnt);
	*total = top;
	return prob;
}

/* The law of the rank sum of @n of 1..m+n, no ties: prob[s]; NULL if out of memory. */
static double *ranksum_law(int m, int n, int *total)
{
	int *rank = malloc((m + n) * sizeof(*rank)), i;
	double *prob;

	if (!rank)
		return NULL;
	for (i = 0; i < m + n; i++)
		rank[i] = i + 1;
	prob = subset_law(rank, m + n, n, total);
	free(rank);
	return prob;
}

double ab_ranksum_cdf(int m, int n, int u)
{
	int s, total, base = n * (n + 1) / 2;
	double *prob, sum = 0;

	if (u < 0)
		return 0;
	if (m <= 0 || n <= 0)
		return 1;
	prob = ranksum_law(m, n, &total);
	if (!prob)
		return NAN;
	/* U = W - n(n+1)/2, W the rank sum of y */
	for (s = base; s <= total && s - base <= u; s++)
		sum += prob[s];
	free(prob);
	return sum > 1 ? 1 : sum;
}

int ab_ranksum_crit(int m, int n, double alpha)
{
	int s, total, base = n * (n + 1) / 2, c = -1;
	double *prob, sum = 0, mean, sd;

	if (m <= 0 || n <= 0 || !(alpha > 0 && alpha < 1))
		return -1;
	if (m + n > AB_STAT_RANKSUM_EXACT_MAX) {
		mean = (double)m * n / 2;
		sd = sqrt((double)m * n * (m + n + 1.0) / 12);
		c = (int)floor(mean + norm_quantile(alpha / 2) * sd - 0.5);
		return c < 0 ? -1 : c;
	}
	prob = ranksum_law(m, n, &total);
	if (!prob)
		return -1;
	for (s = base; s <= total && (sum += prob[s]) <= alpha / 2 * (1 + SLACK); s++)
		c = s - base;
	free(prob);
	return c;
}

bool ab_ranksum_can_reach(int m, int n, double alpha)
{
	double ways = 1;
	int i;

	if (m <= 0 || n <= 0)
		return false;
	/* C(m + n, m), until it is large enough */
	for (i = 1; i <= m && 2 / ways > alpha * (1 + SLACK); i++)
		ways = ways * (n + i) / i;
	return 2 / ways <= alpha * (1 + SLACK);
}

double ab_ranksum_p(const double *x, int m, const double *y, int n)
{
	double *all, *prob, t = 0, mean, var = 0, dev, p = 0, z, wbar;
	int *r2, i, total, s, nn = m + n;

	if (m <= 0 || n <= 0)
		return NAN;
	all = malloc(nn * sizeof(*all));
	r2 = malloc(nn * sizeof(*r2));
	if (!all || !r2) {
		free(all);
		free(r2);
		return NAN;
	}
	/* doubled_ranks() ranks magnitudes: shift every value above 0 first */
	wbar = INFINITY;
	for (i = 0; i < m; i++)
		wbar = fmin(wbar, x[i]);
	for (i = 0; i < n; i++)
		wbar = fmin(wbar, y[i]);
	for (i = 0; i < nn; i++)
		all[i] = (i < m ? x[i] : y[i - m]) - wbar;
	doubled_ranks(all, nn, r2);
	free(all);
	for (i = m; i < nn; i++)
		t += r2[i];
	/* the mean and variance of the sum of n of the nn doubled ranks */
	wbar = (double)nn * (nn + 1) / nn;	/* the doubled ranks' mean, nn + 1 */
	mean = n * wbar;
	for (i = 0; i < nn; i++)
		var += (r2[i] - wbar) * (r2[i] - wbar);
	var *= (double)m * n / ((double)nn * (nn - 1));
	dev = fabs(t - mean);
	if (dev < SLACK || var <= 0) {
		free(r2);
		return 1;
	}
	if (nn > AB_STAT_RANKSUM_EXACT_MAX) {
		free(r2);
		/* doubled ranks: a step of the sum is 2, so the correction is 1 */
		z = (dev - 1) / sqrt(var);
		return z <= 0 ? 1 : erfc(z / sqrt(2));
	}
	prob = subset_law(r2, nn, n, &total);
	free(r2);
	if (!prob)
		return NAN;
	for (s = 0; s <= total; s++)
		/* s and t are whole: a slack far below 1 for mean's rounding */
		if (prob[s] > 0 && fabs(s - mean) >= dev - 0.25)
			p += prob[s];
	free(prob);
	return p > 1 ? 1 : p;
}

int ab_stat_unpaired(const double *x, int m, const double *y, int n, double alpha,
		     struct ab_paired *out)
{
	long mn = (long)m * n, k = 0;
	double *dif;
	int i, j, c;

	memset(out, 0, sizeof(*out));
	out->n = m + n;
	out->nx = m;
	out->ny = n;
	out->est = NAN;
	out->lo = NAN;
	out->hi = NAN;
	out->p = NAN;
	out->too_few = !ab_ranksum_can_reach(m, n, alpha);
	if (m <= 0 || n <= 0)
		return 0;
	dif = malloc(mn * sizeof(*dif));
	if (!dif)
		return -1;
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			dif[k++] = y[j] - x[i];
	out->est = ab_stat_median(dif, mn);	/* sorts them */
	out->p = ab_ranksum_p(x, m, y, n);
	out->exact = m + n <= AB_STAT_RANKSUM_EXACT_MAX;
	c = ab_ranksum_crit(m, n, alpha);
	if (c >= 0 && c < mn / 2) {
		out->lo = dif[c];
		out->hi = dif[mn - 1 - c];
	}
	free(dif);
	return isnan(out->p) ? -1 : 0;
}

/* An index and its p-value, to sort the family by p. */
struct idx_p {
	double p;
	int i;
};

static int cmp_idx_p(const void *a, const void *b)
{
	return cmp_double(&((const struct idx_p *)a)->p, &((const struct idx_p *)b)->p);
}

int ab_stat_bh(const double *p, double *adj, int m)
{
	struct idx_p *s = malloc((m ? m : 1) * sizeof(*s));
	double run = 1, v;
	int i, k = 0;

	if (!s)
		return -1;
	for (i = 0; i < m; i++) {
		adj[i] = NAN;
		if (!isnan(p[i]))
			s[k++] = (struct idx_p){ p[i], i };
	}
	qsort(s, k, sizeof(*s), cmp_idx_p);
	/* adjusted p_(i) = min over j >= i of p_(j) * k / j, from the largest */
	for (i = k - 1; i >= 0; i--) {
		v = s[i].p * k / (i + 1);
		if (v < run)
			run = v;
		adj[s[i].i] = run;
	}
	free(s);
	return 0;
}
