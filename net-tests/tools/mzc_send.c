// SPDX-License-Identifier: GPL-2.0
/*
 * mzc_send FILE HOST:PORT [--chunk N] [--length N]: upstream's user-space
 * zero copy, the baseline for pmem_zc. Maps FILE (a regular file or a
 * block device such as /dev/pmem0) MAP_SHARED read-only, connects over TCP
 * to HOST:PORT (IPv4, numeric: the binary is static, no resolver), sets
 * SO_ZEROCOPY and sends the mapping with send(MSG_ZEROCOPY) in chunks of
 * --chunk bytes (default 1 MiB), reaping the completions from the error
 * queue (recvmsg(MSG_ERRQUEUE), struct sock_extended_err, origin
 * SO_EE_ORIGIN_ZEROCOPY) as the kernel's
 * tools/testing/selftests/net/msg_zerocopy.c does; then waits for every
 * completion, i.e. until TCP has released every page (the peer has
 * acknowledged all data). --length sends only the first N bytes.
 * Sizes take a K, M or G suffix (powers of 1024).
 *
 * Prints one line on stdout:
 *   bytes N seconds S MBps X completions N copied_completions N cpu_seconds C
 * seconds: wall time from the first send to the last completion; MBps:
 * bytes / seconds / 10^6; completions: send calls completed (each
 * notification covers a range of them); copied_completions: those the
 * kernel reported SO_EE_CODE_ZEROCOPY_COPIED (it copied after all, as on
 * loopback or without scatter-gather); cpu_seconds: this process's user +
 * system time (getrusage), which misses softirq work charged elsewhere.
 * Any failure prints the call and errno and exits 1; usage errors exit 2.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* give up when no completion arrives for this long at the end */
#define DRAIN_TIMEOUT_MS 30000

static const char *prog = "mzc_send";
#include "bench_tool.h"
static uint64_t completions, copied, expected;

static void usage(void)
{
	fprintf(stderr, "usage: %s FILE HOST:PORT [--chunk N] [--length N]\n",
		prog);
	exit(2);
}

/* one notification from the error queue; 0 when there is none */
static int reap_one(int fd)
{
	struct sock_extended_err *serr;
	char control[128];
	struct msghdr msg = {
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	struct cmsghdr *cm;
	uint32_t range;

	if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		fail("recvmsg(MSG_ERRQUEUE)");
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		errno = EMSGSIZE;
		fail("recvmsg(MSG_ERRQUEUE): control truncated");
	}
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_IP || cm->cmsg_type != IP_RECVERR) {
		errno = EPROTO;
		fail("recvmsg(MSG_ERRQUEUE): no IP_RECVERR cmsg");
	}
	serr = (struct sock_extended_err *)CMSG_DATA(cm);
	if (serr->ee_origin != SO_EE_ORIGIN_ZEROCOPY) {
		errno = EPROTO;
		fail("recvmsg(MSG_ERRQUEUE): origin not SO_EE_ORIGIN_ZEROCOPY");
	}
	if (serr->ee_errno) {
		errno = serr->ee_errno;
		fail("recvmsg(MSG_ERRQUEUE): ee_errno");
	}
	/* notifications ee_info..ee_data, inclusive, 32-bit counter */
	range = serr->ee_data - serr->ee_info + 1;
	completions += range;
	if (serr->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
		copied += range;
	return 1;
}

static void reap(int fd)
{
	while (reap_one(fd))
		;
}

int main(int argc, char **argv)
{
	uint64_t chunk = 1 << 20, length = 0, off = 0;
	double t0, t1, c0, c1, last;
	struct sockaddr_in sa;
	const char *file = NULL, *dest = NULL;
	struct pollfd pfd;
	int fd, sk, one = 1, i;
	off_t size;
	char *map;
	ssize_t n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
			chunk = parse_size(argv[++i]);
			if (!chunk)
				usage();
		} else if (!strcmp(argv[i], "--length") && i + 1 < argc) {
			length = parse_size(argv[++i]);
			if (!length)
				usage();
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage();
		} else if (!file) {
			file = argv[i];
		} else if (!dest) {
			dest = argv[i];
		} else {
			usage();
		}
	}
	if (!file || !dest)
		usage();
	if (parse_addr(dest, &sa)) {
		fprintf(stderr, "%s: %s: not a numeric IPv4 HOST:PORT\n", prog,
			dest);
		usage();
	}

	fd = open_source(file, length, &size);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap");

	sk = socket(AF_INET, SOCK_STREAM, 0);
	if (sk < 0)
		fail("socket");
	if (setsockopt(sk, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		fail("setsockopt(SO_ZEROCOPY)");
	if (connect(sk, (struct sockaddr *)&sa, sizeof(sa)))
		fail("connect");

	pfd.fd = sk;
	c0 = cpu_seconds();
	t0 = now();
	while (off < (uint64_t)size) {
		uint64_t len = size - off < chunk ? size - off : chunk;

		n = send(sk, map + off, len,
			 MSG_ZEROCOPY | MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			/*
			 * EAGAIN: the send buffer is full; ENOBUFS: too many
			 * notifications outstanding (optmem). Either way wait
			 * for room or a completion, and reap.
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ENOBUFS)
				fail("send(MSG_ZEROCOPY)");
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
				fail("poll");
			if (pfd.revents & (POLLHUP | POLLNVAL)) {
				errno = EPIPE;
				fail("poll: connection closed");
			}
			reap(sk);
			continue;
		}
		if (n > 0)
			expected++;
		off += n;
		reap(sk);
	}

	/* every send holds its pages until the peer acknowledged them */
	last = now();
	while (completions < expected) {
		pfd.events = 0; /* POLLERR is always reported */
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			fail("poll");
		if (reap_one(sk)) {
			reap(sk);
			last = now();
		} else if ((now() - last) * 1000 > DRAIN_TIMEOUT_MS) {
			fprintf(stderr, "%s: %llu of %llu completions\n", prog,
				(unsigned long long)completions,
				(unsigned long long)expected);
			errno = ETIMEDOUT;
			fail("waiting for completions");
		}
	}
	t1 = now();
	c1 = cpu_seconds();
	if (close(sk))
		fail("close");
	munmap(map, size);
	close(fd);

	printf("bytes %llu seconds %.6f MBps %.1f completions %llu copied_completions %llu cpu_seconds %.3f\n",
	       (unsigned long long)off, t1 - t0, off / (t1 - t0) / 1e6,
	       (unsigned long long)completions, (unsigned long long)copied,
	       c1 - c0);
	return 0;
}
