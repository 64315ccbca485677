// SPDX-License-Identifier: GPL-2.0
/*
 * modload - load a module with the Nth fault-injection point of the loading
 * task failing (/proc/thread-self/fail-nth), and say whether it was hit.
 *
 *   modload FILE N [PARAMS]
 *
 * Writes N to fail-nth and calls finit_module() at once, so that every
 * failslab / fail_page_alloc site from the syscall on counts, including
 * the module's init. Prints "loaded" or "failed ERRNO", then "injected"
 * if the Nth call came, or "not reached" if the load made fewer calls:
 * a loop over N stops there, every site having been failed once.
 * Exits 0 if the module loaded, 1 if not, 2 on a usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, nth, ret, err;
	char left[32] = "";
	ssize_t len;

	if (argc < 3 || argc > 4 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: modload FILE N [PARAMS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || nth < 0) {
		perror("modload: open");
		return 2;
	}
	if (write(nth, argv[2], strlen(argv[2])) < 0) {
		perror("modload: fail-nth");
		return 2;
	}
	ret = syscall(SYS_finit_module, fd, argc == 4 ? argv[3] : "", 0);
	err = errno;
	/* Stop counting before anything else allocates. */
	len = pread(nth, left, sizeof(left) - 1, 0);
	if (write(nth, "0", 1) < 0)
		err = err ? err : errno;
	if (ret)
		printf("failed %d\n", err);
	else
		printf("loaded\n");
	printf("%s\n", len > 0 && atoi(left) == 0 ? "injected" : "not reached");
	return ret ? 1 : 0;
}
