// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc copies: bytes of a pmem source written to a block device in bios
 * whose pages are the pmem pages themselves (or, in copy mode and for disks
 * without pages, bounce pages filled with copy_mc_to_kernel()).
 *
 * The target gets the checks write(2) of it would make (FMODE_WRITE,
 * rw_verify_area(), read-only disks, active swap) and the treatment of an
 * O_DIRECT write: its dirty page cache in the range is written back first
 * and the range invalidated after, so that a later buffered read sees the
 * copy. Offsets and length are multiples of the target's logical block
 * size.
 *
 * Lifetime: no code of this module runs when a bio ends, and no caller
 * waits where it cannot be killed. A work item does the copy: it builds the
 * bios of a batch (up to PZC_BATCH_BIOS), each chained to the next
 * (bio_chain()) up to the batch's last one, which it submits with
 * submit_bio_wait(); completions run in the block layer only, and module
 * exit drains the workqueue. The bios are charged to the caller's blkcg and
 * carry its I/O priority, as its own would; the op and bounce pages to its
 * memory cgroup. The caller checks the source and target (and writes back
 * the target's dirty cache of the range, which is not killable), queues the
 * work and waits: a signal asks the work item to stop after its batch (the
 * bytes written so far are reported); a fatal signal returns at once and
 * leaves the copy to the work item, which holds the source (a file source
 * write-denied), the target and the module until its bios have ended,
 * since they reference pmem pages without holding them. Submission itself
 * may block in the target's driver (a stalled NBD server): only the work
 * item does.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/ioprio.h>
#include <linux/kthread.h>
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
#define PZC_COPIES_ACTIVE	16	/* copies running at once; more queue */
#define PZC_DEBUG_DELAY_MAX	10000	/* ms, the knob's ceiling */

/*
 * Copies have a workqueue of their own: a copy stuck on a stalled target
 * holds a worker for as long, and must not hold up send completions
 * (pzc_wq). Its bios come from a bioset of their own, not fs_bio_set,
 * which writeback under memory pressure relies on.
 */
static struct workqueue_struct *pzc_copy_wq;
static struct bio_set pzc_copy_bs;

/**
 * struct pzc_copy_op - one copy, from the ioctl to its last bio
 * @work: the copy itself
 * @done: the work item finished (the caller's wait)
 * @lock: @finished and @abandoned
 * @finished: the work item is done with the bios and the result
 * @abandoned: the caller was killed: the work item releases the copy
 * @stop: the caller had a signal: no batch after the current one
 * @offset: source byte the copy starts at
 * @length: bytes of it
 * @dst_offset: target byte it writes to
 * @flags: PMEM_ZC_F_*
 * @done_bytes: out: bytes written
 * @bios: out: bios submitted
 * @err: out: why fewer than @length (0, -EINTR, a bio's or the source's)
 * @src: the source, held until the last bio ended
 * @dst_file: the target
 * @css: the caller's blkcg, charged with the bios
 * @ioprio: the caller's I/O priority, the bios'
 * @bounce: bio pages are bounce pages (@pages), freed after each batch
 * @nr_pages: bounce pages of the batch
 * @pages: the bounce pages, PZC_BATCH_PAGES (bounce copies only)
 */
struct pzc_copy_op {
	struct work_struct	work;
	struct completion	done;
	spinlock_t		lock;		/* @finished, @abandoned */
	bool			finished;
	bool			abandoned;
	bool			stop;
	u64			offset;
	u64			length;
	u64			dst_offset;
	u32			flags;
	u64			done_bytes;
	u64			bios;
	int			err;
	struct pzc_src		src;
	struct file		*dst_file;
	struct cgroup_subsys_state *css;
	u16			ioprio;
	bool			bounce;
	unsigned int		nr_pages;
	struct page		**pages;
};

/* the blkcg of the calling task, referenced, or NULL */
static struct cgroup_subsys_state *pzc_copy_css_get(void)
{
#ifdef CONFIG_BLK_CGROUP
	return task_get_css(current, io_cgrp_id);
#else
	return NULL;
#endif
}

/* Let go of the copy: target, source, the op and its module reference. */
static void pzc_copy_release(struct pzc_copy_op *op)
{
	fput(op->dst_file);
	pzc_src_put(&op->src);
	if (op->css)
		css_put(op->css);
	kvfree(op->pages);
	kfree(op);
	module_put(THIS_MODULE);
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
	page = alloc_page(GFP_KERNEL_ACCOUNT);
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
static struct bio *pzc_copy_next_bio(struct pzc_copy_op *op, struct bio *bio,
				     struct block_device *dst, u64 done)
{
	/* as an O_DIRECT write: not throttled as background writeback */
	struct bio *new = bio_alloc_bioset(dst, BIO_MAX_VECS,
					   REQ_OP_WRITE | REQ_SYNC | REQ_IDLE,
					   GFP_KERNEL, &pzc_copy_bs);

	new->bi_iter.bi_sector = (op->dst_offset + done) >> SECTOR_SHIFT;
	new->bi_ioprio = op->ioprio;
	if (bio) {
		bio_chain(bio, new);
		submit_bio(bio);
	}
	op->bios++;
	pzc_stat_add(PZC_BIOS, 1);
	return new;
}

/*
 * One batch of bios for [@*pos, @end), chained: @*pos and @op->done_bytes
 * advance by what the batch covers. Return: the batch's last bio, to
 * submit and wait for, or NULL when nothing was added (@err says why). No
 * bio is ever left empty.
 */
static struct bio *pzc_copy_batch(struct pzc_copy_op *op,
				  struct block_device *dst,
				  struct pzc_extent *ext, u64 *pos, u64 end,
				  int *err)
{
	unsigned int off, len, nr_bios = 0;
	struct bio *bio = NULL;
	struct page *page;
	bool new_bio;

	*err = 0;
	while (*pos < end && op->nr_pages < PZC_BATCH_PAGES) {
		if (!ext->len) {
			*err = pzc_src_extent(&op->src, *pos, end - *pos, ext);
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
			bio = pzc_copy_next_bio(op, bio, dst, op->done_bytes);
			nr_bios++;
		}
		__bio_add_page(bio, page, len, off);
		*pos += len;
		op->done_bytes += len;
		ext->len -= len;
		if (ext->kaddr) {
			ext->kaddr += len;
			if (!offset_in_page(ext->kaddr))
				ext->pfn++;
		}
		cond_resched();
	}
	/* pieces are multiples of the target's logical block: so are bios */
	if (bio && WARN_ON_ONCE(bio->bi_iter.bi_size &
				(bdev_logical_block_size(dst) - 1)))
		*err = -EIO;
	return bio;
}

/* The copy, batch after batch; then the caller's, or the release. */
static void pzc_copy_work(struct work_struct *work)
{
	struct pzc_copy_op *op = container_of(work, struct pzc_copy_op, work);
	struct block_device *dst = I_BDEV(op->dst_file->f_mapping->host);
	u64 pos = op->offset, end = op->offset + op->length;
	struct pzc_extent ext = {};
	struct bio *bio;
	bool abandoned;
	int err = 0, ret;

	kthread_associate_blkcg(op->css);
	while (pos < end && !err) {
		if (READ_ONCE(op->stop)) {
			err = -EINTR;
			break;
		}
		/* swapon of the target under a long copy: stop, as write(2) */
		if (IS_SWAPFILE(op->dst_file->f_mapping->host)) {
			err = -ETXTBSY;
			break;
		}
		bio = pzc_copy_batch(op, dst, &ext, &pos, end, &err);
		if (!bio)
			break;
		if (pos == end && !err && (op->flags & PMEM_ZC_F_FUA))
			bio->bi_opf |= REQ_FUA;
		ret = submit_bio_wait(bio);
		if (ret) {
			/* the target range is undefined, as after write(2) */
			err = ret;
			op->done_bytes = 0;
		}
		bio_put(bio);
		while (op->nr_pages)
			__free_page(op->pages[--op->nr_pages]);
	}
	if (op->done_bytes && !err && (op->flags & PMEM_ZC_F_FLUSH))
		err = blkdev_issue_flush(dst);
	kthread_associate_blkcg(NULL);
	op->err = err;
	/* as an O_DIRECT write: the cache of the range is dropped after */
	invalidate_inode_pages2_range(op->dst_file->f_mapping,
				      op->dst_offset >> PAGE_SHIFT,
				      (op->dst_offset + op->length - 1) >>
				      PAGE_SHIFT);

	spin_lock(&op->lock);
	op->finished = true;
	abandoned = op->abandoned;
	spin_unlock(&op->lock);
	if (abandoned) {
		pzc_copy_release(op);
		return;
	}
	/* the last access: the caller owns the op once woken */
	complete(&op->done);
	/* module exit waits for us (destroy_workqueue()), however late */
	if (debug_copy_end_delay_ms)
		msleep(min(debug_copy_end_delay_ms, PZC_DEBUG_DELAY_MAX));
}

/*
 * Wait for the work item. Return: 0, or -EINTR when a fatal signal ended
 * the wait before the work item finished: the op is the work item's then,
 * and must not be touched.
 */
static int pzc_copy_wait(struct pzc_copy_op *op)
{
	if (!wait_for_completion_interruptible(&op->done))
		return 0;
	/* a signal: the bytes written so far are the result */
	WRITE_ONCE(op->stop, true);
	if (!fatal_signal_pending(current) &&
	    !wait_for_completion_killable(&op->done))
		return 0;
	spin_lock(&op->lock);
	if (!op->finished) {
		op->abandoned = true;
		spin_unlock(&op->lock);
		return -EINTR;
	}
	spin_unlock(&op->lock);
	/* finished: its completion is on its way */
	wait_for_completion(&op->done);
	return 0;
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
	struct pzc_copy_op *op;
	int ret;

	if ((a->offset | a->length | a->dst_offset) & (SECTOR_SIZE - 1))
		return -EINVAL;
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op)
		return -ENOMEM;
	ret = pzc_src_get(&op->src, a->src_fd, a->offset, a->length);
	if (ret)
		goto out_src;
	op->bounce = (a->flags & PMEM_ZC_F_COPY) ||
		     op->src.mode == PRD_PAGES_NONE;
	if (op->bounce) {
		op->pages = kvcalloc(PZC_BATCH_PAGES, sizeof(*op->pages),
				     GFP_KERNEL_ACCOUNT);
		ret = -ENOMEM;
		if (!op->pages)
			goto out_src;
	}
	op->dst_file = pzc_copy_target(a, &op->src, &ret);
	if (!op->dst_file)
		goto out_src;
	/* as an O_DIRECT write: no dirty cached page may land on the copy */
	ret = filemap_write_and_wait_range(op->dst_file->f_mapping,
					   a->dst_offset,
					   a->dst_offset + a->length - 1);
	if (ret)
		goto out_dst;

	INIT_WORK(&op->work, pzc_copy_work);
	init_completion(&op->done);
	spin_lock_init(&op->lock);
	op->offset = a->offset;
	op->length = a->length;
	op->dst_offset = a->dst_offset;
	op->flags = a->flags;
	op->ioprio = get_current_ioprio();
	op->css = pzc_copy_css_get();
	__module_get(THIS_MODULE);	/* until pzc_copy_release() */
	pzc_stat_add(PZC_COPIES, 1);
	queue_work(pzc_copy_wq, &op->work);
	if (pzc_copy_wait(op))
		return -EINTR;	/* killed: the work item lets go */

	a->bios = op->bios;
	if (op->done_bytes) {
		/* read(2)'s and write(2)'s notifications, once bytes moved */
		fsnotify_access(op->src.file);
		fsnotify_modify(op->dst_file);
		a->bytes_done = op->done_bytes;
		if (op->bounce)
			a->bytes_copied = op->done_bytes;
		else
			a->bytes_ref = op->done_bytes;
		a->error = -op->err;
		pzc_stat_add(op->bounce ? PZC_BYTES_COPIED : PZC_BYTES_REF,
			     op->done_bytes);
		ret = 0;
	} else {
		ret = op->err ? op->err : -EIO;
	}
	pzc_copy_release(op);
	return ret;

out_dst:
	fput(op->dst_file);
out_src:
	pzc_src_put(&op->src);
	kvfree(op->pages);
	kfree(op);
	return ret;
}

int __init pzc_copy_init(void)
{
	int ret = bioset_init(&pzc_copy_bs, BIO_POOL_SIZE, 0,
			      BIOSET_NEED_BVECS);

	if (ret)
		return ret;
	pzc_copy_wq = alloc_workqueue("pmem_zc_copy",
				      WQ_UNBOUND | WQ_MEM_RECLAIM,
				      PZC_COPIES_ACTIVE);
	if (!pzc_copy_wq) {
		bioset_exit(&pzc_copy_bs);
		return -ENOMEM;
	}
	return 0;
}

/* After the last copy's module reference: drain its last code, if any. */
void pzc_copy_exit(void)
{
	destroy_workqueue(pzc_copy_wq);
	bioset_exit(&pzc_copy_bs);
}
