/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log: serve's access log, one line per response in the combined log
 * format followed by how its body left:
 *
 *   HOST - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 2326
 *   "referer" "user-agent" by_ref=2326 copied=0
 *
 * (one line). Bytes are body bytes; quoted fields escape '"', '\' and
 * bytes outside 0x20..0x7e as \xHH, as nginx does; "-" for a missing one.
 */
#ifndef PMEM_ZC_LOG_H
#define PMEM_ZC_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "http.h"

struct access_log {
	const char *path;	/* NULL: stdout */
	int fd;
	bool off;		/* "off": no log, as nginx's access_log off */
	uint64_t lost;		/* lines that could not be written */
};

struct log_entry {
	const char *host;
	time_t when;
	struct http_slice request, referer, user_agent;
	int status;
	uint64_t bytes, by_ref, copied;
};

/* Open @path for appending ("-": stdout): 0 or -errno. */
int log_open(struct access_log *l, const char *path);
/* Open the file anew (after a rotation): 0 or -errno, the old one kept. */
int log_reopen(struct access_log *l);
void log_close(struct access_log *l);

/* The line of @e, '\n' included, into @buf: its length. */
size_t log_format(char *buf, size_t size, const struct log_entry *e);
/* One write() of the line: lines of several workers do not mix. */
void log_write(struct access_log *l, const struct log_entry *e);

#endif
