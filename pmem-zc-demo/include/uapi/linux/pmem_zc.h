/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmem_zc: zero-copy I/O from persistent memory, user-space ABI.
 *
 * /dev/pmem_zc takes ioctls whose argument starts with the ABI version;
 * a caller built against another version gets -EPROTO. The source of an
 * operation is a prd disk or partition, or a regular file on a filesystem
 * on one; its bytes leave as the pmem pages themselves (by reference) when
 * the disk has struct pages, and by copy otherwise or with PMEM_ZC_F_COPY.
 */
#ifndef _UAPI_LINUX_PMEM_ZC_H
#define _UAPI_LINUX_PMEM_ZC_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define PMEM_ZC_ABI_VERSION	1

/*
 * flags; PMEM_ZC_F_FLUSH is what makes a copied range durable on the
 * target, PMEM_ZC_F_FUA only its last bio
 */
#define PMEM_ZC_F_COPY		_BITUL(0) /* bounce-buffer baseline */
#define PMEM_ZC_F_FUA		_BITUL(1) /* copy: last bio with REQ_FUA */
#define PMEM_ZC_F_FLUSH		_BITUL(2) /* copy: flush the target at the end */
#define PMEM_ZC_F_ALL		(PMEM_ZC_F_COPY | PMEM_ZC_F_FUA | PMEM_ZC_F_FLUSH)

/**
 * struct pmem_zc_send - send bytes of a pmem source to a TCP socket
 * @abi_version: PMEM_ZC_ABI_VERSION
 * @flags: 0 or PMEM_ZC_F_COPY
 * @src_fd: prd disk or partition (opened for reading), or a regular file
 * @sock_fd: a connected TCP socket
 * @offset: byte offset in the source
 * @length: bytes to send, > 0, within the source
 * @bytes_ref: out: bytes handed to the network stack as pmem pages
 * @bytes_copied: out: bytes sent by copy
 *
 * Returns when every byte is queued on the socket and the network stack
 * no longer holds any of the pages (the data is acknowledged), or on a
 * signal or socket error with the counts of what was sent. The out fields
 * of both structs are written back on every return, errors included.
 */
struct pmem_zc_send {
	__u32 abi_version;
	__u32 flags;
	__s32 src_fd;
	__s32 sock_fd;
	__u64 offset;
	__u64 length;
	__u64 bytes_ref;
	__u64 bytes_copied;
};

/**
 * struct pmem_zc_copy - write bytes of a pmem source to a block device
 * @abi_version: PMEM_ZC_ABI_VERSION
 * @flags: PMEM_ZC_F_COPY, PMEM_ZC_F_FUA, PMEM_ZC_F_FLUSH
 * @src_fd: prd disk or partition, or a regular file on one
 * @dst_fd: the target block device, opened for writing
 * @offset: byte offset in the source, a multiple of 512
 * @length: bytes, > 0, a multiple of 512
 * @dst_offset: byte offset in the target, a multiple of 512
 * @bytes_ref: out: bytes written from the pmem pages themselves
 * @bytes_copied: out: bytes written through a bounce buffer
 * @bios: out: bios submitted
 */
struct pmem_zc_copy {
	__u32 abi_version;
	__u32 flags;
	__s32 src_fd;
	__s32 dst_fd;
	__u64 offset;
	__u64 length;
	__u64 dst_offset;
	__u64 bytes_ref;
	__u64 bytes_copied;
	__u64 bios;
};

#define PMEM_ZC_IOC_MAGIC	'Z'
/* the module's PMEM_ZC_ABI_VERSION, to check before anything else */
#define PMEM_ZC_IOC_VERSION	_IOR(PMEM_ZC_IOC_MAGIC, 0, __u32)
#define PMEM_ZC_IOC_SEND	_IOWR(PMEM_ZC_IOC_MAGIC, 1, struct pmem_zc_send)
#define PMEM_ZC_IOC_COPY	_IOWR(PMEM_ZC_IOC_MAGIC, 2, struct pmem_zc_copy)

#endif /* _UAPI_LINUX_PMEM_ZC_H */
