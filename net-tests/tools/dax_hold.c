// SPDX-License-Identifier: GPL-2.0
/*
 * dax_hold MODE FILE LEN OUT [DEV]: take references to the first LEN
 * bytes of FILE's pages through MODE, let go of the file (munmap, close),
 * hold the references until told, then deliver what the references read
 * to OUT, a file (issue 22: fs-DAX hands a truncated file's blocks to
 * readers that still hold its pages).
 *
 *   vmsplice   mmap FILE, vmsplice() LEN bytes of the mapping into a pipe
 *              (sized for LEN); on release read the pipe into OUT
 *   zerocopy   mmap FILE, send(MSG_ZEROCOPY) LEN bytes of the mapping over
 *              loopback TCP to a receiver of this process that does not
 *              read (4 KiB receive buffer, so most of LEN waits in the
 *              sender's queue, in skbs that hold the pages); on release the
 *              receiver reads everything into OUT
 *   uring      the same through io_uring's IORING_OP_SEND_ZC from the
 *              mapping (an unregistered buffer); exits 3 without it
 *   splice     no mapping: splice() LEN bytes of FILE into a pipe (sized
 *              for LEN), close FILE; on release read the pipe into OUT.
 *              With the DAX splice series (mm-export-patch/6.12/dax-splice/)
 *              the pipe holds the file's pages; without it, a copy
 *   resplice   splice, but the file is spliced into the pipe and read back
 *              first (it must read as FILE), then spliced again and held:
 *              the series takes the second splice's references on the
 *              entries the first inserted (its fast path), not its own
 *   sendfile   no mapping: sendfile() LEN bytes of FILE to the loopback
 *              receiver of zerocopy (non-blocking: what the socket takes),
 *              close FILE; on release the receiver reads everything into
 *              OUT. The skbs hold the file's pages with the series
 *   odwrite    mmap FILE, a second thread write()s LEN bytes of the
 *              mapping to the block device DEV with O_DIRECT; the caller
 *              stalls DEV (a stopped nbd-server), so the bio holds the
 *              pinned pages until released; then LEN bytes of DEV (what
 *              the device got) go to OUT
 *   odread     mmap FILE writable, a second thread read()s LEN bytes of DEV
 *              into the mapping with O_DIRECT, stalled the same way: when
 *              released, the device writes into the pinned pages (into
 *              whatever file owns those blocks by then); OUT gets nothing
 *              and DIFFER is "-" (the caller checks the other files)
 *   uring-reg  no OUT, no hold: io_uring_register_buffers() of LEN bytes
 *              of a writable mapping of FILE (a FOLL_LONGTERM pin), or of
 *              anonymous memory when FILE is "-"; prints "register ok" or
 *              "register refused: ERROR"
 *
 * LEN is N[K|M|G], a multiple of 4096. Prints "held BYTES" once the
 * references are taken and the file is unmapped and closed (BYTES: what
 * was queued or is in flight), then waits for a line (or end of file) on
 * standard input; prints "delivered BYTES DIFFER" when OUT is written,
 * DIFFER being how many of them are not the bytes FILE held when the
 * references were taken (a copy is kept; with random data about 1 in 256
 * matches by chance), and when a read of what holds them failed, "read:
 * ERROR" after it (the bytes before the failure delivered). The O_DIRECT
 * modes wait (10 s at most) for DEV's in-flight count to show the request
 * before they unmap, and fail if the
 * call, once released, did not move all LEN bytes. Exits 0 when OUT has
 * all BYTES, 1 on any error (with the call that failed), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <libgen.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

static const char *prog = "dax_hold";
#include "bench_tool.h"
#include "uring_tool.h"

/* FILE's first LEN bytes as they were when the references were taken */
static unsigned char *orig;

/* the references are taken (HELD bytes): say so, wait for the caller's line */
static void hold(size_t held)
{
	char line[64];

	printf("held %zu\n", held);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

/* the same, once the mapping is let go of */
static void let_go(char *map, size_t len, size_t held)
{
	if (munmap(map, len))
		fail("munmap");
	hold(held);
}

/* read FD until LEN bytes or end of file, write them to OUT */
static int deliver(int fd, size_t len, const char *out)
{
	static unsigned char buf[1 << 16];
	size_t got = 0, differ = 0, i;
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), err = 0;

	if (o < 0)
		fail(out);
	while (got < len) {
		size_t want = len - got < sizeof(buf) ? len - got : sizeof(buf);
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
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
	if (err)
		printf("read: %s\n", strerror(err));
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

/*
 * a loopback TCP connection: *S, the sender (zero copy enabled, a send
 * buffer that takes LEN at once), and *R, its receiver, that reads only on
 * release
 */
static void loopback_pair(int *s, int *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int l, one = 1, small = 4096, big = 64 << 20;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		fail("listen");
	*s = socket(AF_INET, SOCK_STREAM, 0);
	if (*s < 0 || setsockopt(*s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) ||
	    setsockopt(*s, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) ||
	    connect(*s, (struct sockaddr *)&a, sizeof(a)))
		fail("connect");
	*r = accept(l, NULL, NULL);
	if (*r < 0)
		fail("accept");
	close(l);
}

static int hold_zerocopy(char *map, size_t len, const char *out)
{
	size_t off = 0;
	int s, r;

	loopback_pair(&s, &r);
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

static int hold_uring(char *map, size_t len, const char *out)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int s, r, ret, more;
	size_t sent;

	ring_init(&ring);
	loopback_pair(&s, &r);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_send_zc(sqe, s, map, len, MSG_NOSIGNAL, 0);
	ret = io_uring_submit(&ring);
	if (ret != 1) {
		errno = ret < 0 ? -ret : EIO;
		fail("io_uring_submit");
	}
	/* the send's own completion: what was queued (the buffer stays held) */
	cqe = next_cqe(&ring);
	if (cqe->res < 0) {
		errno = -cqe->res;
		fail("IORING_OP_SEND_ZC");
	}
	sent = cqe->res;
	more = cqe->flags & IORING_CQE_F_MORE;
	io_uring_cqe_seen(&ring, cqe);
	let_go(map, len, sent);
	shutdown(s, SHUT_WR);
	ret = deliver(r, sent, out);
	/* the notification: the pages are let go once the receiver has read */
	if (more) {
		cqe = next_cqe(&ring);
		if (!(cqe->flags & IORING_CQE_F_NOTIF)) {
			errno = EPROTO;
			fail("IORING_OP_SEND_ZC notification");
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return ret;
}

/* io_uring_register_buffers() of MAP (LEN bytes, writable): a long-term pin */
static int try_register(char *map, size_t len)
{
	struct iovec iov = { map, len };
	struct io_uring ring;
	int ret;

	ring_init(&ring);
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		printf("register refused: %s\n", strerror(-ret));
	else
		printf("register ok\n");
	io_uring_queue_exit(&ring);
	return 0;
}

struct dio {
	int fd;
	char *buf;
	size_t len;
	int write;
	ssize_t ret;
	int err;
};

static void *dio_run(void *arg)
{
	struct dio *d = arg;

	d->ret = d->write ? pwrite(d->fd, d->buf, d->len, 0) :
			    pread(d->fd, d->buf, d->len, 0);
	d->err = errno;
	return NULL;
}

/* DEV's requests in flight of one direction (/sys/block/NAME/inflight) */
static long inflight(const char *dev, int write)
{
	char path[PATH_MAX], *copy = strdup(dev);
	long rd = -1, wr = -1;
	FILE *f;

	if (!copy)
		fail("strdup");
	snprintf(path, sizeof(path), "/sys/block/%s/inflight", basename(copy));
	free(copy);
	f = fopen(path, "r");
	if (!f)
		fail(path);
	if (fscanf(f, "%ld %ld", &rd, &wr) != 2) {
		errno = EINVAL;
		fail(path);
	}
	fclose(f);
	return write ? wr : rd;
}

/*
 * an O_DIRECT write of the mapping to DEV, or a read of DEV into it, from a
 * second thread while DEV stalls: once DEV has the request in flight the
 * bio holds the pinned pages, and the mapping goes
 */
static int hold_odirect(char *map, size_t len, const char *out,
			const char *dev, int write)
{
	struct dio d = { .buf = map, .len = len, .write = write };
	pthread_t t;
	int i;

	d.fd = open(dev, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (d.fd < 0)
		fail(dev);
	errno = pthread_create(&t, NULL, dio_run, &d);
	if (errno)
		fail("pthread_create");
	for (i = 0; inflight(dev, write) <= 0; i++) {
		if (i == 1000) {
			errno = ETIMEDOUT;
			fail("no request of DEV in flight");
		}
		usleep(10000);
	}
	let_go(map, len, len);
	errno = pthread_join(t, NULL);
	if (errno)
		fail("pthread_join");
	if (d.ret != (ssize_t)len) {
		errno = d.ret < 0 ? d.err : EIO;
		fail(write ? "O_DIRECT write" : "O_DIRECT read");
	}
	close(d.fd);
	if (!write) {
		printf("delivered %zd -\n", d.ret);
		fflush(stdout);
		return 0;
	}
	/* what the device got, read back through its page cache */
	d.fd = open(dev, O_RDONLY);
	if (d.fd < 0)
		fail(dev);
	return deliver(d.fd, len, out);
}

/* LEN bytes of FILE through pipe P and back: they must be FILE's. */
static void splice_through(int fd, int p[2], size_t len)
{
	char *back = malloc(len);
	loff_t off = 0;
	size_t got = 0;

	if (!back)
		fail("malloc");
	while ((size_t)off < len)
		if (splice(fd, &off, p[1], NULL, len - off, 0) <= 0)
			fail("splice");
	while (got < len) {
		ssize_t n = read(p[0], back + got, len - got);

		if (n <= 0)
			fail("read of the pipe");
		got += n;
	}
	if (memcmp(back, orig, len)) {
		fprintf(stderr, "dax_hold: the first splice did not read as the file\n");
		exit(1);
	}
	free(back);
}

/*
 * splice and sendfile: FD is FILE, open; no mapping. What read(FILE) gives
 * now is what the references must deliver. AGAIN: through the pipe and
 * back first (resplice).
 */
static int hold_splice(int fd, size_t len, const char *out, int sendf,
		       int again)
{
	loff_t off = 0;
	int p[2], s = -1, r = -1;

	if (pread(fd, orig, len, 0) != (ssize_t)len)
		fail("pread");
	if (sendf) {
		loopback_pair(&s, &r);
		if (fcntl(s, F_SETFL, O_NONBLOCK))
			fail("O_NONBLOCK");
	} else {
		if (pipe(p))
			fail("pipe");
		if (fcntl(p[1], F_SETPIPE_SZ, (int)len) < 0)
			fail("F_SETPIPE_SZ");
		if (again)
			splice_through(fd, p, len);
	}
	while ((size_t)off < len) {
		ssize_t n = sendf ? sendfile(s, fd, &off, len - off) :
			splice(fd, &off, p[1], NULL, len - off, 0);

		if (n < 0 && sendf && errno == EAGAIN)
			break;
		if (n <= 0)
			fail(sendf ? "sendfile" : "splice");
	}
	if (close(fd))
		fail("close");
	hold(off);
	if (sendf) {
		shutdown(s, SHUT_WR);
		return deliver(r, off, out);
	}
	close(p[1]);
	return deliver(p[0], len, out);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s vmsplice|zerocopy|uring|splice|resplice|sendfile FILE LEN OUT\n"
		"       %s odwrite|odread FILE LEN OUT DEV\n"
		"       %s uring-reg FILE LEN\n", prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int dev = !strcmp(mode, "odwrite") || !strcmp(mode, "odread");
	int reg = !strcmp(mode, "uring-reg");
	int rw = reg || !strcmp(mode, "odread");
	size_t len;
	int spl = !strcmp(mode, "splice") || !strcmp(mode, "sendfile") ||
		  !strcmp(mode, "resplice");
	char *map;
	int fd;

	if (argc != (reg ? 4 : dev ? 6 : 5) ||
	    (!dev && !reg && !spl && strcmp(mode, "vmsplice") &&
	     strcmp(mode, "zerocopy") && strcmp(mode, "uring")))
		usage();
	len = parse_size(argv[3]);
	if (!len || len % 4096) {
		fprintf(stderr, "dax_hold: LEN must be N[K|M|G], a non-zero multiple of 4096\n");
		return 2;
	}
	if (reg && !strcmp(argv[2], "-")) {
		map = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			fail("mmap");
		return try_register(map, len);
	}
	fd = open(argv[2], rw ? O_RDWR : O_RDONLY);
	if (fd < 0)
		fail(argv[2]);
	if (spl) {
		orig = malloc(len);
		if (!orig)
			fail("malloc");
		return hold_splice(fd, len, argv[4], mode[1] == 'e',
				   mode[0] == 'r');
	}
	map = mmap(NULL, len, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap");
	if (close(fd))
		fail("close");
	if (reg)
		return try_register(map, len);
	orig = malloc(len);
	if (!orig)
		fail("malloc");
	memcpy(orig, map, len);
	if (dev)
		return hold_odirect(map, len, argv[4], argv[5], mode[2] == 'w');
	if (!strcmp(mode, "vmsplice"))
		return hold_vmsplice(map, len, argv[4]);
	if (!strcmp(mode, "uring"))
		return hold_uring(map, len, argv[4]);
	return hold_zerocopy(map, len, argv[4]);
}
