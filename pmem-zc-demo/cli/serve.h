/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the HTTP/1.1 origin server of "pmem-zc serve". serve.c owns the
 * process side (options, the listening socket, workers, signals, the
 * epoll loop, the slots, accepting, limits, timers); conn.c owns one
 * connection (reading a request, answering it, sending the body zero-copy
 * or by copy, completions, closing). This header is what the serve
 * command shares: its configuration and a worker's totals. What serve.c
 * and conn.c say to each other is conn.h.
 */
#ifndef PMEM_ZC_SERVE_H
#define PMEM_ZC_SERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "http.h"
#include "log.h"

struct serve_cfg {
	int root_fd;
	bool index, copy;
	struct http_limits lim;
	uint64_t max_conns, max_per_client, count;
	uint64_t header_ms, idle_ms, send_ms, drain_ms;
	uint64_t inflight, chunk;	/* per connection */
	uint64_t max_ranges;		/* of a Range field, else 200 */
	uint64_t open_files;		/* entries of the cache, 0: none */
	unsigned int workers;
	struct access_log log;
};

/* A worker's, in memory shared with the main process (the summary). */
struct serve_totals {
	uint64_t requests, bytes, by_ref, copied;
	uint64_t cache_hits, cache_misses, cache_evicted, cache_dropped;
	uint64_t cache_uncached;
};

#endif
