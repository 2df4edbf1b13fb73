// SPDX-License-Identifier: GPL-2.0
/*
 * prd: a walker of the ACPI NFIT, for prd_firmware.c.
 *
 * Reads three of its structures, by byte offset and little endian, so that
 * the same code runs in prd.ko and in the host unit tests (tests/): System
 * Physical Address ranges (type 0), memory device to SPA range maps
 * (type 1: which NVDIMMs back a range, and their flags) and flush hint
 * addresses (type 6, per NVDIMM). A structure whose length is too short
 * for the fields read is skipped; one that runs past the table ends the
 * walk. No allocation, no global state.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "prd_nfit.h"

enum {
	NFIT_SPA		= 0,
	NFIT_MEMDEV		= 1,
	NFIT_FLUSH		= 6,
	/* lengths that hold the fields read */
	NFIT_SPA_LEN		= 56,	/* ACPI 6.0: no location cookie */
	NFIT_MEMDEV_LEN		= 48,
	NFIT_FLUSH_LEN		= 16,	/* the hint addresses follow */
};

/* UUID_PERSISTENT_MEMORY, 66f0d379-b4f3-4074-ac43-0d3318b78cdb, as stored */
static const unsigned char prd_nfit_pm_guid[16] = {
	0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
	0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb,
};

static u64 le(const unsigned char *p, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* the structures of the table, one at a time: 0 at its end */
struct nfit_iter {
	const unsigned char *table;
	size_t len, pos;
	const unsigned char *s;
	unsigned int type, slen;
};

static int nfit_next(struct nfit_iter *it)
{
	const unsigned char *p = it->table + it->pos;

	if (it->pos > it->len || it->len - it->pos < 4)
		return 0;
	it->type = le(p, 2);
	it->slen = le(p + 2, 2);
	if (it->slen < 4 || it->slen > it->len - it->pos)
		return 0;	/* a malformed table describes nothing more */
	it->s = p;
	it->pos += it->slen;
	return 1;
}

static void nfit_start(struct nfit_iter *it, const void *table, size_t len)
{
	it->table = table;
	it->len = len;
	it->pos = PRD_NFIT_HDR_LEN;
}

/* whether the table lists flush hint addresses for NVDIMM @handle */
static int nfit_hinted(const void *table, size_t len, u32 handle)
{
	struct nfit_iter it;

	nfit_start(&it, table, len);
	while (nfit_next(&it))
		if (it.type == NFIT_FLUSH && it.slen >= NFIT_FLUSH_LEN &&
		    le(it.s + 4, 4) == handle && le(it.s + 8, 2))
			return 1;
	return 0;
}

/**
 * prd_nfit_scan - what an NFIT says of [s->start, s->end]
 * @table: the whole table, its ACPI header first
 * @len: its length in bytes
 * @s: the range in, the findings out (see struct prd_nfit_scan)
 */
void prd_nfit_scan(const void *table, size_t len, struct prd_nfit_scan *s)
{
	unsigned int range_index = 0;
	struct nfit_iter it;
	u64 addr, size, last;
	u32 handle;
	u16 flags;

	s->covered = false;
	s->part_start = 0;
	s->part_end = 0;
	s->dimms = 0;
	s->flags = 0;
	s->flags_handle = 0;
	s->hinted = 0;
	s->hint_handle = 0;

	nfit_start(&it, table, len);
	while (nfit_next(&it)) {
		if (it.type != NFIT_SPA || it.slen < NFIT_SPA_LEN ||
		    memcmp(it.s + 16, prd_nfit_pm_guid, 16))
			continue;
		addr = le(it.s + 32, 8);
		size = le(it.s + 40, 8);
		if (!size || addr + (size - 1) < addr)
			continue;
		last = addr + (size - 1);
		if (s->start >= addr && s->end <= last) {
			s->covered = true;
			range_index = le(it.s + 4, 2);
			break;
		}
		if (s->start <= last && s->end >= addr) {
			s->part_start = addr;
			s->part_end = last;
		}
	}
	/* range index 0 is no range: memory devices with it map none */
	if (!s->covered || !range_index)
		return;

	nfit_start(&it, table, len);
	while (nfit_next(&it)) {
		if (it.type != NFIT_MEMDEV || it.slen < NFIT_MEMDEV_LEN ||
		    le(it.s + 12, 2) != range_index)
			continue;
		handle = le(it.s + 4, 4);
		flags = le(it.s + 44, 2);
		if ((flags & PRD_NFIT_FAILED_MASK) &&
		    !(s->flags & PRD_NFIT_FAILED_MASK))
			s->flags_handle = handle;
		s->flags |= flags;
		s->dimms++;
		if (nfit_hinted(table, len, handle) && !s->hinted++)
			s->hint_handle = handle;
	}
}
