/* SPDX-License-Identifier: GPL-2.0 */
/*
 * units: the one parser of each kind of value the command line takes.
 * Each returns 0, -EINVAL (not that kind of value) or -ERANGE (too large,
 * or outside the given bounds) and writes its result only on success.
 */
#ifndef PMEM_ZC_UNITS_H
#define PMEM_ZC_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bytes: decimal or 0x hex, optional K/M/G/T suffix (1024-based). */
int units_size(const char *s, uint64_t *out);

/* A plain decimal count within [min, max]. */
int units_count(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A duration: decimal with an optional unit ms, s (default), m or h. */
int units_duration_ms(const char *s, uint64_t *ms);

/* A decimal TCP port, 1..65535, or 0 with @zero_ok. */
int units_port(const char *s, bool zero_ok, uint16_t *port);

/*
 * A numeric IPv4 or IPv6 address (without brackets) or "localhost", and a
 * port, as a socket address. Names are not resolved: the static binary
 * has no resolver libraries.
 */
int units_addr(const char *host, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len);

/* HOST:PORT or [IPv6]:PORT (HOST as for units_addr), port 1..65535. */
int units_hostport(const char *s, struct sockaddr_storage *ss,
		   socklen_t *len);

#endif
