// SPDX-License-Identifier: GPL-2.0
/*
 * dax_touch FILE [write | at OFFSET | poison OFFSET]: map FILE shared and
 * read its first byte (or the byte at OFFSET), or with "write" fill the
 * whole mapping with random bytes and msync(MS_SYNC) it, or with "poison"
 * read the byte at OFFSET and inject a memory failure into its page
 * (madvise(MADV_HWPOISON): CAP_SYS_ADMIN, CONFIG_MEMORY_FAILURE), which
 * prints "poisoned" (the SIGBUS the kernel then sends the process that
 * maps the page included).
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

/* set once the page is read and the injection asked for */
static volatile sig_atomic_t injecting;

static void on_sigbus(int sig)
{
	static const char msg[] = "SIGBUS\n", done[] = "poisoned\n";

	(void)sig;
	if (injecting) {
		if (write(STDOUT_FILENO, done, sizeof(done) - 1) < 0)
			_exit(4);
		_exit(0);
	}
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(3);
}

int main(int argc, char **argv)
{
	int wr = argc == 3 && !strcmp(argv[2], "write");
	int poison = argc == 4 && !strcmp(argv[2], "poison");
	size_t i, at = 0;
	volatile char *p;
	struct stat st;
	ssize_t n;
	int fd;

	if (argc == 4 && (!strcmp(argv[2], "at") || poison))
		at = strtoull(argv[3], NULL, 0);
	else if (argc < 2 || argc > 3 || (argc == 3 && !wr)) {
		fprintf(stderr, "usage: %s FILE [write | at OFFSET | poison OFFSET]\n", argv[0]);
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
	if (poison) {
		(void)p[at];
		injecting = 1;
		if (madvise((char *)p + (at & ~(size_t)4095), 4096, MADV_HWPOISON)) {
			perror("madvise(MADV_HWPOISON)");
			return 1;
		}
		printf("poisoned\n");
		return 0;
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
