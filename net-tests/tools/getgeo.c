// SPDX-License-Identifier: GPL-2.0
/*
 * getgeo DEV: print the HDIO_GETGEO answer of a block device exactly as
 * the driver gave it: "heads=H sectors=S cylinders=C start=N".
 */
#include <fcntl.h>
#include <linux/hdreg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct hd_geometry geo;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEV\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, HDIO_GETGEO, &geo)) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("heads=%u sectors=%u cylinders=%u start=%lu\n", geo.heads,
	       geo.sectors, geo.cylinders, geo.start);
	close(fd);
	return 0;
}
