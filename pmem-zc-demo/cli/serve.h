/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the HTTP/1.1 origin server of "pmem-zc serve". serve.c owns the
 * process side (options, the listening socket, workers, signals, the
 * epoll loop, accepting, limits, timers); conn.c owns one connection
 * (reading a request, answering it, sending the body zero-copy or by
 * copy, completions, closing). This header is what they share.
 */
#ifndef PMEM_ZC_SERVE_H
#define PMEM_ZC_SERVE_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "files.h"
#include "http.h"
#include "log.h"
#include "xfer.h"

struct serve_cfg {
	int root_fd;
	bool index, copy;
	struct http_limits lim;
	uint64_t max_conns, max_per_client, count;
	uint64_t header_ms, idle_ms, send_ms, drain_ms;
	uint64_t inflight, chunk;	/* per connection */
	uint64_t max_ranges;		/* of a Range field, else 200 */
	unsigned int workers;
	struct access_log log;
};

struct serve_totals {
	uint64_t requests, bytes, by_ref, copied;
};

enum conn_state {
	C_FREE,		/* slot unused */
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

struct conn {
	enum conn_state state;
	int fd;
	uint32_t id, events;
	uint16_t seq;			/* response number, in user_data */
	bool reject;			/* over a limit: answer 503 */
	bool counted;			/* in the active connections */
	bool resp;			/* a response is under way */
	bool close_after;
	bool by_copy;			/* the body goes by sendfile() */
	bool wait_room;			/* ENOBUFS, nothing of ours in flight */
	bool pending;			/* a pipelined request is buffered */
	double deadline;
	struct sockaddr_storage peer;
	char host[INET6_ADDRSTRLEN];
	char *in, *out;			/* one allocation */
	size_t in_len, in_size, out_len, out_off, out_size, consumed;
	struct http_request req;
	int status;
	struct file_ref file;
	char etag[HTTP_ETAG_LEN], mtime[HTTP_DATE_LEN];
	uint64_t pos, end;		/* body bytes of the file */
	struct http_byte_range *ranges;	/* max_ranges, after in and out */
	struct conn_parts parts;
	uint64_t inflight;		/* sends without completion */
	uint64_t bytes, by_ref, copied;	/* of this response */
};

struct server {
	const struct serve_cfg *cfg;
	struct xfer *x;
	int ep, lfd, sfd;
	struct conn *conns;
	struct access_log *log;
	unsigned int nslots, active, used, pending;
	unsigned int rejecting;		/* slots answering 503 */
	uint32_t next_id;
	uint64_t inflight;		/* sends of all connections */
	bool stopping, stop_asked, accepting;
	double stop_deadline, accept_again;
	struct serve_totals *tot;
	uint64_t stale;			/* completions of no connection */
	uint64_t refused;		/* connections closed at accept */
	char date[HTTP_DATE_LEN];
	time_t date_t;
	uint64_t boundary;		/* the next multipart boundary */
};

/* epoll tags below the connections' (slot + EP_CONN) */
enum { EP_LISTEN, EP_SIGNAL, EP_XFER, EP_CONN };

/* conn.c */
void conn_start(struct server *s, struct conn *c, int fd,
		const struct sockaddr_storage *peer, bool reject);
void conn_parse(struct server *s, struct conn *c);	/* c->pending */
void conn_event(struct server *s, struct conn *c, uint32_t events);
void conn_completion(struct server *s,
		     const struct pmem_zc_completion *done);
void conn_timeout(struct server *s, struct conn *c);
void conn_stop(struct server *s, struct conn *c);	/* on shutdown */
void conn_room(struct server *s);		/* retry ENOBUFS waiters */

/* serve.c */
double serve_now(void);
int serve_add(struct server *s, struct conn *c);	/* EPOLLIN */
void serve_watch(struct server *s, struct conn *c, uint32_t events);
void serve_logged(struct server *s);	/* a response is done: --count */

#endif
