// SPDX-License-Identifier: GPL-2.0
/*
 * dax_hold MODE FILE LEN OUT: take references to the first LEN bytes of
 * FILE's pages through MODE, let go of the file (munmap, close), hold the
 * references until told, then deliver what the references read to OUT, a
 * file (issue 22: fs-DAX hands a truncated file's blocks to readers that
 * still hold its pages).
 *
 *   vmsplice   mmap FILE, vmsplice() LEN bytes of the mapping into a pipe
 *              (sized for LEN); on release read the pipe into OUT
 *   zerocopy   mmap FILE, send(MSG_ZEROCOPY) LEN bytes of the mapping over
 *              loopback TCP to a receiver of this process that does not
 *              read (4 KiB receive buffer, so most of LEN waits in the
 *              sender's queue, in skbs that hold the pages); on release the
 *              receiver reads everything into OUT
 *
 * LEN is N[K|M|G], a multiple of 4096. Prints "held BYTES" once the
 * references are taken and the file is unmapped and closed (BYTES: what
 * was queued), then waits for a line (or end of file) on standard input;
 * prints "delivered BYTES DIFFER" when OUT is written, DIFFER being how
 * many of them are not the bytes FILE held when the references were taken
 * (a copy is kept; with random data about 1 in 256 matches by chance).
 * Exits 0 when OUT has all BYTES, 1 on any error (with the call that
 * failed), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

static const char *prog = "dax_hold";
#include "bench_tool.h"

/* FILE's first LEN bytes as they were when the references were taken */
static unsigned char *orig;

/*
 * the references are taken (HELD bytes): let go of the mapping, say so and
 * wait for the caller's line
 */
static void let_go(char *map, size_t len, size_t held)
{
	char line[64];

	if (munmap(map, len))
		fail("munmap");
	printf("held %zu\n", held);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

/* read FD until LEN bytes or end of file, write them to OUT */
static int deliver(int fd, size_t len, const char *out)
{
	static unsigned char buf[1 << 16];
	size_t got = 0, differ = 0, i;
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (o < 0)
		fail(out);
	while (got < len) {
		size_t want = len - got < sizeof(buf) ? len - got : sizeof(buf);
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("read");
		if (n == 0)
			break;
		if (write(o, buf, n) != n)
			fail("write");
		for (i = 0; i < (size_t)n; i++)
			differ += buf[i] != orig[got + i];
		got += n;
	}
	if (close(o))
		fail("close");
	printf("delivered %zu %zu\n", got, differ);
	fflush(stdout);
	return got == len ? 0 : 1;
}

static int hold_vmsplice(char *map, size_t len, const char *out)
{
	int p[2];
	size_t off = 0;

	if (pipe(p))
		fail("pipe");
	if (fcntl(p[1], F_SETPIPE_SZ, (int)len) < 0)
		fail("F_SETPIPE_SZ");
	while (off < len) {
		struct iovec iov = { map + off, len - off };
		ssize_t n = vmsplice(p[1], &iov, 1, 0);

		if (n < 0)
			fail("vmsplice");
		off += n;
	}
	let_go(map, len, off);
	close(p[1]);
	return deliver(p[0], len, out);
}

static int hold_zerocopy(char *map, size_t len, const char *out)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int l, s, r, one = 1, small = 4096, big = 64 << 20;
	size_t off = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		fail("listen");
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) ||
	    setsockopt(s, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		fail("connect");
	r = accept(l, NULL, NULL);
	if (r < 0)
		fail("accept");
	/*
	 * queue what the socket takes without blocking: the rest of LEN stays
	 * the caller's to compare as not sent
	 */
	while (off < len) {
		ssize_t n = send(s, map + off, len - off,
				 MSG_ZEROCOPY | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == ENOBUFS))
			break;
		if (n < 0)
			fail("send");
		off += n;
	}
	let_go(map, len, off);
	/* the rest of the queue goes as the receiver reads */
	shutdown(s, SHUT_WR);
	return deliver(r, off, out);
}

int main(int argc, char **argv)
{
	size_t len;
	char *map;
	int fd;

	if (argc != 5 || (strcmp(argv[1], "vmsplice") && strcmp(argv[1], "zerocopy"))) {
		fprintf(stderr, "usage: %s vmsplice|zerocopy FILE LEN OUT\n", argv[0]);
		return 2;
	}
	len = parse_size(argv[3]);
	if (!len || len % 4096) {
		fprintf(stderr, "dax_hold: LEN must be N[K|M|G], a non-zero multiple of 4096\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		fail(argv[2]);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap");
	if (close(fd))
		fail("close");
	orig = malloc(len);
	if (!orig)
		fail("malloc");
	memcpy(orig, map, len);
	if (!strcmp(argv[1], "vmsplice"))
		return hold_vmsplice(map, len, argv[4]);
	return hold_zerocopy(map, len, argv[4]);
}
