/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswbctl ab's statistics: the paired comparison of one metric, side X
 * against A, as Wilcoxon's signed-rank test and the Hodges-Lehmann
 * estimate with its exact interval; the unpaired one (zswbctl fleet, each
 * host in one arm), as Wilcoxon's rank-sum test (Mann-Whitney) and the
 * two-sample Hodges-Lehmann shift with its interval; and the
 * Benjamini-Hochberg adjustment of a family of p-values. Pure arithmetic on arrays: no
 * state, no I/O, so that selftests/zswbctl/ab_stat_test.c can check it
 * against published tables.
 */
#ifndef ZSWBCTL_AB_STAT_H
#define ZSWBCTL_AB_STAT_H

#include <stdbool.h>

/* Above this many pairs, the normal approximation instead of the exact law. */
#define AB_STAT_EXACT_MAX	200

/* Above this many values in both samples, the rank-sum test's normal approximation. */
#define AB_STAT_RANKSUM_EXACT_MAX	100

/*
 * The comparison of one metric: what ab_stat_paired() finds, and
 * ab_stat_unpaired() (where est is the median of the differences y - x).
 */
struct ab_paired {
	int n;			/* pairs; unpaired: nx + ny */
	int nx, ny;		/* unpaired: the two samples' sizes; else 0 */
	double est;		/* Hodges-Lehmann: the median of the Walsh averages */
	double lo, hi;		/* its 1 - alpha interval (NAN when too_few) */
	double p;		/* two-sided signed-rank p-value */
	bool too_few;		/* n pairs cannot reach alpha: no verdict */
	bool exact;		/* p and interval from the exact law (n <= 200; unpaired 100) */
};

/* P(W+ <= w) for n pairs with no ties or zeros, exactly; n <= AB_STAT_EXACT_MAX. */
double ab_signrank_cdf(int n, int w);

/*
 * The largest c with P(W+ <= c) <= alpha / 2 for n pairs: a two-sided test
 * at alpha rejects when W+ <= c or W+ >= n(n+1)/2 - c. -1 when none, that
 * is when 2 / 2^n > alpha.
 */
int ab_signrank_crit(int n, double alpha);

/* Whether n pairs can reach alpha at all: the smallest two-sided p is 2 / 2^n. */
bool ab_signrank_can_reach(int n, double alpha);

/*
 * The two-sided p-value of Wilcoxon's signed-rank test on the @n paired
 * differences @d: zeros are ranked and carry no sign (Pratt), ties take
 * their mid-rank, and the law is the exact one of the signs under no
 * difference for n <= AB_STAT_EXACT_MAX, the normal one above.
 */
double ab_signrank_p(const double *d, int n);

/*
 * The paired comparison of the @n differences @d at @alpha into @out;
 * 0, or -1 if out of memory. With no pair, out->n is 0 and the rest NAN.
 */
int ab_stat_paired(const double *d, int n, double alpha, struct ab_paired *out);

/*
 * P(U <= u) for Mann-Whitney's U = #{(i, j): y_j > x_i} of samples of @m
 * and @n values with no ties, exactly; m + n <= AB_STAT_RANKSUM_EXACT_MAX.
 */
double ab_ranksum_cdf(int m, int n, int u);

/*
 * The largest c with P(U <= c) <= alpha / 2 for samples of @m and @n: a
 * two-sided test at alpha rejects when U <= c or U >= mn - c. -1 when
 * none, that is when 2 / C(m + n, m) > alpha.
 */
int ab_ranksum_crit(int m, int n, double alpha);

/* Whether samples of @m and @n can reach alpha: the smallest two-sided p is 2 / C(m + n, m). */
bool ab_ranksum_can_reach(int m, int n, double alpha);

/*
 * The two-sided p-value of Wilcoxon's rank-sum test of the @m values @x
 * against the @n values @y: ties take their mid-rank, and the law is the
 * exact one of the ranks' assignment to the samples under no difference
 * (given the ties) for m + n <= AB_STAT_RANKSUM_EXACT_MAX, the normal one,
 * tie-corrected, above. Two-sided: P(|T - E| >= |t - E|).
 */
double ab_ranksum_p(const double *x, int m, const double *y, int n);

/*
 * The unpaired comparison of @y (B) against @x (A) at @alpha into @out:
 * the Hodges-Lehmann shift, the median of the m * n differences y_j - x_i,
 * its interval from the rank-sum law (the differences of order c + 1 and
 * mn - c), and the rank-sum p. 0, or -1 if out of memory. With an empty
 * sample, out->est, lo, hi and p are NAN.
 */
int ab_stat_unpaired(const double *x, int m, const double *y, int n, double alpha,
		     struct ab_paired *out);

/*
 * Benjamini-Hochberg: the adjusted p-values @adj of the @m p-values @p
 * (a NAN is left out of the family and adjusted to NAN); 0 or -1.
 */
int ab_stat_bh(const double *p, double *adj, int m);

/* The median of @n values (@v is sorted in place); NAN if none. */
double ab_stat_median(double *v, int n);

#endif
