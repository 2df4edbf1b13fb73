// SPDX-License-Identifier: GPL-2.0
/*
 * vmsplice_hold FILE PAGES: map FILE shared, vmsplice() its first PAGES
 * pages into a pipe (the pipe buffers then hold references on the pages
 * themselves, on a DAX file the pmem pages), unmap the file and close it,
 * print "held N" and keep the pipe open until killed. What a process can
 * do to keep pages of a disk referenced after the filesystem is unmounted.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages, page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	ssize_t n;
	int fd, p[2];
	char *m;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE PAGES\n", argv[0]);
		return 2;
	}
	pages = atol(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pipe(p)) {
		perror(argv[1]);
		return 1;
	}
	fcntl(p[1], F_SETPIPE_SZ, (int)(pages * page));
	m = mmap(NULL, pages * page, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	iov.iov_base = m;
	iov.iov_len = pages * page;
	n = vmsplice(p[1], &iov, 1, 0);
	if (n != pages * page) {
		perror("vmsplice");
		return 1;
	}
	munmap(m, pages * page);
	close(fd);
	printf("held %ld\n", pages);
	fflush(stdout);
	for (;;)
		pause();
}
