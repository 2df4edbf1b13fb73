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
 * the region is not unmapped until none is. A page below it was put once
 * too often (a sparse page then went to the page allocator): the region's
 * memmap is then never torn down, see prd_free().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/sizes.h>
#include "prd_dev.h"

/*
 * Pages of the region in memory sections it only partly covers. With an
 * altmap, x86_64's vmemmap_populate() still takes the memmap of less than
 * a section (a subsection range) from RAM, in base pages: memmap=dev puts
 * only whole sections' memmap on the device.
 */
static unsigned long prd_partial_section_pages(struct prd_device *prd)
{
	unsigned long pfn = PHYS_PFN(prd->phys_addr);
	unsigned long end = pfn + PHYS_PFN(prd->size);
	unsigned long next, nr = 0;

	for (; pfn < end; pfn = next) {
		next = min(end, ALIGN(pfn + 1, PAGES_PER_SECTION));
		if (next - pfn < PAGES_PER_SECTION)
			nr += next - pfn;
	}
	return nr;
}

static int prd_devmap_map(struct prd_device *prd)
{
	unsigned long nr_pages = PHYS_PFN(prd->size);
	struct dev_pagemap *pgmap;
	void *addr;

	pgmap = kzalloc(sizeof(*pgmap), GFP_KERNEL);
	if (!pgmap)
		return -ENOMEM;
	pgmap->type = MEMORY_DEVICE_FS_DAX;
	pgmap->range.start = prd->phys_addr;
	pgmap->range.end = prd->phys_addr + prd->size - 1;
	pgmap->nr_range = 1;

	if (prd->memmap_on_dev) {
		/*
		 * The memmap in the area prd_layout_read() reserved: after the
		 * info block page, up to the disk.
		 */
		struct vmem_altmap altmap = {
			.base_pfn = PHYS_PFN(prd->phys_addr),
			.end_pfn = PHYS_PFN(prd->phys_addr + prd->size) - 1,
			.reserve = 1,
			.free = PHYS_PFN(prd->data_offset) - 1,
		};

		memcpy(&pgmap->altmap, &altmap, sizeof(altmap));
		pgmap->flags |= PGMAP_ALTMAP_VALID;
		prd->memmap_ram = (u64)prd_partial_section_pages(prd) *
				  sizeof(struct page);
	} else {
		prd->memmap_ram = (u64)nr_pages * sizeof(struct page);
	}

	addr = memremap_pages(pgmap, prd->nid);
	if (IS_ERR(addr)) {
		pr_err("region %u: memremap_pages failed: %ld\n", prd->id,
		       PTR_ERR(addr));
		prd->memmap_ram = 0;
		kfree(pgmap);
		return PTR_ERR(addr);
	}
	prd->pgmap = pgmap;
	prd->virt_addr = addr;
	prd->pfn_flags = PFN_DEV | PFN_MAP;
	return 0;
}

/**
 * prd_pages_map - map a region in its page mode
 * @prd: the device; phys_addr, size, nid, mode, memmap_on_dev and
 *	data_offset (prd_layout_read()) are set
 *
 * Sets virt_addr, pfn_flags, memmap_ram and map_ns.
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
			pr_err("region %u: memremap failed\n", prd->id);
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
		memunmap_pages(prd->pgmap);
		kfree(prd->pgmap);
		prd->pgmap = NULL;
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
 * @under: set to the number of data pages below the region's reference
 *
 * Walks the memmap of the whole disk: not for hot paths.
 * Return: the number of pages whose refcount is above 1; 0 in mode none.
 */
unsigned long prd_pages_busy(struct prd_device *prd, unsigned long *under)
{
	unsigned long pfn = PHYS_PFN(prd->phys_addr + prd->data_offset);
	unsigned long end = PHYS_PFN(prd->phys_addr + prd->size);
	unsigned long busy = 0;
	int ref;

	*under = 0;
	if (prd->mode == PRD_PAGES_NONE)
		return 0;
	for (; pfn < end; pfn++) {
		ref = page_ref_count(pfn_to_page(pfn));
		if (ref > 1)
			busy++;
		else if (ref < 1)
			(*under)++;
		if (!(pfn & 4095))
			cond_resched();
	}
	return busy;
}
