// SPDX-License-Identifier: GPL-2.0
/*
 * files: request paths to open files under the served root (files.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "files.h"

static int open_beneath(int dir_fd, const char *path, bool plain)
{
	struct open_how how = {
		/* O_NONBLOCK: a FIFO under the root must not block us */
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
			   (plain ? RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV : 0),
	};

	return syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
}

/* The status for @err of opening a request's file; a 500's errno in *@f. */
static int errno_status(int err, bool plain, struct file_ref *f)
{
	/* a link, a mount point, or the way out: files_open() says which */
	if ((err == ELOOP || err == EXDEV) && plain)
		return FILES_NOT_PLAIN;
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case EXDEV:	/* would leave the root */
	case ELOOP:
		return 404;
	case EACCES:
	case EPERM:
	case ENXIO:	/* a socket */
	case ENODEV:	/* a device without its driver */
		return 403;
	case ENAMETOOLONG:
		return 414;
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case EAGAIN:	/* a lease being broken */
		return 503;
	default:
		f->err = err;
		return 500;
	}
}

/* @fd is a directory: its index.html, or a status. */
static int open_index(int dir_fd, bool slash, bool plain,
		      struct file_ref *f)
{
	int fd;

	if (!slash)
		return 301;
	fd = open_beneath(dir_fd, "index.html", plain);
	if (fd < 0)
		return errno == ENOENT ? 403 : errno_status(errno, plain, f);
	close(f->fd);
	f->fd = fd;
	f->name = "index.html";
	if (fstat(fd, &f->st))
		return errno_status(errno, plain, f);
	return S_ISREG(f->st.st_mode) ? 0 : 403;
}

int files_check(int root_fd)
{
	/* O_PATH: whether openat2() works, not whether "." may be read */
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = syscall(SYS_openat2, root_fd, ".", &how, sizeof(how));

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

void files_describe(struct file_ref *f)
{
	http_etag(f->etag, sizeof(f->etag), &f->st);
	http_date(f->mtime, f->st.st_mtime);
}

int files_open_how(int root_fd, const char *path, bool slash, bool index,
		   bool plain, struct file_ref *f)
{
	int ret = 0;

	f->name = path;
	f->source = -1;
	f->ent = NULL;
	f->err = 0;
	f->fd = open_beneath(root_fd, path, plain);
	if (f->fd < 0)
		return errno_status(errno, plain, f);
	if (fstat(f->fd, &f->st))
		ret = errno_status(errno, plain, f);
	else if (S_ISDIR(f->st.st_mode))
		ret = index ? open_index(f->fd, slash, plain, f) : 403;
	else if (!S_ISREG(f->st.st_mode))
		ret = 403;
	if (ret) {
		close(f->fd);
		f->fd = -1;
		return ret;
	}
	files_describe(f);
	return 0;
}

int files_open(int root_fd, const char *path, bool slash, bool index,
	       struct file_ref *f)
{
	return files_open_how(root_fd, path, slash, index, false, f);
}
