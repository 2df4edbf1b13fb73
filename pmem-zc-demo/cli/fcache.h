/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcache: serve's open-file cache, one per worker. A hit answers a request
 * path with the file already open and its stat, ETag and Last-Modified
 * already made: no openat2(), fstat(), statfs() or statx() per response.
 *
 * Never stale by design, not by timeout: an entry is made only for a path
 * without symbolic links or mount points, on a filesystem whose changes
 * inotify reports (ext2/3/4, XFS, Btrfs, tmpfs), with watches placed
 * before the open on every directory from the root down (a name created,
 * deleted, moved or its attributes changed under one of them) and, once
 * open, on the file itself (written, truncated, chmod, chown, link count,
 * xattrs). Each lookup first asks (one epoll_wait() without waiting)
 * whether inotify queued an event or the mount table changed, and drops
 * what that concerns: a change completed before a request is looked up
 * is seen, as with an open() per request. What inotify does not report (a
 * store through a shared mapping, which moves the mtime at its fault on
 * ext4, XFS and Btrfs) is caught by an fstat() of an entry older than
 * FCACHE_VALID_S, as nginx's open_file_cache_valid does. Permission is
 * the open(2) of the server's user: a chmod or an ACL change drops the
 * entry, the next request opens again and gets 403.
 *
 * An entry dropped while responses still send from its fd lives until the
 * last of them lets it go (fcache_close()).
 */
#ifndef PMEM_ZC_FCACHE_H
#define PMEM_ZC_FCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "files.h"

#define FCACHE_VALID_S	1.0

struct fcache;

struct fcache_stats {
	uint64_t hits, misses;
	uint64_t dropped;	/* on a change, a flush */
	uint64_t evicted;	/* least recently used, beyond the limit */
	uint64_t uncached;	/* files served, not kept */
};

/*
 * A cache of at most @max entries for the files under @root_fd, or NULL
 * (errno: inotify or /proc/self/mountinfo could not be had); serve then
 * opens per request.
 */
struct fcache *fcache_new(int root_fd, unsigned int max);
void fcache_free(struct fcache *fc);
/* Read what changed and drop what it concerns (fcache_open() does). */
void fcache_events(struct fcache *fc);
/* Drop every entry (SIGHUP). */
void fcache_flush(struct fcache *fc);
/*
 * files_open() through the cache (@fc NULL: straight): 0 with *f made, or
 * the status to answer. f->ent set: the fd is the cache's, shared.
 */
int fcache_open(struct fcache *fc, int root_fd, const char *path, bool slash,
		bool index, struct file_ref *f, double now);
/* Let @f go: the fd closed, or the entry's reference dropped. */
void fcache_close(struct file_ref *f);
/* Remember whether pmem_zc takes the file (f->source), for later hits. */
void fcache_set_source(struct file_ref *f, bool source);
struct fcache_stats fcache_stats(const struct fcache *fc);

#endif
