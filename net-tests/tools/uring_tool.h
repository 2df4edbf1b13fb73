/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring_tool.h: what the io_uring tools (uring_send_zc, dax_hold) share: a
 * ring that has IORING_OP_SEND_ZC, and waiting for a CQE with a bound.
 * Include after bench_tool.h (fail(), prog).
 */
#ifndef URING_TOOL_H
#define URING_TOOL_H

#include <liburing.h>

/* give up when no CQE arrives for this long */
#define CQE_TIMEOUT_S 30

/* the next CQE, or fail after CQE_TIMEOUT_S without one */
static struct io_uring_cqe *next_cqe(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = CQE_TIMEOUT_S };
	struct io_uring_cqe *cqe;
	int ret;

	do
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	while (ret == -EINTR);
	if (ret) {
		errno = -ret;
		fail("io_uring_wait_cqe_timeout");
	}
	return cqe;
}

/* io_uring with IORING_OP_SEND_ZC, or exit 3 saying what is missing */
static void ring_init(struct io_uring *ring)
{
	struct io_uring_probe *probe;
	int ret;

	ret = io_uring_queue_init(8, ring, 0);
	if (ret) {
		fprintf(stderr, "%s: io_uring unavailable: io_uring_queue_init: %s\n",
			prog, strerror(-ret));
		exit(3);
	}
	probe = io_uring_get_probe_ring(ring);
	if (!probe || !io_uring_opcode_supported(probe, IORING_OP_SEND_ZC)) {
		fprintf(stderr, "%s: io_uring unavailable: this kernel has no IORING_OP_SEND_ZC\n",
			prog);
		exit(3);
	}
	io_uring_free_probe(probe);
}

#endif
