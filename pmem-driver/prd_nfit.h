/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ACPI NFIT says of a physical range: the persistent memory
 * System Physical Address range that holds it, the flags of the memory
 * devices (NVDIMMs) that map that range, and whether the table lists flush
 * hint addresses for them.
 *
 * The walker has no kernel dependency: the same prd_nfit.c is built into
 * prd.ko and into the host unit tests in tests/, which feed it crafted
 * tables (QEMU builds neither flush hints nor most flags).
 */
#ifndef _PRD_NFIT_H
#define _PRD_NFIT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
typedef unsigned long long u64;	/* as the kernel's types on every arch */
typedef unsigned int u32;
typedef unsigned short u16;
#define BIT(n)	(1UL << (n))
#endif

/* bytes before the first structure: the ACPI header and 4 reserved */
#define PRD_NFIT_HDR_LEN	40

/* the memory device flags of ACPI 6.x (ACPI_NFIT_MEM_* in actbl2.h) */
#define PRD_NFIT_SAVE_FAILED	BIT(0)
#define PRD_NFIT_RESTORE_FAILED	BIT(1)
#define PRD_NFIT_FLUSH_FAILED	BIT(2)
#define PRD_NFIT_NOT_ARMED	BIT(3)
#define PRD_NFIT_MAP_FAILED	BIT(6)
/* the flags libnvdimm reports as an error in the NVDIMM */
#define PRD_NFIT_FAILED_MASK	(PRD_NFIT_SAVE_FAILED |		\
				 PRD_NFIT_RESTORE_FAILED |	\
				 PRD_NFIT_FLUSH_FAILED |	\
				 PRD_NFIT_NOT_ARMED |		\
				 PRD_NFIT_MAP_FAILED)

/**
 * struct prd_nfit_scan - a range, and what the NFIT says of it
 * @start: first byte of the range (in)
 * @end: last byte of the range (in)
 * @covered: one persistent memory SPA range holds all of it
 * @part_start: a persistent memory SPA range it only overlaps, when
 *	@part_end is not 0
 * @part_end: last byte of that range
 * @dimms: memory devices mapping the covering range
 * @flags: their memory device flags, or'ed
 * @flags_handle: NFIT device handle of the first with a flag of
 *	PRD_NFIT_FAILED_MASK
 * @hinted: of the @dimms, how many the table lists flush hints for
 * @hint_handle: device handle of the first of them
 */
struct prd_nfit_scan {
	u64 start, end;
	bool covered;
	u64 part_start, part_end;
	unsigned int dimms;
	u16 flags;
	u32 flags_handle;
	unsigned int hinted;
	u32 hint_handle;
};

void prd_nfit_scan(const void *table, size_t len, struct prd_nfit_scan *s);

#endif /* _PRD_NFIT_H */
