// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_fake: the xfer API in user space, for host tests (pmem-zc-fake).
 *
 * A send reads the source with pread() and writes it to the socket with
 * send() (MSG_DONTWAIT with PMEM_ZC_F_DONTWAIT or an O_NONBLOCK socket),
 * so it queues what fits as the module does; its completion is kept in
 * memory and announced through a timerfd, which xfer_fd() returns. A copy
 * is pread() + pwrite(), to a block device or, unlike the module, a
 * regular file. Arguments are checked as the module documents them.
 *
 * Knobs, read from the environment at xfer_open():
 *	PMEM_ZC_FAKE_ERRNO=NAME	every send and copy fails with NAME (ENODEV,
 *				EOPNOTSUPP, ETXTBSY, EPERM, EIO, ENOBUFS)
 *				and moves nothing
 *	PMEM_ZC_FAKE_MAX=N	a send queues at most N bytes, then stops
 *				with error ENOBUFS (the cap on bytes in
 *				flight)
 *	PMEM_ZC_FAKE_DELAY_MS=N	completions become readable N ms after
 *				their send (default: at once)
 *	PMEM_ZC_FAKE_STACK_COPIED=1  completions say the stack copied
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include "msg.h"
#include "xfer.h"

#define FAKE_BUF	(256 << 10)
#define SEND_FLAGS	(PMEM_ZC_F_COPY | PMEM_ZC_F_MORE | PMEM_ZC_F_DONTWAIT)
#define COPY_FLAGS	(PMEM_ZC_F_COPY | PMEM_ZC_F_FUA | PMEM_ZC_F_FLUSH)

struct fake_done {
	struct pmem_zc_completion c;
	struct timespec due;
};

struct xfer {
	int tfd;			/* timerfd: a completion is due */
	struct fake_done *q;		/* pending completions, oldest first */
	size_t head, n, cap;
	uint64_t cookie;
	int fail_errno;
	uint64_t max_queue;
	long delay_ms;
	bool stack_copied;
	char *buf;
};

static const struct {
	const char *name;
	int err;
} fake_errnos[] = {
	{ "ENODEV", ENODEV }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "ETXTBSY", ETXTBSY }, { "EPERM", EPERM }, { "EIO", EIO },
	{ "ENOBUFS", ENOBUFS },
};

static int fake_env_errno(void)
{
	const char *s = getenv("PMEM_ZC_FAKE_ERRNO");
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(fake_errnos); i++)
		if (!strcmp(s, fake_errnos[i].name))
			return fake_errnos[i].err;
	return 0;
}

static long fake_env_num(const char *name)
{
	const char *s = getenv(name);

	return s ? strtol(s, NULL, 10) : 0;
}

struct xfer *xfer_open(char *why, size_t size)
{
	struct xfer *x = calloc(1, sizeof(*x));

	if (x)
		x->buf = malloc(FAKE_BUF);
	if (x)
		x->tfd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (!x || !x->buf || x->tfd < 0) {
		snprintf(why, size, "fake xfer: %s", strerror(errno));
		if (x)
			free(x->buf);
		free(x);
		return NULL;
	}
	x->fail_errno = fake_env_errno();
	x->max_queue = fake_env_num("PMEM_ZC_FAKE_MAX");
	x->delay_ms = fake_env_num("PMEM_ZC_FAKE_DELAY_MS");
	x->stack_copied = fake_env_num("PMEM_ZC_FAKE_STACK_COPIED") > 0;
	return x;
}

void xfer_close(struct xfer *x)
{
	if (!x)
		return;
	close(x->tfd);
	free(x->q);
	free(x->buf);
	free(x);
}

int xfer_fd(const struct xfer *x)
{
	return x->tfd;
}

const char *xfer_name(const struct xfer *x)
{
	(void)x;
	return "fake (user space)";
}

/* Arm the timerfd for the oldest pending completion, or disarm it. */
static void fake_arm(struct xfer *x)
{
	struct itimerspec its = {};

	if (x->n) {
		its.it_value = x->q[x->head].due;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(x->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int fake_post(struct xfer *x, const struct pmem_zc_completion *c)
{
	struct fake_done *d;

	if (x->head + x->n == x->cap) {
		if (x->head) {
			memmove(x->q, x->q + x->head, x->n * sizeof(*x->q));
			x->head = 0;
		} else {
			size_t cap = x->cap ? 2 * x->cap : 64;

			d = realloc(x->q, cap * sizeof(*d));
			if (!d)
				return -ENOMEM;
			x->q = d;
			x->cap = cap;
		}
	}
	d = &x->q[x->head + x->n++];
	d->c = *c;
	clock_gettime(CLOCK_MONOTONIC, &d->due);
	d->due.tv_sec += x->delay_ms / 1000;
	d->due.tv_nsec += x->delay_ms % 1000 * 1000000;
	if (d->due.tv_nsec >= 1000000000) {
		d->due.tv_sec++;
		d->due.tv_nsec -= 1000000000;
	}
	if (x->n == 1)
		fake_arm(x);
	return 0;
}

/* The size of a source or target: a block device or a regular file. */
static int fake_size(int fd, uint64_t *size, bool *blk)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	*blk = S_ISBLK(st.st_mode);
	if (*blk)
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	*size = st.st_size;
	return 0;
}

/* The checks of the module that come before anything moves. */
static int fake_check_src(struct xfer *x, int src, uint64_t off,
			  uint64_t len)
{
	uint64_t size;
	bool blk;
	int ret;

	if (!len)
		return -EINVAL;
	ret = fake_size(src, &size, &blk);
	if (ret)
		return ret == -ENODEV || ret == -EBADF ? ret : -ENODEV;
	if (off > size || len > size - off)
		return -ERANGE;
	return x->fail_errno ? -x->fail_errno : 0;
}

/* Send [off, off + len) of @src on @sock; bytes queued, error in *err. */
static uint64_t fake_push(struct xfer *x, const struct pmem_zc_send *s,
			  uint64_t len, int *err)
{
	int fl = MSG_NOSIGNAL;
	uint64_t done = 0;

	if (s->flags & PMEM_ZC_F_DONTWAIT)
		fl |= MSG_DONTWAIT;
	*err = 0;
	while (done < len) {
		size_t n = len - done < FAKE_BUF ? len - done : FAKE_BUF;
		ssize_t r = pread(s->src_fd, x->buf, n, s->offset + done);

		if (r <= 0) {
			*err = r ? errno : ERANGE;
			break;
		}
		r = send(s->sock_fd, x->buf, r, fl |
			 (done + r < len || (s->flags & PMEM_ZC_F_MORE) ?
			  MSG_MORE : 0));
		if (r < 0) {
			*err = errno == EWOULDBLOCK ? EAGAIN : errno;
			break;
		}
		done += r;
	}
	return done;
}

bool xfer_file_is_source(const struct xfer *x, int fd)
{
	(void)x;
	(void)fd;
	return true;	/* the host's files stand for DAX files */
}

int xfer_send(struct xfer *x, struct pmem_zc_send *s)
{
	struct pmem_zc_completion c = {};
	uint64_t len = s->length;
	int type, ret;
	socklen_t tl = sizeof(type);

	s->cookie = s->bytes_queued = 0;
	s->error = 0;
	if (s->flags & ~SEND_FLAGS)
		return -EINVAL;
	ret = fake_check_src(x, s->src_fd, s->offset, s->length);
	if (ret)
		return ret;
	if (getsockopt(s->sock_fd, SOL_SOCKET, SO_TYPE, &type, &tl))
		return errno == ENOTSOCK ? -ENOTSOCK : -EBADF;
	if (x->max_queue && len > x->max_queue)
		len = x->max_queue;
	s->bytes_queued = fake_push(x, s, len, &s->error);
	if (!s->bytes_queued)
		return -s->error;
	if (!s->error && len < s->length)
		s->error = ENOBUFS;
	s->cookie = ++x->cookie;
	c.cookie = s->cookie;
	c.user_data = s->user_data;
	c.bytes = s->bytes_queued;
	if (x->stack_copied || (s->flags & PMEM_ZC_F_COPY))
		c.bytes_copied = c.bytes;
	else
		c.bytes_ref = c.bytes;
	if (x->stack_copied)
		c.flags = PMEM_ZC_C_STACK_COPIED;
	return fake_post(x, &c);
}

static bool fake_due(const struct fake_done *d)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->due.tv_sec ||
	       (now.tv_sec == d->due.tv_sec && now.tv_nsec >= d->due.tv_nsec);
}

int xfer_reap(struct xfer *x, struct pmem_zc_completion *c, int max)
{
	uint64_t ticks;
	int n = 0;

	if (read(x->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	while (n < max && x->n && fake_due(&x->q[x->head])) {
		c[n++] = x->q[x->head].c;
		x->head++;
		x->n--;
	}
	if (!x->n)
		x->head = 0;
	fake_arm(x);
	return n;
}

static int fake_check_copy(struct xfer *x, const struct pmem_zc_copy *c)
{
	uint64_t size;
	int lbs = 512;
	bool blk;
	int ret;

	if (c->flags & ~COPY_FLAGS)
		return -EINVAL;
	ret = fake_check_src(x, c->src_fd, c->offset, c->length);
	if (ret)
		return ret;
	ret = fake_size(c->dst_fd, &size, &blk);
	if (ret)
		return ret == -ENODEV ? -ENOTBLK : ret;
	if (blk && ioctl(c->dst_fd, BLKSSZGET, &lbs))
		return -errno;
	if ((c->offset | c->length | c->dst_offset) % lbs)
		return -EINVAL;
	if (blk && (c->dst_offset > size || c->length > size - c->dst_offset))
		return -ENOSPC;
	return 0;
}

int xfer_copy(struct xfer *x, struct pmem_zc_copy *c)
{
	uint64_t done = 0;
	int ret;

	c->bytes_done = c->bytes_ref = c->bytes_copied = c->bios = 0;
	c->error = 0;
	ret = fake_check_copy(x, c);
	if (ret)
		return ret;
	while (done < c->length) {
		size_t n = c->length - done < FAKE_BUF ?
			   c->length - done : FAKE_BUF;
		ssize_t r = pread(c->src_fd, x->buf, n, c->offset + done);

		if (r > 0)
			r = pwrite(c->dst_fd, x->buf, r, c->dst_offset + done);
		if (r <= 0) {
			c->error = r ? errno : EIO;
			break;
		}
		done += r;
		c->bios++;
	}
	if (!c->error && (c->flags & PMEM_ZC_F_FLUSH) && fsync(c->dst_fd))
		c->error = errno;
	c->bytes_done = done;
	*(c->flags & PMEM_ZC_F_COPY ? &c->bytes_copied : &c->bytes_ref) = done;
	return done ? 0 : -c->error;
}
