// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc - zero-copy I/O from persistent memory
 *
 * The consumer the 2014 RFC "pmem: Support for struct page with Persistent
 * Memory storage" promised: take pfns of a prd disk by direct access
 * (prd_direct_access()), turn them into struct pages and hand the pages to
 * the network stack (pzc_send.c) or to another block device (pzc_copy.c),
 * with no CPU copy. Sources: a prd disk or partition, or a regular file on
 * a filesystem on one (pzc_src.c).
 *
 * This file: the character device /dev/pmem_zc (root only, 0600, unless
 * an administrator hands it out: every operation checks what read(2) of
 * its source and write(2) of its target would check, so the device grants
 * nothing beyond the caller's file descriptors), its per-file context
 * (completions of sends, read() and poll(); the caps on what a file and a
 * user may have in flight are pzc_admit.c's), the size-versioned ioctls,
 * the counters in /sys/class/misc/pmem_zc/stats/
 * (docs/ABI/sysfs-class-misc-pmem_zc) and the module. The user-space ABI
 * is include/uapi/linux/pmem_zc.h.
 *
 * Lifetime: every send in flight holds a module reference and one on its
 * file's context, until its completion has run; rmmod is refused until
 * then. A completion runs in the stack's callback when that is in
 * interrupt context (RCU covers its return, and free_module() waits a
 * grace period), else on pzc_wq, which the exit drains.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "pzc.h"

/* completions not in interrupt context (pzc_send.c); drained at exit */
struct workqueue_struct *pzc_wq;

/* --- counters ------------------------------------------------------------ */

static atomic64_t pzc_stats[PZC_NR_STATS];

void pzc_stat_add(enum pzc_stat s, s64 v)
{
	atomic64_add(v, &pzc_stats[s]);
}

void pzc_count_error(long err)
{
	switch (err) {
	case -EINVAL: case -EBADF: case -EISDIR: case -EOPNOTSUPP:
	case -ENOTSOCK: case -EROFS: case -E2BIG: case -EFAULT:
		pzc_stat_add(PZC_ERR_INVAL, 1);
		break;
	case -ERANGE: case -ENOSPC:
		pzc_stat_add(PZC_ERR_RANGE, 1);
		break;
	case -ENODEV:
		pzc_stat_add(PZC_ERR_NODEV, 1);
		break;
	case -EPERM: case -EACCES: case -ETXTBSY:
		pzc_stat_add(PZC_ERR_PERM, 1);
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
	case -ENOBUFS:
		pzc_stat_add(PZC_ERR_NOBUFS, 1);
		break;
	default:
		pzc_stat_add(PZC_ERR_OTHER, 1);
	}
}

void pzc_ctx_put(struct pzc_ctx *ctx)
{
	if (!refcount_dec_and_test(&ctx->ref))
		return;
	pzc_user_put(ctx->user);
	kfree(ctx);
}

/* --- the character device ------------------------------------------------ */

static int pzc_open(struct inode *inode, struct file *file)
{
	struct pzc_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);

	if (!ctx)
		return -ENOMEM;
	ctx->user = pzc_user_get(current_uid());
	if (!ctx->user) {
		kfree(ctx);
		return -ENOMEM;
	}
	refcount_set(&ctx->ref, 1);
	spin_lock_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->done);
	init_waitqueue_head(&ctx->wait);
	file->private_data = ctx;
	return stream_open(inode, file);
}

static int pzc_release(struct inode *inode, struct file *file)
{
	struct pzc_ctx *ctx = file->private_data;
	LIST_HEAD(done);
	struct list_head *p, *n;

	/* sends in flight complete later and drop what they hold */
	spin_lock_irq(&ctx->lock);
	ctx->released = true;
	list_splice_init(&ctx->done, &done);
	spin_unlock_irq(&ctx->lock);
	list_for_each_safe(p, n, &done) {
		struct pmem_zc_completion *rec =
			&list_entry(p, struct pzc_done, node)->rec;

		pzc_ctx_unadmit(ctx, rec->bytes, 0);
		kfree(list_entry(p, struct pzc_done, node));
	}
	pzc_ctx_put(ctx);
	return 0;
}

static ssize_t pzc_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	const size_t size = sizeof(struct pmem_zc_completion);
	struct pzc_ctx *ctx = file->private_data;
	struct pzc_done *d;
	ssize_t n = 0;
	int ret;

	if (count < size)
		return -EINVAL;
	while (count - n >= size) {
		spin_lock_irq(&ctx->lock);
		d = list_first_entry_or_null(&ctx->done, struct pzc_done, node);
		if (d)
			list_del(&d->node);
		spin_unlock_irq(&ctx->lock);
		if (!d) {
			if (n)
				break;
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
			ret = wait_event_interruptible(ctx->wait,
						       !list_empty_careful(&ctx->done));
			if (ret)
				return ret;
			continue;
		}
		if (copy_to_user(buf + n, &d->rec, size)) {
			/* keep it for the next read */
			spin_lock_irq(&ctx->lock);
			list_add(&d->node, &ctx->done);
			spin_unlock_irq(&ctx->lock);
			return n ? n : -EFAULT;
		}
		n += size;
		pzc_ctx_unadmit(ctx, d->rec.bytes, 0);
		kfree(d);
	}
	return n;
}

/*
 * POLLIN: a completion can be read. POLLOUT: the file is under its caps
 * (max_inflight_file, max_ops_file, and its user's max_inflight_user as of
 * now), so a send will not be refused with ENOBUFS outright.
 */
static __poll_t pzc_poll(struct file *file, poll_table *pt)
{
	struct pzc_ctx *ctx = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ctx->wait, pt);
	if (!list_empty_careful(&ctx->done))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (pzc_ctx_has_room(ctx))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/*
 * The struct of an ioctl, size-versioned by _IOC_SIZE(): a shorter one
 * than ours is zero-extended, a longer one must end in zeros.
 */
static int pzc_get_arg(void *karg, size_t ksize, size_t ver0,
		       unsigned int cmd, void __user *uarg)
{
	size_t usize = _IOC_SIZE(cmd);

	if (usize < ver0)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}

/*
 * The end of an ioctl: count @failure (a -errno, 0 when the operation did
 * not fail), and write the struct back.
 */
static long pzc_put_arg(void __user *uarg, unsigned int cmd, const void *karg,
			size_t ksize, long ret, long failure)
{
	if (failure)
		pzc_count_error(failure);
	if (copy_to_user(uarg, karg, min_t(size_t, _IOC_SIZE(cmd), ksize)))
		return -EFAULT;
	return ret;
}

/*
 * What a send's end counts as a failure: 0 for flow control, as send(2)'s
 * callers treat it. A full socket buffer (EAGAIN) is not a failure, with
 * or without bytes queued; a send cut short by the caps (ENOBUFS) or a
 * signal (EINTR) after some bytes were queued is a partial send, counted
 * apart: the caller sends the rest.
 */
static long pzc_send_failure(long ret, const struct pmem_zc_send *a)
{
	/* nothing queued: a full buffer, or a signal that restarts the call */
	if (ret)
		return ret == -EAGAIN || ret == -ERESTARTSYS ? 0 : ret;
	switch (a->error) {
	case 0:
		return 0;
	case EAGAIN: case ENOBUFS: case EINTR:
		pzc_stat_add(PZC_SENDS_PARTIAL, 1);
		return 0;
	}
	return -(long)a->error;
}

static long pzc_ioctl_send(struct file *file, unsigned int cmd,
			   void __user *uarg)
{
	struct pmem_zc_send a;
	long ret;

	ret = pzc_get_arg(&a, sizeof(a), PMEM_ZC_SEND_SIZE_VER0, cmd, uarg);
	if (ret)
		return ret;
	if (a.flags & ~(PMEM_ZC_F_COPY | PMEM_ZC_F_MORE | PMEM_ZC_F_DONTWAIT) ||
	    a.__reserved0 || a.__reserved1 ||
	    memchr_inv(a.__reserved, 0, sizeof(a.__reserved)))
		return -EINVAL;
	a.cookie = 0;
	a.bytes_queued = 0;
	a.error = 0;
	ret = pzc_send(file->private_data, &a);
	return pzc_put_arg(uarg, cmd, &a, sizeof(a), ret, pzc_send_failure(ret, &a));
}

static long pzc_ioctl_copy(struct file *file, unsigned int cmd,
			   void __user *uarg)
{
	struct pmem_zc_copy a;
	long ret;

	ret = pzc_get_arg(&a, sizeof(a), PMEM_ZC_COPY_SIZE_VER0, cmd, uarg);
	if (ret)
		return ret;
	if (a.flags & ~(PMEM_ZC_F_COPY | PMEM_ZC_F_FUA | PMEM_ZC_F_FLUSH) ||
	    a.__reserved0 || a.__reserved1 ||
	    memchr_inv(a.__reserved, 0, sizeof(a.__reserved)))
		return -EINVAL;
	a.bytes_done = 0;
	a.bytes_ref = 0;
	a.bytes_copied = 0;
	a.bios = 0;
	a.error = 0;
	ret = pzc_copy(&a);
	return pzc_put_arg(uarg, cmd, &a, sizeof(a), ret, ret ?: -(long)a.error);
}

static long pzc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	long ret;

	if (_IOC_TYPE(cmd) != PMEM_ZC_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(PMEM_ZC_IOC_SEND):
		return pzc_ioctl_send(file, cmd, uarg);
	case _IOC_NR(PMEM_ZC_IOC_COPY):
		return pzc_ioctl_copy(file, cmd, uarg);
	default:
		ret = -ENOTTY;
	}
	return ret;
}

static const struct file_operations pzc_fops = {
	.owner =		THIS_MODULE,
	.open =			pzc_open,
	.release =		pzc_release,
	.read =			pzc_read,
	.poll =			pzc_poll,
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

#define PZC_ATTR(_name, _stat) \
	{ .attr = __ATTR(_name, 0400, pzc_stat_show, NULL), .stat = _stat }

static struct pzc_attr pzc_attrs[] = {
	PZC_ATTR(sends, PZC_SENDS),
	PZC_ATTR(copies, PZC_COPIES),
	PZC_ATTR(bytes_ref, PZC_BYTES_REF),
	PZC_ATTR(bytes_copied, PZC_BYTES_COPIED),
	PZC_ATTR(bytes_stack_copied, PZC_BYTES_STACK_COPIED),
	PZC_ATTR(bios, PZC_BIOS),
	PZC_ATTR(ops_inflight, PZC_OPS_INFLIGHT),
	PZC_ATTR(bytes_inflight, PZC_BYTES_INFLIGHT),
	PZC_ATTR(err_inval, PZC_ERR_INVAL),
	PZC_ATTR(err_range, PZC_ERR_RANGE),
	PZC_ATTR(err_nodev, PZC_ERR_NODEV),
	PZC_ATTR(err_perm, PZC_ERR_PERM),
	PZC_ATTR(err_net, PZC_ERR_NET),
	PZC_ATTR(err_io, PZC_ERR_IO),
	PZC_ATTR(err_intr, PZC_ERR_INTR),
	PZC_ATTR(err_nobufs, PZC_ERR_NOBUFS),
	PZC_ATTR(err_other, PZC_ERR_OTHER),
	PZC_ATTR(sends_partial, PZC_SENDS_PARTIAL),
};

static_assert(ARRAY_SIZE(pzc_attrs) == PZC_NR_STATS);

static struct attribute *pzc_stat_attrs[ARRAY_SIZE(pzc_attrs) + 1];

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
	.mode =		0600,
};

static int __init pzc_init(void)
{
	int i, ret;

	BUILD_BUG_ON(sizeof(struct pmem_zc_send) < PMEM_ZC_SEND_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmem_zc_copy) < PMEM_ZC_COPY_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmem_zc_completion) != 64);
	for (i = 0; i < ARRAY_SIZE(pzc_attrs); i++)
		pzc_stat_attrs[i] = &pzc_attrs[i].attr.attr;
	pzc_wq = alloc_workqueue("pmem_zc", 0, 0);
	if (!pzc_wq)
		return -ENOMEM;
	ret = pzc_copy_init();
	if (ret)
		goto out_wq;
	ret = misc_register(&pzc_misc);
	if (ret)
		goto out_copy;
	return 0;

out_copy:
	pzc_copy_exit();
out_wq:
	destroy_workqueue(pzc_wq);
	return ret;
}

static void __exit pzc_exit(void)
{
	misc_deregister(&pzc_misc);
	/*
	 * Every send holds a module reference until its completion has run,
	 * so none is alive here; the last completion may still be returning
	 * from its module_put(): from a work item (drained here) or from the
	 * stack's callback in interrupt context, an RCU read-side critical
	 * section that the grace period below waits for.
	 */
	destroy_workqueue(pzc_wq);
	/* and every copy one until its release, which may be returning */
	pzc_copy_exit();
	synchronize_rcu();
}

module_init(pzc_init);
module_exit(pzc_exit);
MODULE_AUTHOR("pmem-zc developers");
MODULE_DESCRIPTION("Zero-copy send and block copy of persistent memory pages");
MODULE_LICENSE("GPL");
#ifdef PZC_VERSION	/* Kbuild: from the VERSION file */
MODULE_VERSION(PZC_VERSION);
#endif
