// SPDX-License-Identifier: GPL-2.0
/*
 * kpageread - the page-flag reader of the selftests' host load.
 *
 * Reads /proc/kpageflags, /proc/kpagecount and /proc/kpagecgroup (those
 * that exist), BLOCKS 64 KiB blocks of each (8,192 pfns a block): each
 * round the next 1/SLICES of each file (whole pfns, 64 KiB a read at
 * most; SLICES is at most the number of pfns), so that SLICES rounds
 * read all of them; PAUSE_S seconds between rounds; until SIGTERM. After each round in
 * which every read succeeded and some pfns were read, it writes the
 * number of such rounds to COUNT_FILE. For each pfn read the kernel takes
 * page_folio() and tests the flags (stable_page_flags()).
 *
 * One process for the whole load: a shell loop of dd, cat and sleep forks
 * and execs six programs a round, and on the debug kernel under icount a
 * fork and exec of a static busybox costs more guest time than a slice's
 * reads: the page-flag part of the load would be its forks, whatever the
 * slice.
 *
 *   kpageread BLOCKS SLICES PAUSE_S COUNT_FILE
 *
 * Exits 0 on SIGTERM, 1 if a file cannot be opened, 64 on bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 65536

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long arg(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || end == s || v < min ? -1 : v;
}

/*
 * Write @n to @path over what it held: the count only grows, so the file
 * is never seen empty or shorter (no O_TRUNC).
 */
static void count(const char *path, long n)
{
	char buf[32];
	int fd, len;

	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%ld\n", n);
	if (pwrite(fd, buf, len, 0) != len)
		perror("kpageread: write");
	close(fd);
}

int main(int argc, char **argv)
{
	static const char * const names[] = {
		"/proc/kpageflags", "/proc/kpagecount", "/proc/kpagecgroup",
	};
	static char buf[BLOCK];
	struct sigaction sa = { .sa_handler = on_term };
	long blocks, slices, pause_s, slice = 0, rounds = 0;
	off_t size, pfns, per, off, end;
	int fd[3], nr = 0, i;

	blocks = argc == 5 ? arg(argv[1], 1) : -1;
	slices = argc == 5 ? arg(argv[2], 1) : -1;
	pause_s = argc == 5 ? arg(argv[3], 0) : -1;
	if (blocks < 0 || slices < 0 || pause_s < 0) {
		fprintf(stderr, "usage: kpageread BLOCKS SLICES PAUSE_S COUNT_FILE\n");
		return 64;
	}
	for (i = 0; i < 3; i++) {
		int f = open(names[i], O_RDONLY);

		if (f < 0 && errno == ENOENT)
			continue;
		if (f < 0) {
			fprintf(stderr, "kpageread: %s: %s\n", names[i], strerror(errno));
			return 1;
		}
		fd[nr++] = f;
	}
	if (!nr) {
		fprintf(stderr, "kpageread: no page-flag file in /proc\n");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	size = (off_t)blocks * BLOCK;
	/* A slice of whole pfns (8 bytes each), at least one. */
	pfns = size / 8;
	if (slices > pfns)
		slices = pfns;
	per = (pfns + slices - 1) / slices * 8;
	while (!stop) {
		off_t got = 0;
		ssize_t n = 0;
		int ok = 1;

		for (i = 0; i < nr && !stop; i++) {
			end = (slice + 1) * per < size ? (slice + 1) * per : size;
			for (off = slice * per; off < end && !stop; off += n) {
				size_t len = end - off < BLOCK ? end - off : BLOCK;

				n = pread(fd[i], buf, len, off);
				if (n < 0 && errno != EINTR)
					ok = 0;
				/* Short only past the last pfn the kernel dumps. */
				if (n <= 0)
					break;
				got += n;
			}
		}
		if (stop)
			break;
		if (ok && got)
			count(argv[4], ++rounds);
		slice = (slice + 1) * per < size ? slice + 1 : 0;
		if (pause_s) {
			struct timespec ts = { .tv_sec = pause_s };

			/* A SIGTERM cuts the sleep short: stop at once. */
			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < nr; i++)
		close(fd[i]);
	return 0;
}
