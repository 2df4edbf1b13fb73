// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of the prd "map=" module parameter
 *
 * map=mapS[,mapS...], mapS = nn[KMGTPE]$ss[KMGTPE] or nn[KMGTPE]@ss[KMGTPE],
 * nn = size, ss = physical start, each number in memparse() syntax.
 *
 * This file has no kernel dependency, no allocation and no global state:
 * the same code is built into prd.ko and into the host unit tests and
 * fuzzer in tests/.
 */
#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#else
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#define U64_MAX				(~0ULL)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#ifndef __printf			/* tests/Makefile passes the real one */
#define __printf(a, b)
#endif
#endif

#include "prd_map.h"

#define PRD_MAP_MIN_ALIGN	4096
#define PRD_MAP_SHOW		40	/* chars of an element quoted in errors */
#define PRD_MAP_SHOW_SUFFIX	16	/* chars of a bad suffix quoted */

/* one comma-separated element of map=, not NUL-terminated */
struct prd_map_elem {
	unsigned int idx;
	const char *text;
	unsigned int len;
};

enum prd_map_num {
	PRD_MAP_NUM_OK,
	PRD_MAP_NUM_NONE,
	PRD_MAP_NUM_OVERFLOW,
};

static int prd_map_show_len(const struct prd_map_elem *e)
{
	return e->len > PRD_MAP_SHOW ? PRD_MAP_SHOW : e->len;
}

static const char *prd_map_show_more(const struct prd_map_elem *e)
{
	return e->len > PRD_MAP_SHOW ? "..." : "";
}

/* Keep the message one printable line whatever the input held. */
static void prd_map_sanitize(char *err)
{
	for (; *err; err++)
		if (*err < ' ' || *err > '~')
			*err = '?';
}

static __printf(3, 4)
int prd_map_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	prd_map_sanitize(err);
	return -EINVAL;
}

/* Fail with 'map element N "text": ' followed by the formatted reason. */
static __printf(4, 5)
int prd_map_efail(char *err, size_t errlen, const struct prd_map_elem *e,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "map element %u \"%.*s%s\": ", e->idx,
		     prd_map_show_len(e), e->text, prd_map_show_more(e));
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	prd_map_sanitize(err);
	return -EINVAL;
}

static bool prd_map_isalpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Value of a digit in any base up to 16, or 16 if @c is not one. */
static unsigned int prd_map_digit(char c)
{
	char lc = c | 0x20;

	if (c >= '0' && c <= '9')
		return c - '0';
	if (lc >= 'a' && lc <= 'f')
		return lc - 'a' + 10;
	return 16;
}

/* Shift of a memparse() suffix, or -1 if @c is not one. */
static int prd_map_suffix_shift(char c)
{
	switch (c) {
	case 'K':
	case 'k':
		return 10;
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	case 'T':
	case 't':
		return 40;
	case 'P':
	case 'p':
		return 50;
	case 'E':
	case 'e':
		return 60;
	default:
		return -1;
	}
}

/*
 * Parse the digits of one number at *@pp as simple_strtoull(, , 0) does:
 * "0x" followed by a hex digit is hex, else a leading 0 is octal, else
 * decimal. Unlike it, report overflow. Advances *@pp past the digits.
 */
static enum prd_map_num prd_map_number(const char **pp, u64 *val)
{
	const char *s = *pp;
	const char *digits;
	unsigned int base = 10;
	unsigned int d;
	u64 v = 0;

	if (s[0] == '0') {
		if ((s[1] | 0x20) == 'x' && prd_map_digit(s[2]) < 16) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	}
	for (digits = s; (d = prd_map_digit(*s)) < base; s++) {
		if (check_mul_overflow(v, (u64)base, &v) ||
		    check_add_overflow(v, (u64)d, &v))
			return PRD_MAP_NUM_OVERFLOW;
	}
	if (s == digits)
		return PRD_MAP_NUM_NONE;
	*val = v;
	*pp = s;
	return PRD_MAP_NUM_OK;
}

/* Parse a number with an optional K/M/G/T/P/E suffix, as memparse() does. */
static int prd_map_value(const struct prd_map_elem *e, const char **pp,
			 const char *what, u64 *val, char *err, size_t errlen)
{
	const char *s = *pp;
	const char *end;
	int shift;

	switch (prd_map_number(&s, val)) {
	case PRD_MAP_NUM_NONE:
		return prd_map_efail(err, errlen, e,
				     "%s is not a number (no digits)", what);
	case PRD_MAP_NUM_OVERFLOW:
		return prd_map_efail(err, errlen, e, "%s overflows 64 bits",
				     what);
	default:
		break;
	}
	if (prd_map_isalpha(*s)) {
		for (end = s; prd_map_isalpha(*end); end++)
			;
		shift = prd_map_suffix_shift(*s);
		if (end - s != 1 || shift < 0)
			return prd_map_efail(err, errlen, e,
					     "%s has bad suffix \"%.*s\" (expected one of K M G T P E)",
					     what,
					     (int)(end - s > PRD_MAP_SHOW_SUFFIX ?
						   PRD_MAP_SHOW_SUFFIX : end - s),
					     s);
		if (*val > (U64_MAX >> shift))
			return prd_map_efail(err, errlen, e,
					     "%s overflows 64 bits", what);
		*val <<= shift;
		s++;
	}
	*pp = s;
	return 0;
}

/* Print @align as "4 KiB", "2 MiB", ...: it is a power of two >= 4096. */
static int prd_map_align_fail(char *err, size_t errlen,
			      const struct prd_map_elem *e, const char *what,
			      u64 val, u64 align)
{
	static const char units[] = "KMGTPE";
	u64 n = align >> 10;
	unsigned int u = 0;

	while (n >= 1024 && !(n & 1023) && u < sizeof(units) - 2) {
		n >>= 10;
		u++;
	}
	return prd_map_efail(err, errlen, e,
			     "%s 0x%llx is not aligned to %llu %ciB (0x%llx)",
			     what, val, n, units[u], align);
}

/* Parse and check one element into @r. */
static int prd_map_one(const struct prd_map_elem *e, u64 align,
		       struct prd_map_region *r, char *err, size_t errlen)
{
	const char *s = e->text;
	const char *end = e->text + e->len;
	int ret;

	ret = prd_map_value(e, &s, "size", &r->size, err, errlen);
	if (ret)
		return ret;
	if (s == end)
		return prd_map_efail(err, errlen, e,
				     "missing '$' or '@' and start after size");
	if (*s != '$' && *s != '@')
		return prd_map_efail(err, errlen, e,
				     "expected '$' or '@' after size, found \"%.*s\"",
				     (int)(end - s), s);
	s++;
	ret = prd_map_value(e, &s, "start", &r->start, err, errlen);
	if (ret)
		return ret;
	if (s != end)
		return prd_map_efail(err, errlen, e,
				     "trailing garbage \"%.*s\" after start",
				     (int)(end - s), s);

	if (!r->size)
		return prd_map_efail(err, errlen, e, "size is zero");
	if (r->size & (align - 1))
		return prd_map_align_fail(err, errlen, e, "size", r->size,
					  align);
	if (r->start & (align - 1))
		return prd_map_align_fail(err, errlen, e, "start", r->start,
					  align);
	if (r->start + r->size < r->start)
		return prd_map_efail(err, errlen, e,
				     "start 0x%llx + size 0x%llx overflows 64 bits",
				     r->start, r->size);
	return 0;
}

static unsigned int prd_map_elem_len(const char *p)
{
	const char *s = p;

	while (*s && *s != ',')
		s++;
	return s - p;
}

/* Element @idx of @map, which is known to have more than @idx elements. */
static void prd_map_elem_at(const char *map, unsigned int idx,
			    struct prd_map_elem *e)
{
	e->text = map;
	for (e->idx = 0; ; e->idx++) {
		e->len = prd_map_elem_len(e->text);
		if (e->idx == idx || !e->text[e->len])
			return;
		e->text += e->len + 1;
	}
}

/* Refuse regions[e->idx] if it overlaps one of the regions before it. */
static int prd_map_overlap(const char *map, const struct prd_map_elem *e,
			   const struct prd_map_region *regions, char *err,
			   size_t errlen)
{
	const struct prd_map_region *r = &regions[e->idx];
	const struct prd_map_region *o;
	struct prd_map_elem oe;
	unsigned int i;

	for (i = 0; i < e->idx; i++) {
		o = &regions[i];
		if (r->start >= o->start + o->size ||
		    o->start >= r->start + r->size)
			continue;
		prd_map_elem_at(map, i, &oe);
		return prd_map_efail(err, errlen, e,
				     "0x%llx-0x%llx overlaps map element %u \"%.*s%s\" 0x%llx-0x%llx",
				     r->start, r->start + r->size - 1, i,
				     prd_map_show_len(&oe), oe.text,
				     prd_map_show_more(&oe), o->start,
				     o->start + o->size - 1);
	}
	return 0;
}

/**
 * prd_map_parse - parse the prd map= module parameter
 * @map: the string "mapS[,mapS...]", may be NULL. mapS is
 *	nn[KMGTPE]$ss[KMGTPE] or nn[KMGTPE]@ss[KMGTPE], nn the size and ss
 *	the physical start in bytes, both in memparse() syntax: decimal,
 *	"0x" hex or leading-0 octal, and an optional K/M/G/T/P/E suffix
 *	(either case) multiplying by 2^10 .. 2^60.
 * @align: required alignment of each start and size; a power of two
 *	>= 4096 (e.g. PAGE_SIZE, or SZ_2M when the page mode needs it).
 * @regions: output, an array of PRD_MAP_MAX entries; regions[i] is
 *	element i of @map (counted from 0, the i of /dev/pmem<i>).
 * @nr: output, the number of regions; 0 on failure.
 * @err: output, on failure one printable line (no newline) naming the bad
 *	element by index and text and saying why; "" on success. May be
 *	NULL if @errlen is 0. PRD_MAP_ERR_LEN bytes hold any message.
 * @errlen: size of @err in bytes.
 *
 * Refuses an empty or over-long (PRD_MAP_MAX_LEN) @map, empty elements, a
 * missing or malformed number, a bad suffix, a missing '$'/'@', garbage
 * after the start, a zero size, a size or start not aligned to @align, a
 * number or start + size that overflows 64 bits, more than PRD_MAP_MAX
 * regions and regions that overlap. It does not check the ranges against
 * System RAM or other resources: that is the caller's job.
 *
 * Reentrant; never allocates; never reads @map past its NUL. On failure
 * the content of @regions is undefined.
 *
 * Return: 0 on success, -EINVAL on any error.
 */
int prd_map_parse(const char *map, u64 align, struct prd_map_region *regions,
		  unsigned int *nr, char *err, size_t errlen)
{
	struct prd_map_elem e;
	const char *p;
	unsigned int i;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (nr)
		*nr = 0;
	if (!regions || !nr)
		return prd_map_fail(err, errlen,
				    "internal error: no output for map regions");
	if (align < PRD_MAP_MIN_ALIGN || (align & (align - 1)))
		return prd_map_fail(err, errlen,
				    "internal error: map alignment 0x%llx is not a power of two >= %d",
				    align, PRD_MAP_MIN_ALIGN);
	if (!map || !*map)
		return prd_map_fail(err, errlen,
				    "missing map: expected map=SIZE@START[,SIZE@START...]");
	if (strnlen(map, PRD_MAP_MAX_LEN + 1) > PRD_MAP_MAX_LEN)
		return prd_map_fail(err, errlen,
				    "map is longer than %d characters",
				    PRD_MAP_MAX_LEN);

	for (p = map, i = 0; ; i++) {
		e.idx = i;
		e.text = p;
		e.len = prd_map_elem_len(p);
		if (!e.len)
			return prd_map_fail(err, errlen,
					    "map element %u is empty (leading, trailing or double ',')",
					    i);
		if (i == PRD_MAP_MAX)
			return prd_map_efail(err, errlen, &e,
					     "too many regions, at most %d",
					     PRD_MAP_MAX);
		ret = prd_map_one(&e, align, &regions[i], err, errlen);
		if (ret)
			return ret;
		ret = prd_map_overlap(map, &e, regions, err, errlen);
		if (ret)
			return ret;
		p += e.len;
		if (!*p)
			break;
		p++;
	}
	*nr = i + 1;
	return 0;
}
