// SPDX-License-Identifier: GPL-2.0
/*
 * fcache: the open-file cache of a serve worker (fcache.h).
 *
 * Entries are found by request path (and its trailing slash) in a hash
 * table, kept in LRU order, and each holds the inotify watches it was made
 * under: the directories from the root down, each with the name below it
 * that the path goes through, and the file. Watches are the inotify
 * instance's, one per inode, shared by the entries through it and counted
 * (struct wd_count), removed when the last entry lets them go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "fcache.h"
#include "report.h"

#define DIR_EVENTS	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
			 IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define FILE_EVENTS	(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | \
			 IN_DELETE_SELF | IN_MOVE_SELF)
#define DEPTH_MAX	16	/* names of a cached path, the file's too */
#define EVENTS_MAX	64	/* in one look: more, and everything goes */
#define BACKOFF_S	1.0	/* no new entry after the watches ran out */

struct fc_watch {
	int wd;
	const char *child;	/* the name under it the path takes; NULL: any */
};

struct fcache_entry {
	struct fcache_entry *hnext;		/* hash chain */
	struct fcache_entry *prev, *next;	/* LRU, newest first */
	unsigned int refs;	/* the cache's while cached, one per response */
	bool slash;
	uint32_t hash;
	double checked;		/* made or last fstat() */
	struct file_ref f;
	unsigned int nw;
	struct fc_watch w[DEPTH_MAX + 2];	/* the dirs, index's, the file */
	char *key;		/* the request path */
	char names[];		/* key, then its names NUL-separated */
};

struct wd_count {
	int wd;
	unsigned int n;
};

struct fcache {
	int ifd, mfd, ep, root_fd;	/* inotify, mountinfo, epoll of both */
	double no_new_until;		/* after ENOSPC */
	unsigned int max, n, mask;
	struct fcache_entry **bucket;
	struct fcache_entry *head, *tail;
	struct wd_count *wds;
	unsigned int nwds, wds_size;
	struct fcache_stats st;
};

/* FNV-1a of the path and its slash */
static uint32_t hash(const char *path, bool slash)
{
	uint32_t h = 2166136261u ^ slash;

	while (*path)
		h = (h ^ (unsigned char)*path++) * 16777619u;
	return h;
}

static int wd_get(struct fcache *fc, int wd)
{
	struct wd_count *w;
	unsigned int i;

	for (i = 0; i < fc->nwds; i++)
		if (fc->wds[i].wd == wd) {
			fc->wds[i].n++;
			return 0;
		}
	if (fc->nwds == fc->wds_size) {
		unsigned int size = fc->wds_size ? 2 * fc->wds_size : 64;

		w = realloc(fc->wds, size * sizeof(*w));
		if (!w)
			return -1;
		fc->wds = w;
		fc->wds_size = size;
	}
	fc->wds[fc->nwds++] = (struct wd_count){ wd, 1 };
	return 0;
}

static void wd_put(struct fcache *fc, int wd)
{
	unsigned int i;

	for (i = 0; i < fc->nwds; i++) {
		if (fc->wds[i].wd != wd)
			continue;
		if (--fc->wds[i].n)
			return;
		/* EINVAL when the inode went and took it (IN_IGNORED) */
		inotify_rm_watch(fc->ifd, wd);
		fc->wds[i] = fc->wds[--fc->nwds];
		return;
	}
}

/* A watch on @path for @e, @child the name under it that matters. */
static int watch(struct fcache *fc, struct fcache_entry *e, const char *path,
		 uint32_t mask, const char *child)
{
	int wd = inotify_add_watch(fc->ifd, path, mask);

	if (wd < 0 && errno == ENOSPC)	/* fs.inotify.max_user_watches */
		fc->no_new_until = now_mono() + BACKOFF_S;
	if (wd < 0)
		return -errno;
	if (wd_get(fc, wd)) {
		/* no count of it (it would have been found): not ours yet */
		inotify_rm_watch(fc->ifd, wd);
		return -ENOMEM;
	}
	e->w[e->nw++] = (struct fc_watch){ wd, child };
	return 0;
}

static void unwatch(struct fcache *fc, struct fcache_entry *e)
{
	while (e->nw)
		wd_put(fc, e->w[--e->nw].wd);
}

static void entry_put(struct fcache_entry *e)
{
	if (--e->refs)
		return;
	close(e->f.fd);
	free(e);
}

static void lru_unlink(struct fcache *fc, struct fcache_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		fc->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		fc->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push(struct fcache *fc, struct fcache_entry *e)
{
	e->next = fc->head;
	if (fc->head)
		fc->head->prev = e;
	fc->head = e;
	if (!fc->tail)
		fc->tail = e;
}

static void drop(struct fcache *fc, struct fcache_entry *e)
{
	struct fcache_entry **p = &fc->bucket[e->hash & fc->mask];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	lru_unlink(fc, e);
	fc->n--;
	unwatch(fc, e);
	entry_put(e);
}

static void drop_all(struct fcache *fc)
{
	fc->st.dropped += fc->n;
	while (fc->head)
		drop(fc, fc->head);
}

void fcache_flush(struct fcache *fc)
{
	if (fc)
		drop_all(fc);
}

/* An event of watch @wd, about @name under it (NULL: itself). */
static void drop_wd(struct fcache *fc, int wd, const char *name)
{
	struct fcache_entry *e, *next;
	unsigned int i;

	for (e = fc->head; e; e = next) {
		next = e->next;
		for (i = 0; i < e->nw; i++)
			if (e->w[i].wd == wd &&
			    (!name || !e->w[i].child ||
			     !strcmp(e->w[i].child, name))) {
				fc->st.dropped++;
				drop(fc, e);
				break;
			}
	}
}

/* What inotify queued: entries dropped; false after EVENTS_MAX. */
static bool read_events(struct fcache *fc)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	unsigned int events = 0;
	ssize_t n;
	char *p;

	for (;;) {
		n = read(fc->ifd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			/*
			 * the end of a watch: ours (inotify_rm_watch()), or
			 * after IN_DELETE_SELF or IN_UNMOUNT, which dropped
			 * what it concerned
			 */
			if (ev->mask & IN_IGNORED)
				continue;
			if (ev->mask & IN_Q_OVERFLOW || ++events > EVENTS_MAX)
				return false;
			drop_wd(fc, ev->wd, ev->len ? ev->name : NULL);
		}
	}
}

/*
 * Before each lookup: one epoll_wait() that says whether inotify queued
 * anything or the mount table changed (a mount makes no inotify event).
 * A storm of events (another user churning names under the root) drops
 * everything, which takes the watches away and so ends the storm.
 */
void fcache_events(struct fcache *fc)
{
	char buf[4096];
	struct epoll_event ev[2];
	int i, n;

	if (!fc)
		return;
	/* fc->ep is polled here only: an outer poll would eat mountinfo's */
	n = epoll_wait(fc->ep, ev, 2, 0);
	for (i = 0; i < n; i++) {
		if (ev[i].data.fd == fc->mfd || !read_events(fc)) {
			drop_all(fc);
			/* the rest of the queue names watches now gone */
			while (read(fc->ifd, buf, sizeof(buf)) > 0)
				;
		}
	}
}

/* Filesystems whose every change of a name, inode or data inotify sees. */
static bool fs_reports(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return false;
	switch (sfs.f_type) {
	case EXT4_SUPER_MAGIC:	/* ext2 and ext3 too */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
		return true;
	default:
		return false;
	}
}

/*
 * The entry for @path, its names split at '/'; NULL when it cannot be
 * cached (an empty name or ".", too deep): opened per request then.
 */
static struct fcache_entry *entry_new(const char *path, bool slash,
				      uint32_t h)
{
	size_t len = strlen(path);
	struct fcache_entry *e;
	char *s;
	unsigned int depth = 1;

	if (!strcmp(path, "."))
		len = 0;
	e = calloc(1, sizeof(*e) + 2 * (len + 1));
	if (!e)
		return NULL;
	e->key = e->names;
	memcpy(e->key, len ? path : "", len + 1);
	e->slash = slash;
	e->hash = h;
	s = e->names + len + 1;
	memcpy(s, e->key, len + 1);
	for (; len && *s; s++)
		if (*s == '/') {
			*s = '\0';
			depth++;
		}
	/* names as they look: no empty one, no "." ("a//b", "a/./b") */
	for (s = e->names + len + 1; len && depth <= DEPTH_MAX &&
	     s < e->names + 2 * len + 1; s += strlen(s) + 1)
		if (!*s || !strcmp(s, "."))
			depth = DEPTH_MAX + 1;
	if (len && depth > DEPTH_MAX) {
		free(e);
		return NULL;
	}
	return e;
}

/*
 * Watches on the directories from the root down, each placed before the
 * name under it is looked up; with @index the target too, if a directory
 * (its index.html). 0, or the error that leaves the path uncached.
 */
static int watch_dirs(struct fcache *fc, struct fcache_entry *e,
		      bool index)
{
	size_t len = strlen(e->key);
	const char *name = e->names + len + 1, *end = name + len;
	char p[PATH_MAX];
	int n, ret;

	n = snprintf(p, sizeof(p), "/proc/self/fd/%d", fc->root_fd);
	for (; len && name < end; name += strlen(name) + 1) {
		ret = watch(fc, e, p, DIR_EVENTS, name);
		if (ret)
			return ret;
		n += snprintf(p + n, sizeof(p) - n, "/%s", name);
		if ((size_t)n >= sizeof(p))
			return -ENAMETOOLONG;
	}
	if (!index)
		return 0;
	ret = watch(fc, e, p, DIR_EVENTS, "index.html");
	return ret == -ENOTDIR ? 0 : ret;
}

/* The file just opened at @f: watched, then its state under the watch. */
static int watch_file(struct fcache *fc, struct fcache_entry *e,
		      struct file_ref *f)
{
	char p[32];
	int ret;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", f->fd);
	ret = watch(fc, e, p, FILE_EVENTS, NULL);
	if (ret)
		return ret;
	/* its filesystem is the root's (RESOLVE_NO_XDEV): fcache_new() */
	if (fstat(f->fd, &f->st))
		return -errno;
	if (!S_ISREG(f->st.st_mode))
		return -EINVAL;
	files_describe(f);
	return 0;
}

static void insert(struct fcache *fc, struct fcache_entry *e)
{
	struct fcache_entry **b = &fc->bucket[e->hash & fc->mask];

	e->hnext = *b;
	*b = e;
	e->refs = 1;
	fc->n++;
	lru_push(fc, e);
	if (fc->n > fc->max) {
		fc->st.evicted++;
		drop(fc, fc->tail);
	}
}

/*
 * A miss: opened as files_open() would (a path through a symbolic link or
 * a mount point is served so, uncached); a file is then watched from the
 * root down and opened again under the watches, and that open is the
 * entry.
 */
static int fill(struct fcache *fc, int root_fd, const char *path, bool slash,
		bool index, struct file_ref *f, uint32_t h, double now)
{
	struct fcache_entry *e;
	struct file_ref g;
	int ret;

	ret = files_open_how(root_fd, path, slash, index, true, f);
	if (ret == FILES_NOT_PLAIN) {
		fc->st.uncached++;
		return files_open(root_fd, path, slash, index, f);
	}
	if (ret)
		return ret;	/* errors are not cached */
	e = now < fc->no_new_until ? NULL : entry_new(path, slash, h);
	if (!e || watch_dirs(fc, e, index && slash) ||
	    files_open_how(root_fd, path, slash, index, true, &g))
		goto uncached;
	close(f->fd);
	*f = g;
	if (watch_file(fc, e, f))
		goto uncached;
	if (f->name == path)
		f->name = e->key[0] ? e->key : ".";
	e->f = *f;
	e->checked = now;
	insert(fc, e);
	e->refs++;
	f->ent = e;
	return 0;
uncached:
	if (e) {
		unwatch(fc, e);
		free(e);
	}
	fc->st.uncached++;
	return 0;	/* served, not kept */
}

/* Still what it was when made (what inotify does not report). */
static bool unchanged(struct fcache_entry *e, double now)
{
	const struct stat *o = &e->f.st;
	struct stat st;

	if (fstat(e->f.fd, &st) || st.st_size != o->st_size ||
	    st.st_nlink != o->st_nlink ||
	    st.st_mtim.tv_sec != o->st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != o->st_mtim.tv_nsec ||
	    st.st_ctim.tv_sec != o->st_ctim.tv_sec ||
	    st.st_ctim.tv_nsec != o->st_ctim.tv_nsec)
		return false;
	e->checked = now;
	return true;
}

int fcache_open(struct fcache *fc, int root_fd, const char *path, bool slash,
		bool index, struct file_ref *f, double now)
{
	uint32_t h;
	struct fcache_entry *e;

	if (!fc)
		return files_open(root_fd, path, slash, index, f);
	fcache_events(fc);
	h = hash(path, slash);
	for (e = fc->bucket[h & fc->mask]; e; e = e->hnext)
		if (e->hash == h && e->slash == slash &&
		    !strcmp(e->key[0] ? e->key : ".", path))
			break;
	if (e && now - e->checked >= FCACHE_VALID_S && !unchanged(e, now)) {
		fc->st.dropped++;
		drop(fc, e);
		e = NULL;
	}
	if (!e) {
		fc->st.misses++;
		return fill(fc, root_fd, path, slash, index, f, h, now);
	}
	fc->st.hits++;
	if (fc->head != e) {
		lru_unlink(fc, e);
		lru_push(fc, e);
	}
	e->refs++;
	*f = e->f;
	f->ent = e;
	return 0;
}

void fcache_close(struct file_ref *f)
{
	if (f->ent)
		entry_put(f->ent);
	else if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->ent = NULL;
}

void fcache_set_source(struct file_ref *f, bool source)
{
	f->source = source;
	if (f->ent)
		f->ent->f.source = source;
}

struct fcache_stats fcache_stats(const struct fcache *fc)
{
	return fc ? fc->st : (struct fcache_stats){};
}

static int add_fd(int ep, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

void fcache_free(struct fcache *fc)
{
	if (!fc)
		return;
	drop_all(fc);
	if (fc->ep >= 0)
		close(fc->ep);
	if (fc->mfd >= 0)
		close(fc->mfd);
	if (fc->ifd >= 0)
		close(fc->ifd);
	free(fc->wds);
	free(fc->bucket);
	free(fc);
}

struct fcache *fcache_new(int root_fd, unsigned int max)
{
	struct fcache *fc = calloc(1, sizeof(*fc));
	unsigned int nb = 16;
	int err;

	if (!fc)
		return NULL;
	while (nb < max && nb < (1u << 20))
		nb *= 2;
	/* every entry is on the root's mount (RESOLVE_NO_XDEV) */
	if (!fs_reports(root_fd)) {
		free(fc);
		errno = EOPNOTSUPP;
		return NULL;
	}
	fc->root_fd = root_fd;
	fc->max = max;
	fc->mask = nb - 1;
	fc->bucket = calloc(nb, sizeof(*fc->bucket));
	fc->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* POLLPRI when a mount or unmount changed this namespace's table */
	fc->mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	fc->ep = epoll_create1(EPOLL_CLOEXEC);
	if (fc->bucket && fc->ifd >= 0 && fc->mfd >= 0 && fc->ep >= 0 &&
	    !add_fd(fc->ep, fc->ifd, EPOLLIN) &&
	    !add_fd(fc->ep, fc->mfd, EPOLLPRI))
		return fc;
	err = errno;
	fcache_free(fc);
	errno = err;
	return NULL;
}
