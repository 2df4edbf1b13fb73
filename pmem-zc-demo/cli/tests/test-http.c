// SPDX-License-Identifier: GPL-2.0
/*
 * test-http: http.c without sockets: request heads (framing, limits, the
 * checks on top of libhttp-parser), paths, ranges, validators, dates,
 * types, response heads.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "tap.h"
#include "tests.h"

static const struct http_limits lim = { 256, 512, 8 };

#define H11	" HTTP/1.1\r\nHost: a\r\n"

static const struct {
	const char *req;
	int status;		/* -1: incomplete */
	const char *path;	/* for status 0 */
} parse_cases[] = {
	{ "GET /a/b.txt" H11 "\r\n", 0, "a/b.txt" },
	{ "HEAD /" H11 "\r\n", 0, "." },
	{ "\r\nGET /x" H11 "\r\n", 0, "x" },
	{ "GET /x HTTP/1.1\nHost: a\n\n", 0, "x" },
	{ "GET /a%20b?q=1" H11 "\r\n", 0, "a b" },
	{ "GET http://a/p/q?x HTTP/1.1\r\nHost: a\r\n\r\n", 0, "p/q" },
	{ "GET http://a HTTP/1.1\r\nHost: a\r\n\r\n", 0, "." },
	{ "GET /x HTTP/1.0\r\n\r\n", 0, "x" },
	{ "GET /x" H11 "Content-Length: 0\r\n\r\n", 0, "x" },
	{ "GET /x" H11, -1 },
	{ "GET /x HTT", -1 },
	{ "GET /x HTTP/1.1\r\n\r\n", 400 },
	{ "GET /x" H11 "Host: b\r\n\r\n", 400 },
	{ "GET /x" H11 "Content-Length: 1\r\n\r\nx", 400 },
	{ "GET /x" H11 "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400 },
	{ "GET /x" H11 "X: a\r\n b\r\n\r\n", 400 },
	{ "GET /x HTTP/1.1\r\n Host: a\r\n\r\n", 400 },
	{ "GET /x" H11 "X: a\rb\r\n\r\n", 400 },
	{ "GET /x" H11 "X : a\r\n\r\n", 400 },
	{ "GET /x HTTP/1.1\r\nHost: a/b\r\n\r\n", 400 },
	{ "GET /x" H11 "Range: bytes=1-\r\nRange: bytes=2-\r\n\r\n", 400 },
	{ "get /x" H11 "\r\n", 501 },
	{ "BREW /x" H11 "\r\n", 501 },
	{ "POST /x" H11 "Content-Length: 2\r\n\r\nab", 405 },
	{ "OPTIONS *" H11 "\r\n", 501 },
	{ "OPTIONS /x" H11 "\r\n", 405 },
	{ "GET *" H11 "\r\n", 400 },
	{ "GET a:80" H11 "\r\n", 400 },
	{ "GET ftp://a/x" H11 "\r\n", 400 },
	{ "GET /x HTTP/2.0\r\nHost: a\r\n\r\n", 505 },
	{ "GET  /x" H11 "\r\n", 400 },
	{ "GET /../x" H11 "\r\n", 400 },
	{ "GET /a/%2e%2E/x" H11 "\r\n", 400 },
	{ "GET /x%00" H11 "\r\n", 400 },
	{ "GET /x%0a" H11 "\r\n", 400 },
	{ "GET /x%7F" H11 "\r\n", 400 },
	{ "GET /x%zz" H11 "\r\n", 400 },
	{ "GET /x%5c" H11 "\r\n", 400 },
	{ "GET /x#f" H11 "\r\n", 400 },
	{ "GET /\x7f" H11 "\r\n", 400 },
	{ "GET /x" H11 "X: \x7f\r\n\r\n", 400 },
	{ "GET /x\tHTTP/1.1\r\nHost: a\r\n\r\n", 400 },
	{ "GET /x" H11 "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\n"
	  "G: 7\r\nH: 8\r\n\r\n", 431 },
};

static void parse(void)
{
	struct http_request r;
	size_t i, n;

	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const char *q = parse_cases[i].req;
		int want = parse_cases[i].status;

		n = http_parse(&r, q, strlen(q), &lim);
		if (want < 0)
			ok(!n, "incomplete head %zu waits", i);
		else if (!want)
			ok(n && !r.status &&
			   !strcmp(r.path, parse_cases[i].path),
			   "head %zu: path '%s'", i, parse_cases[i].path);
		else
			ok(n && r.status == want, "head %zu: %d (%s)", i,
			   want, r.why ? r.why : "no reason");
	}
}

static void parse_more(void)
{
	char big[1024];
	struct http_request r;
	const char *two = "GET /a" H11 "\r\nGET /b" H11 "\r\n", *q;
	size_t n;

	n = http_parse(&r, two, strlen(two), &lim);
	is_int(n, strlen(two) / 2, "pipelined: the first head only");
	ok(r.keep_alive && !r.head && r.major == 1 && r.minor == 1,
	   "HTTP/1.1 keeps alive");
	ok(r.line.n == 15 && !memcmp(r.line.p, "GET /a HTTP/1.1", 15),
	   "request line for the log");
	n = http_parse(&r, "GET /a HTTP/1.0\r\n\r\n", 19, &lim);
	ok(n == 19 && !r.keep_alive, "HTTP/1.0 closes");
	q = "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
	    "User-Agent: t/1\r\n\r\n";
	n = http_parse(&r, q, strlen(q), &lim);
	ok(n && !r.keep_alive && r.user_agent.n == 3, "Connection: close");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	n = http_parse(&r, big, 300, &lim);
	ok(n == 300 && r.status == 414, "request line over the limit: 414");
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	n = http_parse(&r, big, 600, &lim);
	ok(n && r.status == 431, "header bytes over the limit: 431");
	memset(big, '\n', 64);
	n = http_parse(&r, big, 64, &lim);
	ok(n && r.status == 400, "only empty lines: 400");
}

static void paths(void)
{
	char out[16];

	ok(!http_decode_path("a%2Fb", 5, out, sizeof(out)) &&
	   !strcmp(out, "a/b"), "%%2F decodes once");
	ok(!http_decode_path("%252e", 5, out, sizeof(out)) &&
	   !strcmp(out, "%2e"), "%%25 decodes once");
	ok(!http_decode_path("..a/.b/.", 8, out, sizeof(out)),
	   "..a and . segments are names");
	is_int(http_decode_path("a/..", 4, out, sizeof(out)), 400,
	       "trailing .. refused");
	is_int(http_decode_path("%2e./x", 6, out, sizeof(out)), 400,
	       "half-encoded .. refused");
	is_int(http_decode_path("a\\b", 3, out, sizeof(out)), 400,
	       "backslash refused");
	is_int(http_decode_path("%4", 2, out, sizeof(out)), 400,
	       "short escape refused");
	is_int(http_decode_path("0123456789abcdefg", 17, out, sizeof(out)),
	       414, "too long: 414");
}

static void ranges(void)
{
	static const struct {
		const char *h;
		uint64_t size;
		enum http_range want;
		uint64_t first, len;
	} t[] = {
		{ "bytes=0-99", 1000, RANGE_OK, 0, 100 },
		{ "bytes=100-199", 1000, RANGE_OK, 100, 100 },
		{ "bytes=900-", 1000, RANGE_OK, 900, 100 },
		{ "bytes=-100", 1000, RANGE_OK, 900, 100 },
		{ "bytes=-5000", 1000, RANGE_OK, 0, 1000 },
		{ "bytes=990-5000", 1000, RANGE_OK, 990, 10 },
		{ "BYTES=0-0", 1000, RANGE_OK, 0, 1 },
		{ "bytes=999-999", 1000, RANGE_OK, 999, 1 },
		{ "bytes=1000-", 1000, RANGE_UNSATISFIABLE },
		{ "bytes=-0", 1000, RANGE_UNSATISFIABLE },
		{ "bytes=0-", 0, RANGE_UNSATISFIABLE },
		{ "bytes=99999999999999999999-", 10, RANGE_UNSATISFIABLE },
		{ "bytes=-1", 0, RANGE_NONE },
		{ "bytes=5-1", 1000, RANGE_NONE },
		{ "bytes=-", 1000, RANGE_NONE },
		{ "bytes=a-b", 1000, RANGE_NONE },
		{ "items=0-1", 1000, RANGE_NONE },
		{ "bytes= 0-1", 1000, RANGE_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct http_slice h = { t[i].h, strlen(t[i].h) };
		struct http_byte_range got[HTTP_RANGES_MAX] = { { 7, 7 } };
		unsigned int n = 7;
		enum http_range r = http_ranges_parse(h, t[i].size, got, 16,
						      &n);

		ok(r == t[i].want && (r == RANGE_OK ? n == 1 &&
		   got[0].first == t[i].first && got[0].len == t[i].len : !n),
		   "Range '%s' of %llu", t[i].h,
		   (unsigned long long)t[i].size);
	}
	{
		/* found by make fuzz: an offset added to the NULL of no field */
		struct http_byte_range got[1];
		unsigned int n = 7;

		ok(http_ranges_parse((struct http_slice){ NULL, 0 }, 10, got, 1,
				     &n) == RANGE_NONE && !n,
		   "no Range field: RANGE_NONE");
	}
}

/* several ranges: what http_ranges_parse() keeps, as "first+len ..." */
static void multi_ranges(void)
{
	static const struct {
		const char *h;
		unsigned int max;
		enum http_range want;
		const char *kept;
	} t[] = {
		{ "bytes=0-1,5-6", 16, RANGE_OK, "0+2 5+2" },
		{ "bytes=500-,0-9", 16, RANGE_OK, "500+500 0+10" },
		{ "bytes=0-1 , 5-6,,\t,7-7", 16, RANGE_OK, "0+2 5+2 7+1" },
		{ "bytes=,0-1", 16, RANGE_OK, "0+2" },
		{ "bytes=0-1,2000-,-10", 16, RANGE_OK, "0+2 990+10" },
		{ "bytes=2000-,3000-", 16, RANGE_UNSATISFIABLE, "" },
		{ "bytes=0-9,5-20", 16, RANGE_NONE, "" },
		{ "bytes=10-20,0-10", 16, RANGE_NONE, "" },
		{ "bytes=0-9,-995", 16, RANGE_NONE, "" },
		{ "bytes=0-9,10-19", 16, RANGE_OK, "0+10 10+10" },
		{ "bytes=0-0,1-1,2-2", 2, RANGE_NONE, "" },
		{ "bytes=0-0,1-1", 2, RANGE_OK, "0+1 1+1" },
		{ "bytes=0-1", 0, RANGE_NONE, "" },
		{ "bytes=0-1,x", 16, RANGE_NONE, "" },
		{ "bytes=0-1,", 16, RANGE_OK, "0+2" },
		{ "bytes=,", 16, RANGE_NONE, "" },
		{ "bytes= 0-1,2-3", 16, RANGE_NONE, "" },
		{ "bytes=0-0,1-1,2-2", 100, RANGE_OK, "0+1 1+1 2+1" },
	};
	struct http_byte_range r[HTTP_RANGES_MAX];
	char kept[256], buf[256];
	unsigned int n, j;
	size_t i, k;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct http_slice h = { t[i].h, strlen(t[i].h) };
		enum http_range got = http_ranges_parse(h, 1000, r, t[i].max,
							&n);

		kept[0] = '\0';
		for (j = k = 0; got == RANGE_OK && j < n; j++)
			k += snprintf(kept + k, sizeof(kept) - k, "%s%llu+%llu",
				      j ? " " : "",
				      (unsigned long long)r[j].first,
				      (unsigned long long)r[j].len);
		ok(got == t[i].want && !strcmp(kept, t[i].kept),
		   "Range '%s', at most %u: %d '%s'", t[i].h, t[i].max, got,
		   kept);
	}
	/* the length given without a buffer is the length written */
	k = http_part_head(NULL, 0, "0123456789abcdef", "text/plain", 5, 10,
			   1000);
	ok(k && http_part_head(buf, sizeof(buf), "0123456789abcdef",
			       "text/plain", 5, 10, 1000) == k &&
	   !strcmp(buf, "\r\n--0123456789abcdef\r\nContent-Type: text/plain"
		   "\r\nContent-Range: bytes 5-14/1000\r\n\r\n"),
	   "a part's delimiter and header, its length without a buffer");
	ok(!http_part_head(buf, k, "0123456789abcdef", "text/plain", 5, 10,
			   1000), "a part's header that does not fit: 0");
	ok(http_parts_end(NULL, 0, "b") == 9 &&
	   http_parts_end(buf, sizeof(buf), "b") == 9 &&
	   !strcmp(buf, "\r\n--b--\r\n"), "the close delimiter");
}

#define SL(s) ((struct http_slice){ (s), sizeof(s) - 1 })

static void validators(void)
{
	struct stat st = { .st_ino = 0x1234, .st_size = 10,
			   .st_mtim = { 784111777, 5 } };
	struct http_request r = {};
	char etag[HTTP_ETAG_LEN], date[HTTP_DATE_LEN];
	bool range_ok;
	time_t t;

	http_etag(etag, sizeof(etag), &st);
	ok(!strcmp(etag, "\"1234-a-2ebc98a1.5\""), "ETag %s", etag);
	ok(http_etag_match(SL("\"x\", \"1234-a-2ebc98a1.5\""), etag),
	   "If-None-Match list matches");
	ok(http_etag_match(SL("W/\"1234-a-2ebc98a1.5\""), etag),
	   "weak comparison for If-None-Match");
	ok(http_etag_match(SL("*"), etag), "If-None-Match: *");
	ok(!http_etag_match(SL("\"1234-a-2ebc98a1.6\""), etag), "no match");
	ok(!http_etag_match(SL("1234-a-2ebc98a1.5"), etag), "unquoted: none");
	http_date(date, 784111777);
	ok(!strcmp(date, "Sun, 06 Nov 1994 08:49:37 GMT"), "IMF-fixdate");
	ok(!http_date_parse(SL("Sun, 06 Nov 1994 08:49:37 GMT"), &t) &&
	   t == 784111777, "parse IMF-fixdate");
	ok(!http_date_parse(SL("Sunday, 06-Nov-94 08:49:37 GMT"), &t) &&
	   t == 784111777, "parse RFC 850 date");
	ok(!http_date_parse(SL("Sun Nov  6 08:49:37 1994"), &t) &&
	   t == 784111777, "parse asctime date");
	ok(http_date_parse(SL("yesterday"), &t), "not a date");
	ok(http_date_parse(SL("Sun, 06 Nov 1994 08:49:37 GMT x"), &t),
	   "trailing bytes: not a date");
	r.if_none_match = SL("\"1234-a-2ebc98a1.5\"");
	r.if_modified_since = SL("Sat, 01 Jan 1994 00:00:00 GMT");
	is_int(http_conditional(&r, etag, st.st_mtime, &range_ok), 304,
	       "If-None-Match wins over If-Modified-Since");
	r.if_none_match = SL("\"other\"");
	is_int(http_conditional(&r, etag, st.st_mtime, &range_ok), 0,
	       "If-None-Match mismatch: 200, IMS not looked at");
	r.if_none_match = (struct http_slice){};
	r.if_modified_since = SL("Sun, 06 Nov 1994 08:49:37 GMT");
	is_int(http_conditional(&r, etag, st.st_mtime, &range_ok), 304,
	       "If-Modified-Since at mtime: 304");
	is_int(http_conditional(&r, etag, st.st_mtime + 1, &range_ok), 0,
	       "modified since: 200");
	r.if_modified_since = SL("Fri, 01 Jan 2106 00:00:00 GMT");
	is_int(http_conditional(&r, etag, st.st_mtime, &range_ok), 0,
	       "If-Modified-Since in the future is ignored");
	r.if_range = SL("\"1234-a-2ebc98a1.5\"");
	http_conditional(&r, etag, st.st_mtime, &range_ok);
	ok(range_ok, "If-Range with the ETag: range applies");
	r.if_range = SL("W/\"1234-a-2ebc98a1.5\"");
	http_conditional(&r, etag, st.st_mtime, &range_ok);
	ok(!range_ok, "If-Range with a weak ETag: whole file");
	r.if_range = SL("Sun, 06 Nov 1994 08:49:37 GMT");
	http_conditional(&r, etag, st.st_mtime, &range_ok);
	ok(range_ok, "If-Range with Last-Modified: range applies");
}

static void heads(void)
{
	struct http_resp h = { .status = 206, .length = 100, .first = 100,
			       .total = 1000, .type = "text/plain",
			       .etag = "\"e\"", .last_modified = "LM",
			       .date = "D" };
	char buf[512], body[64];

	ok(!strcmp(http_content_type("a/b.HTML"), "text/html; charset=utf-8"),
	   "type of .HTML");
	ok(!strcmp(http_content_type("x.tar.gz"), "application/gzip"),
	   "type of .tar.gz");
	ok(!strcmp(http_content_type("d.png/x"), "application/octet-stream"),
	   "a dot in a directory is no extension");
	ok(!strcmp(http_content_type("noext"), "application/octet-stream"),
	   "no extension: application/octet-stream");
	http_format_head(buf, sizeof(buf), &h);
	ok(!strcmp(buf, "HTTP/1.1 206 Partial Content\r\nServer: pmem-zc\r\n"
		   "Date: D\r\nContent-Type: text/plain\r\nContent-Range: "
		   "bytes 100-199/1000\r\nContent-Length: 100\r\nETag: \"e\"\r\n"
		   "Accept-Ranges: bytes\r\nLast-Modified: LM\r\n\r\n"),
	   "206 head");
	h = (struct http_resp){ .status = 416, .total = 5, .date = "D",
				.close = true };
	http_format_head(buf, sizeof(buf), &h);
	has(buf, "Content-Range: bytes */5\r\n", "416: Content-Range */LEN");
	has(buf, "Connection: close\r\n\r\n", "Connection: close");
	h = (struct http_resp){ .status = 405, .date = "D",
				.keep_alive = true };
	http_format_head(buf, sizeof(buf), &h);
	has(buf, "Allow: GET, HEAD\r\nConnection: keep-alive\r\n",
	    "405: Allow, HTTP/1.0 keep-alive");
	is_int(http_format_head(buf, 40, &h), 0, "a head too long: 0");
	is_int(http_error_body(body, sizeof(body), 404), 14,
	       "error body \"404 Not Found\\n\"");
}

void test_http(void)
{
	parse();
	parse_more();
	paths();
	ranges();
	multi_ranges();
	validators();
	heads();
}
