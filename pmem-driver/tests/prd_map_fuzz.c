// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the prd map= parser (../prd_map.c).
 *
 * Each input, NUL-terminated, is parsed with 4 KiB and 2 MiB alignment and
 * the result must satisfy the parser's contract; any violation aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "../prd_map.h"

#define CHECK(cond, map) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "invariant failed: %s, map \"%s\"\n",	\
			#cond, map);					\
		abort();						\
	}								\
} while (0)

static int printable_line(const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, 0, len) || !s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (s[i] < ' ' || s[i] > '~')
			return 0;
	return 1;
}

/* Parse @map with @align; on success return nr and fill @r, else 0. */
static unsigned int check(const char *map, uint64_t align,
			  struct prd_map_region *r)
{
	char err[PRD_MAP_ERR_LEN], tiny[5];
	unsigned int nr = 777, nr2 = 777, i, j;
	int ret, ret2;

	memset(err, 'x', sizeof(err));
	ret = prd_map_parse(map, align, r, &nr, err, sizeof(err));
	CHECK(ret == 0 || ret == -EINVAL, map);

	/* the same call with a tiny buffer: same result, no overrun */
	memset(tiny, 'x', sizeof(tiny));
	{
		struct prd_map_region r2[PRD_MAP_MAX];

		ret2 = prd_map_parse(map, align, r2, &nr2, tiny, sizeof(tiny));
		CHECK(ret2 == ret && nr2 == (ret ? 0 : nr), map);
		CHECK(ret || !memcmp(r, r2, nr * sizeof(*r)), map);
	}

	if (ret) {
		CHECK(nr == 0, map);
		CHECK(printable_line(err, sizeof(err)), map);
		CHECK(printable_line(tiny, sizeof(tiny)), map);
		return 0;
	}

	CHECK(err[0] == '\0' && tiny[0] == '\0', map);
	CHECK(nr >= 1 && nr <= PRD_MAP_MAX, map);
	CHECK(strlen(map) <= PRD_MAP_MAX_LEN, map);
	for (i = 0; i < nr; i++) {
		CHECK(r[i].size != 0, map);
		CHECK(!(r[i].size & (align - 1)), map);
		CHECK(!(r[i].start & (align - 1)), map);
		CHECK(r[i].start + r[i].size > r[i].start, map);
		for (j = 0; j < i; j++)
			CHECK(r[i].start >= r[j].start + r[j].size ||
			      r[j].start >= r[i].start + r[i].size, map);
	}
	return nr;
}

/* Print @r as a map= string and parse it back: it must give @r again. */
static void round_trip(const char *map, const struct prd_map_region *r,
		       unsigned int nr)
{
	char buf[PRD_MAP_MAX * 48], err[PRD_MAP_ERR_LEN];
	struct prd_map_region r2[PRD_MAP_MAX];
	unsigned int i, nr2;
	size_t n = 0;

	for (i = 0; i < nr; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s0x%llx%c%llu",
			      i ? "," : "", r[i].size, i & 1 ? '$' : '@',
			      r[i].start);
	CHECK(prd_map_parse(buf, 4096, r2, &nr2, err, sizeof(err)) == 0, map);
	CHECK(nr2 == nr && !memcmp(r, r2, nr * sizeof(*r)), map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prd_map_region r4k[PRD_MAP_MAX], r2m[PRD_MAP_MAX];
	unsigned int nr4k, nr2m;
	char *map = malloc(size + 1);

	if (!map)
		return 0;
	memcpy(map, data, size);
	map[size] = '\0';

	nr4k = check(map, 4096, r4k);
	nr2m = check(map, 2ULL << 20, r2m);
	/* what passes 2 MiB alignment passes 4 KiB alignment, unchanged */
	if (nr2m)
		CHECK(nr4k == nr2m && !memcmp(r4k, r2m, nr2m * sizeof(*r2m)),
		      map);
	if (nr4k)
		round_trip(map, r4k, nr4k);

	free(map);
	return 0;
}
