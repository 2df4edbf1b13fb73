// SPDX-License-Identifier: GPL-2.0
/*
 * http: request heads (framing, libhttp-parser callbacks, strict checks),
 * targets and paths, conditionals, ranges, dates, types, response heads.
 * See http.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <http_parser.h>

#include "http.h"
#include "msg.h"

/* --- framing and raw checks ----------------------------------------------- */

#define EMPTY_LINES_MAX	32	/* bytes of them before a request line */

/* Empty lines before a request line are ignored (RFC 9112 2.2). */
static size_t skip_empty_lines(const char *buf, size_t len)
{
	size_t i = 0;

	for (;;) {
		if (i < len && buf[i] == '\n')
			i++;
		else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			i += 2;
		else
			return i;
	}
}

/* Offset just past the empty line that ends the head, or 0. */
static size_t find_head_end(const char *buf, size_t from, size_t len)
{
	const char *p = buf + from, *end = buf + len;

	while ((p = memchr(p, '\n', end - p))) {
		if (p + 1 < end && p[1] == '\n')
			return p + 2 - buf;
		if (p + 2 < end && p[1] == '\r' && p[2] == '\n')
			return p + 3 - buf;
		p++;
	}
	return 0;
}

/* Set the answer of a request that will not be served: returns @status. */
static int bad(struct http_request *r, int status, const char *why)
{
	r->status = status;
	r->why = why;
	return status;
}

/* Bytes the parser lets through: obs-fold, bare CR, NUL. */
static const char *raw_check(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!p[i])
			return "NUL in the head";
		if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n'))
			return "bare CR";
		if (p[i] == '\n' && i + 1 < n &&
		    (p[i + 1] == ' ' || p[i + 1] == '\t'))
			return "obs-fold or whitespace before a field";
	}
	return NULL;
}

/* --- libhttp-parser callbacks --------------------------------------------- */

static bool tchar(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~", c);
}

static bool token(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!p[i] || !tchar(p[i]))
			return false;
	return n > 0;
}

static int cb_url(http_parser *hp, const char *at, size_t n)
{
	struct http_request *r = hp->data;

	r->target = (struct http_slice){ at, n };
	return 0;
}

static bool field_is(const struct http_slice *f, const char *name)
{
	return f->n == strlen(name) && !strncasecmp(f->p, name, f->n);
}

/* The fields serve reads, each allowed once. */
static struct http_slice *known_field(struct http_request *r)
{
	static const struct {
		const char *name;
		size_t off;
	} known[] = {
		{ "Host", offsetof(struct http_request, host) },
		{ "Range", offsetof(struct http_request, range) },
		{ "If-None-Match", offsetof(struct http_request, if_none_match) },
		{ "If-Modified-Since",
		  offsetof(struct http_request, if_modified_since) },
		{ "If-Range", offsetof(struct http_request, if_range) },
		{ "Referer", offsetof(struct http_request, referer) },
		{ "User-Agent", offsetof(struct http_request, user_agent) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (field_is(&r->field, known[i].name))
			return (struct http_slice *)((char *)r + known[i].off);
	return NULL;
}

static int cb_field(http_parser *hp, const char *at, size_t n)
{
	struct http_request *r = hp->data;

	r->in_value = false;
	r->field = (struct http_slice){ at, n };
	if (++r->fields > r->lim->fields_max) {
		bad(r, 431, "too many header fields");
		return -1;
	}
	if (!token(at, n)) {
		bad(r, 400, "invalid header field name");
		return -1;
	}
	r->value = known_field(r);
	if (r->value && r->value->p) {
		bad(r, 400, "repeated header field");
		return -1;
	}
	if (r->value)	/* an empty value has no callback */
		*r->value = (struct http_slice){ "", 0 };
	return 0;
}

/* field-vchar, SP and HTAB (RFC 9110 5.5): no other control byte. */
static bool value_ok(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((p[i] >= 0 && p[i] < ' ' && p[i] != '\t') || p[i] == 0x7f)
			return false;
	return true;
}

static int cb_value(http_parser *hp, const char *at, size_t n)
{
	struct http_request *r = hp->data;

	if (r->in_value) {	/* a second piece: a folded line */
		bad(r, 400, "obs-fold");
		return -1;
	}
	r->in_value = true;
	if (!value_ok(at, n)) {
		bad(r, 400, "control character in a field value");
		return -1;
	}
	while (n && (at[n - 1] == ' ' || at[n - 1] == '\t'))
		n--;
	while (n && (*at == ' ' || *at == '\t')) {
		at++;
		n--;
	}
	if (r->value)
		*r->value = (struct http_slice){ at, n };
	return 0;
}

/* A Host value: reg-name or IP-literal, optional port. */
static bool host_ok(struct http_slice h)
{
	size_t i;

	for (i = 0; i < h.n; i++)
		if (!isalnum((unsigned char)h.p[i]) &&
		    !strchr("-._~!$&'()*+,;=:[]%", h.p[i]))
			return false;
	return true;
}

/* The request line is exactly "METHOD SP target SP HTTP/d.d". */
static bool line_exact(const struct http_request *r)
{
	char want[64];
	const char *m = http_method_str(r->method);
	size_t ml = strlen(m), tail;

	tail = snprintf(want, sizeof(want), " HTTP/%u.%u", r->major,
			r->minor);
	return r->line.n == ml + 1 + r->target.n + tail &&
	       !memcmp(r->line.p, m, ml) && r->line.p[ml] == ' ' &&
	       r->line.p + ml + 1 == r->target.p &&
	       !memcmp(r->target.p + r->target.n, want, tail);
}

static int method_status(struct http_request *r, int method)
{
	if (method == HTTP_GET || method == HTTP_HEAD)
		return 0;
	if (method == HTTP_OPTIONS && r->target.n == 1 && *r->target.p == '*')
		return bad(r, 501, "OPTIONS * is not implemented");
	return bad(r, 405, "method not allowed");
}

static int cb_headers_complete(http_parser *hp)
{
	struct http_request *r = hp->data;

	r->method = hp->method;
	r->major = hp->http_major;
	r->minor = hp->http_minor;
	r->head = hp->method == HTTP_HEAD;
	r->keep_alive = http_should_keep_alive(hp);
	if (!line_exact(r))
		bad(r, 400, "malformed request line");
	else if (hp->http_major != 1)
		bad(r, 505, "HTTP version not supported");
	else if (method_status(r, hp->method))
		;
	else if (hp->uses_transfer_encoding)
		bad(r, 400, "Transfer-Encoding on GET or HEAD");
	else if ((hp->flags & F_CONTENTLENGTH) && hp->content_length)
		bad(r, 400, "a body on GET or HEAD");
	else if (!r->host.p && hp->http_minor >= 1)
		bad(r, 400, "no Host in an HTTP/1.1 request");
	else if (r->host.p && !host_ok(r->host))
		bad(r, 400, "invalid Host");
	return r->status ? -1 : 0;
}

static int cb_message_complete(http_parser *hp)
{
	http_parser_pause(hp, 1);
	return 0;
}

static const http_parser_settings parser_settings = {
	.on_url = cb_url,
	.on_header_field = cb_field,
	.on_header_value = cb_value,
	.on_headers_complete = cb_headers_complete,
	.on_message_complete = cb_message_complete,
};

/* --- the request line and target ------------------------------------------ */

/* An unknown method is a token followed by SP (501); else garbage (400). */
static int method_error(const struct http_slice *line)
{
	const char *sp = memchr(line->p, ' ', line->n);

	return sp && token(line->p, sp - line->p) ? 501 : 400;
}

/* Bytes allowed in a request-target: RFC 3986 minus the fragment. */
static bool target_chars_ok(struct http_slice t)
{
	size_t i;

	for (i = 0; i < t.n; i++) {
		unsigned char c = t.p[i];

		if (c <= ' ' || c >= 0x7f || strchr("\"<>\\^`{|}#", c))
			return false;
	}
	return true;
}

/* The path of an absolute-form target "http://host/path?query". */
static int absolute_path(struct http_request *r)
{
	struct http_parser_url u;
	struct http_slice s;

	http_parser_url_init(&u);
	if (http_parser_parse_url(r->target.p, r->target.n, 0, &u) ||
	    !(u.field_set & (1 << UF_SCHEMA)) ||
	    !(u.field_set & (1 << UF_HOST)) ||
	    (u.field_set & (1 << UF_USERINFO)))
		return bad(r, 400, "bad absolute-form target");
	s = (struct http_slice){ r->target.p + u.field_data[UF_SCHEMA].off,
				 u.field_data[UF_SCHEMA].len };
	if (!field_is(&s, "http") && !field_is(&s, "https"))
		return bad(r, 400, "not an http URI");
	if (u.field_set & (1 << UF_PATH))
		r->path_raw = (struct http_slice){
			r->target.p + u.field_data[UF_PATH].off,
			u.field_data[UF_PATH].len };
	else
		r->path_raw = (struct http_slice){ "/", 1 };
	return 0;
}

/* The target of a GET or HEAD: origin-form or absolute-form. */
static int target_path(struct http_request *r)
{
	const char *q;
	int ret;

	if (!r->target.n || !target_chars_ok(r->target))
		return bad(r, 400, "invalid character in the target");
	if (r->target.p[0] == '/') {
		q = memchr(r->target.p, '?', r->target.n);
		r->path_raw = (struct http_slice){ r->target.p,
			q ? (size_t)(q - r->target.p) : r->target.n };
	} else if (r->target.n == 1 && r->target.p[0] == '*') {
		return bad(r, 400, "asterisk-form is for OPTIONS");
	} else if (absolute_path(r)) {
		return r->status;
	}
	ret = http_decode_path(r->path_raw.p + 1, r->path_raw.n - 1,
			       r->path, sizeof(r->path));
	if (ret)
		return bad(r, ret, ret == 414 ? "path too long" : "bad path");
	r->slash = r->path_raw.p[r->path_raw.n - 1] == '/';
	return 0;
}

static int hexval(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	if (isxdigit((unsigned char)c))
		return tolower((unsigned char)c) - 'a' + 10;
	return -1;
}

/* A ".." segment of @p (n bytes, decoded). */
static bool dotdot(const char *p, size_t n)
{
	size_t i, seg = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && p[i] != '/')
			continue;
		if (i - seg == 2 && p[seg] == '.' && p[seg + 1] == '.')
			return true;
		seg = i + 1;
	}
	return false;
}

int http_decode_path(const char *in, size_t n, char *out, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++, o++) {
		char c = in[i];

		if (o + 2 > size)
			return 414;
		if (c == '%') {
			int hi, lo;

			if (i + 2 >= n)
				return 400;
			hi = hexval(in[i + 1]);
			lo = hexval(in[i + 2]);
			if (hi < 0 || lo < 0)
				return 400;
			c = hi << 4 | lo;
			i += 2;
		}
		/* NUL, control bytes and DEL, raw or decoded; a backslash */
		if ((unsigned char)c < 0x20 || c == 0x7f || c == '\\')
			return 400;
		out[o] = c;
	}
	if (dotdot(out, o))
		return 400;
	if (!o)
		out[o++] = '.';
	out[o] = '\0';
	return 0;
}

/* --- http_parse ----------------------------------------------------------- */

/* Limits and framing: 0 with *end set, or the status (414, 431), or -1
 * when more bytes are needed. */
static int frame(const char *buf, size_t len, size_t start,
		 const struct http_limits *lim, size_t *line_end,
		 size_t *end)
{
	const char *lf = memchr(buf + start, '\n', len - start);

	if (!lf)
		return len - start > lim->line_max ? 414 : -1;
	*line_end = lf - buf;
	if (*line_end - start - (lf > buf + start && lf[-1] == '\r') >
	    lim->line_max)
		return 414;
	*end = find_head_end(buf, *line_end, len);
	if (!*end)
		return len - *line_end > lim->header_max + 2 ? 431 : -1;
	if (*end - *line_end > lim->header_max + 2)
		return 431;
	return 0;
}

static void run_parser(struct http_request *r, const char *head, size_t n)
{
	http_parser hp;
	enum http_errno e;

	/* a global of the library: our limits, not its 80 KiB, apply */
	http_parser_set_max_header_size(r->lim->line_max +
					r->lim->header_max + 64);
	http_parser_init(&hp, HTTP_REQUEST);
	hp.data = r;
	http_parser_execute(&hp, &parser_settings, head, n);
	e = HTTP_PARSER_ERRNO(&hp);
	if (r->status || e == HPE_PAUSED)
		return;
	if (e == HPE_INVALID_METHOD)
		bad(r, method_error(&r->line), "unknown method");
	else if (e == HPE_HEADER_OVERFLOW)
		bad(r, 431, "header too large");
	else
		bad(r, 400, e == HPE_OK ? "incomplete request" :
		     http_errno_description(e));
}

size_t http_parse(struct http_request *r, const char *buf, size_t len,
		  const struct http_limits *lim)
{
	size_t start = skip_empty_lines(buf, len), line_end = 0, end = 0;
	const char *why;
	int ret;

	memset(r, 0, sizeof(*r));
	r->lim = lim;
	r->method = -1;
	if (start > EMPTY_LINES_MAX) {
		bad(r, 400, "empty lines instead of a request");
		return start;
	}
	ret = frame(buf, len, start, lim, &line_end, &end);
	if (ret < 0)
		return 0;
	r->line.p = buf + start;
	r->line.n = (ret == 414 ? len : line_end) - start;
	if (r->line.n && r->line.p[r->line.n - 1] == '\r')
		r->line.n--;
	if (ret) {
		bad(r, ret, ret == 414 ? "request line too long" :
		    "header section too large");
		return len;
	}
	why = raw_check(buf + start, end - start);
	if (why) {
		bad(r, 400, why);
		return end;
	}
	run_parser(r, buf + start, end - start);
	if (!r->status)
		target_path(r);
	return end;
}

/* --- conditionals, ranges, dates ------------------------------------------ */

void http_etag(char *buf, size_t size, const struct stat *st)
{
	snprintf(buf, size, "\"%" PRIx64 "-%" PRIx64 "-%" PRIx64 ".%lx\"",
		 (uint64_t)st->st_ino, (uint64_t)st->st_size,
		 (uint64_t)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

/* The next entity-tag of a list at *p: its opaque-tag (quotes included). */
static bool next_etag(const char **p, const char *end, struct http_slice *tag)
{
	const char *s = *p, *q;

	while (s < end && (*s == ' ' || *s == '\t' || *s == ','))
		s++;
	if (s == end)
		return false;
	if (end - s > 2 && s[0] == 'W' && s[1] == '/')
		s += 2;
	if (*s != '"')
		return false;
	q = memchr(s + 1, '"', end - s - 1);
	if (!q)
		return false;
	*tag = (struct http_slice){ s, q + 1 - s };
	*p = q + 1;
	return true;
}

bool http_etag_match(struct http_slice list, const char *etag)
{
	const char *p = list.p, *end = list.p + list.n;
	struct http_slice tag;

	if (list.n == 1 && *p == '*')
		return true;
	while (next_etag(&p, end, &tag))
		if (tag.n == strlen(etag) && !memcmp(tag.p, etag, tag.n))
			return true;
	return false;
}

void http_date(char *buf, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, HTTP_DATE_LEN, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

int http_date_parse(struct http_slice s, time_t *t)
{
	static const char *forms[] = {
		"%a, %d %b %Y %H:%M:%S GMT",	/* IMF-fixdate */
		"%A, %d-%b-%y %H:%M:%S GMT",	/* RFC 850 */
		"%a %b %e %H:%M:%S %Y",		/* asctime */
	};
	char buf[64];
	struct tm tm;
	size_t i;

	if (s.n >= sizeof(buf))
		return -1;
	memcpy(buf, s.p, s.n);
	buf[s.n] = '\0';
	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		const char *end;

		memset(&tm, 0, sizeof(tm));
		end = strptime(buf, forms[i], &tm);
		if (end && !*end) {
			*t = timegm(&tm);
			return 0;
		}
	}
	return -1;
}

static bool if_range_ok(const struct http_request *r, const char *etag,
			time_t mtime)
{
	struct http_slice v = r->if_range;
	time_t t;

	if (!v.p)
		return true;
	if (v.n && v.p[0] == '"')	/* strong comparison */
		return v.n == strlen(etag) && !memcmp(v.p, etag, v.n);
	if (v.n > 1 && v.p[0] == 'W' && v.p[1] == '/')
		return false;
	return !http_date_parse(v, &t) && t == mtime;
}

int http_conditional(const struct http_request *r, const char *etag,
		     time_t mtime, bool *range_ok)
{
	time_t t;

	*range_ok = if_range_ok(r, etag, mtime);
	if (r->if_none_match.p)
		return http_etag_match(r->if_none_match, etag) ? 304 : 0;
	if (r->if_modified_since.p &&
	    !http_date_parse(r->if_modified_since, &t) &&
	    t <= time(NULL) && mtime <= t)
		return 304;
	return 0;
}

/* Digits at *p as a number; false if none or on overflow. */
static bool range_num(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	while (*p < end && isdigit((unsigned char)**p)) {
		if (*v > (UINT64_MAX - (**p - '0')) / 10)
			return false;
		*v = *v * 10 + (*(*p)++ - '0');
	}
	return *p > s;
}

/* One range-spec of [p, end) (no list): OK, UNSATISFIABLE or NONE. */
static enum http_range range_spec(const char *p, const char *end,
				  uint64_t size, uint64_t *first, uint64_t *len)
{
	bool has_first, has_last;
	uint64_t a, b;

	has_first = range_num(&p, end, &a);
	if (!has_first && p < end && isdigit((unsigned char)*p))
		return a >= size ? RANGE_UNSATISFIABLE : RANGE_NONE;
	if (p == end || *p++ != '-')
		return RANGE_NONE;
	has_last = range_num(&p, end, &b);
	if (p != end || (!has_first && !has_last) ||
	    (has_first && has_last && b < a))
		return RANGE_NONE;
	if (!has_first) {	/* suffix: the last b bytes */
		if (!b)
			return RANGE_UNSATISFIABLE;
		if (!size)
			return RANGE_NONE;
		*len = b < size ? b : size;
		*first = size - *len;
		return RANGE_OK;
	}
	if (a >= size)
		return RANGE_UNSATISFIABLE;
	*first = a;
	*len = (has_last && b < size - 1 ? b + 1 : size) - a;
	return RANGE_OK;
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static int range_cmp(const void *a, const void *b)
{
	const struct http_byte_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

enum http_range http_ranges_parse(struct http_slice h, uint64_t size,
				  struct http_byte_range *out, unsigned int max,
				  unsigned int *n)
{
	const char *p, *end, *e;
	struct http_byte_range sorted[HTTP_RANGES_MAX];
	unsigned int specs = 0, i;

	*n = 0;
	if (max > HTTP_RANGES_MAX)
		max = HTTP_RANGES_MAX;
	/* (no field: h.p is NULL, and no offset may be added to it) */
	if (!max || h.n < 7 || strncasecmp(h.p, "bytes=", 6) ||
	    is_ows(h.p[6]))
		return RANGE_NONE;	/* off, or another unit */
	p = h.p + 6;
	end = h.p + h.n;
	/* 1#range-spec: OWS around commas, empty elements ignored */
	while (p < end) {
		uint64_t first, len;

		if (*p == ',' || is_ows(*p)) {
			p++;
			continue;
		}
		e = memchr(p, ',', end - p);
		if (!e)
			e = end;
		h.n = e - p;
		while (h.n && is_ows(p[h.n - 1]))
			h.n--;
		if (++specs > max)
			return RANGE_NONE;	/* nginx's max_ranges */
		switch (range_spec(p, p + h.n, size, &first, &len)) {
		case RANGE_NONE:
			return RANGE_NONE;	/* a syntax error: no Range */
		case RANGE_UNSATISFIABLE:
			break;			/* left out */
		case RANGE_OK:
			out[*n].first = first;
			out[(*n)++].len = len;
			break;
		}
		p = e;
	}
	if (!specs)
		return RANGE_NONE;
	if (!*n)
		return RANGE_UNSATISFIABLE;
	/*
	 * Overlapping ranges ask for bytes twice: ignored, the whole file
	 * (RFC 9110, 14.2), as nginx answers those that add up to more than
	 * the file (a probe of the head and the tail of a small file)
	 */
	memcpy(sorted, out, *n * sizeof(*out));
	qsort(sorted, *n, sizeof(*sorted), range_cmp);
	for (i = 1; i < *n; i++)
		if (sorted[i].first < sorted[i - 1].first + sorted[i - 1].len) {
			*n = 0;
			return RANGE_NONE;
		}
	return RANGE_OK;
}

size_t http_part_head(char *buf, size_t size, const char *boundary,
		      const char *type, uint64_t first, uint64_t len,
		      uint64_t total)
{
	int n = snprintf(buf, size, "\r\n--%s\r\nContent-Type: %s\r\n"
			 "Content-Range: bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64
			 "\r\n\r\n", boundary, type, first, first + len - 1,
			 total);

	return n > 0 && (!buf || (size_t)n < size) ? (size_t)n : 0;
}

size_t http_parts_end(char *buf, size_t size, const char *boundary)
{
	int n = snprintf(buf, size, "\r\n--%s--\r\n", boundary);

	return n > 0 && (!buf || (size_t)n < size) ? (size_t)n : 0;
}

/* --- content types and responses ------------------------------------------ */

const char *http_content_type(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ "html", "text/html; charset=utf-8" },
		{ "htm", "text/html; charset=utf-8" },
		{ "txt", "text/plain; charset=utf-8" },
		{ "css", "text/css" },
		{ "js", "text/javascript" },
		{ "json", "application/json" },
		{ "xml", "application/xml" },
		{ "svg", "image/svg+xml" },
		{ "png", "image/png" },
		{ "jpg", "image/jpeg" },
		{ "jpeg", "image/jpeg" },
		{ "gif", "image/gif" },
		{ "webp", "image/webp" },
		{ "ico", "image/x-icon" },
		{ "pdf", "application/pdf" },
		{ "zip", "application/zip" },
		{ "gz", "application/gzip" },
		{ "tar", "application/x-tar" },
		{ "mp4", "video/mp4" },
		{ "webm", "video/webm" },
		{ "mp3", "audio/mpeg" },
		{ "wasm", "application/wasm" },
	};
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	size_t i;

	if (dot && (!slash || dot > slash))
		for (i = 0; i < ARRAY_SIZE(types); i++)
			if (!strcasecmp(dot + 1, types[i].ext))
				return types[i].type;
	return "application/octet-stream";
}

const char *http_reason(int status)
{
	return http_status_str(status);
}

struct head_buf {
	char *p;
	size_t size, len;
	bool full;
};

static void __printf(2, 3) put(struct head_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->size - b->len)
		b->full = true;
	else
		b->len += n;
}

static void put_length(struct head_buf *b, const struct http_resp *h)
{
	if (h->status == 206 && !h->multipart)
		put(b, "Content-Range: bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64
		    "\r\n", h->first, h->first + h->length - 1, h->total);
	else if (h->status == 416)
		put(b, "Content-Range: bytes */%" PRIu64 "\r\n", h->total);
	if (!h->no_length)
		put(b, "Content-Length: %" PRIu64 "\r\n", h->length);
}

size_t http_format_head(char *buf, size_t size, const struct http_resp *h)
{
	struct head_buf b = { buf, size, 0, false };

	put(&b, "HTTP/1.1 %d %s\r\nServer: pmem-zc\r\nDate: %s\r\n",
	    h->status, http_reason(h->status), h->date);
	if (h->type)
		put(&b, "Content-Type: %s\r\n", h->type);
	put_length(&b, h);
	if (h->etag)
		put(&b, "ETag: %s\r\n%s", h->etag,
		    h->ranges_off ? "" : "Accept-Ranges: bytes\r\n");
	if (h->last_modified)
		put(&b, "Last-Modified: %s\r\n", h->last_modified);
	if (h->location)
		put(&b, "Location: %s\r\n", h->location);
	if (h->status == 405)
		put(&b, "Allow: GET, HEAD\r\n");
	if (h->close)
		put(&b, "Connection: close\r\n");
	else if (h->keep_alive)
		put(&b, "Connection: keep-alive\r\n");
	put(&b, "\r\n");
	return b.full ? 0 : b.len;
}

size_t http_error_body(char *buf, size_t size, int status)
{
	int n = snprintf(buf, size, "%d %s\n", status, http_reason(status));

	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}
