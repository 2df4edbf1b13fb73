// SPDX-License-Identifier: GPL-2.0
/*
 * randfill: write BYTES pseudo-random bytes to stdout in 1 MiB writes.
 *
 *   randfill BYTES [SEED]
 *
 * Test data, not secrets: /dev/urandom runs at a few MB/s in a TCG guest
 * with KASAN and `head -c` writes it in small pieces, which on a DAX file
 * is one slow copy per piece. xorshift64* seeded from SEED (default: the
 * time and pid) is fast and different in every run unless SEED is given.
 * A short write, or any error, ends it with exit status 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static uint64_t buf[CHUNK / 8];

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t left, x;
	size_t i, n;

	if (argc < 2 || argc > 3 || parse_u64(argv[1], &left) ||
	    (argc == 3 && parse_u64(argv[2], &x))) {
		fprintf(stderr, "usage: randfill BYTES [SEED]\n");
		return 2;
	}
	if (argc == 2)
		x = (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
	x |= 1;	/* xorshift's state must not be 0 */
	while (left) {
		n = left < CHUNK ? left : CHUNK;
		for (i = 0; i < (n + 7) / 8; i++) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			buf[i] = x * 0x2545f4914f6cdd1dULL;
		}
		for (i = 0; i < n; ) {
			ssize_t w = write(STDOUT_FILENO, (char *)buf + i, n - i);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				perror("randfill: write");
				return 1;
			}
			i += w;
		}
		left -= n;
	}
	return 0;
}
