/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xfer: the pmem_zc device, the only way pmem-zc reaches it. xfer.c calls
 * the ioctls of /dev/pmem_zc and reads its completions; xfer_fake.c is the
 * same API done in user space for the host tests (pmem-zc-fake).
 *
 * A send queues bytes of a source on a TCP socket and returns; one
 * completion per send that queued bytes follows, readable through
 * xfer_reap() once xfer_fd() polls readable. A copy is synchronous.
 */
#ifndef PMEM_ZC_XFER_H
#define PMEM_ZC_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/pmem_zc.h>

struct xfer;

/*
 * Open the device (the path in $PMEM_ZC_DEV, else /dev/pmem_zc). NULL on
 * failure, with what went wrong in @why.
 */
struct xfer *xfer_open(char *why, size_t size);
void xfer_close(struct xfer *x);

/* Readable (poll, epoll) when a completion is waiting. */
int xfer_fd(const struct xfer *x);

/* What is behind the API: "/dev/pmem_zc" or the fake's name. */
const char *xfer_name(const struct xfer *x);

/*
 * PMEM_ZC_IOC_SEND with @s (reserved fields are zeroed here). 0 when
 * s->bytes_queued > 0 (s->error says why fewer than s->length), -errno
 * when nothing was queued.
 */
int xfer_send(struct xfer *x, struct pmem_zc_send *s);

/*
 * Whether the module may take the regular file @fd as a source, as far as
 * user space can tell without a call that the module would count as
 * failed: only a DAX file (STATX_ATTR_DAX) on ext2/3/4 can be one; where
 * the kernel does not say, the module decides. The fake takes every file.
 */
bool xfer_file_is_source(const struct xfer *x, int fd);

/* PMEM_ZC_IOC_COPY: 0 when c->bytes_done > 0 (see c->error), or -errno. */
int xfer_copy(struct xfer *x, struct pmem_zc_copy *c);

/*
 * Up to @max completions into @c without blocking: how many, 0 when none
 * is waiting, -errno on failure.
 */
int xfer_reap(struct xfer *x, struct pmem_zc_completion *c, int max);

#endif
