// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc - zero-copy I/O from persistent memory
 *
 * The consumer the 2014 RFC "pmem: Support for struct page with Persistent
 * Memory storage" promised: take pfns of a prd disk by direct access
 * (prd_direct_access()), turn them into struct pages and hand the pages to
 * the network stack (kernel_sendpage()) or to another block device
 * (bio_add_page()), with no CPU copy. Sources: a prd disk or partition, or
 * a regular file on a filesystem on one (mapped block by block with
 * bmap(), holes read as the zero page).
 *
 * Lifetime: a page given to TCP stays referenced until the data is
 * acknowledged (TCP may retransmit from it), a page in a bio until the bio
 * completes. Every operation is a refcounted struct pzc_op that holds a
 * module reference; the ioctl waits until no page of the operation is
 * referenced any more. A signal ends the wait early: the op then
 * lives on (a work item polls the pages, or the last bio completes) and
 * keeps pmem_zc, and so prd, loaded until it is idle.
 *
 * The user-space ABI is in include/uapi/linux/pmem_zc.h; counters are in
 * /sys/class/misc/pmem_zc/stats/ (docs/ABI/sysfs-class-misc-pmem_zc).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/fileattr.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/pmem_zc.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include "prd.h"

#define PZC_BIO_BYTES		SZ_1M	/* bytes per bio */
#define PZC_BIOS_IN_FLIGHT	8
#define PZC_COPY_CHUNK		SZ_64K	/* bounce buffer of copy mode */
#define PZC_SAMPLE_PAGES	64	/* sample pages held every N sent */
#define PZC_POLL_MS		2

/* counters, /sys/class/misc/pmem_zc/stats/ */
enum pzc_stat {
	PZC_BYTES_REF, PZC_BYTES_COPIED, PZC_BIOS, PZC_PAGES_HELD_MAX,
	PZC_ERR_INVAL, PZC_ERR_RANGE, PZC_ERR_NODEV, PZC_ERR_NET, PZC_ERR_IO,
	PZC_ERR_INTR, PZC_ERR_OTHER, PZC_NR_STATS,
};

static atomic64_t pzc_stats[PZC_NR_STATS];

/* the source: a prd disk or partition, or a file on one */
struct pzc_src {
	struct file		*file;
	struct block_device	*bdev;	/* the disk or partition of the data */
	struct inode		*inode;	/* regular file, NULL for a disk */
	int			mode;	/* enum prd_page_mode */
	u64			size;
};

/* one contiguous piece of the source, within one page */
struct pzc_piece {
	struct page	*page;	/* NULL for a hole */
	void		*kaddr;	/* of the piece, NULL for a hole */
	unsigned int	off;	/* in page */
	unsigned int	len;
};

/* pfns handed to the network stack, as runs of pages */
struct pzc_run {
	unsigned long	pfn;
	unsigned long	nr;
};

struct pzc_op {
	struct kref		kref;
	struct mutex		lock;		/* runs, cursor */
	struct list_head	node;		/* pzc_ops */
	struct pzc_run		*runs;
	unsigned int		nr_runs, max_runs;
	unsigned int		cur_run;	/* runs before it are idle */
	unsigned long		cur_pfn;
	/* bios: in flight + 1 while the submitter runs */
	atomic_t		bios_in_flight;
	wait_queue_head_t	wait;		/* a slot is free */
	struct completion	bios_done;	/* the last one ended */
	blk_status_t		bio_status;
	bool			bounce;		/* bio pages are ours to free */
	u64			nr_bios;
	struct delayed_work	reaper;
};

static struct workqueue_struct *pzc_wq;	/* reapers; drained at exit */
static LIST_HEAD(pzc_ops);
static DEFINE_SPINLOCK(pzc_ops_lock);

static void pzc_stat_add(enum pzc_stat s, u64 v)
{
	atomic64_add(v, &pzc_stats[s]);
}

static void pzc_count_error(long err)
{
	switch (err) {
	case -EINVAL: case -EPROTO: case -EBADF: case -EISDIR:
	case -EOPNOTSUPP: case -ENOTSOCK: case -EROFS:
		pzc_stat_add(PZC_ERR_INVAL, 1);
		break;
	case -ERANGE: case -ENOSPC:
		pzc_stat_add(PZC_ERR_RANGE, 1);
		break;
	case -ENODEV:
		pzc_stat_add(PZC_ERR_NODEV, 1);
		break;
	case -EPIPE: case -ECONNRESET: case -ENOTCONN: case -ETIMEDOUT:
		pzc_stat_add(PZC_ERR_NET, 1);
		break;
	case -EIO:
		pzc_stat_add(PZC_ERR_IO, 1);
		break;
	case -EINTR: case -ERESTARTSYS:
		pzc_stat_add(PZC_ERR_INTR, 1);
		break;
	default:
		pzc_stat_add(PZC_ERR_OTHER, 1);
	}
}

/* --- operations and their pages ----------------------------------------- */

static struct pzc_op *pzc_op_alloc(void)
{
	struct pzc_op *op;

	if (!try_module_get(THIS_MODULE))
		return NULL;
	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op) {
		module_put(THIS_MODULE);
		return NULL;
	}
	kref_init(&op->kref);
	mutex_init(&op->lock);
	init_waitqueue_head(&op->wait);
	init_completion(&op->bios_done);
	atomic_set(&op->bios_in_flight, 1);
	spin_lock(&pzc_ops_lock);
	list_add(&op->node, &pzc_ops);
	spin_unlock(&pzc_ops_lock);
	return op;
}

static void pzc_op_release(struct kref *kref)
{
	struct pzc_op *op = container_of(kref, struct pzc_op, kref);

	spin_lock(&pzc_ops_lock);
	list_del(&op->node);
	spin_unlock(&pzc_ops_lock);
	kvfree(op->runs);
	kfree(op);
	module_put(THIS_MODULE);
}

static void pzc_op_put(struct pzc_op *op)
{
	kref_put(&op->kref, pzc_op_release);
}

/* remember that the network stack may hold @page from now on */
static int pzc_op_track(struct pzc_op *op, struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	struct pzc_run *r;

	mutex_lock(&op->lock);
	r = op->nr_runs ? &op->runs[op->nr_runs - 1] : NULL;
	if (r && (pfn >= r->pfn && pfn < r->pfn + r->nr)) {
		mutex_unlock(&op->lock);
		return 0;
	}
	if (r && pfn == r->pfn + r->nr) {
		r->nr++;
		mutex_unlock(&op->lock);
		return 0;
	}
	if (op->nr_runs == op->max_runs) {
		unsigned int max = max(64U, op->max_runs * 2);
		struct pzc_run *runs = kvmalloc_array(max, sizeof(*runs),
						      GFP_KERNEL);

		if (!runs) {
			mutex_unlock(&op->lock);
			return -ENOMEM;
		}
		if (op->runs)
			memcpy(runs, op->runs, op->nr_runs * sizeof(*runs));
		kvfree(op->runs);
		op->runs = runs;
		op->max_runs = max;
	}
	op->runs[op->nr_runs++] = (struct pzc_run){ .pfn = pfn, .nr = 1 };
	mutex_unlock(&op->lock);
	return 0;
}

/*
 * Pages of @op still referenced by someone else than prd (whose own
 * reference makes 1). Pages before the cursor were seen idle and are never
 * sent again by this op, so each call only walks the window in flight.
 */
static unsigned long pzc_op_held(struct pzc_op *op)
{
	unsigned long held = 0, pfn;
	unsigned int i;
	bool idle = true;

	mutex_lock(&op->lock);
	for (i = op->cur_run; i < op->nr_runs; i++) {
		struct pzc_run *r = &op->runs[i];

		pfn = (i == op->cur_run && op->cur_pfn > r->pfn) ?
			op->cur_pfn : r->pfn;
		for (; pfn < r->pfn + r->nr; pfn++) {
			if (page_ref_count(pfn_to_page(pfn)) > 1) {
				held++;
				idle = false;
			} else if (idle) {
				op->cur_run = i;
				op->cur_pfn = pfn + 1;
			}
		}
	}
	mutex_unlock(&op->lock);
	return held;
}

static void pzc_sample_held(struct pzc_op *op)
{
	u64 held = pzc_op_held(op), max;

	max = atomic64_read(&pzc_stats[PZC_PAGES_HELD_MAX]);
	while (held > max &&
	       !atomic64_try_cmpxchg(&pzc_stats[PZC_PAGES_HELD_MAX], &max, held))
		;
}

static unsigned long pzc_pages_held(void)
{
	unsigned long held = 0;
	struct pzc_op *op, *ops[16];
	int n = 0, i;

	/* take references under the spinlock, count outside it */
	spin_lock(&pzc_ops_lock);
	list_for_each_entry(op, &pzc_ops, node) {
		if (n == ARRAY_SIZE(ops) || !kref_get_unless_zero(&op->kref))
			continue;
		ops[n++] = op;
	}
	spin_unlock(&pzc_ops_lock);
	for (i = 0; i < n; i++) {
		held += pzc_op_held(ops[i]);
		pzc_op_put(ops[i]);
	}
	return held;
}

/* After a fatal signal: poll the op's pages from a work item until idle. */
static void pzc_op_reap(struct work_struct *work)
{
	struct pzc_op *op = container_of(to_delayed_work(work), struct pzc_op,
					 reaper);

	if (pzc_op_held(op)) {
		queue_delayed_work(pzc_wq, &op->reaper, msecs_to_jiffies(100));
		return;
	}
	pzc_op_put(op);
}

/*
 * Wait until the network stack holds no page of @op: TCP drops its
 * references when the data is acknowledged, or when the connection dies.
 * Returns 0, or -EINTR on a signal, the op then being left to the reaper
 * with its reference.
 */
static int pzc_op_wait_idle(struct pzc_op *op)
{
	while (pzc_op_held(op)) {
		if (signal_pending(current)) {
			kref_get(&op->kref);
			INIT_DELAYED_WORK(&op->reaper, pzc_op_reap);
			queue_delayed_work(pzc_wq, &op->reaper, 0);
			return -EINTR;
		}
		msleep(PZC_POLL_MS);
	}
	return 0;
}

/* --- the source ------------------------------------------------------- */

static void pzc_src_put(struct pzc_src *src)
{
	if (src->file)
		fput(src->file);
}

static int pzc_src_get(struct pzc_src *src, int fd)
{
	struct inode *inode;
	int ret;

	memset(src, 0, sizeof(*src));
	src->file = fget(fd);
	if (!src->file)
		return -EBADF;
	if (!(src->file->f_mode & FMODE_READ)) {
		ret = -EBADF;
		goto out;
	}
	inode = file_inode(src->file);
	if (S_ISBLK(inode->i_mode)) {
		src->bdev = I_BDEV(src->file->f_mapping->host);
		src->size = bdev_nr_bytes(src->bdev);
	} else if (S_ISREG(inode->i_mode)) {
		struct fileattr fa = {};

		src->inode = inode;
		src->bdev = inode->i_sb->s_bdev;
		if (!src->bdev) {
			ret = -ENODEV;
			goto out;
		}
		/* data in the inode has no block of its own to map */
		if (!vfs_fileattr_get(src->file->f_path.dentry, &fa) &&
		    (fa.flags & FS_INLINE_DATA_FL)) {
			ret = -EOPNOTSUPP;
			goto out;
		}
		/* delayed allocation gets its blocks, unwritten extents stay */
		ret = vfs_fsync(src->file, 0);
		if (ret)
			goto out;
		src->size = i_size_read(inode);
	} else {
		ret = S_ISDIR(inode->i_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	src->mode = prd_page_mode(src->bdev);
	if (src->mode < 0) {
		ret = src->mode;
		goto out;
	}
	return 0;
out:
	pzc_src_put(src);
	return ret;
}

/* The piece of @src at byte @pos, at most @len bytes, within one page. */
static int pzc_src_piece(struct pzc_src *src, u64 pos, u64 len,
			 struct pzc_piece *p)
{
	u64 addr = pos, blk_left = len;
	unsigned long pfn;
	void *kaddr;
	long avail;

	if (src->inode) {
		unsigned int bits = src->inode->i_blkbits;
		sector_t block = pos >> bits;
		int ret = bmap(src->inode, &block);

		if (ret)
			return ret;
		blk_left = (1ULL << bits) - (pos & ((1ULL << bits) - 1));
		if (!block) {
			/* a hole, or an unwritten extent: zeros */
			p->page = ZERO_PAGE(0);
			p->kaddr = NULL;
			p->off = pos & ~PAGE_MASK;
			p->len = min3(len, blk_left, PAGE_SIZE - (u64)p->off);
			return 0;
		}
		addr = ((u64)block << bits) + (pos & ((1ULL << bits) - 1));
	}
	avail = prd_direct_access(src->bdev, (addr & PAGE_MASK) >> SECTOR_SHIFT,
				  &kaddr, &pfn, PAGE_SIZE);
	if (avail < 0)
		return avail;
	p->off = addr & ~PAGE_MASK;
	p->len = min3(len, blk_left, (u64)avail - p->off);
	p->kaddr = kaddr + p->off;
	p->page = src->mode == PRD_PAGES_NONE ? NULL : pfn_to_page(pfn);
	return 0;
}

static int pzc_src_check(struct pzc_src *src, u64 offset, u64 length)
{
	if (!length || length > src->size || offset > src->size - length)
		return length ? -ERANGE : -EINVAL;
	return 0;
}

/* --- send --------------------------------------------------------------- */

/*
 * The one place that hands a page to the network stack by reference: in
 * 6.5+ this becomes sendmsg(MSG_SPLICE_PAGES) with a bvec iterator.
 */
static int pzc_sendpage(struct socket *sock, struct page *page,
			unsigned int off, unsigned int len, bool more)
{
	return kernel_sendpage(sock, page, off, len, MSG_NOSIGNAL |
			       (more ? MSG_MORE | MSG_SENDPAGE_NOTLAST : 0));
}

static int pzc_sendcopy(struct socket *sock, void *buf, size_t len, bool more)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0) };
	struct kvec kv = { .iov_base = buf, .iov_len = len };

	return kernel_sendmsg(sock, &msg, &kv, 1, len);
}

/* send all of @len bytes at @buf/@page, retrying short sends */
static int pzc_send_piece(struct socket *sock, struct pzc_piece *p,
			  void *buf, bool by_ref, bool more)
{
	unsigned int done = 0;
	int n;

	while (done < p->len) {
		if (by_ref)
			n = pzc_sendpage(sock, p->page, p->off + done,
					 p->len - done, more);
		else
			n = pzc_sendcopy(sock, buf + done, p->len - done, more);
		if (n < 0)
			return n;
		if (!n)
			return -EPIPE;
		done += n;
	}
	return 0;
}

static long pzc_send(struct pmem_zc_send *a, struct pzc_op *op)
{
	bool copy_mode = a->flags & PMEM_ZC_F_COPY;
	u64 pos = a->offset, end = a->offset + a->length;
	struct pzc_src src;
	struct socket *sock;
	unsigned int sent_pages = 0;
	void *bounce = NULL;
	long ret;
	int err;

	ret = pzc_src_get(&src, a->src_fd);
	if (ret)
		return ret;
	ret = pzc_src_check(&src, a->offset, a->length);
	if (ret)
		goto out_src;
	sock = sockfd_lookup(a->sock_fd, &err);
	if (!sock) {
		ret = err;
		goto out_src;
	}
	if (!sock->sk || sock->sk->sk_protocol != IPPROTO_TCP ||
	    sock->type != SOCK_STREAM) {
		ret = -EINVAL;
		goto out_sock;
	}
	if (sock->sk->sk_state != TCP_ESTABLISHED) {
		ret = -ENOTCONN;
		goto out_sock;
	}
	bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_sock;
	}

	while (pos < end) {
		struct pzc_piece p;
		bool more = true, by_ref;
		void *buf;

		ret = pzc_src_piece(&src, pos, end - pos, &p);
		if (ret)
			break;
		more = pos + p.len < end;
		/*
		 * By reference when the piece has a page the stack may hold:
		 * without scatter-gather on the route TCP would copy anyway.
		 */
		by_ref = p.page && !copy_mode && sendpage_ok(p.page) &&
			 (sock->sk->sk_route_caps & NETIF_F_SG);
		if (by_ref && p.kaddr) {
			ret = pzc_op_track(op, p.page);
			if (ret)
				break;
		}
		buf = p.kaddr;
		if (!by_ref && (copy_mode || !buf)) {
			/* the baseline: through a bounce buffer, as read()+send() */
			if (buf)
				memcpy(bounce, buf, p.len);
			else
				memset(bounce, 0, p.len);
			buf = bounce;
		}
		ret = pzc_send_piece(sock, &p, buf, by_ref, more);
		if (ret)
			break;
		if (by_ref) {
			a->bytes_ref += p.len;
			if (!(++sent_pages % PZC_SAMPLE_PAGES))
				pzc_sample_held(op);
		} else {
			a->bytes_copied += p.len;
		}
		pos += p.len;
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	pzc_sample_held(op);
	if (pzc_op_wait_idle(op) && !ret)
		ret = -EINTR;
	pzc_stat_add(PZC_BYTES_REF, a->bytes_ref);
	pzc_stat_add(PZC_BYTES_COPIED, a->bytes_copied);
	kfree(bounce);
out_sock:
	sockfd_put(sock);
out_src:
	pzc_src_put(&src);
	return ret;
}

/* --- copy to a block device -------------------------------------------- */

/*
 * May run in interrupt context. The submitter holds a bias on
 * bios_in_flight until it waits for bios_done, so the op outlives every
 * bio: complete() is the last access to it.
 */
static void pzc_bio_end(struct bio *bio)
{
	struct pzc_op *op = bio->bi_private;
	struct bvec_iter_all iter;
	struct bio_vec *bv;

	if (bio->bi_status)
		WRITE_ONCE(op->bio_status, bio->bi_status);
	/* bounce pages belong to the bio; pmem pages to prd */
	if (op->bounce)
		bio_for_each_segment_all(bv, bio, iter)
			__free_page(bv->bv_page);
	bio_put(bio);
	if (atomic_dec_and_test(&op->bios_in_flight))
		complete(&op->bios_done);
	else
		wake_up(&op->wait);
}

static void pzc_bio_submit(struct pzc_op *op, struct bio *bio)
{
	atomic_inc(&op->bios_in_flight);
	op->nr_bios++;
	pzc_stat_add(PZC_BIOS, 1);
	submit_bio(bio);
}

static struct bio *pzc_bio_new(struct block_device *dst, u64 dst_pos,
			       struct pzc_op *op)
{
	struct bio *bio = bio_alloc(dst, BIO_MAX_VECS, REQ_OP_WRITE,
				    GFP_KERNEL);

	bio->bi_iter.bi_sector = dst_pos >> SECTOR_SHIFT;
	bio->bi_end_io = pzc_bio_end;
	bio->bi_private = op;
	return bio;
}

static long pzc_copy(struct pmem_zc_copy *a, struct pzc_op *op)
{
	bool copy_mode = a->flags & PMEM_ZC_F_COPY;
	u64 pos = a->offset, end = a->offset + a->length;
	u64 dst_pos = a->dst_offset;
	struct block_device *dst;
	struct file *dst_file;
	struct bio *bio = NULL;
	struct pzc_src src;
	long ret;

	if ((a->offset | a->length | a->dst_offset) & (SECTOR_SIZE - 1))
		return -EINVAL;
	ret = pzc_src_get(&src, a->src_fd);
	if (ret)
		return ret;
	ret = pzc_src_check(&src, a->offset, a->length);
	if (ret)
		goto out_src;
	dst_file = fget(a->dst_fd);
	if (!dst_file) {
		ret = -EBADF;
		goto out_src;
	}
	if (!S_ISBLK(file_inode(dst_file)->i_mode)) {
		ret = S_ISDIR(file_inode(dst_file)->i_mode) ? -EISDIR : -EINVAL;
		goto out_dst;
	}
	dst = I_BDEV(dst_file->f_mapping->host);
	if (!(dst_file->f_mode & FMODE_WRITE)) {
		ret = -EBADF;
		goto out_dst;
	}
	if (bdev_read_only(dst)) {
		ret = -EROFS;
		goto out_dst;
	}
	if (a->dst_offset > bdev_nr_bytes(dst) ||
	    a->length > bdev_nr_bytes(dst) - a->dst_offset) {
		ret = -ENOSPC;
		goto out_dst;
	}
	if (dst == src.bdev || bdev_whole(dst) == bdev_whole(src.bdev)) {
		ret = -EINVAL;	/* pmem onto itself */
		goto out_dst;
	}
	op->bounce = copy_mode || src.mode == PRD_PAGES_NONE;

	while (pos < end) {
		struct pzc_piece p;
		struct page *page;
		unsigned int off;

		ret = pzc_src_piece(&src, pos, end - pos, &p);
		if (ret)
			break;
		page = p.page;
		off = p.off;
		if (op->bounce) {
			page = alloc_page(GFP_KERNEL);
			if (!page) {
				ret = -ENOMEM;
				break;
			}
			if (p.kaddr)
				memcpy(page_address(page) + p.off, p.kaddr, p.len);
			else
				memset(page_address(page) + p.off, 0, p.len);
		}
		if (bio && (bio->bi_iter.bi_size >= PZC_BIO_BYTES ||
			    !bio_add_page(bio, page, p.len, off))) {
			pzc_bio_submit(op, bio);
			bio = NULL;
		}
		if (!bio) {
			wait_event(op->wait, atomic_read(&op->bios_in_flight) <=
				   PZC_BIOS_IN_FLIGHT);
			bio = pzc_bio_new(dst, dst_pos, op);
			bio_add_page(bio, page, p.len, off);
		}
		pos += p.len;
		dst_pos += p.len;
		if (op->bounce)
			a->bytes_copied += p.len;
		else
			a->bytes_ref += p.len;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	if (bio) {
		if (!ret && (a->flags & PMEM_ZC_F_FUA))
			bio->bi_opf |= REQ_FUA;
		pzc_bio_submit(op, bio);
	}
	/* bios reference the pages without holding them: wait for them all */
	if (!atomic_dec_and_test(&op->bios_in_flight))
		wait_for_completion(&op->bios_done);
	if (!ret && op->bio_status)
		ret = blk_status_to_errno(op->bio_status);
	if (!ret && (a->flags & PMEM_ZC_F_FLUSH))
		ret = blkdev_issue_flush(dst);
	a->bios = op->nr_bios;
	pzc_stat_add(PZC_BYTES_REF, a->bytes_ref);
	pzc_stat_add(PZC_BYTES_COPIED, a->bytes_copied);
out_dst:
	fput(dst_file);
out_src:
	pzc_src_put(&src);
	return ret;
}

/* --- the character device ------------------------------------------------ */

static long pzc_ioctl_send(void __user *arg)
{
	struct pmem_zc_send a;
	struct pzc_op *op;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.abi_version != PMEM_ZC_ABI_VERSION)
		return -EPROTO;
	if (a.flags & ~PMEM_ZC_F_COPY)
		return -EINVAL;
	a.bytes_ref = 0;
	a.bytes_copied = 0;
	op = pzc_op_alloc();
	if (!op)
		return -ENOMEM;
	ret = pzc_send(&a, op);
	pzc_op_put(op);
	if (copy_to_user(arg, &a, sizeof(a)))
		return -EFAULT;
	return ret;
}

static long pzc_ioctl_copy(void __user *arg)
{
	struct pmem_zc_copy a;
	struct pzc_op *op;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.abi_version != PMEM_ZC_ABI_VERSION)
		return -EPROTO;
	if (a.flags & ~PMEM_ZC_F_ALL)
		return -EINVAL;
	a.bytes_ref = 0;
	a.bytes_copied = 0;
	op = pzc_op_alloc();
	if (!op)
		return -ENOMEM;
	ret = pzc_copy(&a, op);
	pzc_op_put(op);
	if (copy_to_user(arg, &a, sizeof(a)))
		return -EFAULT;
	return ret;
}

static long pzc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	u32 version = PMEM_ZC_ABI_VERSION;
	long ret;

	switch (cmd) {
	case PMEM_ZC_IOC_VERSION:
		return put_user(version, (u32 __user *)uarg);
	case PMEM_ZC_IOC_SEND:
		ret = pzc_ioctl_send(uarg);
		break;
	case PMEM_ZC_IOC_COPY:
		ret = pzc_ioctl_copy(uarg);
		break;
	default:
		return -ENOTTY;
	}
	if (ret)
		pzc_count_error(ret);
	return ret;
}

static const struct file_operations pzc_fops = {
	.owner =		THIS_MODULE,
	.unlocked_ioctl =	pzc_ioctl,
	.compat_ioctl =		compat_ptr_ioctl,
};

/* --- sysfs: /sys/class/misc/pmem_zc/stats/ -------------------------------- */

struct pzc_attr {
	struct device_attribute	attr;
	enum pzc_stat		stat;
};

static ssize_t pzc_stat_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct pzc_attr *a = container_of(attr, struct pzc_attr, attr);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&pzc_stats[a->stat]));
}

static ssize_t pages_held_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", pzc_pages_held());
}
static DEVICE_ATTR_RO(pages_held);

static struct pzc_attr pzc_attrs[] = {
	{ .attr = __ATTR(bytes_ref, 0444, pzc_stat_show, NULL),
	  .stat = PZC_BYTES_REF },
	{ .attr = __ATTR(bytes_copied, 0444, pzc_stat_show, NULL),
	  .stat = PZC_BYTES_COPIED },
	{ .attr = __ATTR(bios, 0444, pzc_stat_show, NULL), .stat = PZC_BIOS },
	{ .attr = __ATTR(pages_held_max, 0444, pzc_stat_show, NULL),
	  .stat = PZC_PAGES_HELD_MAX },
	{ .attr = __ATTR(err_inval, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_INVAL },
	{ .attr = __ATTR(err_range, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_RANGE },
	{ .attr = __ATTR(err_nodev, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_NODEV },
	{ .attr = __ATTR(err_net, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_NET },
	{ .attr = __ATTR(err_io, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_IO },
	{ .attr = __ATTR(err_intr, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_INTR },
	{ .attr = __ATTR(err_other, 0444, pzc_stat_show, NULL),
	  .stat = PZC_ERR_OTHER },
};

static struct attribute *pzc_stat_attrs[ARRAY_SIZE(pzc_attrs) + 2];

static const struct attribute_group pzc_stats_group = {
	.name = "stats",
	.attrs = pzc_stat_attrs,
};

static const struct attribute_group *pzc_groups[] = {
	&pzc_stats_group,
	NULL,
};

static struct miscdevice pzc_misc = {
	.minor =	MISC_DYNAMIC_MINOR,
	.name =		"pmem_zc",
	.fops =		&pzc_fops,
	.groups =	pzc_groups,
};

static int __init pzc_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(pzc_attrs); i++)
		pzc_stat_attrs[i] = &pzc_attrs[i].attr.attr;
	pzc_stat_attrs[i] = &dev_attr_pages_held.attr;
	pzc_wq = alloc_workqueue("pmem_zc", 0, 0);
	if (!pzc_wq)
		return -ENOMEM;
	ret = misc_register(&pzc_misc);
	if (ret)
		destroy_workqueue(pzc_wq);
	return ret;
}

static void __exit pzc_exit(void)
{
	misc_deregister(&pzc_misc);
	/*
	 * Every op holds a module reference, so none is alive here; a reaper
	 * may still be returning from its last module_put(): drain it.
	 */
	destroy_workqueue(pzc_wq);
}

module_init(pzc_init);
module_exit(pzc_exit);
MODULE_AUTHOR("pmem-zc developers");
MODULE_DESCRIPTION("Zero-copy send and block copy of persistent memory pages");
MODULE_LICENSE("GPL");
