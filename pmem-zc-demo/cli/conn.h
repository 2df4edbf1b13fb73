/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn: what the two halves of a serve worker say to each other. Each
 * lifetime has one owner:
 *
 * - serve.c owns the slots: which connection is in which, what the limits
 *   count (connections, 503s, pipelined requests waiting), the epoll set.
 *   struct server is its own; a free slot has no connection.
 * - conn.c owns a connection from conn_start() to conn_destroy(): its
 *   socket, buffers, request, response, sends and completions. struct conn
 *   is its own; serve.c holds a pointer and hands it back.
 *
 * Neither writes the other's fields: conn.c tells serve.c what happened to
 * a slot through the serve_*() functions below, serve.c drives a
 * connection through the conn_*() ones. What a connection needs of its
 * worker is struct conn_env, one per worker.
 *
 * A slot's life: serve.c takes a free slot for an accepted socket and
 * conn_start()s a connection in it (accounted as counted, or as a 503);
 * conn.c closes the socket when the connection ends: if completions of its
 * sends are still due it is a zombie (serve_uncount(): no longer counted
 * against the limits) until the last comes; conn_destroy() then frees it
 * and serve_release() the slot. serve.c calls conn_destroy() itself only
 * for a connection it could not add to the epoll set, and for those still
 * there when the worker ends.
 */
#ifndef PMEM_ZC_CONN_H
#define PMEM_ZC_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "http.h"
#include "serve.h"

struct conn;			/* conn.c's */
struct server;			/* serve.c's */
struct pmem_zc_completion;
struct sockaddr_storage;
struct xfer;

/*
 * A worker's, for its connections: one per worker, in serve.c's struct
 * server, made ready by conn_env_init() once the worker runs. serve.c
 * reports stale when the worker ends; the rest of what conn.c writes is
 * conn.c's alone.
 */
struct conn_env {
	/* written by serve.c, read by conn.c */
	struct server *srv;		/* handed back to serve_*() */
	const struct serve_cfg *cfg;
	struct xfer *x;			/* NULL: bodies by sendfile() only */
	struct fcache *fc;		/* NULL: an open() per request */
	struct access_log *log;
	struct serve_totals *tot;	/* conn.c adds what it logs */
	bool stopping;			/* draining: every answer closes */
	/* written by conn.c */
	uint64_t inflight;		/* sends of all connections */
	uint64_t stale;			/* completions of no connection */
	unsigned int wait_room;		/* responses waiting for room */
	uint64_t boundary;		/* the next multipart boundary */
	uint32_t next_id;		/* the last connection's id */
	char date[HTTP_DATE_LEN];	/* the Date field, */
	time_t date_t;			/* made at this second */
};

/* --- conn.c, called by serve.c -------------------------------------------- */

/* conn.c's part of @e, in the worker's process (after fork). */
void conn_env_init(struct conn_env *e);

/*
 * A connection on @fd, accepted from @peer, in @slot (< 65536: the slot is
 * 16 bits of a send's user_data); @reject: over a limit, it answers 503
 * and closes. NULL when out of memory, @fd then still the caller's.
 */
struct conn *conn_start(struct conn_env *e, unsigned int slot, int fd,
			const struct sockaddr_storage *peer, bool reject);
/*
 * Ends @c's life: a response under way logged as it stands, reset (sends
 * in flight), close, free, serve_release().
 */
void conn_destroy(struct conn_env *e, struct conn *c);
void conn_event(struct conn_env *e, struct conn *c, uint32_t events);
/* The pipelined request that serve_pending() announced. */
void conn_parse(struct conn_env *e, struct conn *c);
/* A completion of xfer_reap(): its send's connection, or e->stale. */
void conn_completion(struct conn_env *e,
		     const struct pmem_zc_completion *done);
void conn_room(struct conn_env *e, struct conn *c);	/* after completions */
void conn_timer(struct conn_env *e, struct conn *c, double now);
void conn_stop(struct conn_env *e, struct conn *c);	/* on shutdown */

/* --- serve.c, called by conn.c -------------------------------------------- */

/* The epoll events of the socket @fd of the connection in @slot. */
void serve_watch(struct server *s, unsigned int slot, int fd,
		 uint32_t events);
/* A pipelined request is buffered (@on) or no longer. */
void serve_pending(struct server *s, unsigned int slot, bool on);
/* The socket is closed, completions are still due: not counted now. */
void serve_uncount(struct server *s, unsigned int slot);
/* conn_destroy(): the slot is free. */
void serve_release(struct server *s, unsigned int slot);
/* The connection in @slot, or NULL (none, or not a slot). */
struct conn *serve_conn(struct server *s, unsigned int slot);
/* A response is logged: --count. */
void serve_logged(struct server *s);
/* The worker is to stop: --count reached, or a signal. */
bool serve_stop_asked(const struct server *s);

#endif
