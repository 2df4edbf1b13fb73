// SPDX-License-Identifier: GPL-2.0
/*
 * prd page modes: how a region is mapped into the kernel and whether, and
 * how, its pfns get a struct page.
 *
 *  none    memremap(MEMREMAP_WB): a kernel address and no pages, as in 2014.
 *  devmap  memremap_pages(), MEMORY_DEVICE_FS_DAX: ZONE_DEVICE pages, the
 *          memmap in RAM, or in the first bytes of the region itself
 *          (memmap=dev, upstream's altmap) at the cost of disk capacity.
 *  sparse  the RFC's way, see prd_sparse.c.
 *
 * In the page modes every data page starts with one reference, owned by the
 * region (ZONE_DEVICE FS_DAX pages are idle at 1, sparse pages are given
 * theirs by the driver): a page above that is in use by someone else, and
 * the region is not unmapped until none is.
 */
#include <linux/io.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/sizes.h>
#include "prd_dev.h"

static int prd_devmap_map(struct prd_device *prd)
{
	unsigned long nr_pages = PHYS_PFN(prd->size);
	u64 memmap = (u64)nr_pages * sizeof(struct page);
	struct dev_pagemap *pgmap = &prd->pgmap;
	void *addr;

	memset(pgmap, 0, sizeof(*pgmap));
	pgmap->type = MEMORY_DEVICE_FS_DAX;
	pgmap->range.start = prd->phys_addr;
	pgmap->range.end = prd->phys_addr + prd->size - 1;
	pgmap->nr_range = 1;

	if (prd->memmap_on_dev) {
		/* the memmap takes the head of the region, 2 MiB aligned */
		u64 offset = ALIGN(memmap, SZ_2M);
		struct vmem_altmap altmap = {
			.base_pfn = PHYS_PFN(prd->phys_addr),
			.end_pfn = PHYS_PFN(prd->phys_addr + prd->size) - 1,
			.free = PHYS_PFN(offset),
		};

		if (offset >= prd->size) {
			pr_err("prd: region %u (%llu bytes) too small for its memmap (%llu bytes) on the device\n",
			       prd->id, prd->size, offset);
			return -ENOSPC;
		}
		memcpy(&pgmap->altmap, &altmap, sizeof(altmap));
		pgmap->flags |= PGMAP_ALTMAP_VALID;
		prd->data_offset = offset;
	} else {
		prd->memmap_ram = memmap;
	}

	addr = memremap_pages(pgmap, NUMA_NO_NODE);
	if (IS_ERR(addr)) {
		pr_err("prd: region %u: memremap_pages failed: %ld\n",
		       prd->id, PTR_ERR(addr));
		prd->data_offset = 0;
		prd->memmap_ram = 0;
		return PTR_ERR(addr);
	}
	prd->virt_addr = addr;
	prd->pfn_flags = PFN_DEV | PFN_MAP;
	return 0;
}

/**
 * prd_pages_map - map a region in its page mode
 * @prd: the device; phys_addr, size, mode and memmap_on_dev are set
 *
 * Sets virt_addr, pfn_flags, data_offset, memmap_ram and map_ns.
 * Return: 0 or a negative errno, after one pr_err() naming the problem.
 */
int prd_pages_map(struct prd_device *prd)
{
	u64 start = ktime_get_ns();
	int ret = 0;

	switch (prd->mode) {
	case PRD_PAGES_NONE:
		prd->virt_addr = memremap(prd->phys_addr, prd->size, MEMREMAP_WB);
		if (!prd->virt_addr) {
			pr_err("prd: region %u: memremap failed\n", prd->id);
			ret = -ENXIO;
		}
		prd->pfn_flags = PFN_DEV;
		break;
	case PRD_PAGES_DEVMAP:
		ret = prd_devmap_map(prd);
		break;
	case PRD_PAGES_SPARSE:
		ret = prd_sparse_map(prd);
		break;
	}
	prd->map_ns = ktime_get_ns() - start;
	return ret;
}

/**
 * prd_pages_unmap - undo prd_pages_map()
 * @prd: the device; no page of it may be referenced beyond base any more
 */
void prd_pages_unmap(struct prd_device *prd)
{
	switch (prd->mode) {
	case PRD_PAGES_NONE:
		memunmap(prd->virt_addr);
		break;
	case PRD_PAGES_DEVMAP:
		memunmap_pages(&prd->pgmap);
		break;
	case PRD_PAGES_SPARSE:
		prd_sparse_unmap(prd);
		break;
	}
	prd->virt_addr = NULL;
}

/**
 * prd_pages_busy - count the data pages referenced beyond the region's own
 * @prd: the device
 *
 * Return: the number of pages whose refcount is above 1; 0 in mode none.
 */
unsigned long prd_pages_busy(struct prd_device *prd)
{
	unsigned long pfn = PHYS_PFN(prd->phys_addr + prd->data_offset);
	unsigned long end = PHYS_PFN(prd->phys_addr + prd->size);
	unsigned long busy = 0;

	if (prd->mode == PRD_PAGES_NONE)
		return 0;
	for (; pfn < end; pfn++) {
		if (page_ref_count(pfn_to_page(pfn)) > 1)
			busy++;
		if (!(pfn & 4095))
			cond_resched();
	}
	return busy;
}
