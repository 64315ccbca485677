// SPDX-License-Identifier: GPL-2.0
/*
 * swapinrace - swap in a region right after zswap wrote it back.
 *
 *   swapinrace MIB write|writefork|procmem
 *
 * Maps MIB of anonymous memory, fills every word with a value of its own
 * (not zero, so that zswap stores it), prints "ready" and stops itself
 * (SIGSTOP). The test pushes the region to zswap and writes it back
 * meanwhile, then continues it (SIGCONT). Then, by MODE:
 *
 *   write      writes the first word of every page (a write fault) and
 *              checks every word;
 *   writefork  the same, then forks a child that exits at once and writes
 *              every page again: a page whose frame changed (pagemap) was
 *              copied;
 *   procmem    writes the first word of every page through /proc/self/mem
 *              (a write through get_user_pages(), which dirties the folio
 *              as it unpins it) and checks every word.
 *
 * Prints "touched N S s", "mismatches N" and, for writefork, "copied N",
 * then stops itself again with the region mapped, so that the test can
 * read the memcg's swap and the folios' fate; continued, it unmaps the
 * region and exits, 0 only if no word mismatched.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define WORDS (PAGE / sizeof(uint64_t))

static uint64_t value(unsigned long page, unsigned long word, int pass)
{
	return ((uint64_t)page << 20 | word << 4 | pass) + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The page frame numbers of the region, from /proc/self/pagemap. */
static int frames(uint64_t *buf, unsigned long pages, uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	unsigned long i;

	if (fd < 0) {
		perror("swapinrace: pagemap");
		return -1;
	}
	for (i = 0; i < pages; i++) {
		uint64_t e;
		off_t off = (uintptr_t)((char *)buf + i * PAGE) / PAGE * 8;

		if (pread(fd, &e, 8, off) != 8) {
			perror("swapinrace: pagemap read");
			close(fd);
			return -1;
		}
		pfn[i] = e & ((1ULL << 55) - 1);
	}
	close(fd);
	return 0;
}

static unsigned long check(uint64_t *buf, unsigned long pages, int pass)
{
	unsigned long i, j, bad = 0;

	for (i = 0; i < pages; i++)
		for (j = 0; j < WORDS; j++)
			if (buf[i * WORDS + j] != value(i, j, j ? 0 : pass))
				bad++;
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long pages, i, bad, copied = 0;
	uint64_t *buf, *pfn = NULL;
	int procmem, fork_too, fd = -1;
	double t;

	if (argc != 3 || atoi(argv[1]) <= 0 || (strcmp(argv[2], "write") &&
	    strcmp(argv[2], "writefork") && strcmp(argv[2], "procmem"))) {
		fprintf(stderr, "usage: swapinrace MIB write|writefork|procmem\n");
		return 64;
	}
	procmem = !strcmp(argv[2], "procmem");
	fork_too = !strcmp(argv[2], "writefork");
	pages = (unsigned long)atoi(argv[1]) << 20 >> 12;
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("swapinrace: mmap");
		return 2;
	}
	madvise(buf, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages * WORDS; i++)
		buf[i] = value(i / WORDS, i % WORDS, 0);
	if (procmem) {
		fd = open("/proc/self/mem", O_RDWR);
		if (fd < 0) {
			perror("swapinrace: /proc/self/mem");
			return 2;
		}
	} else if (fork_too) {
		pfn = calloc(2 * pages, sizeof(*pfn));
		if (!pfn)
			return 2;
	}
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);

	t = now();
	for (i = 0; i < pages; i++) {
		uint64_t v = value(i, 0, 1);

		if (!procmem) {
			buf[i * WORDS] = v;
		} else if (pwrite(fd, &v, 8, (uintptr_t)(buf + i * WORDS)) != 8) {
			perror("swapinrace: write to /proc/self/mem");
			return 2;
		}
	}
	printf("touched %lu %.3f s\n", pages, now() - t);
	bad = check(buf, pages, 1);
	if (fork_too) {
		pid_t pid;

		if (frames(buf, pages, pfn))
			return 2;
		pid = fork();
		if (pid < 0) {
			perror("swapinrace: fork");
			return 2;
		}
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
		for (i = 0; i < pages; i++)
			buf[i * WORDS] = value(i, 0, 2);
		bad += check(buf, pages, 2);
		if (frames(buf, pages, pfn + pages))
			return 2;
		for (i = 0; i < pages; i++)
			if (pfn[i] != pfn[pages + i])
				copied++;
		printf("copied %lu\n", copied);
	}
	printf("mismatches %lu\n", bad);
	fflush(stdout);
	raise(SIGSTOP);
	munmap(buf, pages * PAGE);
	return bad ? 1 : 0;
}
