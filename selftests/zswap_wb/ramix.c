// SPDX-License-Identifier: GPL-2.0
/*
 * ramix - sequential faults on disk-resident pages, optionally interleaved
 * with scattered faults on zswap-resident pages of the same mapping.
 *
 *   ramix DISK_MIB ZSWAP_MIB [interleave]
 *
 * Maps DISK_MIB + ZSWAP_MIB of anonymous memory as one VMA, so that both
 * parts share the VMA's readahead state. It fills the first part with
 * checkable data, pages it out itself (MADV_PAGEOUT, which the test runs
 * with zswap off, so that it goes to the swap device) and stops itself
 * (SIGSTOP). MADV_PAGEOUT reclaims the pages in address order, so that
 * they take consecutive swap slots: cluster readahead, which reads the
 * slots around a fault, then sees the same layout in every run. Reclaim
 * from the LRU would not: the pages that compaction migrated meanwhile
 * are back on it out of order. After SIGCONT ramix fills the second part
 * and stops again: the test pushes that into zswap. After the second SIGCONT it reads the first part in order; with
 * "interleave", each of those faults is followed by one on a page of the
 * second part, scattered over it, as a random swap-in would be. Every page
 * read is checked. Prints "pages N mismatches M majflt K" and exits 1 on
 * a mismatch.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGE 4096UL
/* Scatter the second part's faults: coprime with any power of two. */
#define STRIDE 7919UL

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	/* never zero: zswap does not store zero-filled pages */
	return (x ^ (x >> 33)) | 1;
}

/* Half pseudo-random, half a repeated word: zswap stores it at about 2:1. */
static void fill(uint64_t *p, unsigned long idx)
{
	unsigned long i, n = PAGE / sizeof(*p);

	for (i = 0; i < n / 2; i++)
		p[i] = mix(idx * n + i);
	for (; i < n; i++)
		p[i] = mix(idx);
}

static int check(const uint64_t *p, unsigned long idx)
{
	unsigned long n = PAGE / sizeof(*p);

	return p[0] == mix(idx * n) && p[n - 1] == mix(idx);
}

int main(int argc, char **argv)
{
	unsigned long nd, nz, i, bad = 0;
	struct rusage ru;
	int interleave;
	char *mem;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "interleave"))) {
		fprintf(stderr, "usage: ramix DISK_MIB ZSWAP_MIB [interleave]\n");
		return 2;
	}
	nd = strtoul(argv[1], NULL, 0) * (1 << 20) / PAGE;
	nz = strtoul(argv[2], NULL, 0) * (1 << 20) / PAGE;
	interleave = argc == 4;
	if (!nd || !nz || (interleave && nz < nd)) {
		fprintf(stderr, "ramix: sizes must be > 0, ZSWAP_MIB >= DISK_MIB to interleave\n");
		return 2;
	}
	mem = mmap(NULL, (nd + nz) * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	madvise(mem, (nd + nz) * PAGE, MADV_NOHUGEPAGE);

	for (i = 0; i < nd; i++)
		fill((uint64_t *)(mem + i * PAGE), i);
	/* Twice: a page compaction held isolated the first time is skipped. */
	for (i = 0; i < 2; i++)
		if (madvise(mem, nd * PAGE, MADV_PAGEOUT)) {
			perror("madvise(MADV_PAGEOUT)");
			return 2;
		}
	printf("filled disk part\n");
	fflush(stdout);
	raise(SIGSTOP);
	for (i = nd; i < nd + nz; i++)
		fill((uint64_t *)(mem + i * PAGE), i);
	printf("filled zswap part\n");
	fflush(stdout);
	raise(SIGSTOP);

	for (i = 0; i < nd; i++) {
		unsigned long z = nd + (i * STRIDE) % nz;

		bad += !check((uint64_t *)(mem + i * PAGE), i);
		if (interleave)
			bad += !check((uint64_t *)(mem + z * PAGE), z);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("pages %lu mismatches %lu majflt %ld\n",
	       interleave ? 2 * nd : nd, bad, ru.ru_majflt);
	return bad ? 1 : 0;
}
