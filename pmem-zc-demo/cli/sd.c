// SPDX-License-Identifier: GPL-2.0
/*
 * sd: socket activation and readiness, the protocols of sd_listen_fds(3)
 * and sd_notify(3), without libsystemd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "msg.h"
#include "sd.h"

#define SD_LISTEN_FDS_START	3

int sd_listen_fd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = SD_LISTEN_FDS_START, type = 0, domain = 0, listening = 0, fl;
	socklen_t len = sizeof(type);
	char *end;
	long n;

	if (!pid || !fds)
		return -1;
	n = strtol(pid, &end, 10);
	if (*end || n != getpid())
		return -1;	/* meant for another process */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	n = strtol(fds, &end, 10);
	if (*end || n != 1) {
		pr_err("LISTEN_FDS=%s: one listening socket is served", fds);
		return -2;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    type != SOCK_STREAM ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) ||
	    (domain != AF_INET && domain != AF_INET6) ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) ||
	    !listening) {
		pr_err("fd 3 of socket activation is not a listening TCP socket");
		return -2;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		pr_err("fd 3 of socket activation: %s", strerror(errno));
		return -2;
	}
	return fd;
}

static int notify_fd = -1;

int sd_notify_open(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	size_t n;
	int e;

	if (!path || !*path || notify_fd >= 0)
		return 0;
	n = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';		/* an abstract name */
	len = offsetof(struct sockaddr_un, sun_path) + n;
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_fd < 0)
		return -errno;
	if (connect(notify_fd, (struct sockaddr *)&sun, len)) {
		e = errno;
		close(notify_fd);
		notify_fd = -1;
		return -e;
	}
	return 0;
}

int sd_notify_state(const char *state)
{
	if (notify_fd < 0)
		return 0;
	return send(notify_fd, state, strlen(state), MSG_NOSIGNAL) < 0 ?
	       -errno : 0;
}
