/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmem_zc internals shared by pzc_main.c (the character device, per-file
 * contexts, completions, counters, module), pzc_admit.c (the caps on sends
 * in flight per file and per user), pzc_src.c (what a source is and
 * what keeps its bytes valid), pzc_send.c (sends on the zero-copy
 * completion of the network stack) and pzc_copy.c (bios to a block device).
 */
#ifndef PZC_H
#define PZC_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/pmem_zc.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/* counters, /sys/class/misc/pmem_zc/stats/ */
enum pzc_stat {
	PZC_SENDS, PZC_COPIES, PZC_BYTES_REF, PZC_BYTES_COPIED,
	PZC_BYTES_STACK_COPIED, PZC_BIOS, PZC_OPS_INFLIGHT, PZC_BYTES_INFLIGHT,
	PZC_ERR_INVAL, PZC_ERR_RANGE, PZC_ERR_NODEV, PZC_ERR_PERM,
	PZC_ERR_NET, PZC_ERR_IO, PZC_ERR_INTR, PZC_ERR_NOBUFS, PZC_ERR_OTHER,
	PZC_SENDS_PARTIAL,
	PZC_NR_STATS,
};

void pzc_stat_add(enum pzc_stat s, s64 v);
void pzc_count_error(long err);

/* bytes and operations in flight, per user (all files of one uid) */
struct pzc_user;

/**
 * struct pzc_ctx - what one open /dev/pmem_zc file owns
 * @ref: the file, plus one per send in flight
 * @lock: protects everything below; taken with irqs off everywhere: a send
 *	may complete from the stack's callback with irqs off, even in hard
 *	irq (netpoll's zap_completion_queue() frees skbs there)
 * @done: completed sends whose record was not read yet
 * @wait: read() and poll() wait here for @done
 * @next_cookie: the cookie of the next send
 * @bytes: what sends in flight or completed but not read cost in the caps
 *	(their bytes, at least a page each)
 * @ops: number of those sends
 * @released: the file is closed: completions are dropped
 * @user: accounting of the file's opener
 */
struct pzc_ctx {
	refcount_t		ref;
	spinlock_t		lock;		/* of the fields below */
	struct list_head	done;
	wait_queue_head_t	wait;
	u64			next_cookie;
	u64			bytes;
	unsigned int		ops;
	bool			released;
	struct pzc_user		*user;
};

/*
 * A completed send on its file's done list: the first member of the send,
 * which read() frees with the record.
 */
struct pzc_done {
	struct list_head		node;
	struct pmem_zc_completion	rec;
};

/* pzc_admit.c: the caps */
struct pzc_user *pzc_user_get(kuid_t uid);
void pzc_user_put(struct pzc_user *u);
bool pzc_ctx_has_room(struct pzc_ctx *ctx);
int pzc_ctx_admit(struct pzc_ctx *ctx, u64 want, u64 *got);
void pzc_ctx_unadmit(struct pzc_ctx *ctx, u64 admitted, u64 kept);

/* pzc_main.c */
void pzc_ctx_put(struct pzc_ctx *ctx);

extern struct workqueue_struct *pzc_wq;

/**
 * struct pzc_src - the source of an operation and what keeps it valid
 * @file: the caller's file: a prd disk or partition, or a regular file
 * @bdev: the disk or partition that holds the bytes
 * @inode: the regular file, NULL for a disk
 * @deny: writers of @inode are refused (ETXTBSY) while we hold it
 * @mode: enum prd_page_mode of @bdev
 * @size: bytes of the source
 */
struct pzc_src {
	struct file		*file;
	struct block_device	*bdev;
	struct inode		*inode;
	bool			deny;
	int			mode;
	u64			size;
	struct file		*seek;		/* private open for SEEK_DATA */
	u64			hole_start;	/* the last hole found: */
	u64			hole_end;	/* [start, end) of the file */
};

/*
 * One extent of the source: @len bytes at byte @pos, physically contiguous
 * at @kaddr / @pfn, or a hole (@kaddr NULL) read as zeros.
 */
struct pzc_extent {
	void		*kaddr;
	unsigned long	pfn;
	u64		len;
};

int pzc_src_get(struct pzc_src *src, int fd, u64 offset, u64 length);
void pzc_src_put(struct pzc_src *src);
/* no more extents will be looked up: the private open for SEEK_DATA goes */
void pzc_src_put_seek(struct pzc_src *src);
int pzc_src_extent(struct pzc_src *src, u64 pos, u64 len,
		   struct pzc_extent *ext);

long pzc_send(struct pzc_ctx *ctx, struct pmem_zc_send *a);
long pzc_copy(struct pmem_zc_copy *a);
int pzc_copy_init(void);
void pzc_copy_exit(void);

#endif /* PZC_H */
