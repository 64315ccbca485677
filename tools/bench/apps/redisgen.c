// SPDX-License-Identifier: GPL-2.0
/*
 * The data set of the server workload of make bench-apps, as Redis
 * protocol for "redis-cli --pipe":
 *
 *   redisgen KEYS SIZE        SET key:%012d VALUE for 0 <= i < KEYS
 *
 * The keys are those that "redis-benchmark -r KEYS" asks for
 * (key:__rand_int__, a 12-digit number). Each value is SIZE bytes: its
 * first half pseudo-random letters and digits, its second half a text
 * that repeats, so that a page of values compresses about 2:1, like cached
 * text and unlike redis-benchmark's own values (all 'x'), which zswap
 * would store for almost nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	static const char text[] = "{\"user\": 1234, \"name\": \"cached object\", ";
	unsigned long long x = 88172645463325252ULL;
	long keys, size, i, j;
	char *val;

	if (argc != 3) {
		fprintf(stderr, "usage: redisgen KEYS SIZE\n");
		return 64;
	}
	keys = atol(argv[1]);
	size = atol(argv[2]);
	if (keys <= 0 || size <= 0 || size > 1 << 20) {
		fprintf(stderr, "redisgen: KEYS and SIZE must be positive, SIZE at most 1 MiB\n");
		return 64;
	}
	val = malloc(size);
	if (!val)
		return 1;
	for (j = size / 2; j < size; j++)
		val[j] = text[j % (sizeof(text) - 1)];
	for (i = 0; i < keys; i++) {
		for (j = 0; j < size / 2; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			val[j] = set[x & 63];
		}
		printf("*3\r\n$3\r\nSET\r\n$16\r\nkey:%012ld\r\n$%ld\r\n", i, size);
		fwrite(val, 1, size, stdout);
		fputs("\r\n", stdout);
	}
	return fflush(stdout) ? 1 : 0;
}
