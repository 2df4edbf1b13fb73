/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files: what a decoded request path names under serve's root. Paths are
 * resolved by openat2() with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS from
 * the root's fd, so no "..", absolute symlink or symlink swapped in while
 * the path is walked leads outside the root; symlinks that stay inside
 * are followed.
 */
#ifndef PMEM_ZC_FILES_H
#define PMEM_ZC_FILES_H

#include <stdbool.h>
#include <sys/stat.h>

struct file_ref {
	int fd;			/* open for reading, or -1 */
	struct stat st;
	const char *name;	/* what gives the Content-Type */
};

/*
 * Open @path (relative, "." for the root) under @root_fd. A directory is
 * 403, or with @index its index.html (301 first when the target did not
 * end in '/'). Returns 0 with f->fd open, or the status to answer: 301,
 * 403, 404, 414, 500 or 503.
 */
int files_open(int root_fd, const char *path, bool slash, bool index,
	       struct file_ref *f);

#endif
