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
 * Lifetime: the copy is refcounted; the submitter holds one reference and
 * every bio one. A completing bio records its status, wakes the submitter
 * and drops its reference as its very last access, so the copy outlives
 * the completion of each of its bios. The ioctl waits for all of them: the
 * pages of a bio are pmem pages that nothing else keeps mapped.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/pagemap.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "prd.h"
#include "pzc.h"

#define PZC_BIO_BYTES		SZ_1M	/* bytes per bio */
#define PZC_BIOS_IN_FLIGHT	8

/**
 * struct pzc_copy_op - one copy
 * @ref: the submitter, plus one per bio in flight
 * @inflight: bios in flight
 * @wait: a bio ended
 * @status: the first error of a bio
 * @bounce: bio pages are bounce pages, freed with the bio
 */
struct pzc_copy_op {
	refcount_t		ref;
	atomic_t		inflight;
	wait_queue_head_t	wait;
	blk_status_t		status;
	bool			bounce;
};

static void pzc_copy_put(struct pzc_copy_op *op)
{
	if (refcount_dec_and_test(&op->ref))
		kfree(op);
}

/* May run in interrupt context. */
static void pzc_bio_end(struct bio *bio)
{
	struct pzc_copy_op *op = bio->bi_private;
	struct bvec_iter_all iter;
	struct bio_vec *bv;

	if (bio->bi_status)
		cmpxchg(&op->status, BLK_STS_OK, bio->bi_status);
	if (op->bounce)
		bio_for_each_segment_all(bv, bio, iter)
			__free_page(bv->bv_page);
	bio_put(bio);
	atomic_dec(&op->inflight);
	wake_up(&op->wait);
	/* the last access: the submitter may free the op right after */
	pzc_copy_put(op);
}

static void pzc_bio_submit(struct pzc_copy_op *op, struct bio *bio, u64 *bios)
{
	/* pieces are multiples of the target's logical block: so are bios */
	if (WARN_ON_ONCE(bio->bi_iter.bi_size &
			 (bdev_logical_block_size(bio->bi_bdev) - 1))) {
		bio->bi_status = BLK_STS_IOERR;
		refcount_inc(&op->ref);
		atomic_inc(&op->inflight);
		bio_endio(bio);
		return;
	}
	refcount_inc(&op->ref);
	atomic_inc(&op->inflight);
	(*bios)++;
	pzc_stat_add(PZC_BIOS, 1);
	submit_bio(bio);
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
 * Submit bios for [@a->offset, + @a->length). Return: bytes submitted;
 * @err says why they are fewer.
 */
static u64 pzc_copy_loop(struct pzc_copy_op *op, struct pzc_src *src,
			 struct block_device *dst, struct pmem_zc_copy *a,
			 int *err)
{
	struct pzc_extent ext = {};
	struct bio *bio = NULL;
	u64 pos = a->offset, end = a->offset + a->length, done = 0;
	unsigned int off, len;
	struct page *page;

	*err = 0;
	while (pos < end) {
		if (!ext.len) {
			*err = pzc_src_extent(src, pos, end - pos, &ext);
			if (*err)
				break;
		}
		/* the piece of the extent that lies in one page */
		off = ext.kaddr ? offset_in_page(ext.kaddr) : pos & ~PAGE_MASK;
		len = min_t(u64, ext.len, PAGE_SIZE - off);
		page = pzc_copy_page(op, &ext, off, len, err);
		if (!page)
			break;
		if (bio && (bio->bi_iter.bi_size >= PZC_BIO_BYTES ||
			    bio_add_page(bio, page, len, off) != len)) {
			pzc_bio_submit(op, bio, &a->bios);
			bio = NULL;
		}
		if (!bio) {
			wait_event(op->wait, atomic_read(&op->inflight) <
					     PZC_BIOS_IN_FLIGHT);
			bio = bio_alloc(dst, BIO_MAX_VECS, REQ_OP_WRITE,
					GFP_KERNEL);
			bio->bi_iter.bi_sector = (a->dst_offset + done) >>
						 SECTOR_SHIFT;
			bio->bi_end_io = pzc_bio_end;
			bio->bi_private = op;
			__bio_add_page(bio, page, len, off);
		}
		pos += len;
		done += len;
		ext.len -= len;
		cond_resched();
		if (ext.kaddr) {
			ext.kaddr += len;
			if (!offset_in_page(ext.kaddr))
				ext.pfn++;
		}
		if (signal_pending(current) && pos < end) {
			*err = -EINTR;
			break;
		}
	}
	if (bio) {
		if (!*err && (a->flags & PMEM_ZC_F_FUA))
			bio->bi_opf |= REQ_FUA;
		pzc_bio_submit(op, bio, &a->bios);
	}
	return done;
}

/**
 * pzc_copy - PMEM_ZC_IOC_COPY
 * @a: the caller's struct, in fields checked, out fields zeroed
 *
 * Return: 0 when bytes were written (@a->error says why not all, e.g. a
 * signal), -errno when the copy failed: nothing was written, or a bio
 * failed (the target range is then undefined, as after a failed write(2)).
 */
long pzc_copy(struct pmem_zc_copy *a)
{
	struct address_space *mapping;
	struct pzc_copy_op *op;
	struct file *dst_file;
	struct block_device *dst;
	struct pzc_src src;
	pgoff_t first, last;
	bool bounce;
	u64 done;
	int err, ret;

	if ((a->offset | a->length | a->dst_offset) & (SECTOR_SIZE - 1))
		return -EINVAL;
	ret = pzc_src_get(&src, a->src_fd, a->offset, a->length);
	if (ret)
		goto out_src;
	dst_file = pzc_copy_target(a, &src, &ret);
	if (!dst_file)
		goto out_src;
	dst = I_BDEV(dst_file->f_mapping->host);
	mapping = dst_file->f_mapping;
	first = a->dst_offset >> PAGE_SHIFT;
	last = (a->dst_offset + a->length - 1) >> PAGE_SHIFT;
	/* as an O_DIRECT write: no dirty cached page may land on the copy */
	ret = filemap_write_and_wait_range(mapping, a->dst_offset,
					   a->dst_offset + a->length - 1);
	if (ret)
		goto out_dst;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op) {
		ret = -ENOMEM;
		goto out_dst;
	}
	refcount_set(&op->ref, 1);
	init_waitqueue_head(&op->wait);
	bounce = (a->flags & PMEM_ZC_F_COPY) || src.mode == PRD_PAGES_NONE;
	op->bounce = bounce;
	pzc_stat_add(PZC_COPIES, 1);

	done = pzc_copy_loop(op, &src, dst, a, &err);
	/* bios reference the pages without holding them: wait for them all */
	wait_event(op->wait, !atomic_read(&op->inflight));
	if (op->status) {
		err = blk_status_to_errno(op->status);
		done = 0;
	}
	pzc_copy_put(op);
	if (done && !err && (a->flags & PMEM_ZC_F_FLUSH))
		err = blkdev_issue_flush(dst);
	invalidate_inode_pages2_range(mapping, first, last);
	if (done)
		fsnotify_modify(dst_file);

	if (done) {
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
out_dst:
	fput(dst_file);
out_src:
	pzc_src_put(&src);
	return ret;
}
