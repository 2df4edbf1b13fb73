// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hold PORT SECS: a TCP receiver that accepts one connection on PORT
 * (with a 4 KiB receive buffer) and never reads from it, for SECS seconds or
 * until killed; then it closes the connection with its data unread, which
 * resets it. Prints "listening" once it listens, "accepted" once it has the
 * connection.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int l, c, one = 1, small = 4096;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT SECS\n", argv[0]);
		return 2;
	}
	a.sin_port = htons(atoi(argv[1]));
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		perror("listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("accept");
		return 1;
	}
	printf("accepted\n");
	fflush(stdout);
	sleep(atoi(argv[2]));
	return 0;
}
