// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_zc sends: pmem pages to a TCP socket by reference, completed the way
 * MSG_ZEROCOPY and io_uring's zero-copy sends are.
 *
 * Each send owns a struct ubuf_info. Its pages go to the socket with
 * sock_sendmsg(MSG_ZEROCOPY) and the ubuf_info as msg_ubuf, over a bvec
 * iterator: TCP takes a page reference per fragment and a reference on the
 * ubuf_info per skb, and drops both when the data is acknowledged (or the
 * connection is gone). When the last reference goes the send completes:
 * the source is let go (its write denial lifted, the file put) and a
 * record is posted to the file the send came from. In interrupt context
 * (most often the softirq that took the peer's ACK) the callback completes
 * it there, as MSG_ZEROCOPY's callback posts its notification: a last
 * fput() there is deferred by fput() itself. In process context (a socket
 * backlog processed by release_sock(), tcp_disconnect()) it queues the
 * completion to pzc_wq: a last fput() would otherwise wait for that task's
 * return to user space, which a blocking recv() can put off indefinitely,
 * with the file's mount pinned meanwhile. The ioctl's own last reference
 * completes the send in the ioctl. Nothing polls page counts: other users
 * of the same pages (a GUP pin, another send) do not delay a completion.
 *
 * The ioctl returns once the bytes are queued; a signal, a full socket
 * buffer with MSG_DONTWAIT, or a socket error after some bytes were queued
 * ends it with those bytes and the error, and it is never restarted. A
 * signal before any byte was queued restarts it under SA_RESTART (and
 * without SO_SNDTIMEO), as send(2): nothing of it happened yet.
 *
 * Bytes go by copy (through a bounce buffer, with copy_mc_to_kernel() so
 * that poisoned pmem is an error, not a machine check) in copy mode, for
 * disks without pages, and where the stack is known to copy from the pages
 * itself: a route without scatter-gather, a socket without SOCK_SUPPORT_ZC
 * (kTLS), a receiver on this host over loopback. Where the stack copies
 * pages it took anyway (a packet socket tapping the device, a receiver
 * behind veth in another namespace, a route that changed under the send),
 * the completion says so (PMEM_ZC_C_STACK_COPIED) and counts those bytes as
 * copied; that copy is not machine-check safe, as for MSG_ZEROCOPY from a
 * DAX mapping.
 *
 * A callback that is not the last may run in preemptible process context
 * (a backlog processed by release_sock()): the module cannot exclude that
 * it is preempted after its last access and resumes after the module is
 * gone; an RCU read section around it, waited for at exit, narrows that to
 * its return instructions. A last one that completes the send (and drops
 * its module reference) runs in interrupt context, where RCU covers it to
 * its return.
 */
#include <linux/bvec.h>
#include <linux/fsnotify.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/dst.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "prd.h"
#include "pzc.h"
#include "pzc_compat.h"

#define PZC_SEND_BVECS		64
#define PZC_SEND_BATCH		SZ_1M	/* bytes per sock_sendmsg() */
#define PZC_BOUNCE		SZ_64K

/**
 * struct pzc_send_op - one send, from the ioctl to the read() of its record
 * @done: its record, in @ctx->done once completed (first: read() frees it)
 * @ubuf: the stack's completion: one reference while the ioctl queues (6.12's
 *	TCP takes none of its own on a msg_ubuf and relies on it), one per
 *	skb that carries pages of the send
 * @ctx: the file the send came from
 * @src: the source, held until the completion
 * @work: the completion, when the last reference goes in process context
 * @bytes_ref: bytes queued as pages
 * @bytes_copied: bytes queued by copy
 * @zc_used: an skb carried pages of the send to the end
 * @zc_copied: the stack copied the pages of some skb
 * @silent: nothing was queued: no record
 */
struct pzc_send_op {
	struct pzc_done			done;
	struct ubuf_info		ubuf;
	struct pzc_ctx			*ctx;
	struct pzc_src			src;
	struct work_struct		work;
	u64				bytes_ref;
	u64				bytes_copied;
	bool				zc_used;
	bool				zc_copied;
	bool				silent;
};

static_assert(offsetof(struct pzc_send_op, done) == 0);

/*
 * The completion: from the stack's callback in interrupt context (a
 * softirq, or with irqs off: netpoll frees skbs there; hence the irq-safe
 * locks of the context and of its user), from pzc_wq, or from the ioctl.
 */
static void pzc_send_done(struct pzc_send_op *op)
{
	struct pzc_ctx *ctx = op->ctx;
	struct pmem_zc_completion *rec = &op->done.rec;
	unsigned long flags;

	pzc_src_put(&op->src);
	pzc_stat_add(PZC_OPS_INFLIGHT, -1);
	if (op->silent) {
		kfree(op);
		goto out;
	}
	rec->bytes_ref = op->bytes_ref;
	rec->bytes_copied = op->bytes_copied;
	if (op->bytes_ref && (op->zc_copied || !op->zc_used)) {
		rec->flags |= PMEM_ZC_C_STACK_COPIED;
		rec->bytes_copied += op->bytes_ref;
		rec->bytes_ref = 0;
		pzc_stat_add(PZC_BYTES_STACK_COPIED, op->bytes_ref);
	}
	pzc_stat_add(PZC_BYTES_REF, rec->bytes_ref);
	pzc_stat_add(PZC_BYTES_COPIED, rec->bytes_copied);

	spin_lock_irqsave(&ctx->lock, flags);
	if (ctx->released) {
		spin_unlock_irqrestore(&ctx->lock, flags);
		pzc_ctx_unadmit(ctx, rec->bytes, 0);
		kfree(op);
		goto out;
	}
	list_add_tail(&op->done.node, &ctx->done);
	spin_unlock_irqrestore(&ctx->lock, flags);
	/* op now belongs to the reader */
	wake_up_interruptible_poll(&ctx->wait, EPOLLIN | EPOLLRDNORM);
out:
	pzc_ctx_put(ctx);
	module_put(THIS_MODULE);
}

static void pzc_send_work(struct work_struct *work)
{
	pzc_send_done(container_of(work, struct pzc_send_op, work));
}

/* The stack's callback: any context. The last reference completes. */
static void pzc_send_callback(struct sk_buff *skb, struct ubuf_info *uarg,
			      bool success)
{
	struct pzc_send_op *op = container_of(uarg, struct pzc_send_op, ubuf);

	/* pzc_exit()'s synchronize_rcu() waits for us to return */
	rcu_read_lock();
	if (success && skb && !op->zc_used)
		WRITE_ONCE(op->zc_used, true);
	else if (!success && !op->zc_copied)
		WRITE_ONCE(op->zc_copied, true);
	if (refcount_dec_and_test(&uarg->refcnt)) {
		if (in_interrupt())	/* fput()'s own test for deferring */
			pzc_send_done(op);
		else
			queue_work(pzc_wq, &op->work);
	}
	rcu_read_unlock();
}

PZC_UBUF_OPS(pzc_ubuf_ops, pzc_send_callback);

/*
 * Whether TCP on @sock is known to copy pages itself, where pmem_zc copies
 * them instead with copy_mc_to_kernel() (the stack's copy is a plain memcpy
 * that turns a poisoned line into a machine check): a socket that does not
 * support zero-copy sends (SOCK_SUPPORT_ZC, what io_uring tests: a ULP such
 * as kTLS clears it), a route without scatter-gather, and delivery to this
 * host over loopback (skb_orphan_frags_rx()). A hint read without the
 * socket lock, not a gate: the route may change under the send, and other
 * stack copies are not foreseen at all (a receiver behind veth or tun in
 * another namespace, a VRF's local route, software GSO or checksum help,
 * a packet tap). Those are reported after the fact: skb_copy_ubufs() calls
 * the callback with success false and the completion carries
 * PMEM_ZC_C_STACK_COPIED.
 */
static bool pzc_sock_takes_pages(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct dst_entry *dst;
	bool local;

	if (!test_bit(SOCK_SUPPORT_ZC, &sock->flags) ||
	    !(READ_ONCE(sk->sk_route_caps) & NETIF_F_SG))
		return false;
	dst = sk_dst_get(sk);
	local = dst && dst->dev && (dst->dev->flags & IFF_LOOPBACK);
	dst_release(dst);
	return !local;
}

/*
 * Fill @bv with extents of the source from @pos, @len bytes at most.
 * Return: the bytes covered (0 when the first extent failed, with @err).
 */
static u64 pzc_send_bvecs(struct pzc_src *src, u64 pos, u64 len,
			  struct bio_vec *bv, unsigned int *nr, int *err)
{
	struct pzc_extent ext;
	u64 done = 0;
	unsigned int n = 0;

	*err = 0;
	while (n < PZC_SEND_BVECS && done < len) {
		*err = pzc_src_extent(src, pos + done, len - done, &ext);
		if (*err)
			break;
		if (!ext.kaddr) {
			/* a hole: the zero page, a page at a time */
			ext.len = min_t(u64, ext.len,
					PAGE_SIZE - ((pos + done) & ~PAGE_MASK));
			bv[n].bv_page = ZERO_PAGE(0);
			bv[n].bv_offset = (pos + done) & ~PAGE_MASK;
		} else {
			bv[n].bv_page = pfn_to_page(ext.pfn);
			bv[n].bv_offset = offset_in_page(ext.kaddr);
		}
		bv[n].bv_len = ext.len;
		n++;
		done += ext.len;
	}
	*nr = n;
	if (done)
		*err = 0;	/* send what we have; the error comes again */
	return done;
}

/* Bytes by reference: one sock_sendmsg() of up to PZC_SEND_BATCH. */
static int pzc_send_ref(struct pzc_send_op *op, struct socket *sock, u64 pos,
			u64 len, int flags, struct bio_vec *bv)
{
	struct msghdr msg = { .msg_flags = flags | MSG_ZEROCOPY };
	unsigned int nr;
	u64 bytes;
	int err, ret;

	bytes = pzc_send_bvecs(&op->src, pos, min_t(u64, len, PZC_SEND_BATCH),
			       bv, &nr, &err);
	if (!bytes)
		return err;
	if (bytes < len)
		msg.msg_flags |= MSG_MORE;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, nr, bytes);
	msg.msg_ubuf = &op->ubuf;
	ret = sock_sendmsg(sock, &msg);
	if (ret > 0)
		op->bytes_ref += ret;
	return ret;
}

/* Bytes by copy: one extent, at most PZC_BOUNCE, through @bounce. */
static int pzc_send_copy(struct pzc_send_op *op, struct socket *sock, u64 pos,
			 u64 len, int flags, void *bounce)
{
	struct msghdr msg = { .msg_flags = flags };
	struct pzc_extent ext;
	struct kvec kv;
	int ret;

	ret = pzc_src_extent(&op->src, pos, min_t(u64, len, PZC_BOUNCE), &ext);
	if (ret)
		return ret;
	if (!ext.kaddr)
		memset(bounce, 0, ext.len);
	else if (copy_mc_to_kernel(bounce, ext.kaddr, ext.len))
		return -EIO;
	if (ext.len < len)
		msg.msg_flags |= MSG_MORE;
	kv.iov_base = bounce;
	kv.iov_len = ext.len;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, ext.len);
	ret = sock_sendmsg(sock, &msg);
	if (ret > 0)
		op->bytes_copied += ret;
	return ret;
}

/*
 * Queue [@pos, @pos + @len) of the source on @sock. Return: bytes queued;
 * @err says why they are fewer than @len.
 */
static u64 pzc_send_loop(struct pzc_send_op *op, struct socket *sock,
			 u64 pos, u64 len, u32 uflags, int *err)
{
	bool copy = (uflags & PMEM_ZC_F_COPY) ||
		    op->src.mode == PRD_PAGES_NONE;
	int flags = MSG_NOSIGNAL;
	struct bio_vec *bv = NULL;
	void *bounce = NULL;
	u64 queued = 0;
	int ret = 0;

	if ((uflags & PMEM_ZC_F_DONTWAIT) ||
	    (sock->file->f_flags & O_NONBLOCK))
		flags |= MSG_DONTWAIT;
	if (uflags & PMEM_ZC_F_MORE)
		flags |= MSG_MORE;

	while (queued < len) {
		if (!copy && pzc_sock_takes_pages(sock)) {
			if (!bv)
				bv = kmalloc_array(PZC_SEND_BVECS, sizeof(*bv),
						   GFP_KERNEL);
			ret = bv ? pzc_send_ref(op, sock, pos + queued,
						len - queued, flags, bv) :
				   -ENOMEM;
		} else {
			if (!bounce)
				bounce = kvmalloc(PZC_BOUNCE, GFP_KERNEL);
			ret = bounce ? pzc_send_copy(op, sock, pos + queued,
						     len - queued, flags,
						     bounce) : -ENOMEM;
		}
		if (ret <= 0) {
			if (!ret)
				ret = -EPIPE;
			break;
		}
		queued += ret;
		/* a short send: the buffer was full, a timeout or a signal */
		if (queued < len && signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		ret = 0;
		cond_resched();
	}
	kfree(bv);
	kvfree(bounce);
	*err = ret;
	return queued;
}

/* the first checks of a socket: connected TCP */
static struct socket *pzc_send_sock(int fd, int *err)
{
	struct socket *sock = sockfd_lookup(fd, err);

	if (!sock)
		return NULL;
	if (!sock->sk || sock->type != SOCK_STREAM ||
	    sock->sk->sk_protocol != IPPROTO_TCP) {
		*err = -EINVAL;
	} else if (!((1 << READ_ONCE(sock->sk->sk_state)) &
		     (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT))) {
		*err = -ENOTCONN;
	} else {
		return sock;
	}
	sockfd_put(sock);
	return NULL;
}

/**
 * pzc_send - PMEM_ZC_IOC_SEND
 * @ctx: the context of the ioctl's file
 * @a: the caller's struct, in fields checked, out fields zeroed
 *
 * Return: 0 when bytes were queued (a completion follows), else -errno.
 */
long pzc_send(struct pzc_ctx *ctx, struct pmem_zc_send *a)
{
	struct pzc_send_op *op;
	struct socket *sock;
	u64 admitted, queued;
	int err, ret;

	sock = pzc_send_sock(a->sock_fd, &ret);
	if (!sock)
		return ret;
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op) {
		ret = -ENOMEM;
		goto out_sock;
	}
	ret = pzc_src_get(&op->src, a->src_fd, a->offset, a->length);
	if (ret)
		goto out_src;
	ret = pzc_ctx_admit(ctx, a->length, &admitted);
	if (ret)
		goto out_src;

	/* from here on the op ends in pzc_send_done() */
	op->ctx = ctx;
	refcount_inc(&ctx->ref);
	__module_get(THIS_MODULE);
	INIT_WORK(&op->work, pzc_send_work);
	pzc_ubuf_set_ops(&op->ubuf, &pzc_ubuf_ops);
	op->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	refcount_set(&op->ubuf.refcnt, 1);
	pzc_stat_add(PZC_OPS_INFLIGHT, 1);

	queued = pzc_send_loop(op, sock, a->offset, admitted, a->flags, &err);
	pzc_src_put_seek(&op->src);	/* the send's holes are found */
	if (!err && admitted < a->length)
		err = -ENOBUFS;		/* the cap let only part of it in */
	op->done.rec.user_data = a->user_data;
	op->done.rec.bytes = queued;
	if (queued < admitted)
		pzc_ctx_unadmit(ctx, admitted, queued);
	if (!queued) {
		/*
		 * Nothing happened that a restart would repeat: no count, no
		 * cookie, no access event, and the source let go now (no skb
		 * has its pages), not when the silent op completes.
		 */
		op->silent = true;
		pzc_src_put(&op->src);
		ret = err;	/* -ERESTARTSYS: restarted under SA_RESTART, as send(2) */
	} else {
		pzc_stat_add(PZC_SENDS, 1);
		fsnotify_access(op->src.file);
		spin_lock_irq(&ctx->lock);
		a->cookie = ++ctx->next_cookie;
		spin_unlock_irq(&ctx->lock);
		op->done.rec.cookie = a->cookie;
		a->bytes_queued = queued;
		a->error = err == -ERESTARTSYS ? EINTR : -err;
		ret = 0;
	}
	/*
	 * Our reference; the op may complete (and be read) from here on. The
	 * last one completes here: our file keeps the module, a last fput()
	 * runs as we return to user space.
	 */
	if (refcount_dec_and_test(&op->ubuf.refcnt))
		pzc_send_done(op);
	sockfd_put(sock);
	return ret;

out_src:
	pzc_src_put(&op->src);
	kfree(op);
out_sock:
	sockfd_put(sock);
	return ret;
}
