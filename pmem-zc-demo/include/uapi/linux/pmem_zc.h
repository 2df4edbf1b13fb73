/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmem_zc: zero-copy I/O from persistent memory, user-space ABI.
 *
 * The source of an operation is a prd disk or partition, or a DAX file on
 * an ext2/3/4 filesystem on one (ENODEV for a file not on a prd disk,
 * EOPNOTSUPP for other filesystems and for files that are not DAX: under
 * pages=sparse or pages=none, without -o dax, and the fs-verity, encrypted,
 * journalled and inline-data files, which ext4 never makes DAX because
 * read(2) checks or transforms their bytes); its bytes leave as the pmem
 * pages themselves (by reference) when the disk has struct pages, and by
 * copy otherwise or with PMEM_ZC_F_COPY. A file source must be the
 * caller's, or the caller must have CAP_SYS_RAWIO (its own: a /dev/pmem_zc
 * file opened by root gives its holder no such right): else EPERM. A disk
 * source is read as read(2) of
 * it would be while the bytes are in flight.
 *
 * Sends are asynchronous, as MSG_ZEROCOPY: PMEM_ZC_IOC_SEND returns once
 * its bytes are queued on the socket, with a cookie; when the network stack
 * has released every page of them (the data is acknowledged, or the
 * connection is gone), a struct pmem_zc_completion with that cookie can be
 * read() from the same /dev/pmem_zc file (poll() says POLLIN; POLLOUT says
 * the file is under its caps on bytes and sends in flight, which also
 * count completions not read yet). Until then the source file cannot be
 * written (ETXTBSY): no byte of it changes while the stack may still read
 * it. The completions belong to the open file, not to a process: after a
 * fork, whoever reads gets them. Closing the file drops the completions
 * still to come; the sends themselves complete as usual. Copies
 * (PMEM_ZC_IOC_COPY) are synchronous. While a send's pages are queued on a
 * socket, the socket's own MSG_ZEROCOPY sends (SO_ZEROCOPY) may fail with
 * ENOBUFS: an skb carries the completion of one owner only.
 *
 * What a completion promises: the stack reads no more of the send's bytes
 * (nothing is retransmitted from its pages) and the source is writable
 * again (unless another send holds it). It is not the last page reference:
 * the stack runs the zero-copy callback before it drops the skb's page
 * references (skb_release_data()), so prd's pages_referenced may stay
 * above 0 for a moment after a completion is readable; wait for it to
 * fall, do not read it once.
 *
 * Structs are versioned by size, which the ioctl number carries (_IOC_SIZE):
 * a caller built against an older, shorter struct is served as if the
 * missing tail were zero; a longer one is refused with E2BIG unless its
 * tail is zero. Fields named __reserved must be zero (EINVAL otherwise).
 * Output fields are written by the kernel on every return that copies the
 * struct back, errors included; their input values are ignored.
 */
#ifndef _UAPI_LINUX_PMEM_ZC_H
#define _UAPI_LINUX_PMEM_ZC_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/* flags of both ioctls */
#define PMEM_ZC_F_COPY		_BITUL(0) /* by copy: the bounce-buffer baseline */
/* flags of PMEM_ZC_IOC_COPY; FLUSH is what makes the range durable */
#define PMEM_ZC_F_FUA		_BITUL(1) /* last bio with REQ_FUA */
#define PMEM_ZC_F_FLUSH		_BITUL(2) /* flush the target at the end */
/* flags of PMEM_ZC_IOC_SEND */
#define PMEM_ZC_F_MORE		_BITUL(3) /* more data follows (MSG_MORE) */
/* queue what fits now (MSG_DONTWAIT); implied by an O_NONBLOCK socket */
#define PMEM_ZC_F_DONTWAIT	_BITUL(4)

/**
 * struct pmem_zc_send - queue bytes of a pmem source on a TCP socket
 * @flags: PMEM_ZC_F_COPY, PMEM_ZC_F_MORE, PMEM_ZC_F_DONTWAIT
 * @src_fd: prd disk or partition, or a regular file on one, opened for
 *	reading; a file must belong to the caller (or CAP_SYS_RAWIO), since
 *	writers of it are refused until the completion
 * @sock_fd: a connected TCP socket
 * @__reserved0: zero
 * @offset: byte offset in the source
 * @length: bytes to send, > 0, within the source
 * @user_data: returned as is in the completion
 * @cookie: out: names the completion of this operation
 * @bytes_queued: out: bytes queued on the socket, from @offset on
 * @error: out: 0 when all of @length was queued; else the positive errno
 *	that stopped the send early (EINTR: a signal, EAGAIN: the socket
 *	buffer was full with PMEM_ZC_F_DONTWAIT, ENOBUFS: the cap on bytes in
 *	flight, EPIPE...)
 * @__reserved1: zero
 * @__reserved: zero
 *
 * The ioctl returns 0 when @bytes_queued > 0: a completion with @cookie
 * follows, and the send is never restarted (a signal handler with
 * SA_RESTART does not make it send the same bytes again). It returns
 * -errno, queues nothing and posts no completion otherwise; the one
 * exception is EFAULT when the struct cannot be written back after bytes
 * were queued (a completion follows, with a cookie the caller never saw).
 * A signal that comes before any byte was queued is what it is to send(2):
 * the call restarts under SA_RESTART (without SO_SNDTIMEO), else EINTR.
 */
struct pmem_zc_send {
	__u32 flags;
	__s32 src_fd;
	__s32 sock_fd;
	__u32 __reserved0;
	__u64 offset;
	__u64 length;
	__u64 user_data;
	__u64 cookie;
	__u64 bytes_queued;
	__s32 error;
	__u32 __reserved1;
	__u64 __reserved[4];
};

/**
 * struct pmem_zc_copy - write bytes of a pmem source to a block device
 * @flags: PMEM_ZC_F_COPY, PMEM_ZC_F_FUA, PMEM_ZC_F_FLUSH
 * @src_fd: prd disk or partition, or a regular file on one (as for send)
 * @dst_fd: the target block device, opened for writing
 * @__reserved0: zero
 * @offset: byte offset in the source
 * @length: bytes, > 0
 * @dst_offset: byte offset in the target
 * @bytes_done: out: bytes written (and completed) from @offset on
 * @bytes_ref: out: of them, written from the pmem pages themselves
 * @bytes_copied: out: of them, written through a bounce buffer
 * @bios: out: bios submitted
 * @error: out: 0, or the positive errno that ended the copy early
 * @__reserved1: zero
 * @__reserved: zero
 *
 * @offset, @length and @dst_offset are multiples of the target's logical
 * block size, and a file source's block size is at least that (EINVAL).
 * Returns 0 when @bytes_done > 0 (see @error: a signal ends a copy early),
 * -errno when nothing was written or a bio failed (the target range is
 * then undefined, as after a failed write(2)).
 */
struct pmem_zc_copy {
	__u32 flags;
	__s32 src_fd;
	__s32 dst_fd;
	__u32 __reserved0;
	__u64 offset;
	__u64 length;
	__u64 dst_offset;
	__u64 bytes_done;
	__u64 bytes_ref;
	__u64 bytes_copied;
	__u64 bios;
	__s32 error;
	__u32 __reserved1;
	__u64 __reserved[4];
};

/* the stack copied some of the pages (no scatter-gather, a local receiver) */
#define PMEM_ZC_C_STACK_COPIED	_BITUL(0)

/**
 * struct pmem_zc_completion - read() from /dev/pmem_zc, one per send
 * @cookie: of the send
 * @user_data: of the send
 * @bytes: bytes of the send (its @bytes_queued)
 * @bytes_ref: of them, left as pmem pages that the stack did not copy
 * @bytes_copied: of them, copied: by pmem_zc (copy mode, no pages, a route
 *	or socket that cannot take pages) or by the stack
 *	(PMEM_ZC_C_STACK_COPIED: all bytes given by reference are counted)
 * @status: 0, or -errno
 * @flags: PMEM_ZC_C_STACK_COPIED
 * @__reserved: zero
 *
 * read() returns whole records only: a buffer shorter than one record is
 * EINVAL; it blocks until one is there, unless the file is O_NONBLOCK
 * (EAGAIN). Completions come in no particular order, not even for the
 * sends of one socket (a send by copy completes as soon as it is queued):
 * match them by @cookie or @user_data.
 */
struct pmem_zc_completion {
	__u64 cookie;
	__u64 user_data;
	__u64 bytes;
	__u64 bytes_ref;
	__u64 bytes_copied;
	__s32 status;
	__u32 flags;
	__u64 __reserved[2];
};

#define PMEM_ZC_IOC_MAGIC	'Z'
#define PMEM_ZC_IOC_SEND	_IOWR(PMEM_ZC_IOC_MAGIC, 0x10, struct pmem_zc_send)
#define PMEM_ZC_IOC_COPY	_IOWR(PMEM_ZC_IOC_MAGIC, 0x11, struct pmem_zc_copy)

/* the first published sizes: the smallest struct the kernel takes */
#define PMEM_ZC_SEND_SIZE_VER0	96
#define PMEM_ZC_COPY_SIZE_VER0	112

#endif /* _UAPI_LINUX_PMEM_ZC_H */
