/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source: the SRC of send and copy: a prd disk or partition, or a regular
 * file on one, and the byte range of it that the user asked for.
 */
#ifndef PMEM_ZC_SOURCE_H
#define PMEM_ZC_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

/* Size of a block device or regular file: 0, -EISDIR, -EINVAL or -errno. */
int fd_size(int fd, uint64_t *size);

/*
 * Open @path for reading and check [@off, @off + *@len) against its size;
 * without @have_len, *@len becomes the rest of the source. The fd, or -1
 * after a message.
 */
int source_open(const char *path, uint64_t off, bool have_len,
		uint64_t *len);

#endif
