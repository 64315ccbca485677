// SPDX-License-Identifier: GPL-2.0
/*
 * rtspin - hold one CPU with a SCHED_FIFO busy loop, as a real-time task
 * on a host with RT throttling off (sched_rt_runtime_us = -1) does.
 *
 *   rtspin CPU SECONDS
 *
 * Pins itself to CPU, takes SCHED_FIFO priority 99, prints "spinning"
 * and spins in user space for SECONDS, then prints "done" and exits. While
 * it spins, no SCHED_OTHER task runs on CPU: neither that CPU's kworkers
 * nor its ksoftirqd. Interrupts still do.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 99 };
	double end;
	cpu_set_t set;

	if (argc != 3) {
		fprintf(stderr, "usage: rtspin CPU SECONDS\n");
		return 64;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("rtspin: sched_setaffinity");
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("rtspin: sched_setscheduler");
		return 1;
	}
	end = now() + atof(argv[2]);
	printf("spinning\n");
	fflush(stdout);
	while (now() < end)
		;
	printf("done\n");
	return 0;
}
