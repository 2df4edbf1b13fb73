/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser of the prd "map=" module parameter
 *
 * The parser has no kernel dependency: the same prd_map.c is built into
 * prd.ko and into the host unit tests and fuzzer in tests/.
 */
#ifndef _PRD_MAP_H
#define _PRD_MAP_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
typedef unsigned long long u64;	/* as the kernel's u64 on every arch */
#endif

#define PRD_MAP_MAX	16	/* max regions in one map= */
#define PRD_MAP_MAX_LEN	4096	/* max length of a map= string */
#define PRD_MAP_ERR_LEN	256	/* enough for any error message */

/**
 * struct prd_map_region - one region of a map= parameter
 * @start: physical start address, in bytes
 * @size: size, in bytes; never 0, and @start + @size never wraps
 */
struct prd_map_region {
	u64 start;
	u64 size;
};

int prd_map_parse(const char *map, u64 align, struct prd_map_region *regions,
		  unsigned int *nr, char *err, size_t errlen);

#endif /* _PRD_MAP_H */
