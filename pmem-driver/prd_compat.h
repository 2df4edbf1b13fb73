/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prd on the kernels it is built for, Debian's 6.12 and 6.1: each API that
 * differs between them, defined once here. The gate is the release the
 * project builds and tests (Kbuild refuses others), not the one that made
 * the change.
 *
 * What 6.12 no longer has: block_device_operations.rw_page and page_endio()
 * (swap and mpage go by bio; BLK_FEAT_SYNCHRONOUS is what makes swap do
 * synchronous I/O now). On 6.1 prd_rw_page.c still serves them.
 */
#ifndef PRD_COMPAT_H
#define PRD_COMPAT_H

#include <linux/blkdev.h>
#include <linux/memory_hotplug.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)

/*
 * The queue of a prd disk, all of it in the limits blk_alloc_disk() takes:
 * 512-byte logical blocks, 4 KiB physical blocks (fdisk aligns partitions
 * for direct access), no size limit on a bio, a volatile write cache in the
 * CPU (PREFLUSH and FUA are fences), RWF_NOWAIT (I/O never sleeps waiting
 * for resources), synchronous completion (swap's SWP_SYNCHRONOUS_IO), and
 * DAX for a disk with ZONE_DEVICE pages. io_min is the physical block:
 * blk_validate_limits() raises it there on every update, where 6.1 let
 * prd set 512.
 */
static inline struct gendisk *prd_compat_alloc_disk(int nid, bool dax)
{
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.max_hw_sectors		= UINT_MAX,
		.features		= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
					  BLK_FEAT_NOWAIT | BLK_FEAT_SYNCHRONOUS,
	};

	if (dax)
		lim.features |= BLK_FEAT_DAX;
	return blk_alloc_disk(&lim, nid);
}

#define PRD_FOPS_RW_PAGE

static inline void prd_compat_remove_memory(u64 start, u64 size)
{
	arch_remove_memory(start, size, NULL, NULL);
}

#else /* 6.1 */

/* the same queue, set up after allocation (see the 6.12 version above) */
static inline struct gendisk *prd_compat_alloc_disk(int nid, bool dax)
{
	struct gendisk *disk = blk_alloc_disk(nid);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	/* no read-modify-write penalty: io_min 512, below the physical block */
	q->limits.io_min = SECTOR_SIZE;
	blk_queue_max_hw_sectors(q, UINT_MAX);
	blk_queue_write_cache(q, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	if (dax)
		blk_queue_flag_set(QUEUE_FLAG_DAX, q);
	return disk;
}

int prd_rw_page(struct block_device *bdev, sector_t sector,
		struct page *page, enum req_op op);
#define PRD_FOPS_RW_PAGE	.rw_page = prd_rw_page,

static inline void prd_compat_remove_memory(u64 start, u64 size)
{
	arch_remove_memory(start, size, NULL);
}

#endif

#endif /* PRD_COMPAT_H */
