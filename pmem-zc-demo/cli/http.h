/* SPDX-License-Identifier: GPL-2.0 */
/*
 * http: what serve knows of HTTP/1.1 (RFC 9110, 9112), without sockets.
 * A request head is parsed by libhttp-parser; http.c checks what the
 * parser lets through (obs-fold, bare CR, header names, repeated fields,
 * Host, bodies on GET/HEAD, the request-target forms), decodes the path,
 * and answers the questions a static file server asks: which status,
 * which range, is it not modified, which Content-Type; and it writes
 * response heads.
 */
#ifndef PMEM_ZC_HTTP_H
#define PMEM_ZC_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/stat.h>

#define HTTP_PATH_MAX	4096	/* a decoded path, NUL included */
#define HTTP_DATE_LEN	30	/* "Sun, 06 Nov 1994 08:49:37 GMT" + NUL */
#define HTTP_ETAG_LEN	64

struct http_slice {
	const char *p;
	size_t n;
};

struct http_limits {
	size_t line_max;		/* request line bytes: else 414 */
	size_t header_max;		/* header section bytes: else 431 */
	unsigned int fields_max;	/* header field lines: else 431 */
};

struct http_request {
	int status;		/* 0: a GET or HEAD to serve; else answer it */
	const char *why;	/* what was wrong, when status is set */
	bool keep_alive;	/* the client keeps the connection open */
	bool head;		/* HEAD, not GET */
	bool slash;		/* the path ends with '/' */
	unsigned short major, minor;
	struct http_slice line;	/* the request line, for the log */
	struct http_slice path_raw;	/* the target's path, still encoded */
	struct http_slice host, range, if_none_match, if_modified_since,
			  if_range, referer, user_agent;
	/*
	 * decoded, the target's first '/' gone ("." for "/"); a second
	 * stays ("//a" is "/a", which openat2()'s RESOLVE_BENEATH refuses:
	 * 404, where nginx merges slashes)
	 */
	char path[HTTP_PATH_MAX];
	/* state of the parse */
	const struct http_limits *lim;
	struct http_slice target, field, *value;
	unsigned int fields;
	int method;
	bool in_value;
};

/*
 * Parse the request at the start of @buf. Returns 0 when more bytes are
 * needed, else the bytes the request head takes in @buf, with @r filled:
 * r->status is 0 for a request to serve, else the status to answer
 * (after which the connection closes).
 */
size_t http_parse(struct http_request *r, const char *buf, size_t len,
		  const struct http_limits *lim);

/* Percent-decode @n bytes of a target path into @out: 0 or a status. */
int http_decode_path(const char *in, size_t n, char *out, size_t size);

/* Range of a representation of @size bytes (a GET with Range). */
enum http_range { RANGE_NONE, RANGE_OK, RANGE_UNSATISFIABLE };

#define HTTP_RANGES_MAX	64	/* --max-ranges at most */

struct http_byte_range {
	uint64_t first, len;
};

/*
 * The byte ranges of a Range field, for a representation of @size bytes,
 * at most @max (HTTP_RANGES_MAX if more) of them: RANGE_OK with the
 * satisfiable ones in @out, in the order asked (*n >= 1);
 * RANGE_UNSATISFIABLE when none is; RANGE_NONE (the whole representation)
 * for another unit, a syntax error, @max 0, more than @max ranges (as
 * nginx's max_ranges), or two that overlap (RFC 9110, 14.2 lets a server
 * ignore those).
 */
enum http_range http_ranges_parse(struct http_slice h, uint64_t size,
				  struct http_byte_range *out, unsigned int max,
				  unsigned int *n);

/*
 * multipart/byteranges: the delimiter and header of a part (leading CRLF
 * included), and the close delimiter; their length, 0 when @size is too
 * small. With @buf NULL and @size 0, only the length.
 */
size_t http_part_head(char *buf, size_t size, const char *boundary,
		      const char *type, uint64_t first, uint64_t len,
		      uint64_t total);
size_t http_parts_end(char *buf, size_t size, const char *boundary);

/* The strong ETag of a file: inode, size and mtime (ns). */
void http_etag(char *buf, size_t size, const struct stat *st);
/* Whether an If-None-Match list holds @etag (weak comparison) or "*". */
bool http_etag_match(struct http_slice list, const char *etag);

/* IMF-fixdate of @t; HTTP_DATE_LEN bytes with NUL. */
void http_date(char *buf, time_t t);
/* Any of the three HTTP-date forms: 0, or -1 when it is none. */
int http_date_parse(struct http_slice s, time_t *t);

/*
 * Conditionals of a GET or HEAD for a file with @etag and @mtime:
 * 304 (not modified) or 0; *range_ok is false when If-Range says the
 * Range must be ignored.
 */
int http_conditional(const struct http_request *r, const char *etag,
		     time_t mtime, bool *range_ok);

/* Content-Type from the extension of @path. */
const char *http_content_type(const char *path);

struct http_resp {
	int status;
	bool close;		/* Connection: close */
	bool keep_alive;	/* an HTTP/1.0 client: Connection: keep-alive */
	bool no_length;		/* 304: no Content-Length */
	bool multipart;		/* 206 multipart/byteranges: no Content-Range */
	bool ranges_off;	/* --max-ranges 0: no Accept-Ranges */
	uint64_t length;	/* Content-Length */
	uint64_t first, total;	/* 206: Content-Range; 416: bytes * /total */
	const char *type, *etag, *last_modified, *location;
	const char *date;
};

/* The response head into @buf: its length, or 0 when it does not fit. */
size_t http_format_head(char *buf, size_t size, const struct http_resp *h);

/* The short text body of an error (or redirect) status. */
size_t http_error_body(char *buf, size_t size, int status);

/* "Not Found" for 404, from libhttp-parser's table. */
const char *http_reason(int status);

#endif
