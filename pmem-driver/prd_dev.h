/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prd internals shared by prd_main.c (module, block device, DAX, sysfs),
 * prd_pages.c and prd_sparse.c (how a region is mapped and gets struct
 * pages), prd_firmware.c (whether it is persistent memory) and
 * prd_layout.c (its info block).
 */
#ifndef PRD_DEV_H
#define PRD_DEV_H

#include <linux/badblocks.h>
#include <linux/blk_types.h>
#include <linux/memremap.h>
#include <linux/types.h>
#include "prd.h"

struct gendisk;
struct dax_device;

/**
 * struct prd_device - one prd disk, one region of map=
 * @id: index in map=, the N of the disk name
 * @nid: NUMA node of the region
 * @phys_addr: physical start of the region
 * @size: bytes of the region
 * @data_offset: bytes at the start of the region that are not disk data
 *	(the info block and memmap area of a memmap=dev layout), 0 otherwise
 * @info_block: the region carries a prd info block (prd_layout.c)
 * @layout_new: a memmap=dev load found the region empty: its info block is
 *	written before the disk is announced, and its head zeroed again if
 *	the load fails before that
 * @described_by: the firmware table that describes the region as
 *	persistent memory ("ACPI NFIT" or "e820")
 * @read_only: the firmware says the region must not be written (an NVDIMM
 *	behind it is not armed): the disk is read-only
 * @virt_addr: kernel address of @phys_addr
 * @mode: page mode
 * @memmap_on_dev: devmap mode with the memmap in the region itself
 * @pfn_flags: PFN_DEV, plus PFN_MAP when the pfns have pages
 * @memmap_ram: bytes of RAM spent on the memmap of this region
 * @map_ns: nanoseconds it took to map the region (and make its pages)
 * @flushes: REQ_PREFLUSH bios completed (each after a store fence)
 * @fuas: REQ_FUA write bios completed (each after a store fence)
 * @res_name: name of the claim in /proc/iomem (allocated: it may outlive
 *	the module when the region is leaked)
 * @bb: bad sectors of the disk (gendisk badblocks, sysfs "badblocks")
 * @pgmap: the ZONE_DEVICE page map (devmap mode), allocated for the same
 *	reason as @res_name
 * @zone: the zone whose span covers the pages (sparse mode)
 * @disk: the block device
 * @added: @disk was announced (device_add_disk())
 * @dax_dev: the DAX device of @disk (devmap mode only)
 */
struct prd_device {
	unsigned int		id;
	int			nid;
	phys_addr_t		phys_addr;
	u64			size;
	u64			data_offset;
	bool			info_block;
	bool			layout_new;
	const char		*described_by;
	bool			read_only;
	void			*virt_addr;
	enum prd_page_mode	mode;
	bool			memmap_on_dev;
	u64			pfn_flags;
	u64			memmap_ram;
	u64			map_ns;
	atomic64_t		flushes;
	atomic64_t		fuas;
	char			*res_name;
	struct badblocks	bb;
	struct dev_pagemap	*pgmap;
	struct zone		*zone;
	struct gendisk		*disk;
	bool			added;
	struct dax_device	*dax_dev;
};

/* prd_main.c: the data path */
blk_status_t prd_read(struct prd_device *prd, struct page *page,
		      unsigned int off, sector_t sector, unsigned int len);
blk_status_t prd_write(struct prd_device *prd, struct page *page,
		       unsigned int off, sector_t sector, unsigned int len);

int prd_pages_map(struct prd_device *prd);
void prd_pages_unmap(struct prd_device *prd);
unsigned long prd_pages_busy(struct prd_device *prd, unsigned long *under);

int prd_firmware_check(struct prd_device *prd);
int prd_layout_init(void);
int prd_layout_read(struct prd_device *prd);
int prd_layout_write(struct prd_device *prd);
void prd_layout_commit(struct prd_device *prd);
void prd_layout_undo(struct prd_device *prd);

/* prd_sparse.c: the RFC's page mode, on kernels with mm-export-patch */
bool prd_sparse_supported(void);
int prd_sparse_map(struct prd_device *prd);
void prd_sparse_unmap(struct prd_device *prd);

#endif /* PRD_DEV_H */
