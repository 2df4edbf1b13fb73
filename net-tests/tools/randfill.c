// SPDX-License-Identifier: GPL-2.0
/*
 * randfill: write BYTES pseudo-random bytes to stdout in 1 MiB writes.
 *
 *   randfill BYTES [SEED]
 *
 * Test data, not secrets: /dev/urandom runs at a few MB/s in a TCG guest
 * with KASAN and `head -c` writes it in small pieces, which on a DAX file
 * is one slow copy per piece. xorshift64* is fast; its seed is SEED, or
 * else 8 bytes of getrandom(2), so that two runs (two files a test tells
 * apart) give different streams. Any error ends it with exit status 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static uint64_t buf[CHUNK / 8];

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
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
	if (argc == 2 && getrandom(&x, sizeof(x), 0) != sizeof(x)) {
		perror("randfill: getrandom");
		return 1;
	}
	if (!x)		/* xorshift's state must not be 0 */
		x = 0x9e3779b97f4a7c15ULL;
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
