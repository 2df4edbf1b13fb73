// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc admission: the caps on sends in flight, per /dev/pmem_zc file and
 * per user.
 *
 * A send holds its source's pages, and with a file source write-denies the
 * file, until the network stack lets go of the last page; its completion
 * record then waits in the file until read(2). Both are bounded here: bytes
 * (at least a page per send) and sends, per file (struct pzc_ctx) and per
 * user (struct pzc_user, one per uid with an open file or a send not yet
 * read), each under a module parameter an administrator may change at any
 * time (a lowered cap refuses new sends and takes nothing back). A send
 * beyond a cap is cut short or refused with ENOBUFS, as MSG_ZEROCOPY's
 * optmem limit refuses a send.
 *
 * Locking: pzc_users_lock (a spinlock) protects the table and every
 * pzc_user's counts; it nests inside a context's lock. Both are taken with
 * irqs off everywhere: a send's completion gives back its charge from the
 * network stack's callback (struct pzc_ctx).
 */
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "pzc.h"

static unsigned long max_inflight_file = SZ_256M;
module_param(max_inflight_file, ulong, 0644);
MODULE_PARM_DESC(max_inflight_file, "Bytes of sends one /dev/pmem_zc file may have in flight or completed but not read (default 256 MiB); a send beyond it is cut short or refused with ENOBUFS");

static unsigned long max_inflight_user = SZ_1G;
module_param(max_inflight_user, ulong, 0644);
MODULE_PARM_DESC(max_inflight_user, "The same, for all files of one user (default 1 GiB)");

static unsigned int max_ops_file = 4096;
module_param(max_ops_file, uint, 0644);
MODULE_PARM_DESC(max_ops_file, "Sends one file may have in flight or completed but not read (default 4096)");

static unsigned int max_ops_user = 16384;
module_param(max_ops_user, uint, 0644);
MODULE_PARM_DESC(max_ops_user, "The same, for all files of one user (default 16384)");

struct pzc_user {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		files;	/* open files; under pzc_users_lock */
	unsigned int		ops;	/* under pzc_users_lock */
	u64			bytes;	/* under pzc_users_lock */
};

static DEFINE_HASHTABLE(pzc_users, 6);
static DEFINE_SPINLOCK(pzc_users_lock);

struct pzc_user *pzc_user_get(kuid_t uid)
{
	struct pzc_user *u, *new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);

	spin_lock_irq(&pzc_users_lock);
	hash_for_each_possible(pzc_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = new;
	new = NULL;
	if (u) {
		u->uid = uid;
		hash_add(pzc_users, &u->node, __kuid_val(uid));
	}
found:
	if (u)
		u->files++;
	spin_unlock_irq(&pzc_users_lock);
	kfree(new);
	return u;
}

/* any context: a send's completion may put the last context of a user */
void pzc_user_put(struct pzc_user *u)
{
	unsigned long flags;

	spin_lock_irqsave(&pzc_users_lock, flags);
	if (!--u->files && !u->bytes && !u->ops) {
		hash_del(&u->node);
		kfree(u);
	}
	spin_unlock_irqrestore(&pzc_users_lock, flags);
}

/* what a send of @bytes costs in the caps: at least a page */
static u64 pzc_charge(u64 bytes)
{
	return max_t(u64, bytes, PAGE_SIZE);
}

/* room left under a cap; a cap lowered below the use leaves none */
static u64 pzc_room(unsigned long cap, u64 used)
{
	return used < cap ? cap - used : 0;
}

/* bytes a send may have now: 0 when a cap is reached; under both locks */
static u64 pzc_ctx_room(struct pzc_ctx *ctx)
{
	struct pzc_user *u = ctx->user;
	u64 room;

	lockdep_assert_held(&ctx->lock);
	lockdep_assert_held(&pzc_users_lock);
	room = min(pzc_room(READ_ONCE(max_inflight_file), ctx->bytes),
		   pzc_room(READ_ONCE(max_inflight_user), u->bytes));
	if (ctx->ops >= READ_ONCE(max_ops_file) ||
	    u->ops >= READ_ONCE(max_ops_user) || room < PAGE_SIZE)
		return 0;
	return room;
}

/*
 * Whether a send would be admitted now (poll()'s POLLOUT): under the file's
 * caps and, as of now, its user's.
 */
bool pzc_ctx_has_room(struct pzc_ctx *ctx)
{
	bool ret;

	spin_lock_irq(&ctx->lock);
	spin_lock(&pzc_users_lock);
	ret = pzc_ctx_room(ctx) != 0;
	spin_unlock(&pzc_users_lock);
	spin_unlock_irq(&ctx->lock);
	return ret;
}

/**
 * pzc_ctx_admit - reserve a send in the caps
 * @ctx: the file
 * @want: bytes the send asks for
 * @got: set to the bytes it may queue, at most @want
 *
 * A send costs at least a page of the byte caps and one of the send caps,
 * per file and per user, until its completion is read (or its file closed).
 * Return: 0, or -ENOBUFS when the file or its user has no room left.
 */
int pzc_ctx_admit(struct pzc_ctx *ctx, u64 want, u64 *got)
{
	struct pzc_user *u = ctx->user;
	u64 room;

	spin_lock_irq(&ctx->lock);
	spin_lock(&pzc_users_lock);
	room = pzc_ctx_room(ctx);
	*got = min(want, room);
	if (*got) {
		ctx->bytes += pzc_charge(*got);
		ctx->ops++;
		u->bytes += pzc_charge(*got);
		u->ops++;
		pzc_stat_add(PZC_BYTES_INFLIGHT, *got);
	}
	spin_unlock(&pzc_users_lock);
	spin_unlock_irq(&ctx->lock);
	return *got ? 0 : -ENOBUFS;
}

/**
 * pzc_ctx_unadmit - give back what pzc_ctx_admit() reserved
 * @ctx: the file
 * @admitted: bytes admitted
 * @kept: bytes the send keeps (queued); 0 gives back the send itself
 *
 * Any context: a send's completion gives back from the stack's callback.
 */
void pzc_ctx_unadmit(struct pzc_ctx *ctx, u64 admitted, u64 kept)
{
	struct pzc_user *u = ctx->user;
	u64 back = pzc_charge(admitted) - (kept ? pzc_charge(kept) : 0);
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	spin_lock(&pzc_users_lock);
	ctx->bytes -= back;
	u->bytes -= back;
	if (!kept) {
		ctx->ops--;
		u->ops--;
	}
	pzc_stat_add(PZC_BYTES_INFLIGHT, -(s64)(admitted - kept));
	spin_unlock(&pzc_users_lock);
	spin_unlock_irqrestore(&ctx->lock, flags);
	/* room again: poll() says POLLOUT */
	wake_up_interruptible_poll(&ctx->wait, EPOLLOUT | EPOLLWRNORM);
}
