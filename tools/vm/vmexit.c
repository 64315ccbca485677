// SPDX-License-Identifier: GPL-2.0
/*
 * vmexit - end the test VM with an exit status.
 *
 * Writes STATUS to QEMU's isa-debug-exit port (0xf4); QEMU then exits with
 * (STATUS << 1) | 1, which tools/vm/run.sh turns back into STATUS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;

	sync();
	if (ioperm(0xf4, 4, 1)) {
		perror("vmexit: ioperm");
		return 1;
	}
	outb((unsigned char)status, 0xf4);
	/* Not reached under QEMU with isa-debug-exit. */
	fprintf(stderr, "vmexit: no isa-debug-exit device\n");
	return 1;
}
