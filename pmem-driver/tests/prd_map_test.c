// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the prd map= parser (../prd_map.c), TAP output.
 * Exit status 0 only if every test passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "../prd_map.h"

#define K	(1ULL << 10)
#define M	(1ULL << 20)
#define G	(1ULL << 30)
#define T	(1ULL << 40)
#define P	(1ULL << 50)
#define E	(1ULL << 60)
#define A4K	4096ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define A2M	(2 * M)

struct good {
	const char *map;
	u64 align;
	unsigned int nr;
	struct prd_map_region r[4];
};

struct bad {
	const char *map;
	u64 align;
	const char *msg;	/* expected substring of the error */
};

static const struct good goods[] = {
	{ "4K@0", A4K, 1, { { 0, 4 * K } } },
	{ "4K$0", A4K, 1, { { 0, 4 * K } } },
	{ "4096@4096", A4K, 1, { { 4 * K, 4 * K } } },
	{ "4k@8k", A4K, 1, { { 8 * K, 4 * K } } },
	{ "1M@1G", A4K, 1, { { G, M } } },
	{ "1m$1g", A4K, 1, { { G, M } } },
	{ "2G$4G", A4K, 1, { { 4 * G, 2 * G } } },
	{ "1T@1T", A4K, 1, { { T, T } } },
	{ "1t@2t", A4K, 1, { { 2 * T, T } } },
	{ "1P@0", A4K, 1, { { 0, P } } },
	{ "1p$1p", A4K, 1, { { P, P } } },
	{ "1E@0", A4K, 1, { { 0, E } } },
	{ "1e@1e", A4K, 1, { { E, E } } },
	{ "15E@0", A4K, 1, { { 0, 15 * E } } },
	{ "0x1000@0x2000", A4K, 1, { { 0x2000, 0x1000 } } },
	{ "0X1000$0X100000000", A4K, 1, { { 0x100000000ULL, 0x1000 } } },
	{ "0x10M@0x1G", A4K, 1, { { G, 16 * M } } },
	/* in hex, e is a digit, not the exa suffix */
	{ "0x1e000@0xE000", A4K, 1, { { 0xe000, 0x1e000 } } },
	{ "010000@020000", A4K, 1, { { 8192, 4096 } } },
	{ "010K@0", A4K, 1, { { 0, 8 * K } } },
	{ "0004K@00", A4K, 1, { { 0, 4 * K } } },
	{ "0x00000000000000000000001000@0", A4K, 1, { { 0, 0x1000 } } },
	{ "18446744073709547520@0", A4K, 1, { { 0, ~0ULL - 4095 } } },
	{ "17179869183G@0", A4K, 1, { { 0, ~0ULL - G + 1 } } },
	{ "4K@0xffffffffffffe000", A4K, 1,
	  { { 0xffffffffffffe000ULL, 4 * K } } },
	{ "4K@0,4K@4K", A4K, 2, { { 0, 4 * K }, { 4 * K, 4 * K } } },
	{ "4K@8K,4K@0", A4K, 2, { { 8 * K, 4 * K }, { 0, 4 * K } } },
	{ "1G$4G,1G@5G,512M$0x180000000", A4K, 3,
	  { { 4 * G, G }, { 5 * G, G }, { 6 * G, 512 * M } } },
	{ "2M@2M", A2M, 1, { { 2 * M, 2 * M } } },
	{ "0x200000@0x40000000,1G@4G", A2M, 2,
	  { { G, 2 * M }, { 4 * G, G } } },
};

static const struct bad bads[] = {
	{ "", A4K, "missing map" },
	{ ",", A4K, "map element 0 is empty" },
	{ ",4K@0", A4K, "map element 0 is empty" },
	{ "4K@0,", A4K, "map element 1 is empty" },
	{ "4K@0,,4K@4K", A4K, "map element 1 is empty" },
	{ "K@0", A4K, "map element 0 \"K@0\": size is not a number" },
	{ "@0", A4K, "size is not a number" },
	{ " 4K@0", A4K, "size is not a number" },
	{ "-4K@0", A4K, "size is not a number" },
	{ "+4K@0", A4K, "size is not a number" },
	{ "4K@", A4K, "start is not a number" },
	{ "4K@K", A4K, "start is not a number" },
	{ "4K@-4K", A4K, "start is not a number" },
	{ "4K@0,4K@,4K@8K", A4K, "map element 1 \"4K@\": start is not a" },
	{ "4X@0", A4K, "size has bad suffix \"X\"" },
	{ "4KB@0", A4K, "size has bad suffix \"KB\"" },
	{ "4KiB@0", A4K, "size has bad suffix \"KiB\"" },
	{ "0x@0", A4K, "size has bad suffix \"x\"" },
	{ "0x1000z@0", A4K, "size has bad suffix \"z\"" },
	{ "0x1000g@0x1Gx", A4K, "start has bad suffix \"Gx\"" },
	{ "0x1000g@0x1G0", A4K, "trailing garbage \"0\" after start" },
	{ "4K@1Q", A4K, "start has bad suffix \"Q\"" },
	{ "4K@0KB", A4K, "start has bad suffix \"KB\"" },
	{ "4K", A4K, "missing '$' or '@' and start after size" },
	{ "4K,4K@8K", A4K, "map element 0 \"4K\": missing '$' or '@'" },
	{ "4K#0", A4K, "expected '$' or '@' after size, found \"#0\"" },
	{ "4K 0", A4K, "expected '$' or '@' after size, found \" 0\"" },
	{ "08K@0", A4K, "expected '$' or '@' after size, found \"8K@0\"" },
	{ "4K@0 ", A4K, "trailing garbage \" \" after start" },
	{ "4K@4K@8K", A4K, "trailing garbage \"@8K\" after start" },
	{ "4K$0$0", A4K, "trailing garbage \"$0\" after start" },
	{ "4K@0x1000;", A4K, "trailing garbage \";\" after start" },
	{ "4K@09", A4K, "trailing garbage \"9\" after start" },
	{ "4K@0\n", A4K, "trailing garbage \"?\" after start" },
	{ "0@0", A4K, "size is zero" },
	{ "0K@4K", A4K, "size is zero" },
	{ "0x0$0", A4K, "size is zero" },
	{ "4097@0", A4K, "size 0x1001 is not aligned to 4 KiB (0x1000)" },
	{ "4K@1", A4K, "start 0x1 is not aligned to 4 KiB (0x1000)" },
	{ "0777@0", A4K, "size 0x1ff is not aligned" },
	{ "4K@0", A2M, "size 0x1000 is not aligned to 2 MiB (0x200000)" },
	{ "2M@1M", A2M, "start 0x100000 is not aligned to 2 MiB (0x200000)" },
	{ "1G@1G", 1ULL << 40, "size 0x40000000 is not aligned to 1 TiB" },
	{ "18446744073709551616@0", A4K, "size overflows 64 bits" },
	{ "99999999999999999999999@0", A4K, "size overflows 64 bits" },
	{ "0x10000000000000000@0", A4K, "size overflows 64 bits" },
	{ "02000000000000000000000@0", A4K, "size overflows 64 bits" },
	{ "16E@0", A4K, "size overflows 64 bits" },
	{ "17179869184G@0", A4K, "size overflows 64 bits" },
	{ "4K@0x10000000000000000", A4K, "start overflows 64 bits" },
	{ "4K@16384P", A4K, "start overflows 64 bits" },
	{ "4K@0xfffffffffffff000", A4K,
	  "start 0xfffffffffffff000 + size 0x1000 overflows 64 bits" },
	{ "8E@8E", A4K, "start 0x8000000000000000 + size 0x8000000000000000 overflows 64 bits" },
	{ "8K@0,4K@4K", A4K,
	  "map element 1 \"4K@4K\": 0x1000-0x1fff overlaps map element 0 \"8K@0\" 0x0-0x1fff" },
	{ "4K@0,4K@0", A4K, "map element 1 \"4K@0\": 0x0-0xfff overlaps map element 0 \"4K@0\"" },
	{ "4K@4K,1M@0", A4K, "map element 1 \"1M@0\": 0x0-0xfffff overlaps map element 0 \"4K@4K\"" },
	{ "1G@0,1G@2G,4K@0x80001000", A4K,
	  "map element 2 \"4K@0x80001000\": 0x80001000-0x80001fff overlaps map element 1 \"1G@2G\"" },
	{ "4K@0", 0, "internal error: map alignment 0x0" },
	{ "4K@0", 2048, "internal error: map alignment 0x800" },
	{ "4K@0", 6144, "internal error: map alignment 0x1800" },
};

static unsigned int test_nr;
static unsigned int failures;

static void result(int ok, const char *what, const char *map)
{
	const char *s;

	printf("%sok %u - %s \"", ok ? "" : "not ", ++test_nr, what);
	for (s = map; s && *s && s - map < 60; s++)
		putchar(*s >= ' ' && *s <= '~' ? *s : '?');
	printf("%s\"\n", s && *s ? "..." : "");
	if (!ok)
		failures++;
}

static int err_is_one_line(const char *err)
{
	const char *s;

	if (!err[0])
		return 0;
	for (s = err; *s; s++)
		if (*s < ' ' || *s > '~')
			return 0;
	return 1;
}

/* Parse @map, which must give @nr regions equal to @want. */
static void check_good(const char *what, const char *map, u64 align,
		       unsigned int nr, const struct prd_map_region *want)
{
	struct prd_map_region r[PRD_MAP_MAX];
	char err[PRD_MAP_ERR_LEN];
	unsigned int got = 12345, i;
	int ret, ok;

	memset(r, 0xa5, sizeof(r));
	memset(err, 'x', sizeof(err));
	ret = prd_map_parse(map, align, r, &got, err, sizeof(err));
	ok = ret == 0 && got == nr && err[0] == '\0';
	for (i = 0; ok && i < nr; i++)
		ok = r[i].start == want[i].start && r[i].size == want[i].size;
	result(ok, what, map);
	if (ok)
		return;
	printf("#   ret %d nr %u (want 0, %u) err \"%.*s\"\n", ret, got, nr,
	       (int)sizeof(err), err);
	for (i = 0; i < got && i < PRD_MAP_MAX; i++)
		printf("#   got [%u] start 0x%llx size 0x%llx%s\n", i, r[i].start,
		       r[i].size, i < nr ? "" : " (extra)");
	for (i = 0; i < nr; i++)
		printf("#   want [%u] start 0x%llx size 0x%llx\n", i,
		       want[i].start, want[i].size);
}

/* Parse @map, which must fail with an error message containing @msg. */
static void check_bad(const char *what, const char *map, u64 align,
		      const char *msg)
{
	struct prd_map_region r[PRD_MAP_MAX];
	char err[PRD_MAP_ERR_LEN];
	unsigned int got = 12345;
	int ret, ok;

	memset(err, 'x', sizeof(err));
	ret = prd_map_parse(map, align, r, &got, err, sizeof(err));
	ok = ret == -EINVAL && got == 0 && memchr(err, 0, sizeof(err)) &&
	     err_is_one_line(err) && strstr(err, msg);
	result(ok, what, map);
	if (!ok)
		printf("#   ret %d nr %u err \"%.*s\", want -EINVAL and \"%s\"\n",
		       ret, got, (int)sizeof(err), err, msg);
}

/* Append n regions of 4K each, element i padded with leading zeros. */
static char *make_map(unsigned int n, size_t pad)
{
	char *map = malloc(n * (pad + 32) + 1);
	char *p = map;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		memset(p, '0', pad);
		p += pad;
		p += sprintf(p, "4K@%uK", i * 4);
	}
	*p = '\0';
	return map;
}

static void test_limits(void)
{
	struct prd_map_region want[PRD_MAP_MAX], r[PRD_MAP_MAX];
	char err[PRD_MAP_ERR_LEN], small[8];
	unsigned int i, nr;
	char *map;
	size_t len;
	int ret;

	for (i = 0; i < PRD_MAP_MAX; i++) {
		want[i].start = i * 4 * K;
		want[i].size = 4 * K;
	}
	map = make_map(PRD_MAP_MAX, 0);
	check_good("16 regions, the maximum", map, A4K, PRD_MAP_MAX, want);
	free(map);

	map = make_map(PRD_MAP_MAX + 1, 0);
	check_bad("17 regions", map, A4K,
		  "map element 16 \"4K@64K\": too many regions, at most 16");
	free(map);

	/* 16 elements padded with zeros to exactly PRD_MAP_MAX_LEN chars */
	map = make_map(PRD_MAP_MAX, 0);
	len = strlen(map);
	free(map);
	map = make_map(PRD_MAP_MAX,
		       (PRD_MAP_MAX_LEN - len) / PRD_MAP_MAX);
	len = strlen(map);
	map = realloc(map, PRD_MAP_MAX_LEN + 2);
	memmove(map + (PRD_MAP_MAX_LEN - len), map, len + 1);
	memset(map, '0', PRD_MAP_MAX_LEN - len);
	check_good("map of exactly 4096 chars", map, A4K, PRD_MAP_MAX, want);
	memmove(map + 1, map, PRD_MAP_MAX_LEN + 1);
	check_bad("map of 4097 chars", map, A4K,
		  "map is longer than 4096 characters");
	free(map);

	/* an element too long to quote whole is cut with "..." */
	check_bad("long element quoted with ...",
		  "4K@0,0000000000000000000000000000000000000000000004K@0",
		  A4K,
		  "map element 1 \"0000000000000000000000000000000000000000...\": 0x0-0xfff overlaps map element 0 \"4K@0\"");

	check_bad("NULL map", NULL, A4K, "missing map");

	ret = prd_map_parse("4K@0", A4K, NULL, &nr, err, sizeof(err));
	result(ret == -EINVAL && strstr(err, "internal error"),
	       "NULL regions refused", "4K@0");
	ret = prd_map_parse("4K@0", A4K, r, NULL, err, sizeof(err));
	result(ret == -EINVAL && strstr(err, "internal error"),
	       "NULL nr refused", "4K@0");

	memset(small, 'x', sizeof(small));
	ret = prd_map_parse("4K@1", A4K, r, &nr, small, sizeof(small));
	result(ret == -EINVAL && strlen(small) == sizeof(small) - 1 &&
	       !strncmp(small, "map ele", 7),
	       "short err buffer truncated and NUL-terminated", "4K@1");
	ret = prd_map_parse("4K@1", A4K, r, &nr, NULL, 0);
	result(ret == -EINVAL && nr == 0, "NULL err with errlen 0", "4K@1");
	ret = prd_map_parse("4K@4K", A4K, r, &nr, NULL, 0);
	result(ret == 0 && nr == 1 && r[0].start == 4 * K,
	       "success with NULL err", "4K@4K");
}

int main(void)
{
	size_t plan = ARRAY_SIZE(goods) +
		      ARRAY_SIZE(bads) + 11;
	unsigned int i;

	printf("1..%zu\n", plan);
	for (i = 0; i < ARRAY_SIZE(goods); i++)
		check_good("good", goods[i].map, goods[i].align, goods[i].nr,
			   goods[i].r);
	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		char what[PRD_MAP_ERR_LEN + 16];

		snprintf(what, sizeof(what), "refused (%s), align 0x%llx:",
			 bads[i].msg, bads[i].align);
		check_bad(what, bads[i].map, bads[i].align, bads[i].msg);
	}
	test_limits();
	printf("# %u tests, %u failed\n", test_nr, failures);
	if (test_nr != plan) {
		printf("# ran %u tests, planned %zu\n", test_nr, plan);
		return 1;
	}
	return failures ? 1 : 0;
}
