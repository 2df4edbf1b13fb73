// SPDX-License-Identifier: GPL-2.0
/*
 * zc_copyloop SRC DST N: N back-to-back PMEM_ZC_IOC_COPY calls of 4 KiB
 * each, from successive offsets of SRC to the same offsets of DST (one bio
 * each, so the completion of a bio races the end of its ioctl N times).
 * Prints "copies N" and exits 0 when every call wrote its 4 KiB.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pmem_zc.h>

int main(int argc, char **argv)
{
	struct pmem_zc_copy c = { .length = 4096 };
	int zc, n, i;

	if (argc != 4) {
		fprintf(stderr, "usage: %s SRC DST N\n", argv[0]);
		return 2;
	}
	n = atoi(argv[3]);
	zc = open("/dev/pmem_zc", O_RDWR);
	c.src_fd = open(argv[1], O_RDONLY);
	c.dst_fd = open(argv[2], O_WRONLY);
	if (zc < 0 || c.src_fd < 0 || c.dst_fd < 0) {
		perror("open");
		return 1;
	}
	for (i = 0; i < n; i++) {
		c.offset = c.dst_offset = (unsigned long long)(i % 256) * 4096;
		if (ioctl(zc, PMEM_ZC_IOC_COPY, &c) || c.bytes_done != 4096) {
			perror("PMEM_ZC_IOC_COPY");
			return 1;
		}
	}
	printf("copies %d\n", n);
	return 0;
}
