// SPDX-License-Identifier: GPL-2.0
/*
 * conn: one HTTP connection of serve, from conn_start() to conn_destroy()
 * (conn.h: what it shares with serve.c, which owns the slots). A request
 * head is read whole, parsed, and answered; responses on a connection go
 * one at a time, the next request read once the previous response is
 * complete, which for a zero-copy body means once every send of it has
 * completed. What one response needs is struct conn_resp, made anew for
 * each.
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
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/sendfile.h>

#include "conn.h"
#include "fcache.h"
#include "files.h"
#include "msg.h"
#include "net.h"
#include "report.h"
#include "serve.h"
#include "xfer.h"

#define OUT_EXTRA	1024	/* response head and error body, but Location */
#define LINGER_S	2.0	/* reading what a client still sends after a
				 * Connection: close answer */
#define REJECT_S	2	/* a 503's request must have come by then */
#define EBUSY_WAIT	(-EBUSY)	/* wait for completions */
#define PART_COPY_MAX	2048	/* bytes of a part sent with its header */

enum conn_state {
	C_READ,		/* waiting for (the rest of) a request head */
	C_WRITE,	/* answering: head, body, completions */
	C_LINGER,	/* answered, write side shut: draining input */
	C_ZOMBIE,	/* fd closed, completions still due */
};

/* The parts of a multipart/byteranges body (n 0: one part, or none). */
struct conn_parts {
	unsigned int n, part;		/* part: the one being sent */
	uint64_t total;			/* the file's size */
	const char *type;		/* each part's Content-Type */
	char boundary[17];
	char ctype[64];			/* the response's Content-Type */
};

/* One response's: conn_answer() makes it anew, in one assignment. */
struct conn_resp {
	bool under_way;			/* not logged yet */
	bool close_after;
	bool by_copy;			/* the body goes by sendfile() */
	bool wait_room;			/* ENOBUFS, nothing of ours in flight */
	bool acked;			/* the last completion: by reference */
	int status;
	struct file_ref file;		/* closed before the next one */
	size_t out_len, out_off;	/* the head (or a part's) in c->out */
	uint64_t pos, end;		/* body bytes of the file */
	struct conn_parts parts;
	uint64_t bytes, by_ref, copied;	/* what the access log says */
};

/*
 * The connection's, across its responses: a completion of a response is
 * matched by seq, inflight counts the sends of the response under way (of
 * the last one, in a zombie).
 */
struct conn {
	enum conn_state state;
	int fd;
	unsigned int slot;		/* serve.c's, in user_data */
	uint32_t id;
	uint16_t seq;			/* response number, in user_data */
	bool reject;			/* over a limit: answer 503 */
	double deadline;
	char host[INET6_ADDRSTRLEN];
	char *in, *out;			/* after the struct, one allocation */
	size_t in_len, in_size, out_size, consumed;
	struct http_request req;
	struct http_byte_range *ranges;	/* max_ranges, after in and out */
	uint64_t inflight;		/* sends without completion */
	struct conn_resp r;		/* under way, or the last one */
};

static uint64_t user_data(const struct conn *c)
{
	return (uint64_t)c->id << 32 | (uint64_t)c->seq << 16 | c->slot;
}

static void watch(struct conn_env *e, struct conn *c, uint32_t events)
{
	serve_watch(e->srv, c->slot, c->fd, events);
}

static void close_file(struct conn *c)
{
	fcache_close(&c->r.file);
}

/* e->wait_room counts them: completions then try them again */
static void set_wait_room(struct conn_env *e, struct conn *c, bool on)
{
	if (c->r.wait_room == on)
		return;
	c->r.wait_room = on;
	if (on)
		e->wait_room++;
	else
		e->wait_room--;
}

/*
 * With sends in flight: a reset lets TCP drop their pages now, not at its
 * timeout.
 */
static void conn_reset(struct conn *c)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (c->fd >= 0 && c->inflight)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

static void conn_log(struct conn_env *e, struct conn *c);

/*
 * A response still under way (the worker ends with it past
 * --drain-timeout) is logged as it stands, as conn_abort() logs one.
 */
void conn_destroy(struct conn_env *e, struct conn *c)
{
	set_wait_room(e, c, false);
	if (c->r.under_way)
		conn_log(e, c);
	conn_reset(c);
	close_file(c);
	if (c->fd >= 0)
		close(c->fd);
	serve_release(e->srv, c->slot);
	free(c);
}

/* The socket is closed; a zombie waits for the completions still due. */
static void conn_close(struct conn_env *e, struct conn *c)
{
	if (!c->inflight) {
		conn_destroy(e, c);
		return;
	}
	close_file(c);
	close(c->fd);	/* leaves the epoll set */
	c->fd = -1;
	c->state = C_ZOMBIE;
	serve_uncount(e->srv, c->slot);
}

void conn_env_init(struct conn_env *e)
{
	/* multipart boundaries: unlike any other server's, or a worker's */
	if (getrandom(&e->boundary, sizeof(e->boundary), GRND_NONBLOCK) !=
	    sizeof(e->boundary))
		e->boundary = (uint64_t)time(NULL) << 20 ^ getpid();
}

struct conn *conn_start(struct conn_env *e, unsigned int slot, int fd,
			const struct sockaddr_storage *peer, bool reject)
{
	const struct http_limits *lim = &e->cfg->lim;
	size_t in_size = lim->line_max + lim->header_max + 64;
	size_t out_size = lim->line_max + OUT_EXTRA;
	size_t roff = (in_size + out_size + 7) & ~(size_t)7;
	struct conn *c;
	int one = 1;

	/* the buffers after the struct, whose size keeps them aligned */
	c = malloc(sizeof(*c) + roff +
		   e->cfg->max_ranges * sizeof(*c->ranges));
	if (!c)
		return NULL;
	*c = (struct conn){
		.state = C_READ,
		.fd = fd,
		.slot = slot,
		.id = ++e->next_id,
		.reject = reject,
		.deadline = now_mono() + (reject ? REJECT_S :
					  e->cfg->header_ms / 1e3),
		.in = (char *)(c + 1),
		.out = (char *)(c + 1) + in_size,
		.in_size = in_size,
		.out_size = out_size,
		.ranges = (struct http_byte_range *)((char *)(c + 1) + roff),
		.r.file.fd = -1,
	};
	net_addr_str(peer, false, c->host, sizeof(c->host));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return c;
}

static void conn_log(struct conn_env *e, struct conn *c)
{
	struct log_entry le = {
		.host = c->host,
		.when = time(NULL),
		.request = c->req.line,
		.referer = c->req.referer,
		.user_agent = c->req.user_agent,
		.status = c->r.status,
		.bytes = c->r.bytes,
		.by_ref = c->r.by_ref,
		.copied = c->r.copied,
	};

	log_write(e->log, &le);
	e->tot->requests++;
	e->tot->bytes += c->r.bytes;
	e->tot->by_ref += c->r.by_ref;
	e->tot->copied += c->r.copied;
	c->r.under_way = false;
	serve_logged(e->srv);
}

/* Cut the connection: a response under way is logged as it stands. */
static void conn_abort(struct conn_env *e, struct conn *c)
{
	conn_reset(c);
	if (c->r.under_way)
		conn_log(e, c);
	conn_close(e, c);
}

static void conn_linger(struct conn_env *e, struct conn *c)
{
	shutdown(c->fd, SHUT_WR);
	c->state = C_LINGER;
	c->deadline = now_mono() + LINGER_S;
	watch(e, c, EPOLLIN);
}

/*
 * A response whose last send completed by reference ended when the client
 * acknowledged its last bytes, and the client's next request has most
 * often come with that ACK: read it now, not after an epoll_ctl() and
 * another epoll_wait() (nothing read: the watch for input does the rest,
 * the end of input included). Not for a send the module or the stack
 * copied: that completion says nothing of the client.
 */
static void read_ahead(struct conn *c)
{
	ssize_t n;

	do {
		n = recv(c->fd, c->in, c->in_size, MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n > 0)
		c->in_len = n;
}

/* The response is complete: log it, then the next request or the end. */
static void conn_done(struct conn_env *e, struct conn *c)
{
	close_file(c);
	conn_log(e, c);
	if (c->r.close_after) {
		conn_linger(e, c);
		return;
	}
	c->in_len -= c->consumed;
	memmove(c->in, c->in + c->consumed, c->in_len);
	c->consumed = 0;
	if (!c->in_len && c->r.acked && !e->stopping &&
	    !serve_stop_asked(e->srv))
		read_ahead(c);
	c->state = C_READ;
	c->deadline = now_mono() + (c->in_len ? e->cfg->header_ms :
				     e->cfg->idle_ms) / 1e3;
	/*
	 * Bytes of the client's are buffered: parsed from the event loop
	 * (no recursion), and the socket read only if they are not a whole
	 * request. A FIN after pipelined requests is then seen once every
	 * request before it has been answered, as nginx answers them.
	 */
	watch(e, c, c->in_len ? 0 : EPOLLIN);
	if (c->in_len)
		serve_pending(e->srv, c->slot, true);
}

/* --- sending -------------------------------------------------------------- */

static void progress(struct conn_env *e, struct conn *c)
{
	c->deadline = now_mono() + e->cfg->send_ms / 1e3;
}

static int send_head(struct conn_env *e, struct conn *c)
{
	int flags = MSG_NOSIGNAL | MSG_DONTWAIT;

	if (c->r.pos < c->r.end || c->r.parts.part < c->r.parts.n)
		flags |= MSG_MORE;	/* body bytes follow */
	while (c->r.out_off < c->r.out_len) {
		ssize_t n = send(c->fd, c->out + c->r.out_off,
				 c->r.out_len - c->r.out_off, flags);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		c->r.out_off += n;
		progress(e, c);
	}
	return 0;
}

static int send_copy(struct conn_env *e, struct conn *c)
{
	uint64_t n = c->r.end - c->r.pos;
	off_t off = c->r.pos;
	ssize_t r;

	r = sendfile(c->fd, c->r.file.fd, &off, n < e->cfg->chunk ? n :
		     e->cfg->chunk);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (!r)
		return -EIO;	/* the file shrank */
	c->r.pos += r;
	c->r.bytes += r;
	c->r.copied += r;
	progress(e, c);
	return 0;
}

/* ENOBUFS: wait for completions, or copy when none of ours can come. */
static int no_room(struct conn_env *e, struct conn *c)
{
	if (c->inflight)
		return EBUSY_WAIT;
	if (e->inflight) {
		set_wait_room(e, c, true);
		return EBUSY_WAIT;
	}
	c->r.by_copy = true;	/* the cap is held by other processes */
	return 0;
}

/* What the module said of a send that queued nothing. */
static int send_refused(struct conn_env *e, struct conn *c, int err)
{
	switch (err) {
	case EINTR:
		return 0;
	case ENOBUFS:
		return no_room(e, c);
	case ENODEV:		/* not on a prd disk */
	case EOPNOTSUPP:	/* blocks that cannot be mapped */
	case ETXTBSY:		/* open for writing */
	case EPERM:		/* not ours */
		c->r.by_copy = true;
		return 0;
	default:
		return -err;
	}
}

static int send_zc(struct conn_env *e, struct conn *c)
{
	uint64_t n = c->r.end - c->r.pos;
	struct pmem_zc_send a = {
		.flags = PMEM_ZC_F_DONTWAIT,
		.src_fd = c->r.file.fd,
		.sock_fd = c->fd,
		.offset = c->r.pos,
		.length = n < e->cfg->chunk ? n : e->cfg->chunk,
		.user_data = user_data(c),
	};
	int ret;

	if (c->inflight >= e->cfg->inflight)
		return EBUSY_WAIT;
	if (a.length < n)
		a.flags |= PMEM_ZC_F_MORE;
	ret = xfer_send(e->x, &a);
	if (ret)
		return send_refused(e, c, -ret);
	c->inflight++;
	e->inflight++;
	c->r.pos += a.bytes_queued;
	c->r.bytes += a.bytes_queued;
	progress(e, c);
	if (a.error == ENOBUFS)
		return no_room(e, c);
	return a.error == EINTR ? 0 : -a.error;
}

static int send_body(struct conn_env *e, struct conn *c)
{
	int ret = 0;

	while (c->r.pos < c->r.end && !ret)
		ret = c->r.by_copy ? send_copy(e, c) : send_zc(e, c);
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
	const struct conn_parts *pt = &c->r.parts;
	const struct http_byte_range *br = &c->ranges[i];
	size_t n = http_part_head(buf, room, pt->boundary, pt->type, br->first,
				  br->len, pt->total);

	if (!n)
		return 0;
	c->r.bytes += n;	/* not a file's: neither by_ref nor copied */
	c->r.pos = br->first;
	c->r.end = br->first + br->len;
	if (br->len <= PART_COPY_MAX && br->len <= room - n) {
		ssize_t got = pread(c->r.file.fd, buf + n, br->len, br->first);

		if (got != (ssize_t)br->len)
			return 0;
		c->r.pos = c->r.end;
		c->r.bytes += br->len;
		c->r.copied += br->len;
		n += br->len;
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
	struct conn_parts *pt = &c->r.parts;

	if (pt->part >= pt->n)
		return 0;
	if (++pt->part < pt->n) {
		c->r.out_len = load_part(c, pt->part, c->out, c->out_size);
	} else {
		c->r.out_len = http_parts_end(c->out, c->out_size,
					      pt->boundary);
		c->r.bytes += c->r.out_len;
	}
	c->r.out_off = 0;
	return c->r.out_len ? 1 : -EIO;
}

static void conn_write(struct conn_env *e, struct conn *c)
{
	int ret;

	set_wait_room(e, c, false);	/* every call is a try */
	do {
		ret = send_head(e, c);
		if (!ret)
			ret = send_body(e, c);
	} while (!ret && (ret = next_part(c)) > 0);
	if (ret == -EAGAIN) {
		watch(e, c, EPOLLOUT);
	} else if (ret == EBUSY_WAIT || (!ret && c->inflight)) {
		watch(e, c, 0);	/* completions wake us */
	} else if (ret) {
		conn_abort(e, c);
	} else {
		conn_done(e, c);
	}
}

/* --- answering ------------------------------------------------------------ */

/*
 * Several ranges: 206 multipart/byteranges, each part's body by reference
 * as a single range's (next_part() sends the parts after the first).
 */
static int answer_parts(struct conn_env *e, struct conn *c,
			struct http_resp *h, unsigned int n)
{
	struct conn_parts *pt = &c->r.parts;
	const struct http_byte_range *br = c->ranges;
	uint64_t len = 0;
	unsigned int i;

	pt->n = n;
	pt->total = c->r.file.st.st_size;
	pt->type = h->type;
	snprintf(pt->boundary, sizeof(pt->boundary), "%016" PRIx64,
		 e->boundary++);
	snprintf(pt->ctype, sizeof(pt->ctype),
		 "multipart/byteranges; boundary=%s", pt->boundary);
	for (i = 0; i < n; i++)
		len += http_part_head(NULL, 0, pt->boundary, pt->type,
				      br[i].first, br[i].len, pt->total) +
		       br[i].len;
	h->type = pt->ctype;
	h->length = len + http_parts_end(NULL, 0, pt->boundary);
	h->multipart = true;
	return 206;
}

/*
 * A 500 of a file's open, said on stderr with its errno, as nginx's error
 * log says it: the response tells the client nothing, and the access
 * log's line names the request. At most a line a second, as a client may
 * ask for the same file again and again.
 */
static void open_error(int err)
{
	static double next;
	static unsigned long quiet;
	double now = now_mono();

	if (now < next) {
		quiet++;
		return;
	}
	next = now + 1;
	if (quiet)
		pr_err("opening a request's file: %s (answered 500; %lu more since the last such line)",
		       strerror(err), quiet);
	else
		pr_err("opening a request's file: %s (answered 500)",
		       strerror(err));
	quiet = 0;
}

/* A file's response: 200, 206, 304, 416, or the status of opening it. */
static int answer_file(struct conn_env *e, struct conn *c, struct http_resp *h)
{
	const struct http_request *req = &c->req;
	uint64_t size, first = 0, len;
	unsigned int n = 0;
	bool range_ok;
	int st;

	st = fcache_open(e->fc, e->cfg->root_fd, req->path, req->slash,
			 e->cfg->index, &c->r.file, now_mono());
	if (st == 500)
		open_error(c->r.file.err);
	if (st)
		return st;
	size = c->r.file.st.st_size;
	h->etag = c->r.file.etag;
	h->ranges_off = !e->cfg->max_ranges;
	h->last_modified = c->r.file.mtime;
	h->total = size;
	len = size;
	st = http_conditional(req, c->r.file.etag, c->r.file.st.st_mtime,
			      &range_ok);
	if (!st && !req->head && req->range.p && range_ok)
		switch (http_ranges_parse(req->range, size, c->ranges,
					  e->cfg->max_ranges, &n)) {
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
	h->type = http_content_type(c->r.file.name);
	if (n > 1)
		return answer_parts(e, c, h, n);
	if (n) {
		first = c->ranges[0].first;
		len = c->ranges[0].len;
	}
	h->length = len;
	h->first = first;
	if (!req->head) {
		c->r.pos = first;
		c->r.end = first + len;
	}
	return st ? st : 200;
}

/* The head, and the short body of an error, into c->out. */
static int format_answer(struct conn_env *e, struct conn *c,
			 struct http_resp *h)
{
	char body[128], loc[HTTP_PATH_MAX * 2];
	size_t blen = 0, n;

	h->status = c->r.status;
	h->close = c->r.close_after;
	h->keep_alive = !h->close && c->req.major == 1 && !c->req.minor;
	h->date = e->date;
	if (c->r.status == 304) {
		h->no_length = true;
	} else if (c->r.status >= 300 && c->r.status != 206) {
		blen = http_error_body(body, sizeof(body), c->r.status);
		h->type = "text/plain; charset=utf-8";
		h->length = blen;
	}
	if (c->r.status == 301) {
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
		c->r.bytes += blen;	/* neither by_ref nor copied */
	}
	if (c->r.parts.n) {	/* the first part, after the head */
		blen = load_part(c, 0, c->out + n, c->out_size - n);
		if (!blen)
			return -ENOSPC;
		n += blen;
	}
	c->r.out_len = n;
	return 0;
}

static void conn_answer(struct conn_env *e, struct conn *c)
{
	struct http_resp h = {};
	time_t now = time(NULL);

	if (now != e->date_t) {
		e->date_t = now;
		http_date(e->date, now);
	}
	close_file(c);	/* (closed at its end) before the reset forgets it */
	c->r = (struct conn_resp){
		.under_way = true,
		.close_after = c->req.status || c->reject ||
			       !c->req.keep_alive || e->stopping,
		.by_copy = e->cfg->copy,
		.status = c->reject ? 503 : c->req.status,
		.file.fd = -1,
	};
	c->seq++;
	if (!c->r.status)
		c->r.status = answer_file(e, c, &h);
	if (c->r.status == 301 && c->req.path_raw.n >= HTTP_PATH_MAX * 2 - 1)
		c->r.status = 414;
	if (c->r.status != 200 && c->r.status != 206)
		close_file(c);
	/* a file the module cannot send (not DAX): sendfile() from the start */
	if (!c->r.by_copy && c->r.file.fd >= 0 && e->x) {
		if (c->r.file.source < 0)
			fcache_set_source(&c->r.file,
					  xfer_file_is_source(e->x,
							      c->r.file.fd));
		c->r.by_copy = !c->r.file.source;
	}
	c->state = C_WRITE;
	progress(e, c);
	if (format_answer(e, c, &h))
		conn_abort(e, c);
	else
		conn_write(e, c);
}

/* --- reading -------------------------------------------------------------- */

void conn_parse(struct conn_env *e, struct conn *c)
{
	serve_pending(e->srv, c->slot, false);
	/* answered meanwhile (a 408 of the timer) */
	if (c->state != C_READ || !c->in_len)
		return;
	c->consumed = http_parse(&c->req, c->in, c->in_len, &e->cfg->lim);
	if (c->consumed)
		conn_answer(e, c);
	else			/* not a whole request yet */
		watch(e, c, EPOLLIN);
}

static void conn_read(struct conn_env *e, struct conn *c)
{
	size_t was = c->in_len;
	ssize_t n;

	if (c->in_len == c->in_size) {	/* http_parse() says 414/431 first */
		conn_close(e, c);
		return;
	}
	do {
		n = recv(c->fd, c->in + c->in_len, c->in_size - c->in_len, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {		/* closed, or reset, before a request */
		conn_close(e, c);
		return;
	}
	c->in_len += n;
	/*
	 * A later request on a kept-alive connection starts: from its first
	 * byte it has header_ms to arrive (the first request's header_ms
	 * runs from the accept, and a byte does not restart it)
	 */
	if (!was && c->seq && !c->reject)
		c->deadline = now_mono() + e->cfg->header_ms / 1e3;
	conn_parse(e, c);
}

static void conn_drain(struct conn_env *e, struct conn *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(e, c);
}

void conn_event(struct conn_env *e, struct conn *c, uint32_t events)
{
	switch (c->state) {
	case C_READ:
		conn_read(e, c);
		break;
	case C_WRITE:
		if (events & (EPOLLERR | EPOLLHUP))
			conn_abort(e, c);
		else
			conn_write(e, c);
		break;
	case C_LINGER:
		conn_drain(e, c);
		break;
	default:
		break;
	}
}

void conn_completion(struct conn_env *e, const struct pmem_zc_completion *d)
{
	struct conn *c = serve_conn(e->srv, d->user_data & 0xffff);

	if (!c || !c->inflight || c->id != d->user_data >> 32 ||
	    c->seq != ((d->user_data >> 16) & 0xffff)) {
		e->stale++;
		return;
	}
	c->inflight--;
	e->inflight--;
	c->r.acked = d->bytes_ref && !(d->flags & PMEM_ZC_C_STACK_COPIED);
	c->r.by_ref += d->bytes_ref;
	c->r.copied += d->bytes_copied;
	if (c->state == C_ZOMBIE) {
		e->tot->by_ref += d->bytes_ref;
		e->tot->copied += d->bytes_copied;
		if (!c->inflight)
			conn_destroy(e, c);
	} else if (c->state == C_WRITE) {
		progress(e, c);		/* the client acknowledged data */
		conn_write(e, c);
	}
}

/* Completions came: a response that waits for room (ENOBUFS) tries again. */
void conn_room(struct conn_env *e, struct conn *c)
{
	if (c->state == C_WRITE && c->r.wait_room)
		conn_write(e, c);
}

/* The deadline of the state the connection is in, when @now is past it. */
void conn_timer(struct conn_env *e, struct conn *c, double now)
{
	if (now < c->deadline)
		return;
	switch (c->state) {
	case C_READ:
		if (!c->in_len) {	/* idle: close quietly */
			conn_close(e, c);
			break;
		}
		memset(&c->req, 0, sizeof(c->req));
		c->req.status = 408;
		c->consumed = c->in_len;
		conn_answer(e, c);
		break;
	case C_WRITE:
		conn_abort(e, c);
		break;
	case C_LINGER:
		conn_close(e, c);
		break;
	case C_ZOMBIE:		/* its last completion ends it */
		break;
	}
}

void conn_stop(struct conn_env *e, struct conn *c)
{
	if (c->state == C_READ && !c->in_len)
		conn_close(e, c);
	else if (c->state == C_WRITE)
		c->r.close_after = true;
}
