// SPDX-License-Identifier: GPL-2.0
/*
 * thrash - a swap workload with checkable data.
 *
 * Maps SIZE MiB of anonymous memory, fills each page with data derived from
 * its index and a generation (half pseudo-random, half a repeated word, so
 * that zswap stores it at about 2:1 and never sees a zero-filled page), then
 * walks it PASSES times. Each pass verifies every page against the last
 * generation written and, unless --read-only, writes the next generation.
 * Prints "pages N mismatches M seconds S" and exits 1 on any mismatch.
 *
 * Run it inside a memcg whose memory.max is below SIZE to make it swap.
 * --hold SECONDS keeps the memory mapped after the passes (for tests that
 * act while the data is swapped out), then verifies it once more; SIGUSR1
 * ends the hold early, so that a test can let it go when it has done what
 * it does, whatever that took.
 * --random SECONDS then writes random pages for that long, verifying each
 * against the generation it last wrote there (a stress-ng rand-set).
 * --incompressible N makes every Nth page pseudo-random all through: zswap
 * cannot compress it and rejects it, so reclaim writes it to swap itself.
 * --lock-rest locks every other page of the process (stack, heap, libc's
 * data) in memory, so that only the region ever goes to swap: for tests
 * that make swap I/O fail and must not have the process itself fault on a
 * failed swap read while the failures are on.
 *
 * SIGTERM ends the walk after the page in hand and prints the same line
 * (with "stopped"): what was verified up to then is reported, so that a
 * test can stop the workload and still check its data.
 */
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static volatile sig_atomic_t stop, released;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	released = 1;
}
#include <unistd.h>

#define PAGE 4096UL

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Every Nth page is incompressible (--incompressible N); 0: none. */
static unsigned long incompressible;

/* Fill or check one page; returns the number of wrong words. */
static size_t page_io(uint64_t *p, uint64_t idx, uint64_t gen, int check)
{
	uint64_t seed = mix(idx * 0x9e3779b97f4a7c15ULL + gen + 1);
	size_t i, n = PAGE / sizeof(*p), bad = 0;
	size_t random_words = incompressible && idx % incompressible == 0 ? n : n / 2;

	for (i = 0; i < n; i++) {
		uint64_t want = i < random_words ? mix(seed + i) : seed | 1;

		if (check)
			bad += p[i] != want;
		else
			p[i] = want;
	}
	return bad;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long mb = 64, passes = 3, hold = 0, npages, pg, pass;
	unsigned long rnd = 0, touched = 0;
	unsigned char *pgen = NULL;
	uint64_t state = 0x243f6a8885a308d3ULL;
	unsigned long long mismatches = 0;
	int read_only = 0, lock_rest = 0, c;
	uint64_t gen = 0;
	double t0;
	char *mem;
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ "hold", required_argument, NULL, 'H' },
		{ "read-only", no_argument, NULL, 'r' },
		{ "random", required_argument, NULL, 'R' },
		{ "lock-rest", no_argument, NULL, 'L' },
		{ "incompressible", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "s:p:H:rR:LI:", opts, NULL)) != -1) {
		switch (c) {
		case 's': mb = strtoul(optarg, NULL, 0); break;
		case 'p': passes = strtoul(optarg, NULL, 0); break;
		case 'H': hold = strtoul(optarg, NULL, 0); break;
		case 'r': read_only = 1; break;
		case 'R': rnd = strtoul(optarg, NULL, 0); break;
		case 'L': lock_rest = 1; break;
		case 'I': incompressible = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: thrash [--size MiB] [--passes N] [--hold S] [--read-only]\n"
				"              [--random S] [--lock-rest] [--incompressible N]\n");
			return 64;
		}
	}
	if (!mb) {
		fprintf(stderr, "thrash: --size must be > 0\n");
		return 64;
	}
	npages = mb * (1024 * 1024 / PAGE);
	/* Everything mapped now or later is locked as it faults in... */
	if (lock_rest && mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) {
		perror("thrash: mlockall");
		return 2;
	}
	mem = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("thrash: mmap");
		return 2;
	}
	/* ...except the region, which must swap. */
	if (lock_rest && munlock(mem, npages * PAGE)) {
		perror("thrash: munlock");
		return 2;
	}
	madvise(mem, npages * PAGE, MADV_NOHUGEPAGE);
	signal(SIGTERM, on_term);
	signal(SIGUSR1, on_usr1);
	t0 = now();
	for (pg = 0; pg < npages; pg++)
		page_io((uint64_t *)(mem + pg * PAGE), pg, gen, 0);
	for (pass = 0; pass < passes && !stop; pass++) {
		for (pg = 0; pg < npages && !stop; pg++) {
			uint64_t *p = (uint64_t *)(mem + pg * PAGE);

			mismatches += page_io(p, pg, gen, 1) != 0;
			if (!read_only)
				page_io(p, pg, gen + 1, 0);
		}
		if (!read_only)
			gen++;
	}
	if (rnd && !stop) {
		double end = now() + rnd;

		pgen = calloc(npages, 1);
		if (!pgen) {
			perror("thrash: calloc");
			return 2;
		}
		while (now() < end && !stop) {
			int i;

			for (i = 0; i < 256; i++) {
				uint64_t *p;

				state = mix(state);
				pg = state % npages;
				p = (uint64_t *)(mem + pg * PAGE);
				mismatches += page_io(p, pg, gen + pgen[pg], 1) != 0;
				pgen[pg]++;
				page_io(p, pg, gen + pgen[pg], 0);
				touched++;
			}
		}
		printf("random writes %lu\n", touched);
	}
	if (hold && !stop) {
		unsigned int left = hold;

		printf("filled\n");
		fflush(stdout);
		/* A handled signal ends sleep() early: SIGUSR1 or SIGTERM. */
		while (left && !released && !stop)
			left = sleep(left);
		for (pg = 0; pg < npages; pg++)
			mismatches += page_io((uint64_t *)(mem + pg * PAGE), pg,
					      gen + (pgen ? pgen[pg] : 0), 1) != 0;
	}
	printf("pages %lu mismatches %llu seconds %.2f%s\n", npages, mismatches,
	       now() - t0, stop ? " stopped" : "");
	return mismatches ? 1 : 0;
}
