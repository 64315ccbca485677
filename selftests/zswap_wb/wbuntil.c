// SPDX-License-Identifier: GPL-2.0
/*
 * wbuntil - wait until zswap has written back a number of pages, and
 * copy the counters at that moment.
 *
 *   wbuntil PAGES TIMEOUT_S STOP_FILE OUT_DIR FILE...
 *
 * Reads zswpwb from /proc/vmstat every millisecond until it has grown by
 * PAGES (or TIMEOUT_S seconds have passed), then writes "0" to STOP_FILE
 * (a trace instance's tracing_on, or /dev/null) and copies each FILE to
 * OUT_DIR under its base name, at once: a shell loop polling the counter
 * and then reading each file in turn would let a batched shrinker write
 * back hundreds of pages more between the two. Prints "written_back N"
 * (as seen when it stopped); exits 0 when PAGES were reached, 1 on the
 * timeout, 2 on an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The value of zswpwb, -1 on an error. */
static long zswpwb(int fd)
{
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *p;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nzswpwb ");
	return p ? strtol(p + 8, NULL, 10) : -1;
}

static int copy(const char *src, const char *dir)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char dst[4096];
	int in, out;
	ssize_t n;

	snprintf(dst, sizeof(dst), "%s/%s", dir, base);
	in = open(src, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "wbuntil: %s: %s\n", src, strerror(errno));
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "wbuntil: %s: %s\n", dst, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	close(in);
	close(out);
	return n == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	long pages, start, cur;
	double end;
	int fd, stop, i, ret = 0;

	if (argc < 6) {
		fprintf(stderr, "usage: wbuntil PAGES TIMEOUT_S STOP_FILE OUT_DIR FILE...\n");
		return 2;
	}
	pages = atol(argv[1]);
	if (pages <= 0 || atof(argv[2]) <= 0) {
		fprintf(stderr, "wbuntil: PAGES and TIMEOUT_S must be positive\n");
		return 2;
	}
	fd = open("/proc/vmstat", O_RDONLY);
	stop = open(argv[3], O_WRONLY);
	if (fd < 0 || stop < 0) {
		perror("wbuntil: open");
		return 2;
	}
	start = zswpwb(fd);
	if (start < 0) {
		fprintf(stderr, "wbuntil: no zswpwb in /proc/vmstat\n");
		return 2;
	}
	end = now() + atof(argv[2]);
	while ((cur = zswpwb(fd)) - start < pages) {
		if (cur < 0 || now() >= end) {
			ret = 1;
			break;
		}
		usleep(1000);
	}
	if (write(stop, "0", 1) != 1)
		perror("wbuntil: STOP_FILE");
	for (i = 5; i < argc; i++)
		if (copy(argv[i], argv[4]))
			ret = 2;
	printf("written_back %ld\n", cur - start);
	return ret;
}
