// SPDX-License-Identifier: GPL-2.0
/*
 * trickle - a steady stream of single pages pushed to swap.
 *
 *   trickle SECONDS INTERVAL_US MEMORY_RECLAIM_FILE [RANDOM_BYTES]
 *
 * Every INTERVAL_US, maps one anonymous page, fills its first RANDOM_BYTES
 * (default 4, at most 4096) with random data (the rest is zero but the page
 * is not zero-filled, so zswap stores it) and writes "4096" to the memcg's
 * memory.reclaim to push a page out. The pages stay mapped. This is the
 * seed's zswap shrinker Test Case 1; more random bytes make each page take
 * more room in the zswap pool.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long pages = 0, reclaims = 0;
	uint32_t x = 2463534242u;
	int fd, i, words = 1;
	double end;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: trickle SECONDS INTERVAL_US MEMORY_RECLAIM_FILE [RANDOM_BYTES]\n");
		return 64;
	}
	if (argc == 5) {
		words = (atoi(argv[4]) + 3) / 4;
		if (words < 1 || words > 1024) {
			fprintf(stderr, "trickle: RANDOM_BYTES is 1..4096, got '%s'\n", argv[4]);
			return 64;
		}
	}
	fd = open(argv[3], O_WRONLY);
	if (fd < 0) {
		perror(argv[3]);
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end) {
		uint32_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("trickle: mmap");
			return 2;
		}
		for (i = 0; i < words; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			p[i] = x | 1;
		}
		pages++;
		reclaims += write(fd, "4096", 4) == 4;
		usleep(atoi(argv[2]));
	}
	printf("pages %lu reclaims %lu\n", pages, reclaims);
	return 0;
}
