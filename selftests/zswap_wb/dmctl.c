// SPDX-License-Identifier: GPL-2.0
/*
 * dmctl - the few device-mapper operations the tests need, without dmsetup.
 *
 *   dmctl create NAME DEV [MS]  a linear device over all of DEV, or with MS
 *                            a dm-delay one that holds each write MS
 *                            milliseconds (reads and flushes not held);
 *                            prints dm-N
 *   dmctl suspend NAME       finish the I/O in flight, hold new I/O
 *   dmctl resume NAME        let the held I/O go
 *   dmctl remove NAME
 *
 * A suspended device stalls every swap write sent to it: a stuck disk that
 * the guest can end when the test is done. devtmpfs creates /dev/dm-N.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BUF 16384

static union {
	struct dm_ioctl dmi;
	char raw[BUF];
} buf;

static void dm_init(const char *name, unsigned int flags)
{
	memset(&buf, 0, sizeof(buf));
	buf.dmi.version[0] = DM_VERSION_MAJOR;
	buf.dmi.version[1] = 0;
	buf.dmi.version[2] = 0;
	buf.dmi.data_size = BUF;
	buf.dmi.data_start = sizeof(struct dm_ioctl);
	buf.dmi.flags = flags;
	snprintf(buf.dmi.name, sizeof(buf.dmi.name), "%s", name);
}

static int dm_ioctl(int ctl, unsigned long cmd, const char *what)
{
	if (ioctl(ctl, cmd, &buf) < 0) {
		fprintf(stderr, "dmctl: %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A table over all of @dev, loaded into the inactive slot: linear, or with
 * @delay_ms a dm-delay one whose writes wait @delay_ms.
 */
static int load_table(int ctl, const char *name, const char *dev, const char *delay_ms)
{
	struct dm_target_spec *t;
	uint64_t bytes;
	struct stat st;
	int fd;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || ioctl(fd, BLKGETSIZE64, &bytes)) {
		fprintf(stderr, "dmctl: %s: %s\n", dev, strerror(errno));
		return -1;
	}
	close(fd);
	dm_init(name, 0);
	buf.dmi.target_count = 1;
	t = (struct dm_target_spec *)(buf.raw + sizeof(struct dm_ioctl));
	t->sector_start = 0;
	t->length = bytes >> 9;
	snprintf(t->target_type, sizeof(t->target_type), delay_ms ? "delay" : "linear");
	if (delay_ms)
		snprintf((char *)(t + 1), BUF - sizeof(struct dm_ioctl) - sizeof(*t),
			 "%u:%u 0 0 %u:%u 0 %s %u:%u 0 0", major(st.st_rdev), minor(st.st_rdev),
			 major(st.st_rdev), minor(st.st_rdev), delay_ms,
			 major(st.st_rdev), minor(st.st_rdev));
	else
		snprintf((char *)(t + 1), BUF - sizeof(struct dm_ioctl) - sizeof(*t),
			 "%u:%u 0", major(st.st_rdev), minor(st.st_rdev));
	t->next = 0;
	return dm_ioctl(ctl, DM_TABLE_LOAD, "load table");
}

int main(int argc, char **argv)
{
	const char *op = argc > 2 ? argv[1] : "";
	bool delay = argc == 5 && *argv[4] && strspn(argv[4], "0123456789") == strlen(argv[4]);
	int ctl, ret = -1;

	if (!(((argc == 4 || delay) && !strcmp(op, "create")) ||
	      (argc == 3 && (!strcmp(op, "suspend") || !strcmp(op, "resume") ||
			     !strcmp(op, "remove"))))) {
		fprintf(stderr, "usage: dmctl create NAME DEV [WRITE_DELAY_MS] | suspend NAME |\n"
			"       resume NAME | remove NAME\n");
		return 2;
	}
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		mkdir("/dev/mapper", 0755);
		if (mknod("/dev/mapper/control", S_IFCHR | 0600,
			  makedev(10, 236)) && errno != EEXIST)
			perror("dmctl: mknod /dev/mapper/control");
		ctl = open("/dev/mapper/control", O_RDWR);
	}
	if (ctl < 0) {
		perror("dmctl: /dev/mapper/control");
		return 1;
	}

	if (!strcmp(op, "create")) {
		dm_init(argv[2], 0);
		if (dm_ioctl(ctl, DM_DEV_CREATE, "create"))
			return 1;
		if (load_table(ctl, argv[2], argv[3], argc == 5 ? argv[4] : NULL))
			goto remove;
		/* Resuming a new device makes its loaded table live. */
		dm_init(argv[2], 0);
		if (dm_ioctl(ctl, DM_DEV_SUSPEND, "activate"))
			goto remove;
		printf("dm-%u\n", minor(buf.dmi.dev));
		return 0;
remove:
		dm_init(argv[2], 0);
		dm_ioctl(ctl, DM_DEV_REMOVE, "remove");
		return 1;
	}
	if (!strcmp(op, "suspend")) {
		dm_init(argv[2], DM_SUSPEND_FLAG);
		ret = dm_ioctl(ctl, DM_DEV_SUSPEND, "suspend");
	} else if (!strcmp(op, "resume")) {
		dm_init(argv[2], 0);
		ret = dm_ioctl(ctl, DM_DEV_SUSPEND, "resume");
	} else {
		dm_init(argv[2], 0);
		ret = dm_ioctl(ctl, DM_DEV_REMOVE, "remove");
	}
	return ret ? 1 : 0;
}
