// SPDX-License-Identifier: GPL-2.0
/*
 * sendfile_send FILE HOST:PORT [--length N]: the sendfile(2) baseline for
 * pmem_zc, measured as mzc_send measures MSG_ZEROCOPY. Connects over TCP
 * to HOST:PORT (IPv4, numeric: the binary is static, no resolver) and
 * sends FILE (a regular file or a block device such as /dev/pmem0), or
 * its first N bytes with --length (K, M or G suffix: powers of 1024), with
 * sendfile(2) until all is sent, then waits until the peer has
 * acknowledged every byte (SIOCOUTQ reads 0), as mzc_send waits for its
 * last completion.
 *
 * Prints one line on stdout, the same keys as mzc_send:
 *   bytes N seconds S MBps X completions 0 copied_completions 0 cpu_seconds C
 * seconds: wall time from the first sendfile to the last acknowledgement;
 * MBps: bytes / seconds / 10^6; cpu_seconds: this process's user + system
 * time (getrusage), which misses softirq work charged elsewhere.
 * Any failure prints the call and errno and exits 1; usage errors exit 2.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* give up when the peer acknowledges nothing for this long at the end */
#define DRAIN_TIMEOUT_MS 30000

static const char *prog = "sendfile_send";
#include "bench_tool.h"

static void usage(void)
{
	fprintf(stderr, "usage: %s FILE HOST:PORT [--length N]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 100 * 1000 };
	const char *file = NULL, *dest = NULL;
	uint64_t length = 0;
	double t0, t1, c0, c1, last;
	struct sockaddr_in sa;
	off_t size, off = 0;
	int fd, sk, i, outq, prev = -1;
	ssize_t n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--length") && i + 1 < argc) {
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
	/* a peer that goes away: EPIPE from sendfile, not a silent death */
	signal(SIGPIPE, SIG_IGN);

	fd = open_source(file, length, &size);

	sk = socket(AF_INET, SOCK_STREAM, 0);
	if (sk < 0)
		fail("socket");
	if (connect(sk, (struct sockaddr *)&sa, sizeof(sa)))
		fail("connect");

	c0 = cpu_seconds();
	t0 = now();
	while (off < size) {
		n = sendfile(sk, fd, &off, size - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("sendfile");
		}
		if (!n) {
			errno = EIO;
			fail("sendfile: returned 0 before the end of FILE");
		}
	}

	/* unsent plus unacknowledged bytes, until the peer has all */
	last = now();
	for (;;) {
		if (ioctl(sk, SIOCOUTQ, &outq))
			fail("ioctl(SIOCOUTQ)");
		if (!outq)
			break;
		if (outq != prev) {
			prev = outq;
			last = now();
		} else if ((now() - last) * 1000 > DRAIN_TIMEOUT_MS) {
			fprintf(stderr, "%s: %d bytes unacknowledged\n", prog,
				outq);
			errno = ETIMEDOUT;
			fail("waiting for the peer's acknowledgements");
		}
		nanosleep(&tick, NULL);
	}
	t1 = now();
	c1 = cpu_seconds();
	if (close(sk))
		fail("close");
	close(fd);

	printf("bytes %llu seconds %.6f MBps %.1f completions 0 copied_completions 0 cpu_seconds %.3f\n",
	       (unsigned long long)off, t1 - t0, off / (t1 - t0) / 1e6,
	       c1 - c0);
	return 0;
}
