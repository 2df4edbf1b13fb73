// SPDX-License-Identifier: GPL-2.0
/*
 * prd - Persistent memory block driver
 *
 * One block device (pmemN) per region of the map= parameter, each a range
 * the firmware describes as persistent memory (prd_firmware.c) and no
 * other driver claims. Bio I/O (and rw_page on 6.1), a getgeo that keeps
 * fdisk out of the way, partitions, bad blocks, struct pages in one of
 * three page modes (prd_pages.c), and with ZONE_DEVICE pages a DAX device.
 *
 * Durability: writes go to the persistence domain with memcpy_flushcache()
 * (non-temporal stores, cache write-back of unaligned edges). A REQ_PREFLUSH
 * or REQ_FUA bio is completed only after a store fence (wmb(), sfence on
 * x86), so every write completed before it is durable when it completes.
 *
 * Loading is claim-then-commit: every region is validated, claimed and
 * mapped before the first disk is announced, so a bad region leaves no
 * trace. Unloading waits, killably, until no page of a region is
 * referenced; a killed wait leaves the region (memory, memmap) leaked
 * rather than freeing a memmap that someone still points into.
 *
 * Port to Linux 6.1 and 6.12 of the 2014 RFC by Ross Zwisler, Boaz Harrosh
 * and Yigal Korman ("pmem: Support for struct page with Persistent Memory
 * storage"), whose prd.c was derived from brd.c:
 *
 * Copyright (c) 2014, Intel Corporation.
 * Copyright (C) 2007 Nick Piggin
 * Copyright (C) 2007 Novell Inc.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/dax.h>
#include <linux/delay.h>
#include <linux/hdreg.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/memory_hotplug.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/pfn_t.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uio.h>
#include "prd_compat.h"
#include "prd_dev.h"
#include "prd_map.h"

#define PRD_WAIT_REPORT_SECS	10

static char *map;
module_param(map, charp, 0444);
MODULE_PARM_DESC(map, "Regions, one disk each: map=mapS[,mapS...], mapS=nn[KMGTPE]$ss[KMGTPE] or nn[KMGTPE]@ss[KMGTPE] (nn size, ss physical start; aligned to 4 KiB, 2 MiB for pages=devmap, a memory section, 128 MiB on x86_64, for pages=sparse)");

static char *pages = "none";
module_param(pages, charp, 0444);
MODULE_PARM_DESC(pages, "Struct pages for the memory: none (2014 baseline), sparse (the RFC's sections, needs mm-export-patch) or devmap (ZONE_DEVICE, memremap_pages)");

static char *memmap = "ram";
module_param(memmap, charp, 0444);
MODULE_PARM_DESC(memmap, "Where the memmap of pages=devmap lives: ram, or dev (in the head of each region, which shrinks the disk)");

static char *prefix = "pmem";
module_param(prefix, charp, 0444);
MODULE_PARM_DESC(prefix, "Disk name prefix (pmem gives pmem0, pmem1...); change it to load beside upstream's nd_pmem");

static struct prd_device *prd_devs[PRD_MAP_MAX];
static unsigned int prd_nr;

static const char * const prd_mode_names[] = {
	[PRD_PAGES_NONE] = "none",
	[PRD_PAGES_SPARSE] = "sparse",
	[PRD_PAGES_DEVMAP] = "devmap",
};

/*
 * Alignment of map= regions per mode: pages, ZONE_DEVICE subsections,
 * memory sections (arch_add_memory() works a section at a time).
 */
static const u64 prd_align[] = {
	[PRD_PAGES_NONE] = SZ_4K,
	[PRD_PAGES_SPARSE] = PAGES_PER_SECTION << PAGE_SHIFT,
	[PRD_PAGES_DEVMAP] = SZ_2M,
};

/* the one lookup helper: disk sector to kernel address */
static void *prd_addr(struct prd_device *prd, sector_t sector)
{
	return prd->virt_addr + prd->data_offset + ((u64)sector << SECTOR_SHIFT);
}

/* whether [sector, sector + len) holds a bad sector */
static bool prd_is_bad(struct prd_device *prd, sector_t sector, u64 len)
{
	sector_t first_bad;
	int num_bad;

	return prd->bb.count &&
	       badblocks_check(&prd->bb, sector, DIV_ROUND_UP(len, SECTOR_SIZE),
			       &first_bad, &num_bad);
}

/*
 * A bad range is not written: pmem.c clears the media error in firmware
 * first (nvdimm_clear_poison()) and fails the write with EIO where it
 * cannot, and prd has no way to clear one. So a bad range stays bad, and
 * fails writes as it fails reads, until the module is unloaded.
 */
blk_status_t prd_write(struct prd_device *prd, struct page *page,
		       unsigned int off, sector_t sector, unsigned int len)
{
	void *dst = prd_addr(prd, sector);
	unsigned int chunk;
	void *mem;

	if (unlikely(prd_is_bad(prd, sector, len)))
		return BLK_STS_IOERR;
	flush_dcache_page(page);
	while (len) {
		page += off >> PAGE_SHIFT;
		off &= ~PAGE_MASK;
		chunk = min_t(unsigned int, len, PAGE_SIZE - off);
		mem = kmap_local_page(page);
		memcpy_flushcache(dst, mem + off, chunk);
		kunmap_local(mem);
		len -= chunk;
		dst += chunk;
		off += chunk;
	}
	return BLK_STS_OK;
}

blk_status_t prd_read(struct prd_device *prd, struct page *page,
		      unsigned int off, sector_t sector, unsigned int len)
{
	void *src = prd_addr(prd, sector);
	unsigned long rem;
	unsigned int chunk;
	void *mem;

	if (unlikely(prd_is_bad(prd, sector, len)))
		return BLK_STS_IOERR;
	while (len) {
		page += off >> PAGE_SHIFT;
		off &= ~PAGE_MASK;
		chunk = min_t(unsigned int, len, PAGE_SIZE - off);
		mem = kmap_local_page(page);
		rem = copy_mc_to_kernel(mem + off, src, chunk);
		kunmap_local(mem);
		flush_dcache_page(page);
		if (rem)
			return BLK_STS_IOERR;
		len -= chunk;
		src += chunk;
		off += chunk;
	}
	return BLK_STS_OK;
}

/*
 * Order the non-temporal stores of memcpy_flushcache() before the
 * completion of a flush or FUA: once it completes, everything written
 * before it has reached the persistence domain.
 */
static void prd_fence(void)
{
	wmb(); /* sfence: drains the write-combining buffers of movnt */
}

static void prd_submit_bio(struct bio *bio)
{
	struct prd_device *prd = bio->bi_bdev->bd_disk->private_data;
	bool write = op_is_write(bio_op(bio));
	unsigned long start = 0;
	struct bvec_iter iter;
	struct bio_vec bvec;
	bool do_acct;

	if (bio_end_sector(bio) > get_capacity(bio->bi_bdev->bd_disk)) {
		bio_io_error(bio);
		return;
	}
	if (bio->bi_opf & REQ_PREFLUSH) {
		prd_fence();
		atomic64_inc(&prd->flushes);
	}

	/* an empty flush moves no data: it is counted in flushes alone */
	do_acct = bio_sectors(bio) &&
		  blk_queue_io_stat(bio->bi_bdev->bd_disk->queue);
	if (do_acct)
		start = bio_start_io_acct(bio);
	bio_for_each_segment(bvec, bio, iter) {
		blk_status_t err;

		if (write)
			err = prd_write(prd, bvec.bv_page, bvec.bv_offset,
					iter.bi_sector, bvec.bv_len);
		else
			err = prd_read(prd, bvec.bv_page, bvec.bv_offset,
				       iter.bi_sector, bvec.bv_len);
		if (err) {
			bio->bi_status = err;
			break;
		}
	}
	if (write && (bio->bi_opf & REQ_FUA)) {
		prd_fence();
		atomic64_inc(&prd->fuas);
	}
	if (do_acct)
		bio_end_io_acct(bio, start);
	bio_endio(bio);
}

/*
 * All ones: fdisk's geometry arithmetic then gets out of the way, and the
 * 4 KiB physical blocks make it align partitions on 4 KiB (which direct
 * access needs). hd_geometry's cylinders is a short, so a real geometry
 * would overflow beyond 64 GiB anyway.
 */
static int prd_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	geo->heads = 1;
	geo->sectors = 1;
	geo->cylinders = 1;
	return 0;
}

static const struct block_device_operations prd_fops = {
	.owner =	THIS_MODULE,
	.submit_bio =	prd_submit_bio,
	PRD_FOPS_RW_PAGE
	.getgeo =	prd_getgeo,
};

static long prd_dax_direct_access(struct dax_device *dax_dev, pgoff_t pgoff,
				  long nr_pages, enum dax_access_mode mode,
				  void **kaddr, pfn_t *pfn)
{
	struct prd_device *prd = dax_get_private(dax_dev);
	u64 offset = PFN_PHYS(pgoff) + prd->data_offset;
	sector_t sector = PFN_PHYS(pgoff) >> SECTOR_SHIFT;
	long avail;

	if (offset >= prd->size)
		return -ERANGE;
	avail = min_t(u64, nr_pages, PHYS_PFN(prd->size - offset));
	if (kaddr)
		*kaddr = prd->virt_addr + offset;
	if (pfn)
		*pfn = phys_to_pfn_t(prd->phys_addr + offset, prd->pfn_flags);
	/*
	 * A fault or a read on a bad range gets SIGBUS or EIO; a write too
	 * (no recovery_write: prd cannot clear a bad range, see prd_write()).
	 */
	if (prd_is_bad(prd, sector, PFN_PHYS(avail)))
		return -EIO;
	return PHYS_PFN(prd->size - offset);
}

static int prd_dax_zero_page_range(struct dax_device *dax_dev, pgoff_t pgoff,
				   size_t nr_pages)
{
	struct prd_device *prd = dax_get_private(dax_dev);
	sector_t sector = PFN_PHYS(pgoff) >> SECTOR_SHIFT;

	if (PFN_PHYS(pgoff + nr_pages) > prd->size - prd->data_offset)
		return -ERANGE;
	/* all or nothing: a bad page fails the whole range (prd_write()) */
	if (prd_is_bad(prd, sector, PFN_PHYS(nr_pages)))
		return -EIO;
	for (; nr_pages; nr_pages--, sector += PAGE_SECTORS)
		prd_write(prd, ZERO_PAGE(0), 0, sector, PAGE_SIZE);
	return 0;
}

static const struct dax_operations prd_dax_ops = {
	.direct_access =	prd_dax_direct_access,
	.zero_page_range =	prd_dax_zero_page_range,
};

/**
 * prd_direct_access - direct access to the bytes of a prd disk or partition
 * @bdev: a prd disk or one of its partitions, held open by the caller
 * @sector: 512-byte sector relative to @bdev, a multiple of PAGE_SIZE / 512
 * @kaddr: set to the kernel address of @sector
 * @pfn: set to the pfn of @sector; it has a struct page (pfn_valid()) unless
 *	the disk was loaded with pages=none, see prd_page_mode()
 * @size: bytes the caller wants, > 0
 *
 * The contract of the 2014 RFC's bdev_direct_access(). The address and pfn
 * stay valid while @bdev is open; pages the caller hands on (get_page())
 * keep the region mapped until their last reference is dropped. As for
 * fs DAX, a partition must start and end on a page boundary: a pfn cannot
 * name bytes that start inside a page.
 *
 * Return: bytes available at @kaddr, at most @size; -ENODEV when @bdev is
 * not a prd disk, -EINVAL for a bad @sector alignment or @size or for a
 * partition not aligned to pages, -ERANGE when @sector is at or beyond the
 * end of @bdev, -EIO when the range holds a bad sector.
 */
long prd_direct_access(struct block_device *bdev, sector_t sector,
		       void **kaddr, unsigned long *pfn, long size)
{
	sector_t nr = bdev_nr_sectors(bdev), start = get_start_sect(bdev);
	struct prd_device *prd;
	u64 avail;

	if (bdev->bd_disk->fops != &prd_fops)
		return -ENODEV;
	if (size <= 0 || sector & (PAGE_SECTORS - 1))
		return -EINVAL;
	if ((start | nr) & (PAGE_SECTORS - 1)) {
		pr_err_ratelimited("%pg: partition at sector %llu, %llu sectors long, is not aligned to %lu KiB: no direct access\n",
				   bdev, (u64)start, (u64)nr, PAGE_SIZE >> 10);
		return -EINVAL;
	}
	if (sector >= nr)
		return -ERANGE;

	prd = bdev->bd_disk->private_data;
	avail = min_t(u64, size, (u64)(nr - sector) << SECTOR_SHIFT);
	if (prd_is_bad(prd, start + sector, avail))
		return -EIO;
	*kaddr = prd_addr(prd, start + sector);
	*pfn = PHYS_PFN(prd->phys_addr + prd->data_offset +
			((u64)(start + sector) << SECTOR_SHIFT));
	return avail;
}
EXPORT_SYMBOL_GPL(prd_direct_access);

/**
 * prd_page_mode - page mode of the prd disk under @bdev
 * @bdev: a prd disk or partition, held open by the caller
 *
 * Return: an enum prd_page_mode, or -ENODEV when @bdev is not a prd disk.
 */
int prd_page_mode(struct block_device *bdev)
{
	struct prd_device *prd;

	if (bdev->bd_disk->fops != &prd_fops)
		return -ENODEV;
	prd = bdev->bd_disk->private_data;
	return prd->mode;
}
EXPORT_SYMBOL_GPL(prd_page_mode);

/* sysfs: /sys/block/<disk>/prd/, documented in docs/ABI/sysfs-block-prd */
static struct prd_device *dev_to_prd(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t phys_start_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n", (u64)dev_to_prd(dev)->phys_addr);
}
static DEVICE_ATTR_RO(phys_start);

static ssize_t size_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_to_prd(dev)->size);
}
static DEVICE_ATTR_RO(size);

static ssize_t data_offset_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_to_prd(dev)->data_offset);
}
static DEVICE_ATTR_RO(data_offset);

static ssize_t page_mode_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct prd_device *prd = dev_to_prd(dev);

	return sysfs_emit(buf, "%s\n", prd_mode_names[prd->mode]);
}
static DEVICE_ATTR_RO(page_mode);

static ssize_t memmap_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct prd_device *prd = dev_to_prd(dev);

	if (prd->mode == PRD_PAGES_NONE)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%s\n", prd->memmap_on_dev ? "dev" : "ram");
}
static DEVICE_ATTR_RO(memmap);

static ssize_t memmap_ram_bytes_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_to_prd(dev)->memmap_ram);
}
static DEVICE_ATTR_RO(memmap_ram_bytes);

static ssize_t map_usecs_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", div_u64(dev_to_prd(dev)->map_ns, 1000));
}
static DEVICE_ATTR_RO(map_usecs);

/* walks the whole memmap: root only */
static ssize_t pages_referenced_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	unsigned long under;

	return sysfs_emit(buf, "%lu\n", prd_pages_busy(dev_to_prd(dev), &under));
}
static DEVICE_ATTR_ADMIN_RO(pages_referenced);

static ssize_t firmware_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_prd(dev)->described_by);
}
static DEVICE_ATTR_RO(firmware);

static ssize_t layout_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_prd(dev)->info_block ?
			  "info-block" : "none");
}
static DEVICE_ATTR_RO(layout);

static ssize_t flushes_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&dev_to_prd(dev)->flushes));
}
static DEVICE_ATTR_RO(flushes);

static ssize_t fuas_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&dev_to_prd(dev)->fuas));
}
static DEVICE_ATTR_RO(fuas);

static struct attribute *prd_attrs[] = {
	&dev_attr_phys_start.attr,
	&dev_attr_size.attr,
	&dev_attr_data_offset.attr,
	&dev_attr_page_mode.attr,
	&dev_attr_memmap.attr,
	&dev_attr_memmap_ram_bytes.attr,
	&dev_attr_map_usecs.attr,
	&dev_attr_pages_referenced.attr,
	&dev_attr_flushes.attr,
	&dev_attr_fuas.attr,
	&dev_attr_firmware.attr,
	&dev_attr_layout.attr,
	NULL,
};

static const struct attribute_group prd_attr_group = {
	.name = "prd",
	.attrs = prd_attrs,
};

/* /sys/block/<disk>/dax/write_cache, as upstream pmem's */
static ssize_t write_cache_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  dax_write_cache_enabled(dev_to_prd(dev)->dax_dev));
}

static ssize_t write_cache_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	bool write_cache;
	int ret;

	ret = kstrtobool(buf, &write_cache);
	if (ret)
		return ret;
	dax_write_cache(dev_to_prd(dev)->dax_dev, write_cache);
	return len;
}
static DEVICE_ATTR_RW(write_cache);

static struct attribute *prd_dax_attrs[] = {
	&dev_attr_write_cache.attr,
	NULL,
};

/* only disks with a DAX device have the group */
static umode_t prd_dax_visible(struct kobject *kobj, struct attribute *a,
			       int n)
{
	return dev_to_prd(kobj_to_dev(kobj))->dax_dev ? a->mode : 0;
}

static const struct attribute_group prd_dax_attr_group = {
	.name = "dax",
	.attrs = prd_dax_attrs,
	.is_visible = prd_dax_visible,
};

static const struct attribute_group *prd_attr_groups[] = {
	&prd_attr_group,
	&prd_dax_attr_group,
	NULL,
};

/*
 * The region must be persistent memory the firmware describes, not System
 * RAM, and nobody's: claimed here for prd.
 */
static int prd_claim(struct prd_device *prd)
{
	int ret;

	if (region_intersects(prd->phys_addr, prd->size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("region %u %#llx+%#llx touches System RAM\n",
		       prd->id, (u64)prd->phys_addr, prd->size);
		return -EINVAL;
	}
	ret = prd_firmware_check(prd);
	if (ret)
		return ret;
	prd->res_name = kstrdup(KBUILD_MODNAME, GFP_KERNEL);
	if (!prd->res_name)
		return -ENOMEM;
	if (!request_mem_region(prd->phys_addr, prd->size, prd->res_name)) {
		pr_err("region %u %#llx+%#llx is already claimed (see /proc/iomem)\n",
		       prd->id, (u64)prd->phys_addr, prd->size);
		kfree(prd->res_name);
		return -EBUSY;
	}
	return 0;
}

static void prd_release(struct prd_device *prd)
{
	release_mem_region(prd->phys_addr, prd->size);
	kfree(prd->res_name);
}

/* the DAX device of a disk with ZONE_DEVICE pages, before the disk is added */
static int prd_dax_alloc(struct prd_device *prd, struct gendisk *disk)
{
	struct dax_device *dax_dev;
	int ret;

	dax_dev = alloc_dax(prd, &prd_dax_ops);
	if (IS_ERR(dax_dev))
		return PTR_ERR(dax_dev);
	set_dax_nocache(dax_dev);
	set_dax_nomc(dax_dev);
	set_dax_synchronous(dax_dev);
	/* dax_flush() writes back the CPU cache: fsync/msync durable */
	dax_write_cache(dax_dev, true);
	ret = dax_add_host(dax_dev, disk);
	if (ret) {
		kill_dax(dax_dev);
		put_dax(dax_dev);
		return ret;
	}
	prd->dax_dev = dax_dev;
	return 0;
}

/* the disk and its DAX device, ready to be added: nothing announced yet */
static int prd_disk_alloc(struct prd_device *prd)
{
	struct gendisk *disk;
	int ret;

	/*
	 * The queue (prd_compat.h): 4 KiB physical blocks so fdisk aligns
	 * partitions for direct access, a write cache, RWF_NOWAIT, and DAX
	 * with ZONE_DEVICE pages only: fs DAX needs pte_devmap() pages
	 * (prd_sparse.c), and in the other modes nothing could reach a DAX
	 * device.
	 */
	disk = prd_compat_alloc_disk(prd->nid, prd->mode == PRD_PAGES_DEVMAP);
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->fops = &prd_fops;
	disk->private_data = prd;
	disk->bb = &prd->bb;
	snprintf(disk->disk_name, DISK_NAME_LEN, "%s%u", prefix, prd->id);
	set_capacity(disk, (prd->size - prd->data_offset) >> SECTOR_SHIFT);
	/* an unarmed NVDIMM (prd_firmware.c): as nvdimm_check_and_set_ro() */
	set_disk_ro(disk, prd->read_only);

	if (prd->mode == PRD_PAGES_DEVMAP) {
		ret = prd_dax_alloc(prd, disk);
		if (ret) {
			pr_err("region %u: no DAX device: %d\n", prd->id, ret);
			put_disk(disk);
			return ret;
		}
	}
	prd->disk = disk;
	return 0;
}

/*
 * Take the disk down: first out of sight (del_gendisk() removes its sysfs
 * files, the dax/ ones included, and waits for their readers), then its
 * DAX device.
 */
static void prd_disk_free(struct prd_device *prd)
{
	if (prd->added)
		del_gendisk(prd->disk);
	if (prd->dax_dev) {
		dax_remove_host(prd->disk);
		kill_dax(prd->dax_dev);
		put_dax(prd->dax_dev);
		prd->dax_dev = NULL;
	}
	put_disk(prd->disk);
	prd->disk = NULL;
	prd->added = false;
}

/*
 * Wait until no page of the region is referenced beyond its own reference,
 * saying so every PRD_WAIT_REPORT_SECS. Return: true when the memmap may
 * go; false when it must be leaked: the wait was killed, or a page was put
 * below the region's reference (a sparse page then reached the page
 * allocator: its memmap must outlive whatever the allocator made of it).
 */
static bool prd_wait_idle(struct prd_device *prd)
{
	unsigned long busy, under, ticks = 0;

	for (;;) {
		busy = prd_pages_busy(prd, &under);
		if (WARN(under, "prd: region %u: %lu pages below their base reference\n",
			 prd->id, under))
			return false;
		if (!busy)
			return true;
		if (fatal_signal_pending(current)) {
			pr_err("region %u: unload killed with %lu pages still referenced\n",
			       prd->id, busy);
			return false;
		}
		if (!(ticks++ % (PRD_WAIT_REPORT_SECS * 10)))
			pr_warn("region %u: waiting for %lu referenced pages before unmapping (kill to give up)\n",
				prd->id, busy);
		schedule_timeout_killable(HZ / 10);
	}
}

/* undo prd_alloc() once the disk is gone */
static void prd_unmap(struct prd_device *prd)
{
	prd_pages_unmap(prd);
	prd_layout_undo(prd);
	prd_release(prd);
	badblocks_exit(&prd->bb);
	kfree(prd);
}

static void prd_free(struct prd_device *prd)
{
	if (prd->disk)
		prd_disk_free(prd);
	if (!prd_wait_idle(prd)) {
		/* the memory stays claimed and mapped, the memmap in place */
		pr_err("region %u %#llx+%#llx leaked: its memory and memmap stay until reboot\n",
		       prd->id, (u64)prd->phys_addr, prd->size);
		return;
	}
	prd_unmap(prd);
}

/*
 * Everything but announcing the disk: validated, claimed, laid out, mapped,
 * the disk and its DAX device allocated.
 */
static struct prd_device *prd_alloc(unsigned int id,
				    const struct prd_map_region *r,
				    enum prd_page_mode mode, bool memmap_on_dev)
{
	struct prd_device *prd;
	int ret;

	prd = kzalloc(sizeof(*prd), GFP_KERNEL);
	if (!prd)
		return ERR_PTR(-ENOMEM);
	prd->id = id;
	prd->phys_addr = r->start;
	prd->size = r->size;
	prd->mode = mode;
	prd->memmap_on_dev = memmap_on_dev;
	prd->nid = memory_add_physaddr_to_nid(r->start);
	if (prd->nid < 0 || !node_online(prd->nid))
		prd->nid = numa_mem_id();

	ret = prd_claim(prd);
	if (ret)
		goto out_free;
	ret = prd_layout_read(prd);
	if (ret)
		goto out_release;
	ret = badblocks_init(&prd->bb, 1);
	if (ret)
		goto out_undo;
	ret = prd_pages_map(prd);
	if (ret)
		goto out_bb;
	ret = prd_disk_alloc(prd);
	if (ret)
		goto out_unmap;
	ret = prd_layout_write(prd);
	if (ret)
		goto out_disk;
	return prd;

out_disk:
	prd_disk_free(prd);
out_unmap:
	prd_pages_unmap(prd);
out_bb:
	badblocks_exit(&prd->bb);
out_undo:
	prd_layout_undo(prd);
out_release:
	prd_release(prd);
out_free:
	kfree(prd);
	return ERR_PTR(ret);
}

static void prd_free_all(void)
{
	while (prd_nr)
		prd_free(prd_devs[--prd_nr]);
}

static int prd_parse_params(enum prd_page_mode *mode, bool *memmap_on_dev)
{
	int i;

	i = match_string(prd_mode_names, ARRAY_SIZE(prd_mode_names), pages);
	if (i < 0) {
		pr_err("pages=%s: expected none, sparse or devmap\n", pages);
		return -EINVAL;
	}
	*mode = i;
	if (*mode == PRD_PAGES_SPARSE && !prd_sparse_supported()) {
		pr_err("pages=sparse: this kernel lacks the mm exports it needs (mm-export-patch/); pages=devmap or pages=none work here\n");
		return -EOPNOTSUPP;
	}

	if (!strcmp(memmap, "dev")) {
		*memmap_on_dev = true;
	} else if (strcmp(memmap, "ram")) {
		pr_err("memmap=%s: expected ram or dev\n", memmap);
		return -EINVAL;
	}
	if (*memmap_on_dev && *mode != PRD_PAGES_DEVMAP) {
		pr_err("memmap=dev needs pages=devmap\n");
		return -EINVAL;
	}
	if (!*prefix || strlen(prefix) > DISK_NAME_LEN - 4 || strchr(prefix, '/')) {
		pr_err("prefix=%s: expected 1 to %d characters, no '/'\n",
		       prefix, DISK_NAME_LEN - 4);
		return -EINVAL;
	}
	return prd_layout_init();
}

static int __init prd_init(void)
{
	struct prd_map_region regions[PRD_MAP_MAX];
	char err[PRD_MAP_ERR_LEN];
	enum prd_page_mode mode;
	bool memmap_on_dev = false;
	struct prd_device *prd;
	unsigned int nr, i;
	int ret;

	ret = prd_parse_params(&mode, &memmap_on_dev);
	if (ret)
		return ret;
	ret = prd_map_parse(map, prd_align[mode], regions, &nr, err,
			    sizeof(err));
	if (ret) {
		pr_err("map=: %s\n", err);
		return ret;
	}
	for (i = 0; i < nr; i++) {
		if (regions[i].start + regions[i].size - 1 > iomem_resource.end) {
			pr_err("region %u %#llx+%#llx is beyond the physical address space (ends at %#llx)\n",
			       i, regions[i].start, regions[i].size,
			       (u64)iomem_resource.end);
			return -EINVAL;
		}
	}

	/* claim: every region validated and mapped, nothing announced yet */
	for (i = 0; i < nr; i++) {
		prd = prd_alloc(i, &regions[i], mode, memmap_on_dev);
		if (IS_ERR(prd)) {
			prd_free_all();
			return PTR_ERR(prd);
		}
		prd_devs[prd_nr++] = prd;
	}
	/* commit: the disks announced, their layouts theirs */
	for (i = 0; i < nr; i++) {
		prd = prd_devs[i];
		ret = device_add_disk(NULL, prd->disk, prd_attr_groups);
		if (!ret) {
			prd->added = true;
			prd_layout_commit(prd);
			pr_info("%s: %#llx+%#llx (%s%s) pages=%s%s, disk at %llu, memmap %llu bytes of RAM, mapped in %llu us\n",
				prd->disk->disk_name, (u64)prd->phys_addr,
				prd->size, prd->described_by,
				prd->read_only ? ", read-only" : "",
				prd_mode_names[mode],
				memmap_on_dev ? " memmap=dev" : "",
				prd->data_offset, prd->memmap_ram,
				div_u64(prd->map_ns, 1000));
			continue;
		}
		pr_err("region %u: cannot add disk %s: %d\n", prd->id,
		       prd->disk->disk_name, ret);
		if (!i) {
			prd_free_all();
			return ret;
		}
		/*
		 * Disks 0..i-1 are out there and may be open: a failed init
		 * would free the module under them. Keep them, drop the rest.
		 */
		while (prd_nr > i)
			prd_free(prd_devs[--prd_nr]);
		break;
	}
	return 0;
}

static void __exit prd_exit(void)
{
	prd_free_all();
}

module_init(prd_init);
module_exit(prd_exit);
MODULE_AUTHOR("pmem-zc developers");
MODULE_DESCRIPTION("Persistent memory block driver with struct page support");
MODULE_LICENSE("GPL");
#ifdef PRD_VERSION	/* Kbuild: from the VERSION file */
MODULE_VERSION(PRD_VERSION);
#endif
