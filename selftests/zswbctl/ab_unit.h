/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of ab_stat.c share: the KTAP result line, the
 * tolerance of a computed probability and a fixed generator (xorshift64),
 * so that every machine draws the same data.
 */
#ifndef AB_UNIT_H
#define AB_UNIT_H

#include <stdio.h>

/* How close two computed probabilities must be. */
#define TOL	(1.0 / (1ULL << 40))

static int test_nr, failed;

static void result(int ok, const char *fmt, double a, double b)
{
	printf("%s %d ", ok ? "ok" : "not ok", ++test_nr);
	printf(fmt, a, b);
	putchar('\n');
	failed += !ok;
}

/* The next state of xorshift64 from *@s, stored and returned. */
static unsigned long long xorshift64(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
