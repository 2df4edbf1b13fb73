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
#include <stdint.h>
#include <sys/stat.h>

#include "http.h"

struct fcache_entry;

struct file_ref {
	int fd;			/* open for reading, or -1 */
	struct stat st;
	const char *name;	/* what gives the Content-Type */
	char etag[HTTP_ETAG_LEN], mtime[HTTP_DATE_LEN];	/* of st */
	int8_t source;		/* pmem_zc takes it: 1, 0, -1 not known yet */
	struct fcache_entry *ent;	/* the fd is the cache's: fcache.h */
	int err;		/* the errno behind a 500, for the error log */
};

/*
 * Open @path (relative, "." for the root) under @root_fd. A directory is
 * 403, or with @index its index.html (301 first when the target did not
 * end in '/'). Returns 0 with f->fd open and the rest of *f made (ent
 * NULL), or the status to answer: 301, 403, 404, 414, 500 (f->err the
 * errno) or 503.
 */
int files_open(int root_fd, const char *path, bool slash, bool index,
	       struct file_ref *f);

/*
 * files_open(), and with @plain neither a symbolic link followed nor a
 * mount point crossed on the way: FILES_NOT_PLAIN when there was one
 * (fcache.c caches only paths whose names are what they look like, on
 * the root's filesystem).
 */
#define FILES_NOT_PLAIN	1
int files_open_how(int root_fd, const char *path, bool slash, bool index,
		   bool plain, struct file_ref *f);

/*
 * 0 when openat2() with RESOLVE_BENEATH works under @root_fd, or -errno:
 * -ENOSYS without it (Linux before 5.6, or a seccomp filter that refuses
 * it, as systemd's RestrictSUIDSGID= does).
 */
int files_check(int root_fd);

/* f->etag and f->mtime from f->st */
void files_describe(struct file_ref *f);

#endif
