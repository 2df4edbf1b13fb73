// SPDX-License-Identifier: GPL-2.0
/*
 * xfer: /dev/pmem_zc itself: open, PMEM_ZC_IOC_SEND, PMEM_ZC_IOC_COPY and
 * completion records read() from the same file. Nothing else in pmem-zc
 * calls these ioctls or reads the device.
 */
#define _GNU_SOURCE	/* statx() */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "xfer.h"

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX	0x00200000	/* linux/stat.h, 5.8 */
#endif

#define PZC_DEV		"/dev/pmem_zc"

struct xfer {
	int fd;
	const char *path;
};

struct xfer *xfer_open(char *why, size_t size)
{
	const char *path = getenv("PMEM_ZC_DEV");
	struct xfer *x;
	int fd, e;

	if (!path || !*path)
		path = PZC_DEV;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENXIO || e == ENODEV)
			snprintf(why, size, "pmem_zc module not loaded (no %s)",
				 path);
		else
			snprintf(why, size, "%s: %s%s", path, strerror(e),
				 e == EACCES || e == EPERM ?
				 " (run as root)" : "");
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(why, size, "%s", strerror(errno));
		close(fd);
		return NULL;
	}
	x->fd = fd;
	x->path = path;
	return x;
}

void xfer_close(struct xfer *x)
{
	if (!x)
		return;
	close(x->fd);
	free(x);
}

int xfer_fd(const struct xfer *x)
{
	return x->fd;
}

const char *xfer_name(const struct xfer *x)
{
	return x->path;
}

bool xfer_file_is_source(const struct xfer *x, int fd)
{
	struct statfs sfs;
	struct statx stx;

	(void)x;
	/* the module takes DAX files of ext2/3/4 (one magic) only */
	if (!fstatfs(fd, &sfs) && sfs.f_type != EXT4_SUPER_MAGIC)
		return false;
	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx))
		return true;
	return !(stx.stx_attributes_mask & STATX_ATTR_DAX) ||
	       (stx.stx_attributes & STATX_ATTR_DAX);
}

int xfer_send(struct xfer *x, struct pmem_zc_send *s)
{
	s->__reserved0 = 0;
	s->__reserved1 = 0;
	memset(s->__reserved, 0, sizeof(s->__reserved));
	return ioctl(x->fd, PMEM_ZC_IOC_SEND, s) ? -errno : 0;
}

int xfer_copy(struct xfer *x, struct pmem_zc_copy *c)
{
	c->__reserved0 = 0;
	c->__reserved1 = 0;
	memset(c->__reserved, 0, sizeof(c->__reserved));
	return ioctl(x->fd, PMEM_ZC_IOC_COPY, c) ? -errno : 0;
}

int xfer_reap(struct xfer *x, struct pmem_zc_completion *c, int max)
{
	ssize_t n;

	do {
		n = read(x->fd, c, max * sizeof(*c));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n % sizeof(*c))
		return -EIO;	/* the device promises whole records */
	return n / sizeof(*c);
}
