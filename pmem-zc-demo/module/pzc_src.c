// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc sources: a prd disk or partition, or a regular file on a
 * filesystem on one, and what keeps their bytes valid while pages of them
 * are in flight.
 *
 * A source passes the checks read(2) would make (FMODE_READ,
 * rw_verify_area(): LSM hooks and fanotify permission events); the caller
 * reports it to fsnotify as accessed once bytes of it moved. Its bytes are
 * read where they lie on pmem, by prd_direct_access(); so a disk's dirty
 * page cache is written back first (sync_blockdev()). A file source is a
 * DAX file, which has no page cache: its writes and its mapped stores go
 * to its blocks, allocated and zeroed as they are written (no delayed
 * allocation, no conversion deferred to an I/O's completion), and read(2)
 * of it reads the blocks as they are, with no fsync and no flush; nor
 * does a send (a vfs_fsync() here cost a journal lookup and a flush bio
 * per operation and made no byte more current). What read(2) refuses
 * before it reads (a filesystem shut down) is asked of the filesystem by
 * a read of no bytes.
 *
 * A file's blocks are found with bmap(), and bmap() gives block numbers that
 * nothing keeps stable: a truncate, a hole punch or an extent move would
 * hand them to another file while the network stack still reads them, and
 * the filesystem's own DAX truncate protection cannot see pages found this
 * way. So a file source is write-denied (deny_write_access(), as for a
 * running executable) for the whole life of the operation: truncate,
 * write, fallocate and extent moves fail with ETXTBSY until its completion.
 * Since that lets the caller block writers of the file, only the file's
 * owner (or the caller with CAP_SYS_RAWIO, what FIBMAP asks for) may use it
 * as a source. The caller's: not that of whoever opened its /dev/pmem_zc
 * file, which a process that dropped its privileges (serve --user) or was
 * handed the descriptor (SCM_RIGHTS) would otherwise keep using.
 *
 * Write denial keeps a file's blocks only where nothing else moves or frees
 * them: a filesystem that shares extents (XFS, btrfs: FIDEDUPERANGE needs no
 * writer) or moves blocks on its own (f2fs, nilfs2 garbage collection) could
 * hand them to another file under a send. So file sources are taken from
 * ext2/3/4 only, as ext4's driver mounts them (EOPNOTSUPP elsewhere, and
 * from ext2's own driver, which gives DAX files no bmap()), and there
 * only from DAX files (IS_DAX()): the files whose read(2) returns the
 * bytes of their blocks on pmem as they lie (dax_iomap_rw()). ext4 makes
 * no file DAX whose bytes read(2) checks or transforms on the way
 * (fs-verity, encryption), that it journals (data=journal or the inode
 * flag: bmap() would flush the whole journal each time, which FIBMAP keeps
 * to CAP_SYS_RAWIO) or that keeps data in its inode; a non-DAX file is
 * read through the page cache, which sendfile(2) already sends by
 * reference. bmap() returns 0 both for a hole and for data the filesystem
 * cannot name: SEEK_DATA tells them apart, and the latter is refused with
 * EOPNOTSUPP instead of being sent as zeros.
 *
 * A disk or partition source is read as read(2) of it at the time would: a
 * writer of the disk (or a filesystem on it) may change bytes while they
 * are in flight, which the caller could also have read.
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/uio.h>
#include "prd.h"
#include "pzc.h"
#include "pzc_compat.h"

/* bytes of one extent at most: bmap() is called once per block of it */
#define PZC_EXTENT_MAX		SZ_1M

void pzc_src_put_seek(struct pzc_src *src)
{
	if (src->seek)
		fput(src->seek);
	src->seek = NULL;
}

void pzc_src_put(struct pzc_src *src)
{
	pzc_src_put_seek(src);
	if (src->deny)
		allow_write_access(src->file);
	if (src->file)
		fput(src->file);
	memset(src, 0, sizeof(*src));
}

/* dirty page cache of the disk, and of the whole disk of a partition */
static int pzc_src_sync_bdev(struct block_device *bdev)
{
	int ret = sync_blockdev(bdev);

	if (!ret && bdev_is_partition(bdev))
		ret = sync_blockdev(bdev->bd_disk->part0);
	return ret;
}

/*
 * What read(2) of the file refuses before it reads a byte, a send refuses
 * too: a read of no bytes asks the filesystem (ext4's EIO once it is shut
 * down: by its shutdown ioctl, and on 6.12 by an error under
 * errors=remount-ro; neither bmap() nor the block mapping checks), reads
 * no block and touches no time stamp. @file is ext4's (the caller's
 * checks), whose ->read_iter exists.
 */
static int pzc_src_readable(struct file *file)
{
	struct kvec kv = {};
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	init_sync_kiocb(&kiocb, file);
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, 0);
	ret = file->f_op->read_iter(&kiocb, &iter);
	return ret < 0 ? ret : 0;
}

static int pzc_src_get_file(struct pzc_src *src)
{
	struct file *file = src->file;
	struct inode *inode = file_inode(file);
	int ret;

	src->inode = inode;
	src->bdev = inode->i_sb->s_bdev;
	if (!src->bdev)
		return -ENODEV;
	src->mode = prd_page_mode(src->bdev);
	if (src->mode < 0)
		return src->mode;
	/* stable while the file is open: S_DAX changes only on a new inode */
	if (inode->i_sb->s_magic != EXT4_SUPER_MAGIC || !IS_DAX(inode))
		return -EOPNOTSUPP;
	/* ext2's own driver (not ext4's) gives its DAX files no bmap() */
	if (!inode->i_mapping->a_ops->bmap)
		return -EOPNOTSUPP;
	/*
	 * A send write-denies the file: the owner's to give, or the right of
	 * a caller with CAP_SYS_RAWIO (the caller's own: a device file opened
	 * by root gives its holder no right over other users' files).
	 */
	if (!pzc_file_owned_by(file, current_fsuid()) &&
	    !capable(CAP_SYS_RAWIO))
		return -EPERM;
	ret = deny_write_access(file);
	if (ret)
		return ret;
	src->deny = true;
	ret = pzc_src_readable(file);
	if (ret)
		return ret;
	src->size = i_size_read(inode);
	return 0;
}

/**
 * pzc_src_get - take the source of an operation
 * @src: filled in; pzc_src_put() it in every case
 * @fd: the caller's file descriptor of the source
 * @offset: first byte the operation reads
 * @length: bytes it reads, > 0
 *
 * Return: 0; -EBADF (not open for reading), -ENODEV (not a prd disk or a
 * file on one), -EPERM (a file not the caller's, and no CAP_SYS_RAWIO),
 * -ETXTBSY (a file open for writing), -EOPNOTSUPP (not a DAX file on
 * ext2/3/4), -EISDIR, -EINVAL,
 * -ERANGE (beyond the end), or what rw_verify_area(), a read of no bytes
 * of a file (-EIO: its filesystem shut down) or a disk's writeback said.
 */
int pzc_src_get(struct pzc_src *src, int fd, u64 offset, u64 length)
{
	struct inode *inode;
	loff_t pos = offset;
	int ret;

	memset(src, 0, sizeof(*src));
	src->file = fget(fd);
	if (!src->file)
		return -EBADF;
	if (!(src->file->f_mode & FMODE_READ))
		return -EBADF;
	if (!length)
		return -EINVAL;
	/* what read(2) checks, before anything has an effect */
	ret = rw_verify_area(READ, src->file, &pos, length);
	if (ret)
		return ret == -EINVAL ? -ERANGE : ret;
	inode = file_inode(src->file);
	if (S_ISBLK(inode->i_mode)) {
		src->bdev = I_BDEV(src->file->f_mapping->host);
		src->mode = prd_page_mode(src->bdev);
		if (src->mode < 0)
			return src->mode;
		src->size = bdev_nr_bytes(src->bdev);
	} else if (S_ISREG(inode->i_mode)) {
		ret = pzc_src_get_file(src);
		if (ret)
			return ret;
	} else {
		return S_ISDIR(inode->i_mode) ? -EISDIR : -EINVAL;
	}

	if (length > src->size || offset > src->size - length)
		return -ERANGE;
	if (!src->inode) {
		ret = pzc_src_sync_bdev(src->bdev);
		if (ret)
			return ret;
	}
	return 0;
}

/* @ext covers the disk bytes [@addr, @addr + @len) of @src->bdev */
static int pzc_src_direct(struct pzc_src *src, u64 addr, u64 len,
			  struct pzc_extent *ext)
{
	u64 in_page = addr & ~PAGE_MASK;
	unsigned long pfn;
	void *kaddr;
	long avail;

	avail = prd_direct_access(src->bdev, (addr - in_page) >> SECTOR_SHIFT,
				  &kaddr, &pfn, in_page + len);
	if (avail < 0)
		return avail;
	if (avail <= in_page)
		return -ERANGE;
	ext->kaddr = kaddr + in_page;
	ext->pfn = pfn;
	ext->len = min_t(u64, len, avail - in_page);
	return 0;
}

/* the block of byte @pos of the file, 0 for none */
static int pzc_src_bmap(struct pzc_src *src, u64 pos, sector_t *block)
{
	*block = pos >> src->inode->i_blkbits;
	return bmap(src->inode, block);
}

/**
 * pzc_src_extent - the next extent of the source
 * @src: the source
 * @pos: its byte where the extent starts, below @src->size
 * @len: bytes wanted, > 0
 * @ext: set to at most @len (and PZC_EXTENT_MAX) bytes from @pos; @ext->pfn
 *	is the page that holds @ext->kaddr
 *
 * Return: 0, -EOPNOTSUPP for file data without a block (bmap() 0 where
 * SEEK_DATA finds data), or what bmap(), llseek or prd_direct_access()
 * said (-EIO for bad blocks).
 */
int pzc_src_extent(struct pzc_src *src, u64 pos, u64 len,
		   struct pzc_extent *ext)
{
	unsigned int bits, bs;
	sector_t block, next;
	struct file *priv;
	u64 in_blk, run;
	loff_t data;
	int ret;

	len = min_t(u64, len, PZC_EXTENT_MAX);
	if (!src->inode)
		return pzc_src_direct(src, pos, len, ext);
	if (pos >= src->hole_start && pos < src->hole_end)
		goto hole;

	bits = src->inode->i_blkbits;
	bs = 1U << bits;
	in_blk = pos & (bs - 1);
	ret = pzc_src_bmap(src, pos, &block);
	if (ret)
		return ret;
	if (!block) {
		/*
		 * A hole reads as zeros; data without a block cannot be sent.
		 * SEEK_DATA on an open of our own, one per operation (the
		 * caller's offset stays), and once per hole: the hole is
		 * remembered, so a large one costs one lookup, not one a page.
		 */
		if (!src->seek) {
			/* the opener's credentials: copies run in a worker */
			priv = dentry_open(&src->file->f_path,
					   O_RDONLY | O_LARGEFILE,
					   src->file->f_cred);
			if (IS_ERR(priv))
				return PTR_ERR(priv);
			src->seek = priv;
		}
		data = vfs_llseek(src->seek, pos, SEEK_DATA);
		if (data == -ENXIO)
			data = src->size;
		else if (data < 0)
			return data;
		if (data <= pos)
			return -EOPNOTSUPP;
		src->hole_start = pos;
		src->hole_end = data;
		goto hole;
	}
	/* the blocks that follow on disk, as one run */
	for (run = bs - in_blk; run < len; run += bs) {
		ret = pzc_src_bmap(src, pos + run, &next);
		if (ret)
			return ret;
		if (next != block + ((in_blk + run) >> bits))
			break;
	}
	return pzc_src_direct(src, ((u64)block << bits) + in_blk,
			      min(run, len), ext);
hole:
	ext->kaddr = NULL;
	ext->pfn = 0;
	ext->len = min_t(u64, len, src->hole_end - pos);
	return 0;
}
