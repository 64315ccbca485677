// SPDX-License-Identifier: GPL-2.0
/*
 * cgsample - how far a memcg's usage went over a limit, sampled.
 *
 *   cgsample FILE LIMIT_BYTES INTERVAL_MS
 *
 * Reads the number in FILE (memory.zswap.current, say) every INTERVAL_MS
 * until SIGTERM or SIGINT, then prints one line:
 *
 *   samples N steady S over O over_max_kb X over_mean_kb M
 *   usage_mean_pct U usage_min_pct V
 *
 * The steady samples are those from the first one at or over LIMIT_BYTES
 * to the last one at or over it: the fill before the limit is first
 * reached and the end, when the workload exits and frees its entries, are
 * left out. Of them: "over" counts the samples above the limit;
 * over_max_kb is the largest excess, over_mean_kb the mean excess (a
 * sample under the limit counts as 0), both in KiB; usage_mean_pct and
 * usage_min_pct are the mean and the smallest usage in percent of the
 * limit (how far below it a shrink drove the usage). Samples are taken at
 * fixed times (CLOCK_MONOTONIC, absolute), so the mean excess times the
 * steady time is the excess integrated over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The number in the file open at @fd, or -1. */
static long long read_value(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, cap = 0, first = 0, last = 0, steady = 0, over = 0, i;
	long long limit, v, over_max = 0, usage_min = -1, *val = NULL;
	double over_sum = 0, usage_sum = 0;
	struct sigaction sa = { .sa_handler = on_stop };
	struct timespec next;
	long interval_ms;
	int fd, seen = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: cgsample FILE LIMIT_BYTES INTERVAL_MS\n");
		return 64;
	}
	limit = strtoll(argv[2], NULL, 0);
	interval_ms = strtol(argv[3], NULL, 0);
	if (limit <= 0 || interval_ms <= 0) {
		fprintf(stderr, "cgsample: LIMIT_BYTES and INTERVAL_MS must be > 0\n");
		return 64;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	/* No SA_RESTART: the signal ends the sleep at once. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		v = read_value(fd);
		if (v < 0) {
			if (!stop)
				perror(argv[1]);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			val = realloc(val, cap * sizeof(*val));
			if (!val) {
				perror("cgsample: realloc");
				return 2;
			}
		}
		if (v >= limit) {
			if (!seen)
				first = n;
			last = n;
			seen = 1;
		}
		val[n++] = v;
		next.tv_nsec += interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	for (i = first; seen && i <= last; i++) {
		v = val[i];
		if (v > limit) {
			over++;
			over_sum += v - limit;
			if (v - limit > over_max)
				over_max = v - limit;
		}
		usage_sum += v;
		if (usage_min < 0 || v < usage_min)
			usage_min = v;
	}
	steady = seen ? last - first + 1 : 0;
	printf("samples %llu steady %llu over %llu over_max_kb %.1f over_mean_kb %.1f usage_mean_pct %.1f usage_min_pct %.1f\n",
	       n, steady, over, over_max / 1024.0,
	       steady ? over_sum / steady / 1024 : 0.0,
	       steady ? 100.0 * usage_sum / steady / limit : 0.0,
	       usage_min >= 0 ? 100.0 * usage_min / limit : 0.0);
	free(val);
	return 0;
}
