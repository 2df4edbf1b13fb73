// SPDX-License-Identifier: GPL-2.0
/*
 * test-serve: pmem-zc serve as a process (pmem-zc-fake: the fake xfer),
 * on 127.0.0.1 and ::1 with a port of the kernel's choosing and a root in
 * the test directory, against curl, wget and raw sockets: bodies and
 * headers, HEAD, ranges, 304s, keep-alive and pipelining, concurrent and
 * stalled clients, malformed requests, symlinks out of the root, limits
 * and timeouts, the access log and SIGHUP, SIGTERM during a download,
 * the copy fallback, --copy with the real static binary, workers, --count,
 * the open-file cache against files changed under it.
 * Every wait is bounded (curl --max-time, socket timeouts, wait_exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>

#include "tap.h"
#include "tests.h"

#define BIG	(8 << 20)

struct srv {
	pid_t pid;
	int port;
	char err[256], log[256];
};

static char root[256];
static char *hdrs;		/* headers of the last curl() */

static const char *log_of(const struct srv *s, const char *what);
static bool cache_takes_root(void);

/* --- the server and its clients ------------------------------------------- */

/* The port of serve's "listening on ADDR:PORT," line in @txt, or 0. */
static int port_of(const char *txt)
{
	const char *p = txt ? strstr(txt, "listening on ") : NULL;

	p = p ? strchr(p, ',') : NULL;
	while (p && p[-1] != ':')
		p--;
	return p ? atoi(p) : 0;
}

static bool srv_start(struct srv *s, const char *name, const char *bin,
		      char *const env[], ...)
{
	char *argv[40] = { (char *)bin, "serve", "--root", root, "--port",
			   "0", "--access-log", s->log };
	char *txt;
	va_list ap;
	int i = 8, t;

	snprintf(s->err, sizeof(s->err), "%s/%s.err", tmp, name);
	snprintf(s->log, sizeof(s->log), "%s/%s.log", tmp, name);
	va_start(ap, env);
	while (i < 38 && (argv[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	s->pid = spawn(argv, env, NULL, s->err);
	for (t = 0; t < 1000; t++) {
		txt = slurp(s->err, NULL);
		s->port = port_of(txt);
		free(txt);
		if (s->port)
			return true;
		sleep_ms(10);
	}
	diag("  %s did not start", name);
	return false;
}

/* SIGTERM; the exit code, or -2 when a sanitizer spoke. */
static int srv_stop(struct srv *s)
{
	char *txt;
	int rc;

	kill(s->pid, SIGTERM);
	rc = wait_exit(s->pid, 30);
	txt = slurp(s->err, NULL);
	if (txt && (strstr(txt, "Sanitizer") || strstr(txt, "runtime error")))
		rc = -2;
	if (rc)
		diag("  server stderr: %.2000s", txt ? txt : "");
	free(txt);
	return rc;
}

static const char *url(const struct srv *s, const char *host,
		       const char *path)
{
	static char buf[4][512];
	static int i;
	char *u = buf[i++ % 4];

	snprintf(u, sizeof(buf[0]), strchr(host, ':') ? "http://[%s]:%d/%s" :
		 "http://%s:%d/%s", host, s->port, path);
	return u;
}

/* curl -o BODY -D HEADERS ARGS... (NULL-terminated): its exit code. */
static int curl(const char *body, ...)
{
	char *argv[48] = { "curl", "-sS", "-g", "--max-time", "20", "-o",
			   (char *)body, "-D", (char *)tpath("curl.hdr") };
	va_list ap;
	int i = 9, rc;

	va_start(ap, body);
	while (i < 46 && (argv[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	unlink(body);
	rc = run(argv, NULL, NULL, tpath("curl.err"), 30);
	free(hdrs);
	hdrs = slurp(tpath("curl.hdr"), NULL);
	return rc;
}

static int status_of(const char *h)
{
	const char *p = h ? strstr(h, "HTTP/1.1 ") : NULL;

	return p ? atoi(p + 9) : 0;
}

/* The value of header @name in @h (static buffer), or "". */
static const char *hval(const char *h, const char *name)
{
	static char v[256];
	char key[64];
	const char *p;
	size_t n;

	snprintf(key, sizeof(key), "\n%s: ", name);
	p = h ? strstr(h, key) : NULL;
	v[0] = '\0';
	if (p) {
		p += strlen(key);
		n = strcspn(p, "\r\n");
		snprintf(v, sizeof(v), "%.*s", (int)(n < 255 ? n : 255), p);
	}
	return v;
}

/* One request on a new connection, write side shut: the response. */
static size_t raw(const char *host, int port, const char *req, size_t len,
		  char *resp, size_t size)
{
	int fd = tcp_to(host, port);
	size_t n;

	if (fd < 0)
		return 0;
	if (send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len)
		shutdown(fd, SHUT_WR);
	n = read_all(fd, resp, size - 1);
	resp[n] = '\0';
	close(fd);
	return n;
}

/* --- the root ------------------------------------------------------------- */

static const char *rpath(const char *name)
{
	static char buf[4][512];
	static int i;
	char *p = buf[i++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", root, name);
	return p;
}

/* A UNIX socket's file at @path (open(2) of it fails with ENXIO). */
static void unix_socket_file(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		diag("  socket file %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void make_root(void)
{
	static const int sizes[] = { 0, 1, 4095, 4096, 4097 };
	char name[32], *buf;
	size_t i;
	FILE *f;

	snprintf(root, sizeof(root), "%s/root", tmp);
	mkdir(root, 0755);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(name, sizeof(name), "f%d", sizes[i]);
		random_file(rpath(name), sizes[i]);
	}
	random_file(rpath("f1M1"), (1 << 20) + 1);
	random_file(rpath("big"), BIG);
	buf = calloc(1, 12288);
	f = fopen(rpath("sparse"), "w");	/* data, hole, data, hole */
	fwrite(buf, 1, 8192, f);
	fseek(f, (3 << 20) + 8192, SEEK_SET);
	memset(buf, 0x5a, 12288);
	fwrite(buf, 1, 12288, f);
	fclose(f);
	truncate(rpath("sparse"), (6 << 20) + 5);
	free(buf);
	write_file(rpath("a b.txt"), "text\n", 5);
	mkdir(rpath("d"), 0755);
	mkdir(rpath("nodir"), 0755);
	write_file(rpath("d/index.html"), "<p>index</p>\n", 13);
	mkfifo(rpath("fifo"), 0644);
	unix_socket_file(rpath("sock"));
	write_file(tpath("secret"), "secret\n", 7);
	symlink("/etc/passwd", rpath("out"));
	symlink("../secret", rpath("up"));
	symlink(rpath("f4096"), rpath("abs"));
	symlink("f4096", rpath("in"));
}

/* --- bodies and headers --------------------------------------------------- */

static void get_file(const struct srv *s, const char *host, const char *name)
{
	char len[32];
	struct stat st;
	int rc;

	stat(rpath(name), &st);
	snprintf(len, sizeof(len), "%lld", (long long)st.st_size);
	rc = curl(tpath("body"), url(s, host, name), NULL);
	ok(!rc && status_of(hdrs) == 200 &&
	   !strcmp(hval(hdrs, "Content-Length"), len) &&
	   same_file(rpath(name), tpath("body")),
	   "GET /%s over %s: 200, Content-Length %s, body identical", name,
	   host, len);
}

static void bodies(const struct srv *s)
{
	static const char *files[] = { "f0", "f1", "f4095", "f4096",
				       "f4097", "f1M1", "sparse", "big" };
	char *argv[] = { "wget", "-q", "-T", "20", "-O", NULL, NULL, NULL };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		get_file(s, "127.0.0.1", files[i]);
	get_file(s, "::1", "f4097");
	get_file(s, "::1", "big");
	argv[5] = (char *)tpath("w");
	argv[6] = (char *)url(s, "127.0.0.1", "f1M1");
	ok(!run(argv, NULL, NULL, NULL, 30) &&
	   same_file(rpath("f1M1"), tpath("w")), "wget of /f1M1: identical");
}

static bool no_body(void)
{
	struct stat st;

	return stat(tpath("body"), &st) || !st.st_size;
}

static void headers(const struct srv *s)
{
	static const char head[] = "HEAD /f4096 HTTP/1.0\r\n\r\n";
	char resp[1024];
	const char *etag;
	size_t n;

	curl(tpath("body"), url(s, "127.0.0.1", "f4096"), NULL);
	etag = hval(hdrs, "ETag");
	ok(strlen(etag) > 4 && etag[0] == '"' && etag[strlen(etag) - 1] == '"',
	   "strong ETag %s", etag);
	ok(strlen(hval(hdrs, "Last-Modified")) == 29 &&
	   strstr(hval(hdrs, "Last-Modified"), " GMT"), "Last-Modified");
	ok(strlen(hval(hdrs, "Date")) == 29, "Date");
	ok(!strcmp(hval(hdrs, "Content-Type"), "application/octet-stream"),
	   "Content-Type of a file without extension");
	ok(!strcmp(hval(hdrs, "Accept-Ranges"), "bytes"), "Accept-Ranges");
	ok(!*hval(hdrs, "Connection"), "HTTP/1.1: no Connection header");
	curl(tpath("body"), url(s, "127.0.0.1", "a%20b.txt"), NULL);
	ok(status_of(hdrs) == 200 && !strcmp(hval(hdrs, "Content-Type"),
	   "text/plain; charset=utf-8"), "/a%%20b.txt: text/plain");
	curl(tpath("body"), url(s, "127.0.0.1", "d/"), NULL);
	ok(status_of(hdrs) == 200 && same_file(rpath("d/index.html"),
	   tpath("body")), "--index: /d/ is d/index.html");
	curl(tpath("body"), url(s, "127.0.0.1", "d"), NULL);
	ok(status_of(hdrs) == 301 && !strcmp(hval(hdrs, "Location"), "/d/"),
	   "/d: 301 to /d/");
	curl(tpath("body"), url(s, "127.0.0.1", "nodir/"), NULL);
	is_int(status_of(hdrs), 403, "a directory without index.html: 403");
	curl(tpath("body"), url(s, "127.0.0.1", "fifo"), NULL);
	is_int(status_of(hdrs), 403, "a FIFO: 403, and no hang");
	curl(tpath("body"), url(s, "127.0.0.1", "sock"), NULL);
	is_int(status_of(hdrs), 403, "a UNIX socket (ENXIO): 403, not 500");
	curl(tpath("body"), url(s, "127.0.0.1", "nothing"), NULL);
	is_int(status_of(hdrs), 404, "a missing file: 404");
	curl(tpath("body"), "-0", url(s, "127.0.0.1", "f1"), NULL);
	ok(status_of(hdrs) == 200 && !strcmp(hval(hdrs, "Connection"),
	   "close"), "HTTP/1.0: Connection: close");
	curl(tpath("body"), "-0", "-H", "Connection: keep-alive",
	     url(s, "127.0.0.1", "f1"), NULL);
	ok(!strcmp(hval(hdrs, "Connection"), "keep-alive"),
	   "HTTP/1.0 asking keep-alive: Connection: keep-alive");
	n = raw("::1", s->port, head, sizeof(head) - 1, resp, sizeof(resp));
	ok(status_of(resp) == 200 && !strcmp(hval(resp, "Content-Length"),
	   "4096") && n == (size_t)(strstr(resp, "\r\n\r\n") + 4 - resp),
	   "HEAD: 200, Content-Length 4096, no body");
	curl(tpath("body"), "-I", url(s, "127.0.0.1", "f4096"), NULL);
	ok(status_of(hdrs) == 200 && *hval(hdrs, "ETag"), "curl -I");
}

/* curl -r @r of /f4096: status, Content-Range and the bytes. */
static void range(const struct srv *s, const char *r, int status,
		  const char *cr, long first, long len)
{
	char *body, *file = slurp(rpath("f4096"), NULL);
	size_t n;

	curl(tpath("body"), "-r", r, url(s, "127.0.0.1", "f4096"), NULL);
	body = slurp(tpath("body"), &n);
	ok(status_of(hdrs) == status && !strcmp(hval(hdrs, "Content-Range"),
	   cr) && (status != 200 || n == 4096) &&
	   (status == 416 || (n == (size_t)len &&
	    !memcmp(body, file + first, len))),
	   "Range %s: %d '%s'", r, status, cr);
	free(body);
	free(file);
}

/*
 * curl -r @spec of /f4096, several ranges: 206 multipart/byteranges whose
 * parts are @n ranges of @first and @len in that order, each with its
 * delimiter, Content-Type and Content-Range, then the close delimiter;
 * Content-Length the body's length.
 */
static void multirange(const struct srv *s, const char *name, long size,
		       const char *spec, int n, const long *first,
		       const long *len)
{
	char *body, *file = slurp(rpath(name), NULL), want[256];
	const char *ct, *bnd;
	size_t blen, off = 0, w;
	bool good;
	int i;

	curl(tpath("body"), "-r", spec, url(s, "127.0.0.1", name), NULL);
	body = slurp(tpath("body"), &blen);
	ct = hval(hdrs, "Content-Type");
	bnd = strstr(ct, "; boundary=");
	good = status_of(hdrs) == 206 && body && bnd &&
	       !strncmp(ct, "multipart/byteranges; boundary=", 31) &&
	       !*hval(hdrs, "Content-Range") &&
	       atol(hval(hdrs, "Content-Length")) == (long)blen;
	bnd = bnd ? bnd + 11 : "";
	for (i = 0; good && i < n; i++) {
		w = snprintf(want, sizeof(want), "\r\n--%s\r\nContent-Type: "
			     "application/octet-stream\r\nContent-Range: bytes "
			     "%ld-%ld/%ld\r\n\r\n", bnd, first[i],
			     first[i] + len[i] - 1, size);
		good = off + w + len[i] <= blen && !memcmp(body + off, want, w) &&
		       !memcmp(body + off + w, file + first[i], len[i]);
		off += w + len[i];
	}
	w = snprintf(want, sizeof(want), "\r\n--%s--\r\n", bnd);
	good = good && off + w == blen && !memcmp(body + off, want, w);
	ok(good, "Range %s of /%s: 206 multipart/byteranges, %d parts with their bytes",
	   spec, name, n);
	free(body);
	free(file);
}

static void ranges_and_304(const struct srv *s)
{
	static const long f3[] = { 0, 100, 4090 }, l3[] = { 2, 10, 6 };
	static const long f2[] = { 4000, 0 }, l2[] = { 96, 1 };
	static const long fb[] = { 1 << 20, 10, BIG - 3000 },
			  lb[] = { 65536, 2048, 3000 };
	char inm[128], ims[128];

	range(s, "0-99", 206, "bytes 0-99/4096", 0, 100);
	range(s, "1000-1999", 206, "bytes 1000-1999/4096", 1000, 1000);
	range(s, "4000-4095", 206, "bytes 4000-4095/4096", 4000, 96);
	range(s, "-100", 206, "bytes 3996-4095/4096", 3996, 100);
	range(s, "4090-", 206, "bytes 4090-4095/4096", 4090, 6);
	range(s, "5000-", 416, "bytes */4096", 0, 0);
	multirange(s, "f4096", 4096, "0-1,100-109,-6", 3, f3, l3);
	/* in the order asked; OWS and empty elements; unsatisfiable left out */
	multirange(s, "f4096", 4096, "4000-, ,0-0,5000-", 2, f2, l2);
	/* parts of 2K at most go with their header, copied; the rest by reference */
	multirange(s, "big", BIG, "1048576-1114111,10-2057,-3000", 3, fb, lb);
	sleep_ms(100);
	has(log_of(s, "\"GET /big HTTP/1.1\" 206 "), "by_ref=68536 copied=2048",
	    "multipart: the 2048-byte part copied, the others by reference");
	/* overlapping ranges: ignored, as nginx (a head and tail probe) */
	range(s, "0-9,5-20", 200, "", 0, 4096);
	range(s, "0-1023,-3500", 200, "", 0, 4096);
	range(s, "5000-,6000-", 416, "bytes */4096", 0, 0);
	range(s, "0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7,8-8,9-9,10-10,11-11,"
	      "12-12,13-13,14-14,15-15,16-16", 200, "", 0, 4096);
	range(s, "0-9,1x", 200, "", 0, 4096);	/* a syntax error: no Range */
	curl(tpath("body"), url(s, "127.0.0.1", "f4096"), NULL);
	snprintf(inm, sizeof(inm), "If-None-Match: %s", hval(hdrs, "ETag"));
	snprintf(ims, sizeof(ims), "If-Modified-Since: %s",
		 hval(hdrs, "Last-Modified"));
	curl(tpath("body"), "-H", inm, url(s, "127.0.0.1", "f4096"), NULL);
	ok(status_of(hdrs) == 304 && no_body() && *hval(hdrs, "ETag"),
	   "If-None-Match with the ETag: 304, no body");
	curl(tpath("body"), "-H", ims, url(s, "127.0.0.1", "f4096"), NULL);
	is_int(status_of(hdrs), 304, "If-Modified-Since Last-Modified: 304");
	curl(tpath("body"), "-H", "If-None-Match: \"other\"", "-H", ims,
	     url(s, "127.0.0.1", "f4096"), NULL);
	is_int(status_of(hdrs), 200, "another ETag: 200 (IMS not looked at)");
	curl(tpath("body"), "-H", "If-Range: \"other\"", "-r", "0-9",
	     url(s, "127.0.0.1", "f4096"), NULL);
	is_int(status_of(hdrs), 200, "If-Range mismatch: the whole file");
}

/* --- persistent connections and concurrency ------------------------------- */

struct reader {
	int fd;
	size_t len;
	char buf[65536];
};

/* The next response on r->fd: its status; the body in *body (malloc'd). */
static int next_response(struct reader *r, char **body, size_t *blen)
{
	char *end = NULL;
	size_t hlen, cl, have;
	ssize_t n;
	int status;

	while (!(end = memmem(r->buf, r->len, "\r\n\r\n", 4))) {
		n = recv(r->fd, r->buf + r->len, sizeof(r->buf) - r->len, 0);
		if (n <= 0 || r->len + n == sizeof(r->buf))
			return 0;
		r->len += n;
	}
	hlen = end + 4 - r->buf;
	r->buf[hlen - 1] = '\0';
	status = status_of(r->buf);
	cl = atol(hval(r->buf, "Content-Length"));
	*body = malloc(cl + 1);
	*blen = cl;
	have = r->len - hlen < cl ? r->len - hlen : cl;
	memcpy(*body, r->buf + hlen, have);
	memmove(r->buf, r->buf + hlen + have, r->len - hlen - have);
	r->len -= hlen + have;
	while (have < cl && (n = recv(r->fd, *body + have, cl - have, 0)) > 0)
		have += n;
	return have == cl ? status : 0;
}

static bool response_is(struct reader *r, const char *file)
{
	size_t blen, flen;
	char *body = NULL, *want = slurp(rpath(file), &flen);
	bool same = next_response(r, &body, &blen) == 200 && blen == flen &&
		    !memcmp(body, want, flen);

	free(body);
	free(want);
	return same;
}

/*
 * 20 requests in one write, then the client's FIN (printf ... | nc -N):
 * every request sent before the FIN is answered, in order, then the
 * server closes, as nginx does. (It answered 2 and closed when a
 * response completed at once, as a copied one does: the FIN was read as
 * the end before the buffered requests.)
 */
static void pipelined_fin(const struct srv *s, const char *what)
{
	static const char req[] = "GET /f4097 HTTP/1.1\r\nHost: t\r\n\r\n"
				  "GET /none HTTP/1.1\r\nHost: t\r\n\r\n";
	struct reader *r = calloc(1, sizeof(*r));
	char many[10 * (sizeof(req) - 1)], ch, *body = NULL;
	size_t blen;
	int i, good = 0, one = 1;

	for (i = 0; i < 10; i++)
		memcpy(many + i * (sizeof(req) - 1), req, sizeof(req) - 1);
	r->fd = tcp_to("127.0.0.1", s->port);
	/* corked: the requests and the FIN leave in one segment (no race) */
	setsockopt(r->fd, IPPROTO_TCP, TCP_CORK, &one, sizeof(one));
	if (send(r->fd, many, sizeof(many), MSG_NOSIGNAL) == (ssize_t)sizeof(many))
		shutdown(r->fd, SHUT_WR);
	for (i = 0; i < 10; i++) {
		good += response_is(r, "f4097") &&
			next_response(r, &body, &blen) == 404;
		free(body);
		body = NULL;
	}
	is_int(2 * good, 20, "%s: 20 pipelined requests (200, 404 in turn), then a FIN: all answered in order",
	       what);
	ok(!r->len && recv(r->fd, &ch, 1, 0) == 0,
	   "%s: then the server closes the connection", what);
	close(r->fd);
	free(r);
}

static void keep_alive(const struct srv *s)
{
	static const char req[] = "GET /f4097 HTTP/1.1\r\nHost: t\r\n\r\n"
				  "GET /f1 HTTP/1.1\r\nHost: t\r\n\r\n";
	struct reader *r = calloc(1, sizeof(*r));
	char *argv[72] = { "curl", "-sS", "--max-time", "20", "-w",
			   "%{num_connects}\\n" };
	int i, good = 0, connects = 0;
	char *out;

	r->fd = tcp_to("127.0.0.1", s->port);
	for (i = 0; i < 50; i++) {
		send(r->fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
		good += response_is(r, "f4097") && response_is(r, "f1");
	}
	is_int(2 * good, 100, "100 requests on one connection, each intact");
	for (i = 0; i < 10; i++)
		send(r->fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
	for (i = good = 0; i < 10; i++)
		good += response_is(r, "f4097") && response_is(r, "f1");
	is_int(2 * good, 20, "20 pipelined requests answered in order");
	close(r->fd);
	pipelined_fin(s, "zero-copy");
	free(r);
	for (i = 0; i < 20; i++) {
		argv[6 + 3 * i] = "-o";
		argv[7 + 3 * i] = "/dev/null";
		argv[8 + 3 * i] = (char *)url(s, "127.0.0.1", "f4096");
	}
	run(argv, NULL, tpath("connects"), NULL, 30);
	out = slurp(tpath("connects"), NULL);
	for (i = 0; out && out[i]; i++)
		connects += out[i] == '1';
	ok(out && connects == 1 && strlen(out) == 40,
	   "curl with 20 URLs connects once");
	free(out);
}

static void concurrent(const struct srv *s)
{
	pid_t pids[16];
	char out[16][96];
	int i, good = 0;

	for (i = 0; i < 16; i++) {
		char *argv[] = { "curl", "-sS", "--max-time", "30", "-o",
				 out[i], (char *)url(s, "127.0.0.1", "f1M1"),
				 NULL };

		snprintf(out[i], sizeof(out[i]), "%s/c%d", tmp, i);
		pids[i] = spawn(argv, NULL, NULL, NULL);
	}
	for (i = 0; i < 16; i++)
		good += !wait_exit(pids[i], 40) &&
			same_file(out[i], rpath("f1M1"));
	is_int(good, 16, "16 concurrent clients, every body intact");
}

/* A client that asks for 8 MiB with a tiny receive buffer, never reads. */
/*
 * A client on 127.0.0.1:@port that asks for /big with a 4 KiB receive
 * buffer and reads nothing: its socket, or -1.
 */
static int stalled_client(int port)
{
	static const char req[] = "GET /big HTTP/1.1\r\nHost: t\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, req, sizeof(req) - 1, 0) != sizeof(req) - 1) {
		close(fd);
		return -1;
	}
	return fd;
}

static void stalled(const struct srv *s)
{
	int fd = stalled_client(s->port);
	char *log;

	ok(fd >= 0, "a client asks for 8 MiB and stops reading");
	sleep_ms(300);
	ok(!curl(tpath("body"), url(s, "127.0.0.1", "f1M1"), NULL) &&
	   same_file(tpath("body"), rpath("f1M1")),
	   "another client is served meanwhile");
	get_file(s, "::1", "f4097");
	sleep_ms(4500);		/* --send-timeout 3s */
	log = slurp(s->log, NULL);
	ok(log && strstr(log, "\"GET /big HTTP/1.1\" 200 ") &&
	   !strstr(log, "\"GET /big HTTP/1.1\" 200 8388608 \"-\" \"-\""),
	   "the stalled response is cut after --send-timeout and logged");
	free(log);
	close(fd);
}

static const struct {
	const char *req;
	int status;
} bad[] = {
	{ "GET /f1 HTTP/1.1\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
	  400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
	  "Content-Length: 1\r\n\r\nx", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\nx",
	  400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "0\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked"
	  "\r\n\r\n0\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\n Host: a\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost : a\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHo(st: a\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a b\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nX: a\x01" "b\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nX: \x7f\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nRange: bytes=0-1\r\n"
	  "Range: bytes=2-3\r\n\r\n", 400 },
	{ "get /f1 HTTP/1.1\r\nHost: a\r\n\r\n", 501 },
	{ "BREW /f1 HTTP/1.1\r\nHost: a\r\n\r\n", 501 },
	{ "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", 501 },
	{ "POST /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", 405 },
	{ "PUT /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nab", 405 },
	{ "DELETE /f1 HTTP/1.1\r\nHost: a\r\n\r\n", 405 },
	{ "OPTIONS /f1 HTTP/1.1\r\nHost: a\r\n\r\n", 405 },
	{ "CONNECT a:80 HTTP/1.1\r\nHost: a\r\n\r\n", 405 },
	{ "TRACE / HTTP/1.1\r\nHost: a\r\n\r\n", 405 },
	{ "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET a:80 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET ftp://a/f1 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET http://a/f1 HTTP/1.1\r\nHost: a\r\n\r\n", 200 },
	{ "GET /f1 HTTP/2.0\r\nHost: a\r\n\r\n", 505 },
	{ "GET /f1 HTTP/1.10\r\nHost: a\r\n\r\n", 400 },
	{ "GET  /f1 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1  HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1\tHTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /d/../f1 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /%2e%2e/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /..%2f..%2fetc/passwd HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1%00 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1%4 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /%5c..%5cf1 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f1#frag HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /f\x80 HTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "\x16\x03\x01\x02\x01\x01\x01\xfc\x03\x03\r\n\r\n", 400 },
	{ "GET /f1 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", 200 },
	{ "GET /f1 HTTP/1.0\r\n\r\n", 200 },
	{ "GET /out HTTP/1.1\r\nHost: a\r\n\r\n", 404 },
	{ "GET /up HTTP/1.1\r\nHost: a\r\n\r\n", 404 },
	{ "GET /abs HTTP/1.1\r\nHost: a\r\n\r\n", 404 },
	{ "GET /in HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 200 },
};

/* A normal request on a new connection gets /f1. */
static bool still_serving(const struct srv *s)
{
	static const char req[] = "GET /f1 HTTP/1.0\r\n\r\n";
	char resp[1024];
	size_t n = raw("127.0.0.1", s->port, req, sizeof(req) - 1, resp,
		       sizeof(resp));

	return n > 20 && status_of(resp) == 200 &&
	       !strcmp(hval(resp, "Content-Length"), "1");
}

static void malformed(const struct srv *s)
{
	char resp[8192], *big = malloc(40000);
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		raw("127.0.0.1", s->port, bad[i].req, strlen(bad[i].req),
		    resp, sizeof(resp));
		ok(status_of(resp) == bad[i].status && still_serving(s),
		   "request %zu: %d, then still serving (%.*s)", i,
		   bad[i].status, (int)strcspn(bad[i].req, "\r\n\x01\x80"),
		   bad[i].req[0] == 0x16 ? "TLS" : bad[i].req);
		if (status_of(resp) != bad[i].status)
			diag("  got: %.80s", resp);
	}
	raw("127.0.0.1", s->port, "POST / HTTP/1.1\r\nHost: a\r\n\r\n", 28,
	    resp, sizeof(resp));
	ok(!strcmp(hval(resp, "Allow"), "GET, HEAD"), "405 says Allow");
	memset(big, 'a', 40000);
	memcpy(big, "GET /", 5);
	n = raw("127.0.0.1", s->port, big, 9000, resp, sizeof(resp));
	ok(n && status_of(resp) == 414 && still_serving(s),
	   "a 9000-byte request line: 414");
	n = sprintf(big, "GET /f1 HTTP/1.1\r\nHost: a\r\n");
	for (i = 0; i < 60; i++)
		n += sprintf(big + n, "X-%zu: v\r\n", i);
	n += sprintf(big + n, "\r\n");
	raw("127.0.0.1", s->port, big, n, resp, sizeof(resp));
	ok(status_of(resp) == 431 && still_serving(s),
	   "60 header fields (--max-headers 50): 431");
	n = sprintf(big, "GET /f1 HTTP/1.1\r\nHost: a\r\nX: ");
	memset(big + n, 'b', 20000);
	memcpy(big + n + 20000, "\r\n\r\n", 4);
	raw("127.0.0.1", s->port, big, n + 20004, resp, sizeof(resp));
	ok(status_of(resp) == 431 && still_serving(s),
	   "20000 bytes of header: 431");
	free(big);
}

/* --- timeouts, log, signals ----------------------------------------------- */

static void timeouts(const struct srv *s)
{
	static const char part[] = "GET /f1 HTTP/1.1\r\nHost: a\r\n";
	static const char full[] = "GET /f1 HTTP/1.1\r\nHost: a\r\n\r\n";
	char resp[1024];
	int fd = tcp_to("127.0.0.1", s->port);
	size_t n;

	send(fd, part, sizeof(part) - 1, 0);
	n = read_all(fd, resp, sizeof(resp) - 1);	/* --header-timeout 1s */
	resp[n] = '\0';
	ok(status_of(resp) == 408 && !strcmp(hval(resp, "Connection"),
	   "close"), "a head slower than --header-timeout: 408");
	close(fd);
	fd = tcp_to("127.0.0.1", s->port);
	send(fd, full, sizeof(full) - 1, 0);
	n = read_all(fd, resp, sizeof(resp) - 1);	/* --idle-timeout 2s */
	resp[n] = '\0';
	if (!ok(status_of(resp) == 200 && strstr(resp, "\r\n\r\n") &&
		strlen(strstr(resp, "\r\n\r\n")) == 5,
		"keep-alive then --idle-timeout: closed quietly after the response"))
		diag("  got %zu bytes: %.300s", n, resp);
	close(fd);
}

static void access_log(const struct srv *s)
{
	char *log = slurp(s->log, NULL), *line;
	bool found = false;

	for (line = log ? strtok(log, "\n") : NULL; line && !found;
	     line = strtok(NULL, "\n"))
		found = !strncmp(line, "127.0.0.1 - - [", 15) &&
			strstr(line, " +0000] \"GET /f4096 HTTP/1.1\" 200 4096"
			       " \"-\" \"curl/") &&
			strstr(line, "\" by_ref=4096 copied=0") &&
			!strcmp(strstr(line, "\" by_ref="),
				"\" by_ref=4096 copied=0");
	ok(found, "access log: combined format and by_ref/copied");
	free(log);
	log = slurp(s->log, NULL);
	has(log, "\n::1 - - [", "IPv6 clients logged as ::1");
	has(log, "\"GET /f1%00 HTTP/1.1\" 400 16 ", "a 400 is logged");
	has(log, "\"BREW /f1 HTTP/1.1\" 501 ", "a 501 is logged");
	has(log, "\"-\" 408 ", "a 408 is logged");
	has(log, "aaaaaaaa\" 414 ", "a 414 is logged");
	free(log);
}

static void sighup(const struct srv *s)
{
	char old[300], *a, *b;

	snprintf(old, sizeof(old), "%s.1", s->log);
	rename(s->log, old);
	kill(s->pid, SIGHUP);
	sleep_ms(300);
	curl(tpath("body"), url(s, "127.0.0.1", "f4095"), NULL);
	sleep_ms(100);
	a = slurp(s->log, NULL);
	b = slurp(old, NULL);
	ok(a && b && strstr(a, "\"GET /f4095 HTTP/1.1\" 200 4095") &&
	   !strstr(a, "GET /f4096 "), "SIGHUP reopens the access log");
	free(a);
	free(b);
}

/* SIGTERM while a client is in the middle of 8 MiB: it gets all of it. */
static void sigterm_download(struct srv *s)
{
	static const char req[] = "GET /big HTTP/1.1\r\nHost: t\r\n\r\n";
	struct reader *r = calloc(1, sizeof(*r));
	int fd = tcp_to("127.0.0.1", s->port), rc;
	char *body = NULL, *want = slurp(rpath("big"), NULL), *txt;
	const char *hits;
	size_t blen;
	ssize_t n;

	send(fd, req, sizeof(req) - 1, 0);
	n = recv(fd, r->buf, 65536, MSG_WAITALL);
	r->len = n > 0 ? n : 0;
	kill(s->pid, SIGTERM);
	r->fd = fd;
	ok(next_response(r, &body, &blen) == 200 && blen == BIG &&
	   !memcmp(body, want, BIG) && recv(fd, r->buf, 1, 0) == 0,
	   "SIGTERM: the download under way finishes, then the connection "
	   "closes");
	free(body);
	free(want);
	free(r);
	close(fd);
	rc = wait_exit(s->pid, 30);
	txt = slurp(s->err, NULL);
	ok(!rc && txt && !strstr(txt, "Sanitizer") &&
	   !strstr(txt, "runtime error"), "the server exits 0 after SIGTERM");
	has(txt, "pmem-zc serve: summary: requests=", "summary line");
	/* but the multipart parts of 2K at most: 18 + 97 + 2048 bytes */
	has(txt, " copied=2163 zero_copy=partial\n",
	    "every file body zero-copy but the small multipart parts");
	hits = txt ? strstr(txt, "open-file cache: hits=") : NULL;
	ok(hits && (!cache_takes_root() || atoll(hits + 22) > 0),
	   "a summary of the open-file cache, with hits");
	free(txt);
}

/* --- the open-file cache -------------------------------------------------- */

/* GET /@name: its body (malloc'd) and status. */
static char *get_body(const struct srv *s, const char *name, int *status)
{
	curl(tpath("body"), url(s, "127.0.0.1", name), NULL);
	*status = status_of(hdrs);
	return slurp(tpath("body"), NULL);
}

/* Whether process @pid has a file open whose /proc link is @what. */
static bool holds(pid_t pid, const char *what)
{
	char dir[64], p[320], link[512];
	struct dirent *d;
	bool found = false;
	DIR *dp;
	ssize_t n;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dp = opendir(dir);
	while (dp && !found && (d = readdir(dp))) {
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = !strcmp(link, what);
	}
	if (dp)
		closedir(dp);
	return found;
}

/*
 * holds() once it is @want, within 2 s: a response's own fd is closed at
 * its last completion, which may come after curl has the body.
 */
static bool holds_soon(pid_t pid, const char *what, bool want)
{
	int i;

	for (i = 0; i < 100 && holds(pid, what) != want; i++)
		sleep_ms(20);
	return holds(pid, what) == want;
}

/* The root is on a filesystem the cache takes (fcache.c: fs_reports()). */
static bool cache_takes_root(void)
{
	struct statfs sfs;

	if (statfs(root, &sfs))
		return false;
	return sfs.f_type == EXT4_SUPER_MAGIC || sfs.f_type == XFS_SUPER_MAGIC ||
	       sfs.f_type == BTRFS_SUPER_MAGIC || sfs.f_type == TMPFS_MAGIC;
}

static bool is_tmpfs(void)
{
	struct statfs sfs;

	return !statfs(root, &sfs) && sfs.f_type == TMPFS_MAGIC;
}

/* @what names a body of @want after GET /@name (status 200). */
static void get_is(const struct srv *s, const char *name, const char *want,
		   const char *what)
{
	int st;
	char *b = get_body(s, name, &st);

	ok(st == 200 && b && !strcmp(b, want), "cache: %s", what);
	if (st != 200 || !b || strcmp(b, want))
		diag("  got %d '%.40s'", st, b ? b : "");
	free(b);
}

/*
 * Each change the cache must see, made between two requests of the same
 * path: the second answer is the new state, never the cached one.
 */
static void open_file_cache(const struct srv *s)
{
	char etag[128], *b;
	int st, fd;
	void *p;

	write_file(rpath("c1"), "one\n", 4);
	get_is(s, "c1", "one\n", "/c1 served");
	sleep_ms(200);		/* past the response's own completion */
	if (cache_takes_root())
		ok(holds(s->pid, rpath("c1")),
		   "cache: the worker keeps /c1 open after its response");
	else
		ok(true, "cache: /c1 kept open # SKIP the test directory is on a filesystem the cache does not take");
	write_file(rpath("c1"), "two!!\n", 6);
	get_is(s, "c1", "two!!\n", "/c1 rewritten in place: the new bytes and length");
	write_file(rpath("c1.tmp"), "three\n", 6);
	rename(rpath("c1.tmp"), rpath("c1"));
	get_is(s, "c1", "three\n", "a file renamed over /c1: served at once");
	ok(holds_soon(s->pid, rpath("c1 (deleted)"), false),
	   "cache: the file it replaced is closed");
	unlink(rpath("c1"));
	b = get_body(s, "c1", &st);
	free(b);
	is_int(st, 404, "cache: /c1 unlinked: 404");
	mkdir(rpath("cd"), 0755);
	write_file(rpath("cd/f"), "dir\n", 4);
	get_is(s, "cd/f", "dir\n", "/cd/f served");
	rename(rpath("cd"), rpath("cd2"));
	b = get_body(s, "cd/f", &st);
	free(b);
	is_int(st, 404, "cache: the directory of /cd/f renamed: 404");
	rename(rpath("cd2"), rpath("cd"));
	get_is(s, "cd/f", "dir\n", "the directory renamed back: /cd/f again");
	write_file(rpath("c2"), "c2\n", 3);
	write_file(rpath("c3"), "c3\n", 3);
	symlink("c2", rpath("cl"));
	get_is(s, "cl", "c2\n", "/cl, a symbolic link to c2, served");
	ok(holds_soon(s->pid, rpath("c2"), false),
	   "cache: a path through a symbolic link is not kept");
	unlink(rpath("cl"));
	symlink("c3", rpath("cl"));
	get_is(s, "cl", "c3\n", "/cl pointed at c3: served at once");
	get_is(s, "c3", "c3\n", "/c3 served");
	if (!cache_takes_root() || is_tmpfs()) {
		/* tmpfs: no page_mkwrite, a store keeps the mtime */
		ok(true, "cache: SIGHUP, a store through a shared mapping # SKIP not a filesystem the cache takes, or tmpfs");
		return;
	}
	ok(holds_soon(s->pid, rpath("c3"), true), "cache: /c3 kept open");
	kill(s->pid, SIGHUP);
	ok(holds_soon(s->pid, rpath("c3"), false), "cache: SIGHUP empties it");
	/* no inotify event: a store through a shared mapping, the fd kept */
	write_file(rpath("cm"), "aaaa", 4);
	curl(tpath("body"), url(s, "127.0.0.1", "cm"), NULL);
	snprintf(etag, sizeof(etag), "%s", hval(hdrs, "ETag"));
	ok(holds_soon(s->pid, rpath("cm"), true), "cache: /cm kept open");
	fd = open(rpath("cm"), O_RDWR);
	p = mmap(NULL, 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	sleep_ms(50);		/* a later mtime than the write's */
	if (p != MAP_FAILED) {
		memcpy(p, "bbbb", 4);
		msync(p, 4, MS_SYNC);
	}
	sleep_ms(1100);		/* FCACHE_VALID_S */
	curl(tpath("body"), url(s, "127.0.0.1", "cm"), NULL);
	ok(p != MAP_FAILED && status_of(hdrs) == 200 && *etag &&
	   strcmp(hval(hdrs, "ETag"), etag) &&
	   same_file(rpath("cm"), tpath("body")),
	   "cache: a store through a shared mapping (no inotify event): a new ETag after 1 s");
	if (p != MAP_FAILED)
		munmap(p, 4);
	if (fd >= 0)
		close(fd);
}

/* --open-file-cache 2: the least recently used goes, its fd closed. */
static void cache_evicts(void)
{
	struct srv s;
	char *txt;

	if (!cache_takes_root()) {
		ok(true, "--open-file-cache 2 # SKIP not a filesystem the cache takes");
		return;
	}
	if (!ok(srv_start(&s, "evict", fake_bin, NULL, "--bind", "127.0.0.1",
			  "--open-file-cache", "2", "--access-log", "off",
			  NULL),
		"--open-file-cache 2: serve starts"))
		return;
	get_is(&s, "c2", "c2\n", "--open-file-cache 2: /c2");
	get_is(&s, "c3", "c3\n", "--open-file-cache 2: /c3");
	get_is(&s, "c2", "c2\n", "--open-file-cache 2: /c2 again");
	get_is(&s, "cd/f", "dir\n", "--open-file-cache 2: /cd/f");
	ok(holds_soon(s.pid, rpath("c3"), false) && holds(s.pid, rpath("c2")) &&
	   holds(s.pid, rpath("cd/f")),
	   "--open-file-cache 2: /c2 and /cd/f kept, /c3 (least recently used) closed");
	is_int(srv_stop(&s), 0, "--open-file-cache 2: exits 0");
	ok(access(s.log, F_OK) && errno == ENOENT,
	   "--access-log off: no log written");
	txt = slurp(s.err, NULL);
	/* dropped: 0, but a mount elsewhere on the host drops everything */
	has(txt, "open-file cache: hits=1 misses=3 evicted=1 dropped=",
	    "--open-file-cache 2: its summary counts 1 hit, 3 misses, 1 evicted");
	free(txt);
}

/* --- other servers -------------------------------------------------------- */

static const char *log_of(const struct srv *s, const char *what)
{
	static char line[512];
	char *log = slurp(s->log, NULL), *p = log ? strstr(log, what) : NULL;

	while (p && p > log && p[-1] != '\n')
		p--;
	snprintf(line, sizeof(line), "%.*s", p ? (int)strcspn(p, "\n") : 0,
		 p ? p : "");
	free(log);
	return line;
}

/*
 * The module cannot send these files (@err: ENODEV), or refuses for a cap
 * that no completion of ours will lift (ENOBUFS): sendfile, as copied.
 */
static void fallback(const char *err)
{
	char env0[64], *env[] = { env0, NULL }, *txt;
	struct srv s;

	snprintf(env0, sizeof(env0), "PMEM_ZC_FAKE_ERRNO=%s", err);
	if (!srv_start(&s, err, fake_bin, env, "--bind", "127.0.0.1", NULL))
		return;
	get_file(&s, "127.0.0.1", "f1M1");
	sleep_ms(100);
	has(log_of(&s, "GET /f1M1 "), "by_ref=0 copied=1048577",
	    "%s: served by copy, logged as copied", err);
	is_int(srv_stop(&s), 0, "%s: the server exits 0", err);
	txt = slurp(s.err, NULL);
	has(txt, "copied=1048577 zero_copy=no", "%s: summary zero_copy=no",
	    err);
	free(txt);
}

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define NATIVE_AUDIT_ARCH	AUDIT_ARCH_I386
#endif

#ifdef NATIVE_AUDIT_ARCH
/*
 * What systemd's RestrictSUIDSGID= installs for openat2(), whose flags it
 * cannot inspect: ENOSYS for every call (its seccomp-util.c), the other
 * calls allowed.
 */
static int no_openat2(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * Without openat2() (ENOSYS: a kernel before 5.6, or systemd's
 * RestrictSUIDSGID=) serve refuses to start, saying so, rather than
 * answer every request 500.
 */
static void openat2_refused(void)
{
	char err[256], *txt;
	char *argv[] = { (char *)fake_bin, "serve", "--root", root,
			 "--port", "0", "--bind", "127.0.0.1", NULL };
	pid_t pid;

	snprintf(err, sizeof(err), "%s/no-openat2.err", tmp);
	pid = spawn_pre(argv, NULL, NULL, err, no_openat2);
	is_int(wait_exit(pid, 30), 1, "no openat2(): serve exits 1");
	txt = slurp(err, NULL);
	has(txt, "openat2(): Function not implemented (it needs Linux 5.6",
	    "no openat2(): serve says why");
	ok(!txt || !strstr(txt, "listening on"), "no openat2(): it never listened");
	free(txt);
}
#else
static void openat2_refused(void)
{
	ok(true, "no openat2(): serve refuses to start # SKIP no seccomp filter for this architecture in the test");
}
#endif

/* /proc/PID/status of @pid: Uid, Gid, Groups, CapPrm and CapEff. */
static bool unprivileged(pid_t pid, const char *ids)
{
	char path[64], *txt, want[128];
	bool good;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	txt = slurp(path, NULL);
	snprintf(want, sizeof(want), "\nUid:\t%s\t%s\t%s\t%s\n", ids, ids, ids,
		 ids);
	good = txt && strstr(txt, want);
	snprintf(want, sizeof(want), "\nGid:\t%s\t%s\t%s\t%s\n", ids, ids, ids,
		 ids);
	good = good && strstr(txt, want);
	snprintf(want, sizeof(want), "\nGroups:\t%s \n", ids);
	good = good && strstr(txt, want) &&
	       strstr(txt, "\nCapPrm:\t0000000000000000\n") &&
	       strstr(txt, "\nCapEff:\t0000000000000000\n") &&
	       strstr(txt, "\nNoNewPrivs:\t1\n");
	if (!good && txt)
		diag("  %s", txt);
	free(txt);
	return good;
}

/*
 * Started as root with --user nobody (uid and gid 65534 here), 2 workers:
 * every process of the server is nobody with no capability, and serves
 * only what nobody can open: a 0644 file, not a 0600 one, nor a hard link
 * or a symbolic link to it, nor a 0600 file renamed over the 0644 one.
 */
static void privileges(void)
{
	static const char *const files[] = { "pub", "priv", "hard", "sym" };
	static const int want[] = { 200, 403, 403, 403 };
	char droot[256], pub[300], priv[300], path[300], kids[64], *txt;
	struct srv s;
	pid_t kid[2] = { 0, 0 };
	FILE *f;
	int i, n = 0;

	if (geteuid()) {
		ok(true, "serve --user # SKIP not root");
		return;
	}
	/* the test directory (0700) must let nobody reach the root */
	chmod(tmp, 0711);
	snprintf(path, sizeof(path), "%s/logs", tmp);
	mkdir(path, 0755);
	chown(path, 65534, 65534);
	snprintf(droot, sizeof(droot), "%s/droot", tmp);
	mkdir(droot, 0755);
	snprintf(pub, sizeof(pub), "%s/pub", droot);
	snprintf(priv, sizeof(priv), "%s/priv", droot);
	random_file(pub, 5000);
	random_file(priv, 100);
	chmod(pub, 0644);
	chmod(priv, 0600);
	snprintf(path, sizeof(path), "%s/hard", droot);
	link(priv, path);
	snprintf(path, sizeof(path), "%s/sym", droot);
	symlink("priv", path);
	{
		char *argv[] = { (char *)fake_bin, "serve", "--root", droot,
				 "--port", "0", "--bind", "127.0.0.1",
				 "--access-log", s.log, "--user", "nobody",
				 "--workers", "2", NULL };

		snprintf(s.err, sizeof(s.err), "%s/priv.err", tmp);
		/* opened as nobody: in a directory of nobody's */
		snprintf(s.log, sizeof(s.log), "%s/logs/priv.log", tmp);
		s.pid = spawn(argv, NULL, NULL, s.err);
	}
	for (i = 0; i < 500 && !strstr((txt = slurp(s.err, NULL)) ? txt : "",
				      "as uid 65534 gid 65534\n"); i++) {
		free(txt);
		sleep_ms(10);
	}
	ok(txt && strstr(txt, ", 2 workers, bodies zero-copy, as uid 65534 gid 65534\n"),
	   "--user nobody: listening, as uid 65534 gid 65534");
	s.port = port_of(txt);
	free(txt);
	/* the listening line comes before the workers are forked */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)s.pid,
		 (int)s.pid);
	for (i = 0; i < 500 && n < 2; i++) {
		if (i)
			sleep_ms(10);
		f = fopen(path, "r");
		for (n = 0; f && n < 2 && fscanf(f, "%d", &kid[n]) == 1; )
			n++;
		if (f)
			fclose(f);
	}
	snprintf(kids, sizeof(kids), "%d", n);
	ok(unprivileged(s.pid, "65534") && n == 2 &&
	   unprivileged(kid[0], "65534") && unprivileged(kid[1], "65534"),
	   "--user nobody: the server and its %s workers are uid and gid 65534, no capability, no new privileges",
	   kids);
	for (i = 0; i < 4; i++) {
		curl(tpath("body"), url(&s, "127.0.0.1", files[i]), NULL);
		is_int(status_of(hdrs), want[i], "--user nobody: /%s", files[i]);
	}
	/* cached by a worker (EPOLLEXCLUSIVE: most likely the same one) */
	for (i = 0; i < 20 && !(holds(kid[0], pub) && holds(kid[1], pub));
	     i++)
		curl(tpath("body"), url(&s, "127.0.0.1", "pub"), NULL);
	n = holds(kid[0], pub) + holds(kid[1], pub);
	ok(!cache_takes_root() || n >= 1,
	   "--user nobody: /pub kept open by %d of the 2 workers", n);
	chmod(pub, 0600);
	for (i = n = 0; i < 8; i++) {
		curl(tpath("body"), url(&s, "127.0.0.1", "pub"), NULL);
		n += status_of(hdrs) == 403;
	}
	is_int(n, 8, "--user nobody: /pub made 0600 while cached: 403 (of 8 requests)");
	chmod(pub, 0644);
	curl(tpath("body"), url(&s, "127.0.0.1", "pub"), NULL);
	is_int(status_of(hdrs), 200, "--user nobody: /pub 0644 again: 200");
	rename(priv, pub);	/* swapped under the server */
	curl(tpath("body"), url(&s, "127.0.0.1", "pub"), NULL);
	is_int(status_of(hdrs), 403, "--user nobody: a 0600 file renamed over /pub");
	is_int(srv_stop(&s), 0, "--user nobody: the server exits 0");
}

/* A datagram of the notify socket: its text, and its sender's pid and uid. */
static bool notified(int nfd, char *buf, size_t size, pid_t *pid, uid_t *uid)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(nfd, &mh, 0);

	buf[n > 0 ? n : 0] = '\0';
	*pid = -1;
	*uid = -1;
	for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
			*pid = uc.pid;
			*uid = uc.uid;
		}
	return n > 0;
}

/*
 * serve under "sh -c 'export LISTEN_PID=@lpid LISTEN_FDS=@lfds; exec'"
 * with fd 3 inherited and @envn: its pid.
 */
static pid_t sd_spawn(struct srv *s, const char *name, const char *lpid,
		      const char *lfds, char *envn, const char *user)
{
	char cmd[128], *env[] = { envn, NULL };
	char *argv[] = { "sh", "-c", cmd, "sh", (char *)fake_bin, "serve",
			 "--root", root, "--port", "0", "--bind", "127.0.0.1",
			 "--access-log", s->log, "--workers", "2",
			 user ? "--user" : NULL, (char *)user, NULL };

	snprintf(cmd, sizeof(cmd), "export LISTEN_PID=%s LISTEN_FDS=%s; exec \"$@\"",
		 lpid, lfds);
	snprintf(s->err, sizeof(s->err), "%s/%s.err", tmp, name);
	snprintf(s->log, sizeof(s->log), "%s/logs/%s.log", tmp, name);
	return s->pid = spawn(argv, env, NULL, s->err);
}

/* @fd as fd 3 (inherited by what is spawned): 3, or -1. */
static int as_fd3(int fd)
{
	if (fd < 0 || fd == 3)
		return fd;
	dup2(fd, 3);
	close(fd);
	return 3;
}

/* serve with LISTEN_FDS=@lfds for itself: exit 1, @msg on stderr. */
static void sd_refused(struct srv *s, const char *name, const char *lfds,
		       char *envn, const char *msg, const char *what)
{
	char *txt;

	sd_spawn(s, name, "$$", lfds, envn, NULL);
	is_int(wait_exit(s->pid, 30), 1, "systemd: %s: exit 1", what);
	txt = slurp(s->err, NULL);
	has(txt, msg, "systemd: %s said", what);
	free(txt);
}

/*
 * systemd's protocols, as the unit uses them: the listening socket passed
 * as fd 3 (LISTEN_PID, LISTEN_FDS), READY=1 on $NOTIFY_SOCKET from the
 * main process once listening as --user, STOPPING=1 from it alone on
 * SIGTERM (NotifyAccess=main would drop the workers'). A LISTEN_PID of
 * another process is not ours: the server listens itself; LISTEN_FDS=2,
 * or an AF_UNIX socket as fd 3, is an error.
 */
static void systemd(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un nsa = { .sun_family = AF_UNIX };
	char npath[sizeof(nsa.sun_path)], envn[sizeof(npath) + 16], buf[64],
	     *txt;
	const char *user = geteuid() ? NULL : "nobody";
	uid_t want_uid = user ? 65534 : geteuid(), uid;
	struct timeval tv = { 10, 0 };
	socklen_t al = sizeof(a);
	int lfd, nfd, i, port, one = 1, stops = 0, others = 0;
	struct srv s;
	pid_t pid;

	if (snprintf(npath, sizeof(npath), "%s/notify", tmp) >=
	    (int)sizeof(npath)) {
		ok(false, "systemd: %s/notify: too long a socket path", tmp);
		return;
	}
	snprintf(npath, sizeof(npath), "%s/logs", tmp);
	mkdir(npath, 0755);
	if (user)
		chown(npath, 65534, 65534);
	snprintf(npath, sizeof(npath), "%s/notify", tmp);
	snprintf(envn, sizeof(envn), "NOTIFY_SOCKET=%s", npath);
	memcpy(nsa.sun_path, npath, sizeof(npath));
	/* the listening socket as fd 3 (inherited), then the notify socket */
	lfd = as_fd3(socket(AF_INET, SOCK_STREAM, 0));
	nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (nfd < 0 || lfd != 3 ||
	    bind(nfd, (struct sockaddr *)&nsa, sizeof(nsa)) ||
	    setsockopt(nfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(nfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 16) ||
	    getsockname(lfd, (struct sockaddr *)&a, &al)) {
		ok(false, "systemd: sockets: %s", strerror(errno));
		return;
	}
	port = ntohs(a.sin_port);
	sd_spawn(&s, "sd", "$$", "1", envn, user);
	notified(nfd, buf, sizeof(buf), &pid, &uid);
	ok(!strcmp(buf, "READY=1") && pid == s.pid && uid == want_uid,
	   "systemd: READY=1 on NOTIFY_SOCKET from the main process, as uid %u",
	   (unsigned int)want_uid);
	s.port = port;
	txt = slurp(s.err, NULL);
	ok(port_of(txt) == port,
	   "systemd: serves the socket passed as fd 3 (port %d), not --port 0",
	   port);
	free(txt);
	get_file(&s, "127.0.0.1", "f4097");
	kill(s.pid, SIGTERM);
	tv.tv_sec = 2;		/* every datagram that comes */
	setsockopt(nfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (notified(nfd, buf, sizeof(buf), &pid, &uid)) {
		if (!strcmp(buf, "STOPPING=1") && pid == s.pid)
			stops++;
		else
			others++;
	}
	ok(stops == 1 && !others,
	   "systemd: on SIGTERM, STOPPING=1 once, from the main process (%d, and %d others)",
	   stops, others);
	i = wait_exit(s.pid, 30);
	is_int(i, 0, "systemd: exits 0");

	/* LISTEN_PID another's: not for us, it listens itself */
	sd_spawn(&s, "sdother", "1", "1", envn, NULL);
	notified(nfd, buf, sizeof(buf), &pid, &uid);
	txt = slurp(s.err, NULL);
	ok(!strcmp(buf, "READY=1") && port_of(txt) &&
	   port_of(txt) != port,
	   "systemd: LISTEN_PID of another process: listens on a port of its own");
	free(txt);
	kill(s.pid, SIGTERM);
	is_int(wait_exit(s.pid, 30), 0, "systemd: ... and exits 0");
	while (notified(nfd, buf, sizeof(buf), &pid, &uid))
		;
	/* two sockets, or fd 3 a UNIX socket: errors, before READY=1 */
	sd_refused(&s, "sdtwo", "2", envn,
		   "LISTEN_FDS=2: one listening socket is served", "LISTEN_FDS=2");
	close(3);
	as_fd3(socket(AF_UNIX, SOCK_STREAM, 0));
	snprintf(nsa.sun_path, sizeof(nsa.sun_path), "%s/unix", tmp);
	bind(3, (struct sockaddr *)&nsa, sizeof(nsa));
	listen(3, 4);
	sd_refused(&s, "sdunix", "1", envn,
		   "fd 3 of socket activation is not a listening TCP socket",
		   "a UNIX socket as fd 3");
	tv.tv_sec = 0;
	tv.tv_usec = 200000;
	setsockopt(nfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ok(!notified(nfd, buf, sizeof(buf), &pid, &uid),
	   "systemd: no READY=1 from a server that did not start");
	close(3);
	unlink(nsa.sun_path);
	close(nfd);
	unlink(npath);
}

/* --max-ranges 0: Range ignored, no Accept-Ranges. */
static void ranges_off(void)
{
	struct srv s;

	if (!ok(srv_start(&s, "noranges", fake_bin, NULL, "--bind",
			  "127.0.0.1", "--max-ranges", "0", NULL),
		"serve starts with --max-ranges 0"))
		return;
	range(&s, "0-9", 200, "", 0, 4096);
	ok(!*hval(hdrs, "Accept-Ranges") && *hval(hdrs, "ETag"),
	   "--max-ranges 0: no Accept-Ranges");
	is_int(srv_stop(&s), 0, "--max-ranges 0: the server exits 0");
}

/* The real static binary needs no module with --copy. */
static void real_copy(void)
{
	char *env[] = { "PMEM_ZC_DEV=/nonexistent", NULL };
	struct srv s;

	if (!ok(srv_start(&s, "real", real_bin, env, "--bind", "::", "--copy",
			  NULL), "the real binary starts with --copy"))
		return;
	get_file(&s, "127.0.0.1", "f4097");
	get_file(&s, "::1", "big");
	pipelined_fin(&s, "--copy");
	sleep_ms(100);
	has(log_of(&s, "GET /f4097 "), "by_ref=0 copied=4097",
	    "--copy: logged as copied");
	is_int(srv_stop(&s), 0, "the real binary with --copy exits 0");
}

/* --body sendfile is --copy: no module needed. */
static void real_body(void)
{
	char *env[] = { "PMEM_ZC_DEV=/nonexistent", NULL };
	struct srv s;

	if (!ok(srv_start(&s, "body", real_bin, env, "--bind", "127.0.0.1",
			  "--body", "sendfile", NULL),
		"the real binary starts with --body sendfile"))
		return;
	get_file(&s, "127.0.0.1", "f4097");
	sleep_ms(100);
	has(log_of(&s, "GET /f4097 "), "by_ref=0 copied=4097",
	    "--body sendfile: logged as copied");
	is_int(srv_stop(&s), 0, "the real binary with --body sendfile exits 0");
}

/* Late completions and short sends: responses wait for them. */
static void late_completions(void)
{
	char *env[] = { "PMEM_ZC_FAKE_DELAY_MS=30", "PMEM_ZC_FAKE_MAX=65536",
			NULL };
	struct reader *r = calloc(1, sizeof(*r));
	static const char req[] = "GET /f4097 HTTP/1.1\r\nHost: t\r\n\r\n";
	struct srv s;
	int i, good = 0;

	if (!srv_start(&s, "late", fake_bin, env, "--bind", "127.0.0.1",
		       "--inflight", "2", NULL))
		return;
	get_file(&s, "127.0.0.1", "big");
	get_file(&s, "127.0.0.1", "f1M1");
	r->fd = tcp_to("127.0.0.1", s.port);
	for (i = 0; i < 5; i++) {
		send(r->fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
		good += response_is(r, "f4097");
	}
	is_int(good, 5, "keep-alive with late completions");
	close(r->fd);
	free(r);
	sleep_ms(100);
	has(log_of(&s, "GET /big "), "200 8388608 \"-\" \"curl/",
	    "logged once its completions are in");
	has(log_of(&s, "GET /big "), "by_ref=8388608 copied=0",
	    "by_ref from 128 late completions");
	is_int(srv_stop(&s), 0, "late-completion server exits 0");
}

/* A client socket from @src to 127.0.0.1:@port, or -1. */
static int tcp_from(const char *src, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct timeval tv = { 5, 0 };

	inet_pton(AF_INET, src, &a.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	a.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	return connect(fd, (struct sockaddr *)&a, sizeof(a)) ? -1 : fd;
}

static int status_from(int fd)
{
	static const char req[] = "GET /f1 HTTP/1.1\r\nHost: a\r\n"
				  "Connection: close\r\n\r\n";
	char resp[1024];
	size_t n;

	send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
	n = read_all(fd, resp, sizeof(resp) - 1);
	resp[n] = '\0';
	close(fd);
	return status_of(resp);
}

static void limits(void)
{
	struct srv s;
	int a, b;

	if (!srv_start(&s, "limits", fake_bin, NULL, "--bind", "127.0.0.1",
		       "--max-conns", "2", "--max-conns-per-client", "1",
		       NULL))
		return;
	a = tcp_from("127.0.0.1", s.port);
	sleep_ms(100);
	is_int(status_from(tcp_from("127.0.0.1", s.port)), 503,
	       "a second connection of one client (per-client 1): 503");
	b = tcp_from("127.0.0.2", s.port);
	sleep_ms(100);
	is_int(status_from(tcp_from("127.0.0.3", s.port)), 503,
	       "a third connection (--max-conns 2): 503");
	is_int(status_from(b), 200, "the connections within the limits work");
	close(a);
	sleep_ms(100);
	is_int(status_from(tcp_from("127.0.0.3", s.port)), 200,
	       "below the limits again: 200");
	has(log_of(&s, " 503 "), "\"GET /f1 HTTP/1.1\" 503 ", "503s logged");
	is_int(srv_stop(&s), 0, "limits server exits 0");
}

/*
 * One address opening far more connections than its limit cannot take the
 * slots others need: the over-limit ones get at most a few 503 slots and
 * are closed at accept beyond them.
 */
static void limits_flood(void)
{
	enum { FLOOD = 150 };
	int fd[FLOOD], i, opened = 0;
	struct srv s;

	if (!srv_start(&s, "flood", fake_bin, NULL, "--bind", "127.0.0.1",
		       "--max-conns", "4", "--max-conns-per-client", "1",
		       NULL))
		return;
	for (i = 0; i < FLOOD; i++) {
		fd[i] = tcp_from("127.0.0.1", s.port);
		opened += fd[i] >= 0;
	}
	sleep_ms(300);
	ok(opened > 2 * 4 + 64, "%d idle connections from 127.0.0.1", opened);
	is_int(status_from(tcp_from("127.0.0.2", s.port)), 200,
	       "another address is served while one floods (2 x 4 + 64 slots)");
	for (i = 0; i < FLOOD; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	is_int(srv_stop(&s), 0, "flood server exits 0");
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A request head's first byte does not restart --header-timeout. */
static void slow_first_head(void)
{
	static const char part[] = "GET /f1 HTTP/1.1\r\n";
	char resp[1024];
	struct srv s;
	double t0, took;
	size_t n;
	int fd;

	if (!srv_start(&s, "slowhead", fake_bin, NULL, "--bind", "127.0.0.1",
		       "--header-timeout", "2s", NULL))
		return;
	fd = tcp_from("127.0.0.1", s.port);
	t0 = mono_s();
	sleep_ms(1200);
	send(fd, part, sizeof(part) - 1, MSG_NOSIGNAL);
	n = read_all(fd, resp, sizeof(resp) - 1);
	took = mono_s() - t0;
	resp[n] = '\0';
	close(fd);
	ok(status_of(resp) == 408 && took > 1.8 && took < 2.7,
	   "a first byte after 1.2 s does not restart the 2 s head timeout: 408 after %.1f s",
	   took);
	is_int(srv_stop(&s), 0, "slow-head server exits 0");
}

/*
 * A download still under way when --drain-timeout ends is cut, and logged
 * as it stands (as a send timeout's is): the access log and the summary
 * count it.
 */
static void drain_cut(void)
{
	const char *line;
	struct srv s;
	char *txt;
	int fd, rc;

	if (!srv_start(&s, "drain", fake_bin, NULL, "--bind", "127.0.0.1",
		       "--drain-timeout", "1s", NULL))
		return;
	fd = stalled_client(s.port);
	sleep_ms(300);			/* the response under way, stalled */
	kill(s.pid, SIGTERM);
	rc = wait_exit(s.pid, 30);
	close(fd);
	txt = slurp(s.err, NULL);
	line = log_of(&s, "GET /big");
	ok(!rc && txt && strstr(txt, "summary: requests=1 ") &&
	   strstr(line, "\"GET /big HTTP/1.1\" 200 ") &&
	   !strstr(line, "\" 200 8388608 "),
	   "a download cut at --drain-timeout is logged and counted as it stands");
	if (!line[0] || !txt || !strstr(txt, "summary: requests=1 "))
		diag("  log: %s; %s", line, txt ? strstr(txt, "summary") : "-");
	free(txt);
}

/*
 * --count on a kept-alive connection: a request that came while the last
 * counted response waited for its completion is not answered (the server
 * reads a request as a by-reference response completes, not once it is to
 * stop).
 */
static void count_keepalive(void)
{
	char *env[] = { "PMEM_ZC_FAKE_DELAY_MS=200", NULL };
	static const char req[] = "GET /f4097 HTTP/1.1\r\nHost: t\r\n\r\n";
	struct reader *r = calloc(1, sizeof(*r));
	struct srv s;
	char *txt, *body = NULL;
	size_t blen;
	int good = 0, i;

	if (!r || !srv_start(&s, "count-ka", fake_bin, env, "--bind",
			     "127.0.0.1", "--count", "2", NULL)) {
		free(r);
		return;
	}
	r->fd = tcp_to("127.0.0.1", s.port);
	for (i = 0; i < 2; i++) {
		send(r->fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
		good += response_is(r, "f4097");
	}
	/* before the second response's completion (200 ms) */
	send(r->fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
	is_int(good, 2, "--count 2 on one connection: 2 responses");
	is_int(next_response(r, &body, &blen), 0,
	       "--count 2 on one connection: a third request is not answered");
	free(body);
	close(r->fd);
	free(r);
	is_int(wait_exit(s.pid, 10), 0,
	       "--count 2 on one connection: exits 0");
	txt = slurp(s.err, NULL);
	has(txt, "summary: requests=2 ",
	    "--count 2 on one connection: 2 requests in the summary");
	free(txt);
}

static void workers_and_count(void)
{
	struct srv s;
	int i, good = 0;
	char *txt;

	if (srv_start(&s, "workers", fake_bin, NULL, "--bind", "127.0.0.1",
		      "--workers", "3", NULL)) {
		for (i = 0; i < 8; i++)
			good += !curl(tpath("body"),
				      url(&s, "127.0.0.1", "f4097"), NULL) &&
				same_file(tpath("body"), rpath("f4097"));
		is_int(good, 8, "3 workers: 8 requests served");
		is_int(srv_stop(&s), 0, "3 workers stop on SIGTERM, exit 0");
		txt = slurp(s.err, NULL);
		has(txt, "summary: requests=8 bytes=32776 by_ref=32776 ",
		    "one summary of all workers");
		free(txt);
	}
	if (!srv_start(&s, "count", fake_bin, NULL, "--bind", "127.0.0.1",
		       "--count", "2", NULL))
		return;
	curl(tpath("body"), url(&s, "127.0.0.1", "f1"), NULL);
	curl(tpath("body"), url(&s, "127.0.0.1", "f1"), NULL);
	is_int(wait_exit(s.pid, 10), 0, "--count 2: exits 0 after 2 requests");
	count_keepalive();
}

void test_serve(void)
{
	struct srv s;

	make_root();
	if (!ok(srv_start(&s, "main", fake_bin, NULL, "--bind", "::",
			  "--index", "--max-headers", "50",
			  "--header-timeout", "1s", "--idle-timeout", "2s",
			  "--send-timeout", "3s", NULL),
		"serve starts on [::] with a port of its own"))
		return;
	bodies(&s);
	headers(&s);
	ranges_and_304(&s);
	keep_alive(&s);
	concurrent(&s);
	stalled(&s);
	malformed(&s);
	timeouts(&s);
	access_log(&s);
	sighup(&s);
	open_file_cache(&s);
	sigterm_download(&s);
	free(hdrs);
	hdrs = NULL;
	cache_evicts();
	fallback("ENODEV");
	fallback("ENOBUFS");
	real_copy();
	real_body();
	ranges_off();
	privileges();
	systemd();
	openat2_refused();
	late_completions();
	limits();
	limits_flood();
	slow_first_head();
	workers_and_count();
	drain_cut();
}
