// SPDX-License-Identifier: GPL-2.0
/*
 * uring_send_zc FILE HOST:PORT [--chunk N] [--length N]: io_uring's
 * zero-copy send (IORING_OP_SEND_ZC, liburing), what a user-space
 * programmer would pick today to send a DAX file without a copy: a peer of
 * mzc_send (MSG_ZEROCOPY) and of pmem_zc. Maps FILE MAP_SHARED read-only,
 * connects over TCP to HOST:PORT (numeric IPv4), and sends the mapping in
 * chunks of --chunk bytes (default 1 MiB), one SEND_ZC at a time with
 * MSG_WAITALL, so that the stream stays in order while the notifications of
 * earlier chunks (the kernel is done with their pages) are still
 * outstanding; then waits for every notification. Each SEND_ZC posts a
 * result CQE and, when it carries IORING_CQE_F_MORE, a notification CQE
 * (IORING_CQE_F_NOTIF) later. With IORING_SEND_ZC_REPORT_USAGE (6.2 and
 * later) a notification says whether the kernel copied after all; on a
 * kernel that refuses the flag (6.1) it is sent without it and the copied
 * count is -1 (unknown). --length sends only the first N bytes. Sizes take
 * a K, M or G suffix (powers of 1024).
 *
 * Prints one line on stdout:
 *   bytes N seconds S MBps X completions N copied_completions N cpu_seconds C
 * as mzc_send does: completions are notifications, seconds run from the
 * first send to the last notification. Any failure prints the call and
 * errno and exits 1; usage errors exit 2; a kernel or sandbox without
 * io_uring or without IORING_OP_SEND_ZC exits 3 and says which.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

static const char *prog = "uring_send_zc";
#include "bench_tool.h"
#include "uring_tool.h"

static void usage(void)
{
	fprintf(stderr, "usage: %s FILE HOST:PORT [--chunk N] [--length N]\n",
		prog);
	exit(2);
}

static void queue_send(struct io_uring *ring, int sk, char *buf, size_t len,
		       unsigned int zc_flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int ret;

	if (!sqe) {
		errno = EBUSY;
		fail("io_uring_get_sqe");
	}
	io_uring_prep_send_zc(sqe, sk, buf, len, MSG_WAITALL | MSG_NOSIGNAL,
			      zc_flags);
	ret = io_uring_submit(ring);
	if (ret != 1) {
		errno = ret < 0 ? -ret : EIO;
		fail("io_uring_submit");
	}
}

int main(int argc, char **argv)
{
	uint64_t chunk = 1 << 20, length = 0, off = 0, notifs = 0;
	uint64_t completions = 0, copied = 0;
	unsigned int zc_flags = IORING_SEND_ZC_REPORT_USAGE;
	const char *file = NULL, *dest = NULL;
	struct io_uring_cqe *cqe;
	struct sockaddr_in sa;
	struct io_uring ring;
	double t0, t1, c0, c1;
	int fd, sk, i, inflight = 0;
	off_t size;
	char *map;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
			chunk = parse_size(argv[++i]);
			if (!chunk || chunk > (1U << 30))
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

	/* connected first: a peer waiting for us is never left waiting */
	sk = socket(AF_INET, SOCK_STREAM, 0);
	if (sk < 0)
		fail("socket");
	if (connect(sk, (struct sockaddr *)&sa, sizeof(sa)))
		fail("connect");
	ring_init(&ring);

	c0 = cpu_seconds();
	t0 = now();
	while (off < (uint64_t)size || inflight || completions < notifs) {
		if (off < (uint64_t)size && !inflight) {
			uint64_t len = size - off < chunk ? size - off : chunk;

			queue_send(&ring, sk, map + off, len, zc_flags);
			inflight = 1;
		}
		cqe = next_cqe(&ring);
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			/* one notification per request, never more */
			if (cqe->flags & IORING_CQE_F_MORE) {
				errno = EPROTO;
				fail("IORING_OP_SEND_ZC: notification with F_MORE");
			}
			completions++;
			if (cqe->res & IORING_NOTIF_USAGE_ZC_COPIED)
				copied++;
		} else {
			inflight = 0;
			if (cqe->flags & IORING_CQE_F_MORE)
				notifs++;
			if (cqe->res == -EINVAL && !off &&
			    (zc_flags & IORING_SEND_ZC_REPORT_USAGE) &&
			    !(cqe->flags & IORING_CQE_F_MORE)) {
				/*
				 * 6.1 refuses the flag at prep, before any
				 * notification: send it again without
				 */
				zc_flags = 0;
			} else if (cqe->res < 0) {
				errno = -cqe->res;
				fail("IORING_OP_SEND_ZC");
			} else if (!cqe->res) {
				errno = EPIPE;
				fail("IORING_OP_SEND_ZC: sent nothing");
			} else {
				off += cqe->res;
			}
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	t1 = now();
	c1 = cpu_seconds();
	if (close(sk))
		fail("close");
	io_uring_queue_exit(&ring);
	munmap(map, size);
	close(fd);

	printf("bytes %llu seconds %.6f MBps %.1f completions %llu copied_completions %lld cpu_seconds %.3f\n",
	       (unsigned long long)off, t1 - t0, off / (t1 - t0) / 1e6,
	       (unsigned long long)completions,
	       zc_flags ? (long long)copied : -1LL, c1 - c0);
	return 0;
}
