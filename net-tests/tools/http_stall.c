// SPDX-License-Identifier: GPL-2.0
/*
 * http_stall HOST:PORT PATH OUT: an HTTP/1.1 client that does not read.
 * With a 4 KiB receive buffer it connects, sends "GET PATH" (Connection:
 * close), prints "sent" and waits for a line on standard input, reading
 * nothing meanwhile, so that the server's response stalls in its socket
 * (zero window). Then:
 *   reset   close with SO_LINGER 0: the connection is reset, unread
 *   read    read the whole response, write its body to OUT and print
 *           "status CODE body BYTES"
 * (issue 23: a server's sendfile() holds the file's pages while the peer
 * does not read). Exits 0, 1 on any error (with the call that failed), 2
 * on bad usage.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

static const char *prog = "http_stall";
#include "bench_tool.h"

/* the response on S: its status and its body, to OUT */
static int read_response(int s, const char *out)
{
	static char buf[1 << 16];
	char head[8192];
	size_t hlen = 0, body = 0;
	int o, status = 0;
	char *end = NULL;
	ssize_t n;

	o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o < 0)
		fail(out);
	while ((n = read(s, buf, sizeof(buf))) != 0) {
		const char *p = buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("read");
		if (!end) {
			/* the header, up to its empty line */
			size_t take = (size_t)n < sizeof(head) - 1 - hlen ?
				      (size_t)n : sizeof(head) - 1 - hlen;

			memcpy(head + hlen, buf, take);
			hlen += take;
			head[hlen] = 0;
			end = strstr(head, "\r\n\r\n");
			if (!end) {
				if (hlen == sizeof(head) - 1) {
					errno = EPROTO;
					fail("response header too long");
				}
				continue;
			}
			/* what of this read follows the header */
			p = buf + (end + 4 - head) - (hlen - take);
			n -= p - buf;
			if (sscanf(head, "HTTP/1.%*d %d", &status) != 1) {
				errno = EPROTO;
				fail("status line");
			}
		}
		if (n > 0 && write(o, p, n) != n)
			fail("write");
		body += n;
	}
	if (close(o))
		fail("close");
	printf("status %d body %zu\n", status, body);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	int s, small = 4096;
	char req[512], line[64];
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int len;

	if (argc != 4 || parse_addr(argv[1], &sa)) {
		fprintf(stderr, "usage: %s HOST:PORT PATH OUT\n", prog);
		return 2;
	}
	len = snprintf(req, sizeof(req),
		       "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
		       argv[2], argv[1]);
	if (len < 0 || (size_t)len >= sizeof(req)) {
		fprintf(stderr, "%s: PATH too long\n", prog);
		return 2;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		fail("connect");
	if (write(s, req, len) != len)
		fail("write request");
	printf("sent\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	if (!strncmp(line, "read", 4))
		return read_response(s, argv[3]);
	if (setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) || close(s))
		fail("reset");
	printf("reset\n");
	return 0;
}
