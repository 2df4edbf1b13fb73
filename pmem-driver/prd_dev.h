/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prd internals shared by prd_main.c (block device, DAX, sysfs) and
 * prd_pages.c (how the region is mapped and gets struct pages).
 */
#ifndef PRD_DEV_H
#define PRD_DEV_H

#include <linux/memremap.h>
#include <linux/types.h>
#include "prd.h"

struct gendisk;
struct dax_device;

/**
 * struct prd_device - one prd disk, one region of map=
 * @id: index in map=, the N of the disk name
 * @phys_addr: physical start of the region
 * @size: bytes of the region
 * @data_offset: bytes at the start of the region that are not disk data
 *	(the memmap when it lives on the device), 0 otherwise
 * @virt_addr: kernel address of @phys_addr
 * @mode: page mode
 * @memmap_on_dev: devmap mode with the memmap in the region itself
 * @pfn_flags: PFN_DEV, plus PFN_MAP when the pfns have pages
 * @memmap_ram: bytes of RAM spent on the memmap of this region
 * @map_ns: nanoseconds it took to map the region (and make its pages)
 * @flushes: REQ_PREFLUSH bios completed (each after a store fence)
 * @fuas: REQ_FUA write bios completed (each after a store fence)
 * @pgmap: the ZONE_DEVICE page map (devmap mode)
 * @zone: the zone whose span covers the pages (sparse mode)
 * @disk: the block device
 * @dax_dev: the DAX device of @disk
 */
struct prd_device {
	unsigned int		id;
	phys_addr_t		phys_addr;
	u64			size;
	u64			data_offset;
	void			*virt_addr;
	enum prd_page_mode	mode;
	bool			memmap_on_dev;
	u64			pfn_flags;
	u64			memmap_ram;
	u64			map_ns;
	atomic64_t		flushes;
	atomic64_t		fuas;
	struct dev_pagemap	pgmap;
	struct zone		*zone;
	struct gendisk		*disk;
	struct dax_device	*dax_dev;
};

int prd_pages_map(struct prd_device *prd);
void prd_pages_unmap(struct prd_device *prd);
unsigned long prd_pages_busy(struct prd_device *prd);

/* prd_sparse.c: the RFC's page mode, on kernels with mm-export-patch */
bool prd_sparse_supported(void);
int prd_sparse_map(struct prd_device *prd);
void prd_sparse_unmap(struct prd_device *prd);

#endif /* PRD_DEV_H */
