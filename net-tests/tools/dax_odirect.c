// SPDX-License-Identifier: GPL-2.0
/*
 * dax_odirect FILE DEV LEN: write the first LEN bytes of FILE to DEV with
 * O_DIRECT, from a shared mmap of FILE. On a DAX file the block layer then
 * pins the pmem pages themselves (get_user_pages) and builds the bio from
 * them: the path that needs struct pages for pmem.
 * Exit 0 on success; on failure print the failing call and errno, exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len, done = 0;
	int in, out;
	char *p;

	if (argc != 4) {
		fprintf(stderr, "usage: %s FILE DEV LEN\n", argv[0]);
		return 2;
	}
	len = strtoull(argv[3], NULL, 0);
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_DIRECT);
	if (in < 0 || out < 0) {
		fprintf(stderr, "open: %s\n", strerror(errno));
		return 1;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, in, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap: %s\n", strerror(errno));
		return 1;
	}
	while (done < len) {
		ssize_t n = pwrite(out, p + done, len - done, done);

		if (n <= 0) {
			fprintf(stderr, "pwrite at %zu: %s\n", done,
				n ? strerror(errno) : "short write");
			return 1;
		}
		done += n;
	}
	if (fsync(out)) {
		fprintf(stderr, "fsync: %s\n", strerror(errno));
		return 1;
	}
	printf("wrote %zu bytes from the mapping with O_DIRECT\n", done);
	return 0;
}
