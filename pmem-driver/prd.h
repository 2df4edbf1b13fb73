/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prd: persistent-memory block driver, the interface for consumer modules.
 *
 * A consumer (pmem_zc, a filesystem) that holds a prd disk or partition open
 * asks for direct access to its bytes with prd_direct_access(): the 2014
 * RFC's bdev_direct_access() contract. Whether the pfns it returns have a
 * struct page depends on the page mode the disk was loaded with.
 */
#ifndef PRD_H
#define PRD_H

#include <linux/types.h>

struct block_device;

/**
 * enum prd_page_mode - how a prd disk's memory has struct pages
 * @PRD_PAGES_NONE: no pages (the 2014 baseline): pfns are not pfn_valid()
 * @PRD_PAGES_SPARSE: the RFC's sections, pages owned by the driver
 * @PRD_PAGES_DEVMAP: ZONE_DEVICE pages from memremap_pages()
 */
enum prd_page_mode {
	PRD_PAGES_NONE,
	PRD_PAGES_SPARSE,
	PRD_PAGES_DEVMAP,
};

long prd_direct_access(struct block_device *bdev, sector_t sector,
		       void **kaddr, unsigned long *pfn, long size);
int prd_page_mode(struct block_device *bdev);

#endif /* PRD_H */
