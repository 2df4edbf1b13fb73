// SPDX-License-Identifier: GPL-2.0
/*
 * inotify_wait FILE SECS: print "IN_ACCESS" and exit 0 at the first read
 * access event on FILE within SECS seconds (it prints "ready" once the
 * watch is in place); exit 1 and print "none" otherwise.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE SECS\n", argv[0]);
		return 2;
	}
	fd = inotify_init1(IN_NONBLOCK);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_ACCESS) < 0) {
		perror(argv[1]);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, atoi(argv[2]) * 1000) == 1 &&
	    read(fd, buf, sizeof(buf)) > 0) {
		printf("IN_ACCESS\n");
		return 0;
	}
	printf("none\n");
	return 1;
}
