// SPDX-License-Identifier: GPL-2.0
/*
 * hostmem - the unrelated tenant of the selftests' host load.
 *
 * What another service on a fleet host does to memory while zswap_wb
 * works: it maps REGION MiB with MADV_HUGEPAGE, fills it with data derived
 * from its address and a generation, asks for a collapse into huge pages
 * (MADV_COLLAPSE; khugepaged does it too, scanning the region), forks a
 * child that writes to every other page (copy on write, which splits the
 * huge page mappings) and checks the rest, checks the whole region, and
 * unmaps it; again, with a short sleep, until SIGTERM. Two regions take
 * turns, so the footprint stays between one and two regions. The region
 * is faulted in small pages first, so that each collapse is a real one.
 *
 * It runs in a memcg of its own, sized so that it never reclaims: its
 * pages move (compaction, collapse, split, COW) but never go to swap, so
 * the counters of the test beside it stay the test's.
 *
 * Prints "rounds N collapsed C mismatches M" and exits 1 on a mismatch.
 *
 *   hostmem [--region MiB] [--sleep-ms MS]
 */
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define PAGE 4096UL
#define HPAGE (2UL << 20)

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t word(const void *p, uint64_t gen)
{
	uint64_t x = (uintptr_t)p ^ (gen * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

static void fill(char *mem, size_t len, size_t step, uint64_t gen)
{
	size_t off;

	for (off = 0; off < len; off += step)
		*(uint64_t *)(mem + off) = word(mem + off, gen);
}

static unsigned long check(const char *mem, size_t len, size_t step, size_t skip,
			   uint64_t gen)
{
	unsigned long bad = 0;
	size_t off;

	for (off = skip; off < len; off += step)
		if (*(const uint64_t *)(mem + off) != word(mem + off, gen))
			bad++;
	return bad;
}

/* len bytes aligned to a huge page, so that khugepaged can collapse them. */
static char *map_region(size_t len)
{
	char *raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *mem;

	if (raw == MAP_FAILED)
		return NULL;
	mem = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (mem > raw)
		munmap(raw, mem - raw);
	munmap(mem + len, raw + HPAGE - mem);
	return mem;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "region", required_argument, NULL, 'r' },
		{ "sleep-ms", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long rounds = 0, collapsed = 0, bad = 0;
	size_t len = 4UL << 20;
	char *regions[2] = { NULL, NULL };
	long sleep_ms = 50;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			len = strtoul(optarg, NULL, 0) << 20;
			break;
		case 's':
			sleep_ms = strtol(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: hostmem [--region MiB] [--sleep-ms MS]\n");
			return 2;
		}
	}
	if (len < HPAGE || len % HPAGE || sleep_ms < 0) {
		fprintf(stderr, "hostmem: the region is a multiple of 2 MiB, the sleep >= 0\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	while (!stop) {
		struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
		int i = rounds & 1, status;
		uint64_t gen = rounds + 1;
		char *mem;
		pid_t pid;

		if (regions[i])
			munmap(regions[i], len);
		mem = regions[i] = map_region(len);
		if (!mem) {
			perror("hostmem: mmap");
			return 1;
		}
		/* Faulted in small pages, then collapsed: a real collapse each round. */
		madvise(mem, len, MADV_NOHUGEPAGE);
		fill(mem, len, PAGE, gen);
		madvise(mem, len, MADV_HUGEPAGE);
		if (!madvise(mem, len, MADV_COLLAPSE))
			collapsed++;
		pid = fork();
		if (pid == 0) {
			/* Copy on write of every other page; the rest as the parent left it. */
			fill(mem, len, 2 * PAGE, gen + 1);
			_exit(check(mem, len, 2 * PAGE, PAGE, gen) ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
		bad += check(mem, len, PAGE, 0, gen);
		rounds++;
		/* A SIGTERM during the round ends it here, not after the sleep. */
		if (!stop)
			nanosleep(&ts, NULL);
	}
	printf("rounds %lu collapsed %lu mismatches %lu\n", rounds, collapsed, bad);
	return bad ? 1 : 0;
}
