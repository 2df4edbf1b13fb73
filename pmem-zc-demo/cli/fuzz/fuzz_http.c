// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_http: a libFuzzer target over serve's request path without sockets
 * (issue 26, part 3): bytes into http_parse(), the decoded path resolved by
 * files_open() under a root with symbolic links that stay in it and that
 * lead out, Range parsing, the conditionals and the response head, as
 * conn.c chains them. Besides "no crash, no sanitizer report", each input
 * is held to:
 *
 * - a request to serve (status 0) has a decoded path that is not empty
 *   and has no ".." segment (a leading '/' may stay: "//a", which
 *   RESOLVE_BENEATH refuses); any other status is 4xx/5xx;
 * - a file files_open() opened for it lies under the root (its
 *   /proc/self/fd link), and is a regular file;
 * - every range of RANGE_OK is non-empty and inside the file;
 * - the response head fits its buffer and ends with an empty line.
 *
 * Built and run by "make fuzz" in pmem-zc-demo/cli (its Makefile); seeds
 * in fuzz/seeds.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "files.h"
#include "http.h"

static char root[PATH_MAX];
static size_t root_len;
static int root_fd = -1;

static void put(const char *name, const char *data)
{
	char p[2 * PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	f = fopen(p, "w");
	if (!f)
		abort();
	fputs(data, f);
	fclose(f);
}

static void link_to(const char *target, const char *name)
{
	char p[2 * PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, name);
	if (symlink(target, p))
		abort();
}

/* The root: files, a directory with an index, links in and out. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/fuzz-http.XXXXXX", p[2 * PATH_MAX];

	(void)argc;
	(void)argv;
	if (!mkdtemp(tmpl))
		abort();
	snprintf(p, sizeof(p), "%s/secret", tmpl);
	if (!realpath(tmpl, root))
		abort();
	strcat(root, "/root");
	if (mkdir(root, 0755))
		abort();
	root_len = strlen(root);
	put("../secret", "not to be served\n");
	put("a", "0123456789abcdef0123456789abcdef");
	put("a b.txt", "text\n");
	snprintf(p, sizeof(p), "%s/d", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/d/sub", root);
	mkdir(p, 0755);
	put("d/index.html", "<p>index</p>\n");
	put("d/sub/f", "f");
	link_to("a", "in");
	link_to("d/sub", "dirlink");
	link_to("/etc/passwd", "out");
	link_to("../secret", "up");
	link_to("d/../../secret", "up2");
	link_to(root, "abs");
	link_to("loop", "loop");
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		abort();
	return 0;
}

/* An opened file is a regular file under the root. */
static void check_file(const struct file_ref *f)
{
	char p[64], link[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", f->fd);
	n = readlink(p, link, sizeof(link) - 1);
	if (n < 0)
		abort();
	link[n] = '\0';
	if (strncmp(link, root, root_len) || link[root_len] != '/' ||
	    !S_ISREG(f->st.st_mode)) {
		fprintf(stderr, "opened %s, outside %s or not a file\n", link,
			root);
		abort();
	}
}

static void check_path(const struct http_request *r)
{
	const char *s = r->path;
	size_t n = strnlen(s, HTTP_PATH_MAX);

	if (n == HTTP_PATH_MAX || !n)
		abort();
	for (; *s; s = strchr(s, '/') ? strchr(s, '/') + 1 : s + strlen(s))
		if (!strncmp(s, "..", 2) && (s[2] == '/' || !s[2]))
			abort();
}

static void check_ranges(const struct http_request *r, uint64_t size)
{
	struct http_byte_range br[HTTP_RANGES_MAX];
	unsigned int i, n = 0, max = 1 + (size & 15);

	if (http_ranges_parse(r->range, size, br, max, &n) != RANGE_OK)
		return;
	if (!n || n > max)
		abort();
	for (i = 0; i < n; i++)
		if (!br[i].len || br[i].first >= size ||
		    br[i].len > size - br[i].first)
			abort();
}

static void check_head(const struct http_request *r, uint64_t size,
		       const struct file_ref *f)
{
	struct http_resp h = {
		.status = r->status ? r->status : 200,
		.keep_alive = r->keep_alive,
		.length = size,
		.total = size,
		.type = http_content_type(r->path),
		.etag = f ? f->etag : NULL,
		.last_modified = f ? f->mtime : NULL,
		.date = "Sun, 06 Dec 2026 17:00:00 GMT",
	};
	char buf[1024];
	size_t n = http_format_head(buf, sizeof(buf), &h);

	if (n > sizeof(buf) || (n && (n < 4 || memcmp(buf + n - 4,
						      "\r\n\r\n", 4))))
		abort();
}

static void one(const char *buf, size_t len, const struct http_limits *lim)
{
	struct http_request *r = calloc(1, sizeof(*r));
	struct file_ref f = { .fd = -1 };
	uint64_t size = len * 97 + 1;
	bool range_ok;
	int st;

	if (!r)
		abort();
	if (!http_parse(r, buf, len, lim))
		goto out;
	if (r->status) {
		if (r->status < 400 || r->status > 599)
			abort();
		check_head(r, 0, NULL);
		goto out;
	}
	check_path(r);
	st = files_open(root_fd, r->path, r->slash, len & 1, &f);
	if (!st) {
		check_file(&f);
		size = f.st.st_size;
		http_conditional(r, f.etag, f.st.st_mtime, &range_ok);
	} else if (st != 301 && st != 403 && st != 404 && st != 414) {
		fprintf(stderr, "files_open: %d\n", st);
		abort();
	}
	check_ranges(r, size);
	check_head(r, size, st ? NULL : &f);
	if (f.fd >= 0)
		close(f.fd);
out:
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct http_limits serve = { 8192, 16384, 100 };
	static const struct http_limits tight = { 64, 256, 4 };

	one((const char *)data, size, &serve);
	one((const char *)data, size, &tight);
	return 0;
}
