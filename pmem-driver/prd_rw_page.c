// SPDX-License-Identifier: GPL-2.0
/*
 * prd on 6.1: block_device_operations.rw_page, the single-page I/O that
 * bdev_read_page()/bdev_write_page() (swap, mpage) try before a bio. 6.12
 * has neither the hook nor page_endio(): Kbuild builds this file for 6.1
 * only (prd_compat.h).
 */
#include <linux/blkdev.h>
#include <linux/pagemap.h>
#include "prd_compat.h"
#include "prd_dev.h"

int prd_rw_page(struct block_device *bdev, sector_t sector,
		struct page *page, enum req_op op)
{
	struct prd_device *prd = bdev->bd_disk->private_data;
	unsigned int len = thp_size(page);

	if (sector + (len >> SECTOR_SHIFT) > get_capacity(bdev->bd_disk))
		return -EIO;
	/* the core retries by bio on error: no page_endio() then */
	if (op_is_write(op) ? prd_write(prd, page, 0, sector, len) :
			      prd_read(prd, page, 0, sector, len))
		return -EIO;
	page_endio(page, op_is_write(op), 0);
	return 0;
}
