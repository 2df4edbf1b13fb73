// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy_bw [--size N] [--reps N]: the machine's memcpy bandwidth, to read
 * the send and fio figures of a guest against. Allocates two buffers of
 * --size bytes (default 256 MiB; K, M or G suffix: powers of 1024), writes
 * every page of both first (so no page fault is timed), then copies one
 * into the other --reps times (default 5) with the C library's memcpy,
 * timing each copy on CLOCK_MONOTONIC.
 *
 * Prints one line on stdout:
 *   memcpy_MBps MEDIAN MIN MAX
 * over the repetitions, MB = 10^6 bytes copied (read once, written once)
 * per second; the median of an even count is the mean of the middle two.
 * Any failure prints the call and errno and exits 1; usage errors exit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_REPS 1000

static const char *prog = "memcpy_bw";
#include "bench_tool.h"

static void usage(void)
{
	fprintf(stderr, "usage: %s [--size N] [--reps N]\n", prog);
	exit(2);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void *alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fail("mmap");
	return p;
}

int main(int argc, char **argv)
{
	uint64_t size = 256 << 20, reps = 5, r;
	double mbps[MAX_REPS], t0, t1, med;
	char *src, *dst;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			size = parse_size(argv[++i]);
			if (!size)
				usage();
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = parse_size(argv[++i]);
			if (!reps || reps > MAX_REPS)
				usage();
		} else {
			usage();
		}
	}

	src = alloc(size);
	dst = alloc(size);
	/* fault every page in, and give src content that is not all zero */
	for (r = 0; r < size; r++)
		src[r] = (char)(r * 131 + (r >> 12));
	memset(dst, 1, size);

	for (r = 0; r < reps; r++) {
		t0 = now();
		memcpy(dst, src, size);
		/* the copy's result is used: the compiler must not drop it */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		t1 = now();
		if (t1 <= t0) {
			errno = ERANGE;
			fail("clock_gettime: copy took no time, use a larger --size");
		}
		mbps[r] = size / (t1 - t0) / 1e6;
	}
	if (memcmp(dst, src, size)) {
		errno = EIO;
		fail("memcmp: the copy differs from its source");
	}

	qsort(mbps, reps, sizeof(mbps[0]), cmp_double);
	med = reps % 2 ? mbps[reps / 2] :
			 (mbps[reps / 2 - 1] + mbps[reps / 2]) / 2;
	printf("memcpy_MBps %.1f %.1f %.1f\n", med, mbps[0], mbps[reps - 1]);
	return 0;
}
