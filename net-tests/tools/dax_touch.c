// SPDX-License-Identifier: GPL-2.0
/*
 * dax_touch FILE [write | at OFFSET]: map FILE shared and read its first
 * byte (or the byte at OFFSET), or with "write" fill the whole mapping with
 * random bytes and msync(MS_SYNC) it.
 * A SIGBUS (a DAX fault on a bad block) prints "SIGBUS" and exits 3;
 * other failures print the call and errno and exit 1.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_sigbus(int sig)
{
	static const char msg[] = "SIGBUS\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(3);
}

int main(int argc, char **argv)
{
	int wr = argc == 3 && !strcmp(argv[2], "write");
	size_t i, at = 0;
	volatile char *p;
	struct stat st;
	ssize_t n;
	int fd;

	if (argc == 4 && !strcmp(argv[2], "at"))
		at = strtoull(argv[3], NULL, 0);
	else if (argc < 2 || argc > 3 || (argc == 3 && !wr)) {
		fprintf(stderr, "usage: %s FILE [write | at OFFSET]\n", argv[0]);
		return 2;
	}
	signal(SIGBUS, on_sigbus);
	fd = open(argv[1], wr ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !st.st_size || at >= (size_t)st.st_size) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, st.st_size, wr ? PROT_READ | PROT_WRITE : PROT_READ,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (!wr) {
		printf("read %d\n", p[at]);
		return 0;
	}
	for (i = 0; i < (size_t)st.st_size; i += (size_t)n) {
		n = getrandom((char *)p + i, st.st_size - i, 0);
		if (n <= 0) {
			perror("getrandom");
			return 1;
		}
	}
	if (msync((void *)p, st.st_size, MS_SYNC)) {
		perror("msync");
		return 1;
	}
	printf("written\n");
	return 0;
}
