/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net: TCP sockets for send and serve: connect, listen, and printing a
 * socket address.
 */
#ifndef PMEM_ZC_NET_H
#define PMEM_ZC_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* A blocking TCP connection to @ss; the fd or -errno. */
int net_connect(const struct sockaddr_storage *ss, socklen_t len);

/*
 * A non-blocking listening TCP socket on @ss (IPv6 "::" also takes IPv4);
 * @ss gets the bound address (the port chosen for port 0). fd or -errno.
 */
int net_listen(struct sockaddr_storage *ss, socklen_t len, int backlog);

/*
 * "1.2.3.4" or "::1" (@port false), "1.2.3.4:80" or "[::1]:80" (true); an
 * IPv4-mapped IPv6 address as IPv4.
 */
const char *net_addr_str(const struct sockaddr_storage *ss, bool port,
			 char *buf, size_t size);

/*
 * Whether two socket addresses are of one host (port ignored): the same
 * IPv4 address, or the same IPv6 /64.
 */
bool net_same_host(const struct sockaddr_storage *a,
		   const struct sockaddr_storage *b);

#endif
