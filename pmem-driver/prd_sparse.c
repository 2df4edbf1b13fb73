// SPDX-License-Identifier: GPL-2.0
/*
 * prd sparse page mode: the 2014 RFC's struct pages, without ZONE_DEVICE.
 *
 * The region gets sections, a direct map and an initialised memmap through
 * the calls mm-export-patch/ exports (the sequence of memremap_pages()
 * minus everything ZONE_DEVICE), all under the memory hotplug lock:
 *
 *   map:   kasan_add_zero_shadow(), arch_add_memory() per section,
 *          move_pfn_range_to_zone(ZONE_NORMAL, MIGRATE_UNMOVABLE)
 *   unmap: remove_pfn_range_from_zone(), arch_remove_memory() per section,
 *          kasan_remove_zero_shadow()
 *
 * The claim of the range (prd_claim(), held from before the map to after
 * the unmap) keeps System RAM out of it: no region_intersects() is needed
 * under the lock. The direct map is PAGE_KERNEL, write-back, and PAT
 * records no memory type for the range (memremap_pages() does, with
 * track_pfn_remap(), which is not exported): see docs/sparse-mode.md.
 *
 * Every page then has refcount 1 (the driver's, never dropped), PG_reserved
 * (6.1) or PageOffline (6.12) and zone/node links; the sections stay
 * offline (pfn_valid() but no pfn_to_online_page(), no memory block
 * device), so nothing can online them and no page reaches the page
 * allocator as long as the driver keeps its reference: unmap waits until
 * every page is back to exactly 1.
 *
 * Without pte_devmap()/get_dev_pagemap() support, fs DAX and GUP of DAX
 * mappings cannot work on these pages (6.1 and 6.12): sparse mode hands out
 * PFN_MAP without PFN_DEV and does not ask for DAX on the queue (see
 * docs/design.md).
 *
 * Kbuild defines PRD_HAVE_SPARSE when the kernel exports these symbols;
 * elsewhere pages=sparse is refused at load time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/printk.h>
#include "prd_dev.h"

#ifdef PRD_HAVE_SPARSE

#include <linux/kasan.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/numa.h>
#include <linux/pfn_t.h>
#include <linux/range.h>
#include "prd_compat.h"

#define PRD_SECTION_BYTES	(PAGES_PER_SECTION << PAGE_SHIFT)

bool prd_sparse_supported(void)
{
	return true;
}

/* Called with the hotplug lock held: no section can appear in between. */
static int prd_sparse_check(struct prd_device *prd)
{
	struct range pluggable = mhp_get_pluggable_range(true);
	unsigned long pfn = PHYS_PFN(prd->phys_addr);
	unsigned long end = PHYS_PFN(prd->phys_addr + prd->size);

	if (!IS_ALIGNED(prd->phys_addr | prd->size, PRD_SECTION_BYTES)) {
		pr_err("region %u: pages=sparse needs start and size aligned to %lu MiB\n",
		       prd->id, PRD_SECTION_BYTES >> 20);
		return -EINVAL;
	}
	if (prd->phys_addr < pluggable.start ||
	    prd->phys_addr + prd->size - 1 > pluggable.end) {
		pr_err("region %u is outside the hot-pluggable range %#llx-%#llx\n",
		       prd->id, pluggable.start, pluggable.end);
		return -ERANGE;
	}
	for (; pfn < end; pfn += PAGES_PER_SECTION) {
		if (valid_section(__pfn_to_section(pfn))) {
			pr_err("region %u: section at pfn %#lx already has a memmap\n",
			       prd->id, pfn);
			return -EBUSY;
		}
	}
	return 0;
}

static void prd_sparse_remove_sections(struct prd_device *prd,
				       unsigned long nr)
{
	while (nr--)
		prd_compat_remove_memory(prd->phys_addr + nr * PRD_SECTION_BYTES,
					 PRD_SECTION_BYTES);
}

int prd_sparse_map(struct prd_device *prd)
{
	struct mhp_params params = { .pgprot = pgprot_decrypted(PAGE_KERNEL) };
	unsigned long nr = 0, total = prd->size / PRD_SECTION_BYTES;
	void *vaddr = __va(prd->phys_addr);
	int nid = prd->nid, ret;

	prd->zone = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];

	mem_hotplug_begin();
	ret = prd_sparse_check(prd);
	if (ret)
		goto out_unlock;

	ret = kasan_add_zero_shadow(vaddr, prd->size);
	if (ret) {
		pr_err("region %u: no KASAN shadow: %d\n", prd->id, ret);
		goto out_unlock;
	}
	/* a section at a time, so a failure unwinds exactly what was added */
	for (; nr < total; nr++) {
		ret = arch_add_memory(nid, prd->phys_addr + nr * PRD_SECTION_BYTES,
				      PRD_SECTION_BYTES, &params);
		if (ret) {
			pr_err("region %u: adding section %lu failed: %d\n",
			       prd->id, nr, ret);
			goto out_remove;
		}
	}
	/* memmap_init_range(MEMINIT_HOTPLUG): refcount 1, reserved/offline, links */
	move_pfn_range_to_zone(prd->zone, PHYS_PFN(prd->phys_addr),
			       PHYS_PFN(prd->size), NULL, MIGRATE_UNMOVABLE);
	mem_hotplug_done();

	prd->virt_addr = vaddr;
	prd->memmap_ram = PHYS_PFN(prd->size) * sizeof(struct page);
	prd->pfn_flags = PFN_MAP;
	return 0;

out_remove:
	prd_sparse_remove_sections(prd, nr);
	kasan_remove_zero_shadow(vaddr, prd->size);
out_unlock:
	mem_hotplug_done();
	return ret;
}

/* The caller has waited until no page is referenced beyond the driver. */
void prd_sparse_unmap(struct prd_device *prd)
{
	mem_hotplug_begin();
	remove_pfn_range_from_zone(prd->zone, PHYS_PFN(prd->phys_addr),
				   PHYS_PFN(prd->size));
	prd_sparse_remove_sections(prd, prd->size / PRD_SECTION_BYTES);
	kasan_remove_zero_shadow(__va(prd->phys_addr), prd->size);
	mem_hotplug_done();
}

#else /* !PRD_HAVE_SPARSE */

bool prd_sparse_supported(void)
{
	return false;
}

int prd_sparse_map(struct prd_device *prd)
{
	return -EOPNOTSUPP;
}

void prd_sparse_unmap(struct prd_device *prd)
{
}

#endif /* PRD_HAVE_SPARSE */
