// SPDX-License-Identifier: GPL-2.0
/*
 * swapprio - swapon with a priority, which busybox's swapon cannot give.
 *
 *   swapprio DEV PRIO
 *
 * Two devices at one priority take turns at the swap slots, so the pages
 * of one mapping end up interleaved over both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/swap.h>

int main(int argc, char **argv)
{
	int prio;

	if (argc != 3 || (prio = atoi(argv[2])) < 0 || prio > SWAP_FLAG_PRIO_MASK) {
		fprintf(stderr, "usage: swapprio DEV PRIO (0..%d)\n", SWAP_FLAG_PRIO_MASK);
		return 2;
	}
	if (swapon(argv[1], SWAP_FLAG_PREFER |
		   ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK))) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
