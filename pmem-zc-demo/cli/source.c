// SPDX-License-Identifier: GPL-2.0
/*
 * source: opening the source of a transfer, checking the range, and the
 * rest of a transfer's set-up that send and copy share.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "msg.h"
#include "report.h"
#include "source.h"

int fd_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

int source_open(const char *path, uint64_t off, bool have_len,
		uint64_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	uint64_t size;

	if (fd < 0) {
		pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	ret = fd_size(fd, &size);
	if (ret) {
		pr_err("%s: %s", path, ret == -EINVAL ?
		       "not a block device or regular file" : strerror(-ret));
	} else if (off > size || (have_len && *len > size - off)) {
		pr_err("%s: %" PRIu64 " bytes at offset %" PRIu64
		       ": beyond the end of the source (size %" PRIu64 ")",
		       path, have_len ? *len : 0, off, size);
	} else {
		if (!have_len)
			*len = size - off;
		return fd;
	}
	close(fd);
	return -1;
}

int src_job_open(struct src_job *j, const char *path, uint64_t off,
		 bool have_len, uint64_t len)
{
	char why[256];

	memset(j, 0, sizeof(*j));
	j->name = path;
	j->fd = source_open(path, off, have_len, &len);
	if (j->fd < 0)
		return -1;
	j->off = j->pos = off;
	j->end = off + len;
	j->x = xfer_open(why, sizeof(why));
	if (!j->x) {
		pr_err("%s", why);
		return -1;
	}
	return 0;
}

void src_job_start(struct src_job *j, bool force_progress)
{
	j->start = now_mono();
	progress_init(&j->prog, j->end - j->off, force_progress);
}

void src_job_summary(struct src_job *j, const char *op, uint64_t bytes)
{
	progress_end(&j->prog);
	summary_print(stdout, op, bytes, j->start, j->by_ref, j->copied);
}

void src_job_close(struct src_job *j)
{
	progress_end(&j->prog);
	xfer_close(j->x);
	if (j->fd >= 0)
		close(j->fd);
}
