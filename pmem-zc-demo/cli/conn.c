// SPDX-License-Identifier: GPL-2.0
/*
 * conn: one HTTP connection of serve (see serve.h). A request head is
 * read whole, parsed, and answered; responses on a connection go one at a
 * time, the next request read once the previous response is complete,
 * which for a zero-copy body means once every send of it has completed.
 *
 * The head goes out with send(MSG_MORE); the body of a file with
 * PMEM_ZC_IOC_SEND (PMEM_ZC_F_DONTWAIT, up to cfg->inflight sends in
 * flight), or with sendfile() under --copy, for a file that is not DAX
 * (statx), or when the module cannot send that file (ENODEV, EOPNOTSUPP,
 * ETXTBSY, EPERM). Each send's
 * user_data names the connection (slot and id) and the response (seq).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>

#include "net.h"
#include "serve.h"

#define OUT_EXTRA	1024	/* response head and error body, but Location */
#define LINGER_S	2.0	/* reading what a client still sends after a
				 * Connection: close answer */
#define EBUSY_WAIT	(-EBUSY)	/* wait for completions */
#define PART_COPY_MAX	2048	/* bytes of a part sent with its header */

static uint64_t user_data(struct server *s, struct conn *c)
{
	return (uint64_t)c->id << 32 | (uint64_t)c->seq << 16 |
	       (uint64_t)(c - s->conns);
}

static void conn_free(struct server *s, struct conn *c)
{
	if (c->reject)
		s->rejecting--;
	free(c->in);
	c->in = NULL;
	c->state = C_FREE;
	s->used--;
}

static void conn_close(struct server *s, struct conn *c)
{
	if (c->file.fd >= 0)
		close(c->file.fd);
	c->file.fd = -1;
	if (c->counted)
		s->active--;
	c->counted = false;
	if (c->pending)
		s->pending--;
	c->pending = c->wait_room = false;
	close(c->fd);	/* leaves the epoll set */
	c->fd = -1;
	if (c->inflight)
		c->state = C_ZOMBIE;
	else
		conn_free(s, c);
}

void conn_start(struct server *s, struct conn *c, int fd,
		const struct sockaddr_storage *peer, bool reject)
{
	const struct http_limits *lim = &s->cfg->lim;
	int one = 1;

	size_t roff;

	memset(c, 0, sizeof(*c));
	c->in_size = lim->line_max + lim->header_max + 64;
	c->out_size = lim->line_max + OUT_EXTRA;
	roff = (c->in_size + c->out_size + 7) & ~(size_t)7;
	c->in = malloc(roff + s->cfg->max_ranges * sizeof(*c->ranges));
	if (!c->in) {
		close(fd);
		s->refused++;
		return;
	}
	c->out = c->in + c->in_size;
	c->ranges = (struct http_byte_range *)(c->in + roff);
	c->fd = fd;
	c->id = ++s->next_id;
	c->peer = *peer;
	c->reject = reject;
	s->rejecting += reject;
	c->counted = !reject;
	c->file.fd = -1;
	net_addr_str(peer, false, c->host, sizeof(c->host));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->state = C_READ;
	c->deadline = serve_now() + s->cfg->header_ms / 1e3;
	s->used++;
	s->active += c->counted;
	if (serve_add(s, c))
		conn_close(s, c);
}

static void conn_log(struct server *s, struct conn *c)
{
	struct log_entry e = {
		.host = c->host,
		.when = time(NULL),
		.request = c->req.line,
		.referer = c->req.referer,
		.user_agent = c->req.user_agent,
		.status = c->status,
		.bytes = c->bytes,
		.by_ref = c->by_ref,
		.copied = c->copied,
	};

	log_write(s->log, &e);
	s->tot->requests++;
	s->tot->bytes += c->bytes;
	s->tot->by_ref += c->by_ref;
	s->tot->copied += c->copied;
	c->resp = false;
	serve_logged(s);
}

/* Cut the connection: a response under way is logged as it stands. */
static void conn_abort(struct server *s, struct conn *c)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (c->inflight)	/* a reset frees the pages at once */
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (c->resp)
		conn_log(s, c);
	conn_close(s, c);
}

static void conn_linger(struct server *s, struct conn *c)
{
	shutdown(c->fd, SHUT_WR);
	c->state = C_LINGER;
	c->deadline = serve_now() + LINGER_S;
	serve_watch(s, c, EPOLLIN);
}

/* The response is complete: log it, then the next request or the end. */
static void conn_done(struct server *s, struct conn *c)
{
	if (c->file.fd >= 0)
		close(c->file.fd);
	c->file.fd = -1;
	conn_log(s, c);
	if (c->close_after) {
		conn_linger(s, c);
		return;
	}
	c->in_len -= c->consumed;
	memmove(c->in, c->in + c->consumed, c->in_len);
	c->consumed = 0;
	c->state = C_READ;
	c->deadline = serve_now() + (c->in_len ? s->cfg->header_ms :
				     s->cfg->idle_ms) / 1e3;
	/*
	 * Bytes of the client's are buffered: parsed from the event loop
	 * (no recursion), and the socket read only if they are not a whole
	 * request. A FIN after pipelined requests is then seen once every
	 * request before it has been answered, as nginx answers them.
	 */
	serve_watch(s, c, c->in_len ? 0 : EPOLLIN);
	if (c->in_len) {
		c->pending = true;
		s->pending++;
	}
}

/* --- sending -------------------------------------------------------------- */

static void progress(struct server *s, struct conn *c)
{
	c->deadline = serve_now() + s->cfg->send_ms / 1e3;
}

static int send_head(struct server *s, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL |
				 MSG_DONTWAIT | (c->pos < c->end ||
				 c->parts.part < c->parts.n ? MSG_MORE : 0));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		c->out_off += n;
		progress(s, c);
	}
	return 0;
}

static int send_copy(struct server *s, struct conn *c)
{
	uint64_t n = c->end - c->pos;
	off_t off = c->pos;
	ssize_t r;

	r = sendfile(c->fd, c->file.fd, &off, n < s->cfg->chunk ? n :
		     s->cfg->chunk);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (!r)
		return -EIO;	/* the file shrank */
	c->pos += r;
	c->bytes += r;
	c->copied += r;
	progress(s, c);
	return 0;
}

/* ENOBUFS: wait for completions, or copy when none of ours can come. */
static int no_room(struct server *s, struct conn *c)
{
	if (c->inflight)
		return EBUSY_WAIT;
	if (s->inflight) {
		c->wait_room = true;
		return EBUSY_WAIT;
	}
	c->by_copy = true;	/* the cap is held by other processes */
	return 0;
}

/* What the module said of a send that queued nothing. */
static int send_refused(struct server *s, struct conn *c, int err)
{
	switch (err) {
	case EINTR:
		return 0;
	case ENOBUFS:
		return no_room(s, c);
	case ENODEV:		/* not on a prd disk */
	case EOPNOTSUPP:	/* blocks that cannot be mapped */
	case ETXTBSY:		/* open for writing */
	case EPERM:		/* not ours */
		c->by_copy = true;
		return 0;
	default:
		return -err;
	}
}

static int send_zc(struct server *s, struct conn *c)
{
	uint64_t n = c->end - c->pos;
	struct pmem_zc_send a = {
		.flags = PMEM_ZC_F_DONTWAIT,
		.src_fd = c->file.fd,
		.sock_fd = c->fd,
		.offset = c->pos,
		.length = n < s->cfg->chunk ? n : s->cfg->chunk,
		.user_data = user_data(s, c),
	};
	int ret;

	if (c->inflight >= s->cfg->inflight)
		return EBUSY_WAIT;
	if (a.length < n)
		a.flags |= PMEM_ZC_F_MORE;
	ret = xfer_send(s->x, &a);
	if (ret)
		return send_refused(s, c, -ret);
	c->inflight++;
	s->inflight++;
	c->pos += a.bytes_queued;
	c->bytes += a.bytes_queued;
	progress(s, c);
	if (a.error == ENOBUFS)
		return no_room(s, c);
	return a.error == EINTR ? 0 : -a.error;
}

static int send_body(struct server *s, struct conn *c)
{
	int ret = 0;

	while (c->pos < c->end && !ret)
		ret = c->by_copy ? send_copy(s, c) : send_zc(s, c);
	return ret;
}

/*
 * Part @i of a multipart/byteranges body at @buf (@room bytes): its
 * delimiter and header, then, for a part of at most PART_COPY_MAX bytes
 * that fits, its bytes read from the file (cheaper than a send and a
 * completion each: a client asking for many small ranges gets one send
 * per part, counted as copied); pos..end the bytes left to send by
 * reference. The bytes at @buf, or 0 when they do not fit, or the file
 * shrank under the part.
 */
static size_t load_part(struct conn *c, unsigned int i, char *buf,
			size_t room)
{
	const struct conn_parts *pt = &c->parts;
	const struct http_byte_range *r = &c->ranges[i];
	size_t n = http_part_head(buf, room, pt->boundary, pt->type, r->first,
				  r->len, pt->total);

	if (!n)
		return 0;
	c->bytes += n;		/* not a file's: neither by_ref nor copied */
	c->pos = r->first;
	c->end = r->first + r->len;
	if (r->len <= PART_COPY_MAX && r->len <= room - n) {
		ssize_t got = pread(c->file.fd, buf + n, r->len, r->first);

		if (got != (ssize_t)r->len)
			return 0;
		c->pos = c->end;
		c->bytes += r->len;
		c->copied += r->len;
		n += r->len;
	}
	return n;
}

/*
 * After a part's bytes: the next part into c->out and pos..end, or the
 * close delimiter after the last. 1 when there is more to send, 0 when
 * not, -EIO when it could not be made (the response is cut).
 */
static int next_part(struct conn *c)
{
	struct conn_parts *pt = &c->parts;

	if (pt->part >= pt->n)
		return 0;
	if (++pt->part < pt->n) {
		c->out_len = load_part(c, pt->part, c->out, c->out_size);
	} else {
		c->out_len = http_parts_end(c->out, c->out_size, pt->boundary);
		c->bytes += c->out_len;
	}
	c->out_off = 0;
	return c->out_len ? 1 : -EIO;
}

static void conn_write(struct server *s, struct conn *c)
{
	int ret;

	do {
		ret = send_head(s, c);
		if (!ret)
			ret = send_body(s, c);
	} while (!ret && (ret = next_part(c)) > 0);
	if (ret == -EAGAIN) {
		serve_watch(s, c, EPOLLOUT);
	} else if (ret == EBUSY_WAIT || (!ret && c->inflight)) {
		serve_watch(s, c, 0);	/* completions wake us */
	} else if (ret) {
		conn_abort(s, c);
	} else {
		conn_done(s, c);
	}
}

/* --- answering ------------------------------------------------------------ */

/*
 * Several ranges: 206 multipart/byteranges, each part's body by reference
 * as a single range's (next_part() sends the parts after the first).
 */
static int answer_parts(struct server *s, struct conn *c,
			struct http_resp *h, unsigned int n)
{
	struct conn_parts *pt = &c->parts;
	const struct http_byte_range *r = c->ranges;
	uint64_t len = 0;
	unsigned int i;

	pt->n = n;
	pt->total = c->file.st.st_size;
	pt->type = h->type;
	snprintf(pt->boundary, sizeof(pt->boundary), "%016" PRIx64,
		 s->boundary++);
	snprintf(pt->ctype, sizeof(pt->ctype),
		 "multipart/byteranges; boundary=%s", pt->boundary);
	for (i = 0; i < n; i++)
		len += http_part_head(NULL, 0, pt->boundary, pt->type,
				      r[i].first, r[i].len, pt->total) +
		       r[i].len;
	h->type = pt->ctype;
	h->length = len + http_parts_end(NULL, 0, pt->boundary);
	h->multipart = true;
	return 206;
}

/* A file's response: 200, 206, 304, 416, or the status of opening it. */
static int answer_file(struct server *s, struct conn *c, struct http_resp *h)
{
	const struct http_request *r = &c->req;
	uint64_t size, first = 0, len;
	unsigned int n = 0;
	bool range_ok;
	int st;

	st = files_open(s->cfg->root_fd, r->path, r->slash, s->cfg->index,
			&c->file);
	if (st)
		return st;
	size = c->file.st.st_size;
	http_etag(c->etag, sizeof(c->etag), &c->file.st);
	http_date(c->mtime, c->file.st.st_mtime);
	h->etag = c->etag;
	h->ranges_off = !s->cfg->max_ranges;
	h->last_modified = c->mtime;
	h->total = size;
	len = size;
	st = http_conditional(r, c->etag, c->file.st.st_mtime, &range_ok);
	if (!st && !r->head && r->range.p && range_ok)
		switch (http_ranges_parse(r->range, size, c->ranges,
					  s->cfg->max_ranges, &n)) {
		case RANGE_OK:
			st = 206;
			break;
		case RANGE_UNSATISFIABLE:
			st = 416;
			break;
		case RANGE_NONE:
			n = 0;
			break;
		}
	if (st == 304 || st == 416)
		return st;
	h->type = http_content_type(c->file.name);
	if (n > 1)
		return answer_parts(s, c, h, n);
	if (n) {
		first = c->ranges[0].first;
		len = c->ranges[0].len;
	}
	h->length = len;
	h->first = first;
	if (!r->head) {
		c->pos = first;
		c->end = first + len;
	}
	return st ? st : 200;
}

/* The head, and the short body of an error, into c->out. */
static int format_answer(struct server *s, struct conn *c, struct http_resp *h)
{
	char body[128], loc[HTTP_PATH_MAX * 2];
	size_t blen = 0, n;

	h->status = c->status;
	h->close = c->close_after;
	h->keep_alive = !h->close && c->req.major == 1 && !c->req.minor;
	h->date = s->date;
	if (c->status == 304) {
		h->no_length = true;
	} else if (c->status >= 300 && c->status != 206) {
		blen = http_error_body(body, sizeof(body), c->status);
		h->type = "text/plain; charset=utf-8";
		h->length = blen;
	}
	if (c->status == 301) {
		snprintf(loc, sizeof(loc), "%.*s/", (int)c->req.path_raw.n,
			 c->req.path_raw.p);
		h->location = loc;
	}
	n = http_format_head(c->out, c->out_size - blen, h);
	if (!n)
		return -ENOSPC;
	if (!c->req.head) {
		memcpy(c->out + n, body, blen);
		n += blen;
		c->bytes += blen;	/* not a file's: neither by_ref nor copied */
	}
	if (c->parts.n) {	/* the first part, after the head */
		blen = load_part(c, 0, c->out + n, c->out_size - n);
		if (!blen)
			return -ENOSPC;
		n += blen;
	}
	c->out_len = n;
	return 0;
}

static void conn_answer(struct server *s, struct conn *c)
{
	struct http_resp h = {};
	time_t now = time(NULL);

	if (now != s->date_t) {
		s->date_t = now;
		http_date(s->date, now);
	}
	c->resp = true;
	c->seq++;
	c->bytes = c->by_ref = c->copied = 0;
	c->pos = c->end = c->out_off = 0;
	memset(&c->parts, 0, sizeof(c->parts));
	c->by_copy = s->cfg->copy;
	c->close_after = c->req.status || c->reject || !c->req.keep_alive ||
			 s->stopping;
	c->status = c->reject ? 503 : c->req.status;
	if (!c->status)
		c->status = answer_file(s, c, &h);
	if (c->status == 301 && c->req.path_raw.n >= HTTP_PATH_MAX * 2 - 1)
		c->status = 414;
	if (c->status != 200 && c->status != 206 && c->file.fd >= 0) {
		close(c->file.fd);
		c->file.fd = -1;
	}
	/* a file the module cannot send (not DAX): sendfile() from the start */
	if (!c->by_copy && c->file.fd >= 0 && s->x &&
	    !xfer_file_is_source(s->x, c->file.fd))
		c->by_copy = true;
	c->state = C_WRITE;
	progress(s, c);
	if (format_answer(s, c, &h))
		conn_abort(s, c);
	else
		conn_write(s, c);
}

/* --- reading -------------------------------------------------------------- */

void conn_parse(struct server *s, struct conn *c)
{
	if (c->pending)
		s->pending--;
	c->pending = false;
	/* answered meanwhile (a 408 of the timer) */
	if (c->state != C_READ || !c->in_len)
		return;
	c->consumed = http_parse(&c->req, c->in, c->in_len, &s->cfg->lim);
	if (c->consumed)
		conn_answer(s, c);
	else			/* not a whole request yet */
		serve_watch(s, c, EPOLLIN);
}

static void conn_read(struct server *s, struct conn *c)
{
	size_t was = c->in_len;
	ssize_t n;

	if (c->in_len == c->in_size) {	/* http_parse() says 414/431 first */
		conn_close(s, c);
		return;
	}
	do {
		n = recv(c->fd, c->in + c->in_len, c->in_size - c->in_len, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {		/* closed, or reset, before a request */
		conn_close(s, c);
		return;
	}
	c->in_len += n;
	/*
	 * A later request on a kept-alive connection starts: from its first
	 * byte it has header_ms to arrive (the first request's header_ms
	 * runs from the accept, and a byte does not restart it)
	 */
	if (!was && c->seq && !c->reject)
		c->deadline = serve_now() + s->cfg->header_ms / 1e3;
	conn_parse(s, c);
}

static void conn_drain(struct server *s, struct conn *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(s, c);
}

void conn_event(struct server *s, struct conn *c, uint32_t events)
{
	switch (c->state) {
	case C_READ:
		conn_read(s, c);
		break;
	case C_WRITE:
		if (events & (EPOLLERR | EPOLLHUP))
			conn_abort(s, c);
		else
			conn_write(s, c);
		break;
	case C_LINGER:
		conn_drain(s, c);
		break;
	default:
		break;
	}
}

void conn_completion(struct server *s, const struct pmem_zc_completion *d)
{
	unsigned int slot = d->user_data & 0xffff;
	struct conn *c = &s->conns[slot];

	if (slot >= s->nslots || c->state == C_FREE || !c->inflight ||
	    c->id != d->user_data >> 32 ||
	    c->seq != ((d->user_data >> 16) & 0xffff)) {
		s->stale++;
		return;
	}
	c->inflight--;
	s->inflight--;
	c->by_ref += d->bytes_ref;
	c->copied += d->bytes_copied;
	if (c->state == C_ZOMBIE) {
		s->tot->by_ref += d->bytes_ref;
		s->tot->copied += d->bytes_copied;
		if (!c->inflight)
			conn_free(s, c);
	} else if (c->state == C_WRITE) {
		progress(s, c);		/* the client acknowledged data */
		conn_write(s, c);
	}
}

void conn_room(struct server *s)
{
	unsigned int i;

	for (i = 0; i < s->nslots; i++) {
		struct conn *c = &s->conns[i];

		if (c->state == C_WRITE && c->wait_room) {
			c->wait_room = false;
			conn_write(s, c);
		}
	}
}

void conn_timeout(struct server *s, struct conn *c)
{
	switch (c->state) {
	case C_READ:
		if (!c->in_len) {	/* idle: close quietly */
			conn_close(s, c);
			break;
		}
		memset(&c->req, 0, sizeof(c->req));
		c->req.status = 408;
		c->consumed = c->in_len;
		conn_answer(s, c);
		break;
	case C_WRITE:
		conn_abort(s, c);
		break;
	case C_LINGER:
		conn_close(s, c);
		break;
	default:
		break;
	}
}

void conn_stop(struct server *s, struct conn *c)
{
	if (c->state == C_READ && !c->in_len)
		conn_close(s, c);
	else if (c->state == C_WRITE)
		c->close_after = true;
}
