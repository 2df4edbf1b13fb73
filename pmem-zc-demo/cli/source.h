/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source: what send and copy share: the SRC (a prd disk or partition, or
 * a regular file on one), the byte range of it that the user asked for,
 * the pmem_zc device, and the counts and progress of the transfer.
 */
#ifndef PMEM_ZC_SOURCE_H
#define PMEM_ZC_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "report.h"
#include "xfer.h"

struct src_job {
	const char *name;
	int fd;
	struct xfer *x;
	uint64_t off, pos, end;		/* the range, and how far it went */
	uint64_t by_ref, copied;	/* bytes, as the module counted them */
	double start;
	struct progress prog;
};

/* Size of a block device or regular file: 0, -EISDIR, -EINVAL or -errno. */
int fd_size(int fd, uint64_t *size);

/*
 * Open @path for reading and check [@off, @off + *@len) against its size;
 * without @have_len, *@len becomes the rest of the source. The fd, or -1
 * after a message.
 */
int source_open(const char *path, uint64_t off, bool have_len,
		uint64_t *len);

/*
 * Open SRC @path with the range @off and @len (to its end without
 * @have_len), then the device. 0, or -1 after a message (then
 * src_job_close() all the same).
 */
int src_job_open(struct src_job *j, const char *path, uint64_t off,
		 bool have_len, uint64_t len);
/* The clock and the progress line start. */
void src_job_start(struct src_job *j, bool force_progress);
/* The progress line ends; the summary line of @op, @bytes on stdout. */
void src_job_summary(struct src_job *j, const char *op, uint64_t bytes);
void src_job_close(struct src_job *j);

#endif
