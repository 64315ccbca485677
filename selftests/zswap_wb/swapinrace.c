// SPDX-License-Identifier: GPL-2.0
/*
 * swapinrace - swap in a region right after zswap wrote it back.
 *
 *   swapinrace MIB write|writefork|procmem
 *
 * Locks its own memory (mlockall(MCL_CURRENT)), so that only the region
 * goes to swap: a written-back page of its own stack or data would stop
 * it at its first instruction after SIGCONT, waiting for that folio, and
 * the region's folios would all be freed before it reached them. Maps MIB
 * of anonymous memory, fills every word with a value of its own (not
 * zero, so that zswap stores it), prints "ready" and stops itself
 * (SIGSTOP). The test pushes the region to zswap and writes it back
 * meanwhile, then continues it (SIGCONT). Then THREADS threads, each on a
 * slice of the region of its own, all at once (through /proc/self/mem,
 * a thread's get_user_pages() waits for a folio holding mmap_lock, and
 * the creation of the next thread waits for that), by MODE:
 *
 *   write      write the first word of every page of the slice (a write
 *              fault), the slice's first page first; the whole region is
 *              then checked;
 *   writefork  the same, then a fork of a child that exits at once, and
 *              every page written again: a page whose frame changed
 *              (pagemap) was copied. A page migrated meanwhile (compaction,
 *              as the host load runs it) changes its frame too: the pages
 *              migrated in the system from before the fork to a second
 *              after the last frame was read (migrate_pages() counts at
 *              its end) are printed, so that the test can run again;
 *   procmem    the same writes through /proc/self/mem (a write through
 *              get_user_pages(), which dirties the folio as it unpins
 *              it), then the check.
 *
 * The first pages of the slices are the ones whose faults come first,
 * all at once: while the folios wait to be freed, those are the faults
 * that find them. Prints "touched N S s", "first N W s" (the first pages
 * and the longest any of their writes took), "first_cached N" (first
 * pages still in the swap cache after the write, from /proc/kpageflags),
 * for writefork "copied N", "first_copied N" (of the whole region and of
 * the first pages) and "fork_migrated N", and "mismatches N"; then stops
 * itself again with the region mapped, so that the test can read the
 * memcg's swap and the
 * folios' fate; continued, it unmaps the region and exits, 0 only if no
 * word mismatched.
 */
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <pthread.h>
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
#define THREADS 16

static uint64_t *buf;
static unsigned long pages;
static int procmem, memfd = -1;

struct slice {
	pthread_t thread;
	unsigned long first, end;
	int pass;
	double wait;	/* the first page's write, s */
	int err;
};

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

/*
 * The frame of page @i of the region (/proc/self/pagemap), 0 if it is not
 * present or cannot be read (the frame bits of a swapped page are its
 * swap entry). A page being migrated (the host load compacts) is not
 * present for a moment: asked again for up to a second.
 */
static uint64_t frame(int fd, unsigned long i)
{
	off_t off = (uintptr_t)((char *)buf + i * PAGE) / PAGE * 8;
	uint64_t e;
	int try;

	for (try = 0; try < 1000; try++) {
		if (pread(fd, &e, 8, off) != 8)
			return 0;
		if (e >> 63)
			return e & ((1ULL << 55) - 1);
		usleep(1000);
	}
	return 0;
}

/* The frames of the region into @pfn; fails if one is not there. */
static int frames(uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	unsigned long i;

	if (fd < 0) {
		perror("swapinrace: pagemap");
		return -1;
	}
	for (i = 0; i < pages; i++) {
		pfn[i] = frame(fd, i);
		if (!pfn[i]) {
			fprintf(stderr, "swapinrace: no frame for page %lu\n", i);
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

/* How many of @sl's first pages are in the swap cache (/proc/kpageflags). */
static int first_cached(const struct slice *sl)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	int i, n = 0;

	if (pm < 0 || kf < 0) {
		perror("swapinrace: pagemap or kpageflags");
		n = -1;
		goto out;
	}
	for (i = 0; i < THREADS; i++) {
		uint64_t pfn = frame(pm, sl[i].first), flags;

		if (!pfn || pread(kf, &flags, 8, pfn * 8) != 8) {
			fprintf(stderr, "swapinrace: no frame or flags for page %lu\n",
				sl[i].first);
			n = -1;
			goto out;
		}
		n += !!(flags & 1ULL << KPF_SWAPCACHE);
	}
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return n;
}

static int write_page(unsigned long i, int pass)
{
	uint64_t v = value(i, 0, pass);

	if (!procmem) {
		buf[i * WORDS] = v;
		return 0;
	}
	if (pwrite(memfd, &v, 8, (uintptr_t)(buf + i * WORDS)) != 8) {
		perror("swapinrace: write to /proc/self/mem");
		return -1;
	}
	return 0;
}

static void *write_slice(void *arg)
{
	struct slice *s = arg;
	double t = now();
	unsigned long i;

	s->err = write_page(s->first, s->pass);
	s->wait = now() - t;
	for (i = s->first + 1; !s->err && i < s->end; i++)
		s->err = write_page(i, s->pass);
	return NULL;
}

/* Write pass @pass over the region, a slice per thread, all at once. */
static int write_all(struct slice *sl, int pass)
{
	int i, err = 0;

	for (i = 0; i < THREADS; i++) {
		sl[i].first = pages * i / THREADS;
		sl[i].end = pages * (i + 1) / THREADS;
		sl[i].pass = pass;
		sl[i].err = 0;
		if (pthread_create(&sl[i].thread, NULL, write_slice, &sl[i])) {
			fprintf(stderr, "swapinrace: pthread_create failed\n");
			return -1;
		}
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(sl[i].thread, NULL);
		err |= sl[i].err;
	}
	return err;
}

/* /proc/vmstat's pgmigrate_success, or -1. */
static long migrated(void)
{
	char name[64];
	long v, r = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, "pgmigrate_success")) {
			r = v;
			break;
		}
	fclose(f);
	return r;
}

static unsigned long check(int pass)
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
	struct slice sl[THREADS];
	unsigned long i, bad, copied = 0, first_copied = 0;
	uint64_t *pfn = NULL;
	int fork_too, cached, k;
	double t, wait = 0;

	if (argc != 3 || atoi(argv[1]) <= 0 || (strcmp(argv[2], "write") &&
	    strcmp(argv[2], "writefork") && strcmp(argv[2], "procmem"))) {
		fprintf(stderr, "usage: swapinrace MIB write|writefork|procmem\n");
		return 64;
	}
	procmem = !strcmp(argv[2], "procmem");
	fork_too = !strcmp(argv[2], "writefork");
	pages = (unsigned long)atoi(argv[1]) << 20 >> 12;
	if (procmem) {
		memfd = open("/proc/self/mem", O_RDWR);
		if (memfd < 0) {
			perror("swapinrace: /proc/self/mem");
			return 2;
		}
	} else if (fork_too) {
		pfn = calloc(2 * pages, sizeof(*pfn));
		if (!pfn)
			return 2;
	}
	/* What is mapped now stays: only the region, mapped after it, swaps. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("swapinrace: %lu pages, %d threads\n", pages, THREADS);
	if (mlockall(MCL_CURRENT)) {
		perror("swapinrace: mlockall");
		return 2;
	}
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("swapinrace: mmap");
		return 2;
	}
	madvise(buf, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages * WORDS; i++)
		buf[i] = value(i / WORDS, i % WORDS, 0);
	printf("ready\n");
	raise(SIGSTOP);

	t = now();
	if (write_all(sl, 1))
		return 2;
	printf("touched %lu %.3f s\n", pages, now() - t);
	for (k = 0; k < THREADS; k++)
		if (sl[k].wait > wait)
			wait = sl[k].wait;
	printf("first %d %.3f s\n", THREADS, wait);
	cached = first_cached(sl);
	if (cached < 0)
		return 2;
	printf("first_cached %d\n", cached);
	bad = check(1);
	if (fork_too) {
		long m0, m1;
		pid_t pid;

		m0 = migrated();
		if (m0 < 0) {
			fprintf(stderr, "swapinrace: no pgmigrate_success in /proc/vmstat\n");
			return 2;
		}
		if (frames(pfn))
			return 2;
		pid = fork();
		if (pid < 0) {
			perror("swapinrace: fork");
			return 2;
		}
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
		if (write_all(sl, 2))
			return 2;
		bad += check(2);
		if (frames(pfn + pages))
			return 2;
		sleep(1);
		m1 = migrated();
		for (i = 0; i < pages; i++)
			copied += pfn[i] != pfn[pages + i];
		for (k = 0; k < THREADS; k++)
			first_copied += pfn[sl[k].first] != pfn[pages + sl[k].first];
		printf("copied %lu\n", copied);
		printf("first_copied %lu\n", first_copied);
		printf("fork_migrated %ld\n", m1 - m0);
	}
	printf("mismatches %lu\n", bad);
	raise(SIGSTOP);
	munmap(buf, pages * PAGE);
	return bad ? 1 : 0;
}
