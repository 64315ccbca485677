// SPDX-License-Identifier: GPL-2.0
/*
 * pfnfind - the pfns of a memcg's pages, by their flags.
 *
 *   pfnfind CGROUP_DIR SET CLEAR [MAX]
 *
 * Prints, one a line, the pfns charged to the memcg of CGROUP_DIR (its
 * inode in /proc/kpagecgroup; "-": any memcg or none) whose
 * /proc/kpageflags word has every flag of SET and none of CLEAR, MAX of
 * them at most (0 or none: all). SET and CLEAR are comma-separated lists
 * of the names below, or "-" for none,
 * e.g. "swapcache,locked" "lru,mmap,writeback": a folio zswap_wb holds
 * queued (in the swap cache, locked, off the LRU, unmapped, its write
 * done). The tests give such a pfn to the hardware poison injector
 * (/sys/kernel/debug/hwpoison/corrupt-pfn).
 *
 * Exits 0 if it printed a pfn, 1 if none matched, 2 if a file cannot be
 * read, 64 on bad arguments.
 */
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 8192	/* pfns a read */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	int bit;
} flags[] = {
	{ "locked", KPF_LOCKED },
	{ "dirty", KPF_DIRTY },
	{ "lru", KPF_LRU },
	{ "active", KPF_ACTIVE },
	{ "writeback", KPF_WRITEBACK },
	{ "reclaim", KPF_RECLAIM },
	{ "buddy", KPF_BUDDY },
	{ "mmap", KPF_MMAP },
	{ "anon", KPF_ANON },
	{ "swapcache", KPF_SWAPCACHE },
	{ "swapbacked", KPF_SWAPBACKED },
	{ "hwpoison", KPF_HWPOISON },
};

/* The mask of the names in @list, or -1 for an unknown name. */
static int64_t mask_of(char *list)
{
	int64_t mask = 0;
	char *name;
	size_t i;

	if (!strcmp(list, "-"))
		return 0;
	for (name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		for (i = 0; i < ARRAY_SIZE(flags); i++)
			if (!strcmp(name, flags[i].name))
				break;
		if (i == ARRAY_SIZE(flags)) {
			fprintf(stderr, "pfnfind: unknown flag %s\n", name);
			return -1;
		}
		mask |= 1LL << flags[i].bit;
	}
	return mask;
}

int main(int argc, char **argv)
{
	static uint64_t fl[CHUNK], cg[CHUNK];
	int64_t set, clear;
	long max = 0, found = 0;
	struct stat st;
	uint64_t pfn = 0;
	int ffd, cfd, any;

	any = argc > 1 && !strcmp(argv[1], "-");
	if (argc < 4 || argc > 5 || (!any && stat(argv[1], &st))) {
		fprintf(stderr, "usage: pfnfind CGROUP_DIR SET CLEAR [MAX]\n");
		return 64;
	}
	set = mask_of(argv[2]);
	clear = mask_of(argv[3]);
	if (argc == 5)
		max = atol(argv[4]);
	if (set < 0 || clear < 0 || max < 0)
		return 64;
	ffd = open("/proc/kpageflags", O_RDONLY);
	cfd = open("/proc/kpagecgroup", O_RDONLY);
	if (ffd < 0 || cfd < 0) {
		perror("pfnfind: /proc/kpageflags, /proc/kpagecgroup");
		return 2;
	}
	for (;;) {
		ssize_t nf = pread(ffd, fl, sizeof(fl), pfn * 8);
		ssize_t nc = pread(cfd, cg, sizeof(cg), pfn * 8);
		long i, n;

		if (nf < 0 || nc < 0) {
			perror("pfnfind: read");
			return 2;
		}
		n = (nf < nc ? nf : nc) / 8;
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			if ((fl[i] & set) != (uint64_t)set || (fl[i] & clear) ||
			    (!any && cg[i] != st.st_ino))
				continue;
			printf("%llu\n", (unsigned long long)(pfn + i));
			if (++found == max)
				return 0;
		}
		pfn += n;
	}
	return found ? 0 : 1;
}
