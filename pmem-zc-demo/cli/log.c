// SPDX-License-Identifier: GPL-2.0
/*
 * log: the access log file (open, reopen on SIGHUP, close) and the
 * format of its lines (see log.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define LOG_LINE	4096
#define LOG_FIELD	1024	/* escaped bytes of one quoted field, at most */

/* never through a symbolic link (a name another user may have planted) */
static int log_open_path(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
		    O_NOFOLLOW, 0644);
}

int log_open(struct access_log *l, const char *path)
{
	l->off = !strcmp(path, "off");
	if (l->off)
		return 0;
	l->path = strcmp(path, "-") ? path : NULL;
	l->fd = l->path ? log_open_path(path) : STDOUT_FILENO;
	return l->fd < 0 ? -errno : 0;
}

int log_reopen(struct access_log *l)
{
	int fd;

	if (!l->path)
		return 0;
	fd = log_open_path(l->path);
	if (fd < 0)
		return -errno;
	dup3(fd, l->fd, O_CLOEXEC);
	close(fd);
	return 0;
}

void log_close(struct access_log *l)
{
	if (l->path && l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* "@s" escaped into @buf at *o, or "-" when @s is missing. */
static void quoted(char *buf, size_t size, size_t *o, struct http_slice s)
{
	size_t i, start = *o;

	if (*o + 2 >= size)
		return;
	buf[(*o)++] = '"';
	for (i = 0; s.p && s.n && i < s.n; i++) {
		unsigned char c = s.p[i];

		if (*o - start > LOG_FIELD || *o + 6 >= size)
			break;
		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			*o += snprintf(buf + *o, size - *o, "\\x%02X", c);
		else
			buf[(*o)++] = c;
	}
	if (!s.p || !s.n)
		buf[(*o)++] = '-';
	buf[(*o)++] = '"';
}

size_t log_format(char *buf, size_t size, const struct log_entry *e)
{
	char date[40];
	struct tm tm;
	size_t o;
	int n;

	localtime_r(&e->when, &tm);
	strftime(date, sizeof(date), "%d/%b/%Y:%H:%M:%S %z", &tm);
	n = snprintf(buf, size, "%s - - [%s] ", e->host, date);
	o = n > 0 && (size_t)n < size ? (size_t)n : 0;
	quoted(buf, size, &o, e->request);
	n = snprintf(buf + o, size - o, " %d %" PRIu64 " ", e->status,
		     e->bytes);
	o += n > 0 && (size_t)n < size - o ? (size_t)n : 0;
	quoted(buf, size, &o, e->referer);
	if (o + 1 < size)
		buf[o++] = ' ';
	quoted(buf, size, &o, e->user_agent);
	n = snprintf(buf + o, size - o, " by_ref=%" PRIu64 " copied=%" PRIu64
		     "\n", e->by_ref, e->copied);
	o += n > 0 && (size_t)n < size - o ? (size_t)n : 0;
	return o;
}

void log_write(struct access_log *l, const struct log_entry *e)
{
	char line[LOG_LINE];
	size_t n;

	if (l->off)
		return;
	n = log_format(line, sizeof(line), e);
	if (l->fd < 0 || write(l->fd, line, n) != (ssize_t)n)
		l->lost++;	/* a full disk must not stop the server */
}
