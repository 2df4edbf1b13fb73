// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc copies: bytes of a pmem source written to a block device in bios
 * whose pages are the pmem pages themselves (or, in copy mode and for disks
 * without pages, bounce pages filled with copy_mc_to_kernel()).
 *
 * The target gets the checks write(2) of it would make (FMODE_WRITE,
 * rw_verify_area(), read-only disks) and the treatment of an O_DIRECT
 * write: its dirty page cache in the range is written back first and the
 * range invalidated after, so that a later buffered read sees the copy.
 * Offsets and length are multiples of the target's logical block size.
 *
 * Lifetime: no code of this module runs when a bio ends. The bios of a
 * batch (up to PZC_BATCH_BIOS) are chained (blk_next_bio()) to its last
 * one, which a work item submits with submit_bio_wait(): completions run
 * in the block layer only, and module exit drains the workqueue, so no
 * completion can run on freed module text. The caller waits for each batch
 * killably. When a fatal signal ends the wait, the work item takes the
 * copy over: the source stays held (a file source write-denied), and the
 * target, the copy and the module with it, until the last bio of the batch
 * has ended, since the bios reference pmem pages without holding them.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include "prd.h"
#include "pzc.h"

static unsigned int debug_copy_end_delay_ms;
module_param(debug_copy_end_delay_ms, uint, 0600);
MODULE_PARM_DESC(debug_copy_end_delay_ms, "Test knob: ms a copy's last code sleeps after it woke the caller, the window module exit must wait for (default 0)");

#define PZC_BIO_BYTES		SZ_1M	/* bytes per bio */
#define PZC_BATCH_BIOS		8	/* bios chained and waited for at once */
#define PZC_BATCH_PAGES		(PZC_BATCH_BIOS * (PZC_BIO_BYTES / PAGE_SIZE))

/**
 * struct pzc_copy_op - one copy
 * @work: submits the batch's last bio and waits for the whole batch
 * @batch_done: the batch ended (the caller's wait)
 * @lock: @batch and @abandoned
 * @batch: the batch's last bio, the parent of the others; NULL once ended
 * @abandoned: the caller was killed: the work item releases the copy
 * @status: of the last batch, -errno
 * @src: the source, held until the last bio ended
 * @dst_file: the target
 * @first: first page of the target's cache the copy covers
 * @last: last page of it
 * @bounce: bio pages are bounce pages: @pages, freed by the work item
 * @nr_pages: bounce pages of the batch
 * @pages: the bounce pages
 */
struct pzc_copy_op {
	struct work_struct	work;
	struct completion	batch_done;
	spinlock_t		lock;
	struct bio		*batch;
	bool			abandoned;
	int			status;
	struct pzc_src		src;
	struct file		*dst_file;
	pgoff_t			first;
	pgoff_t			last;
	bool			bounce;
	unsigned int		nr_pages;
	struct page		*pages[];
};

/* Let go of the copy: target, source, the op and its module reference. */
static void pzc_copy_release(struct pzc_copy_op *op)
{
	/* as an O_DIRECT write: the cache of the range is dropped after */
	invalidate_inode_pages2_range(op->dst_file->f_mapping, op->first,
				      op->last);
	fput(op->dst_file);
	pzc_src_put(&op->src);
	kvfree(op);
	module_put(THIS_MODULE);
}

/* The batch: submitted and waited for here, never in a bio completion. */
static void pzc_copy_batch_work(struct work_struct *work)
{
	struct pzc_copy_op *op = container_of(work, struct pzc_copy_op, work);
	bool abandoned;
	int status;

	status = submit_bio_wait(op->batch);
	bio_put(op->batch);
	while (op->nr_pages)
		__free_page(op->pages[--op->nr_pages]);
	spin_lock(&op->lock);
	op->batch = NULL;
	op->status = status;
	abandoned = op->abandoned;
	spin_unlock(&op->lock);
	if (abandoned) {
		pzc_copy_release(op);
		return;
	}
	/* the last access: the caller owns the op once woken */
	complete(&op->batch_done);
	/* module exit waits for us (destroy_workqueue()), however late */
	if (debug_copy_end_delay_ms)
		msleep(debug_copy_end_delay_ms);
}

/*
 * Hand the batch ending in @bio to the work item and wait for it. Return:
 * 0 (the batch's status in @op->status), or -EINTR when a fatal signal
 * ended the wait: the op is the work item's then, and must not be touched.
 */
static int pzc_copy_batch_wait(struct pzc_copy_op *op, struct bio *bio)
{
	op->batch = bio;
	reinit_completion(&op->batch_done);
	queue_work(pzc_wq, &op->work);
	if (!wait_for_completion_killable(&op->batch_done))
		return 0;
	spin_lock(&op->lock);
	if (op->batch) {
		op->abandoned = true;
		spin_unlock(&op->lock);
		return -EINTR;
	}
	spin_unlock(&op->lock);
	/* the batch has ended, its completion is on its way */
	wait_for_completion(&op->batch_done);
	return 0;
}

/* the page of @len bytes of @ext, or a bounce page holding them */
static struct page *pzc_copy_page(struct pzc_copy_op *op,
				  struct pzc_extent *ext, unsigned int off,
				  unsigned int len, int *err)
{
	struct page *page;

	*err = 0;
	if (!op->bounce)
		return ext->kaddr ? pfn_to_page(ext->pfn) : ZERO_PAGE(0);
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!ext->kaddr) {
		memset(page_address(page) + off, 0, len);
	} else if (copy_mc_to_kernel(page_address(page) + off, ext->kaddr,
				     len)) {
		__free_page(page);
		*err = -EIO;
		return NULL;
	}
	op->pages[op->nr_pages++] = page;	/* freed once the batch ended */
	return page;
}

/* the target: a block device open for writing, what write(2) would check */
static struct file *pzc_copy_target(struct pmem_zc_copy *a,
				    struct pzc_src *src, int *err)
{
	struct file *file = fget(a->dst_fd);
	struct block_device *dst;
	loff_t pos = a->dst_offset;
	unsigned int lbs;

	*err = -EBADF;
	if (!file)
		return NULL;
	if (!S_ISBLK(file_inode(file)->i_mode)) {
		*err = S_ISDIR(file_inode(file)->i_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	dst = I_BDEV(file->f_mapping->host);
	if (!(file->f_mode & FMODE_WRITE))
		goto out;
	/* as blkdev_write_iter(): an active swap device is not written */
	*err = -ETXTBSY;
	if (IS_SWAPFILE(file->f_mapping->host))
		goto out;
	*err = -EROFS;
	if (bdev_read_only(dst))
		goto out;
	*err = -EINVAL;
	lbs = bdev_logical_block_size(dst);
	if ((a->offset | a->length | a->dst_offset) & (lbs - 1))
		goto out;
	/*
	 * Bios are cut between pieces of the source, which for a file are
	 * its blocks: smaller ones than the target's logical block could
	 * make a bio of a partial logical block.
	 */
	if (src->inode && (1U << src->inode->i_blkbits) < lbs)
		goto out;
	/* one disk, or two partitions of one: the ranges may overlap */
	if (dst->bd_disk == src->bdev->bd_disk)
		goto out;
	*err = -ENOSPC;
	if (a->dst_offset > bdev_nr_bytes(dst) ||
	    a->length > bdev_nr_bytes(dst) - a->dst_offset)
		goto out;
	*err = rw_verify_area(WRITE, file, &pos, a->length);
	if (*err)
		goto out;
	return file;
out:
	fput(file);
	return NULL;
}

/*
 * A new bio of the batch, writing at @done bytes into the target, chained
 * to @bio, which is submitted.
 */
static struct bio *pzc_copy_next_bio(struct bio *bio, struct block_device *dst,
				     struct pmem_zc_copy *a, u64 done)
{
	a->bios++;
	pzc_stat_add(PZC_BIOS, 1);
	bio = blk_next_bio(bio, dst, BIO_MAX_VECS, REQ_OP_WRITE, GFP_KERNEL);
	bio->bi_iter.bi_sector = (a->dst_offset + done) >> SECTOR_SHIFT;
	return bio;
}

/*
 * One batch of bios for [@*pos, @end), chained: @*pos and @*done advance
 * by what the batch covers. Return: the batch's last bio, to submit and
 * wait for, or NULL when nothing was added (@err says why). No bio is
 * ever left empty.
 */
static struct bio *pzc_copy_batch(struct pzc_copy_op *op, struct pzc_src *src,
				  struct block_device *dst,
				  struct pmem_zc_copy *a, struct pzc_extent *ext,
				  u64 *pos, u64 end, u64 *done, int *err)
{
	unsigned int off, len, nr_bios = 0;
	struct bio *bio = NULL;
	struct page *page;
	bool new_bio;

	*err = 0;
	while (*pos < end && op->nr_pages < PZC_BATCH_PAGES) {
		if (!ext->len) {
			*err = pzc_src_extent(src, *pos, end - *pos, ext);
			if (*err)
				break;
		}
		/* the piece of the extent that lies in one page */
		off = ext->kaddr ? offset_in_page(ext->kaddr) : *pos & ~PAGE_MASK;
		len = min_t(u64, ext->len, PAGE_SIZE - off);
		new_bio = !bio || bio->bi_iter.bi_size >= PZC_BIO_BYTES ||
			  bio->bi_vcnt >= bio->bi_max_vecs;
		if (new_bio && nr_bios == PZC_BATCH_BIOS)
			break;
		page = pzc_copy_page(op, ext, off, len, err);
		if (!page)
			break;
		if (new_bio) {
			bio = pzc_copy_next_bio(bio, dst, a, *done);
			nr_bios++;
		}
		__bio_add_page(bio, page, len, off);
		*pos += len;
		*done += len;
		ext->len -= len;
		if (ext->kaddr) {
			ext->kaddr += len;
			if (!offset_in_page(ext->kaddr))
				ext->pfn++;
		}
		cond_resched();
		if (signal_pending(current) && *pos < end) {
			*err = -EINTR;
			break;
		}
	}
	return bio;
}

/**
 * pzc_copy - PMEM_ZC_IOC_COPY
 * @a: the caller's struct, in fields checked, out fields zeroed
 *
 * Return: 0 when bytes were written (@a->error says why not all, e.g. a
 * signal), -errno when the copy failed: nothing was written, or a bio
 * failed (the target range is then undefined, as after a failed write(2)).
 * A fatal signal returns -EINTR at once; the copy lets go of its source and
 * target when its bios have ended.
 */
long pzc_copy(struct pmem_zc_copy *a)
{
	u64 pos = a->offset, end = a->offset + a->length, done = 0;
	struct pzc_extent ext = {};
	struct pzc_copy_op *op;
	struct block_device *dst;
	struct bio *bio;
	bool bounce;
	int err = 0, ret;

	if ((a->offset | a->length | a->dst_offset) & (SECTOR_SIZE - 1))
		return -EINVAL;
	op = kvzalloc(struct_size(op, pages, PZC_BATCH_PAGES), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	ret = pzc_src_get(&op->src, a->src_fd, a->offset, a->length);
	if (ret)
		goto out_src;
	op->dst_file = pzc_copy_target(a, &op->src, &ret);
	if (!op->dst_file)
		goto out_src;
	dst = I_BDEV(op->dst_file->f_mapping->host);
	op->first = a->dst_offset >> PAGE_SHIFT;
	op->last = (a->dst_offset + a->length - 1) >> PAGE_SHIFT;
	/* as an O_DIRECT write: no dirty cached page may land on the copy */
	ret = filemap_write_and_wait_range(op->dst_file->f_mapping,
					   a->dst_offset,
					   a->dst_offset + a->length - 1);
	if (ret)
		goto out_dst;

	INIT_WORK(&op->work, pzc_copy_batch_work);
	init_completion(&op->batch_done);
	spin_lock_init(&op->lock);
	bounce = (a->flags & PMEM_ZC_F_COPY) || op->src.mode == PRD_PAGES_NONE;
	op->bounce = bounce;
	__module_get(THIS_MODULE);	/* until pzc_copy_release() */
	pzc_stat_add(PZC_COPIES, 1);

	while (pos < end && !err) {
		bio = pzc_copy_batch(op, &op->src, dst, a, &ext, &pos, end,
				     &done, &err);
		if (!bio)
			break;
		if (pos == end && !err && (a->flags & PMEM_ZC_F_FUA))
			bio->bi_opf |= REQ_FUA;
		if (pzc_copy_batch_wait(op, bio))
			return -EINTR;	/* killed: the work item lets go */
		if (op->status) {
			err = op->status;
			done = 0;
		}
	}
	if (done && !err && (a->flags & PMEM_ZC_F_FLUSH))
		err = blkdev_issue_flush(dst);
	if (done) {
		fsnotify_modify(op->dst_file);
		a->bytes_done = done;
		if (bounce)
			a->bytes_copied = done;
		else
			a->bytes_ref = done;
		a->error = -err;
		pzc_stat_add(bounce ? PZC_BYTES_COPIED : PZC_BYTES_REF, done);
		ret = 0;
	} else {
		ret = err ? err : -EIO;
	}
	pzc_copy_release(op);
	return ret;

out_dst:
	fput(op->dst_file);
out_src:
	pzc_src_put(&op->src);
	kvfree(op);
	return ret;
}
