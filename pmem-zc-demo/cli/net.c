// SPDX-License-Identifier: GPL-2.0
/*
 * net: socket set-up shared by send and serve.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "net.h"

int net_connect(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	if (fd < 0)
		return -errno;
	if (!connect(fd, (const struct sockaddr *)ss, len))
		return fd;
	e = errno;
	close(fd);
	return -e;
}

int net_listen(struct sockaddr_storage *ss, socklen_t len, int backlog)
{
	int one = 1, zero = 0, e;
	int fd = socket(ss->ss_family,
			SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(fd, (struct sockaddr *)ss, len) || listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)ss, &len))
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	return -e;
}

const char *net_addr_str(const struct sockaddr_storage *ss, bool port,
			 char *buf, size_t size)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	char a[INET6_ADDRSTRLEN] = "?";
	bool v6 = ss->ss_family == AF_INET6;
	bool mapped = v6 && IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr);

	if (mapped)
		inet_ntop(AF_INET, &sin6->sin6_addr.s6_addr[12], a, sizeof(a));
	else if (v6)
		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
	else if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
	if (!port)
		snprintf(buf, size, "%s", a);
	else
		snprintf(buf, size, v6 && !mapped ? "[%s]:%u" : "%s:%u", a,
			 ntohs(v6 ? sin6->sin6_port : sin->sin_port));
	return buf;
}

bool net_same_host(const struct sockaddr_storage *a,
		   const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	/*
	 * IPv6: one host is one /64 (a host is given a /64 and picks its
	 * addresses in it freely), an IPv4-mapped address the whole address
	 */
	if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		return !memcmp(&a6->sin6_addr, &b6->sin6_addr,
			       sizeof(a6->sin6_addr));
	return !memcmp(&a6->sin6_addr, &b6->sin6_addr, 8);
}
