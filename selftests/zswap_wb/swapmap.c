// SPDX-License-Identifier: GPL-2.0
/*
 * swapmap - where a process's pages sit in swap.
 *
 *   swapmap PID
 *
 * Reads /proc/PID/pagemap over PID's largest private anonymous mapping
 * (thrash's region) and prints one line:
 *
 *   pages N present P swapped S clusters C fill_pct F adjacent_pct A slot_runs R
 *
 * swapped: pages whose PTE holds a swap entry of a swap device (in zswap
 * or on the device: the slot is the same), not a migration entry or a
 * marker, which pagemap flags as swap too; clusters: distinct 512-slot
 * swap clusters (SWAPFILE_CLUSTER, with CONFIG_THP_SWAP) among their slots; fill_pct: swapped / (clusters *
 * 512), how full the clusters the region uses are; adjacent_pct: of the
 * neighbouring pages both swapped to one device, the share whose slots
 * are neighbours too (offset + 1), which is what lets the block layer
 * merge their writes and readahead read them in one request; slot_runs:
 * the number of runs of consecutive slots in the region's page order.
 *
 * Needs CAP_SYS_ADMIN (pagemap hides swap offsets from others).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096UL
#define CLUSTER 512UL
#define PM_PRESENT (1ULL << 63)
#define PM_SWAP (1ULL << 62)
#define PM_SWAP_TYPE(e) ((e) & 0x1f)
#define PM_SWAP_OFFSET(e) (((e) >> 5) & ((1ULL << 50) - 1))
/*
 * Swap types from MAX_SWAPFILES up are migration, hwpoison, device and
 * marker entries (include/linux/swap.h): MAX_SWAPFILES is 32 less those,
 * 23 at the least. Entries of type 23 and up are not swap devices' slots.
 */
#define SWAP_TYPES_MIN 23

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned long start = 0, end = 0, s, e, pages, i;
	unsigned long present = 0, swapped = 0, pairs = 0, adjacent = 0, runs = 0;
	unsigned long clusters = 0, hidden = 0;
	char path[64], line[512], perm[8], dev[16];
	uint64_t *pm, *keys;
	unsigned long inode, off;
	size_t n = 0;
	FILE *maps;
	int fd, prev = 0;
	uint64_t pe = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: swapmap PID\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/maps", argv[1]);
	maps = fopen(path, "r");
	if (!maps) {
		perror(path);
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		int pos = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &s, &e, perm, &off,
			   dev, &inode, &pos) < 6)
			continue;
		/* Private, writable, no file and no name ([heap], [stack]). */
		if (inode || perm[1] != 'w' || perm[3] != 'p' ||
		    (pos && line[pos] && line[pos] != '\n'))
			continue;
		if (e - s > end - start) {
			start = s;
			end = e;
		}
	}
	fclose(maps);
	if (!end) {
		fprintf(stderr, "swapmap: no anonymous mapping in %s\n", path);
		return 1;
	}
	pages = (end - start) / PAGE;
	pm = calloc(pages, sizeof(*pm));
	keys = calloc(pages, sizeof(*keys));
	snprintf(path, sizeof(path), "/proc/%s/pagemap", argv[1]);
	fd = open(path, O_RDONLY);
	if (!pm || !keys || fd < 0) {
		perror(path);
		return 1;
	}
	if (pread(fd, pm, pages * sizeof(*pm), start / PAGE * sizeof(*pm)) !=
	    (ssize_t)(pages * sizeof(*pm))) {
		perror(path);
		return 1;
	}
	close(fd);
	for (i = 0; i < pages; i++) {
		uint64_t en = pm[i];
		int sw = (en & PM_SWAP) && !(en & PM_PRESENT) &&
			 PM_SWAP_TYPE(en) < SWAP_TYPES_MIN;

		present += !!(en & PM_PRESENT);
		if (sw) {
			swapped++;
			hidden += !PM_SWAP_OFFSET(en);
			keys[n++] = PM_SWAP_TYPE(en) << 50 | PM_SWAP_OFFSET(en) / CLUSTER;
			if (!prev || PM_SWAP_TYPE(en) != PM_SWAP_TYPE(pe) ||
			    PM_SWAP_OFFSET(en) != PM_SWAP_OFFSET(pe) + 1)
				runs++;
			if (prev && PM_SWAP_TYPE(en) == PM_SWAP_TYPE(pe)) {
				pairs++;
				adjacent += PM_SWAP_OFFSET(en) == PM_SWAP_OFFSET(pe) + 1;
			}
		}
		prev = sw;
		pe = en;
	}
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i++)
		clusters += !i || keys[i] != keys[i - 1];
	/* Slot 0 is the swap header: an offset of 0 is one pagemap hid. */
	if (swapped && hidden == swapped) {
		fprintf(stderr, "swapmap: %s hides swap offsets (needs CAP_SYS_ADMIN)\n", path);
		return 1;
	}
	printf("pages %lu present %lu swapped %lu clusters %lu fill_pct %.1f adjacent_pct %.1f slot_runs %lu\n",
	       pages, present, swapped, clusters,
	       clusters ? 100.0 * swapped / (clusters * CLUSTER) : 0.0,
	       pairs ? 100.0 * adjacent / pairs : 0.0, runs);
	return 0;
}
