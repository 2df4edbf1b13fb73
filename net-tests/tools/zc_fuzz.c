// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: a structure-aware fuzzer of /dev/pmem_zc's ioctls (issue 26).
 *
 *   zc_fuzz --seed N [--calls N] [--secs S] [--threads N] [--log DIR]
 *           [--src PATH]... [--ro PATH]... [--wsrc PATH]... [--dst PATH]...
 *           [--nodst PATH]... [--tsrc PATH]... [--misc PATH]... [--nosrc PATH]...
 *           [--peer IPV4] [--unpriv UID:GID]
 *   zc_fuzz --serve SECS
 *
 * Each call is PMEM_ZC_IOC_SEND or PMEM_ZC_IOC_COPY with fields drawn
 * from what the ABI has edges at (fds of a pool, offsets and lengths at 0,
 * 1, page and block edges, a source's end, past it, U64_MAX and sums that
 * overflow, every flag bit, reserved fields set), or a bad ioctl number,
 * a struct of every _IOC_SIZE from 0 to its size + 64 (a longer one with a
 * non-zero tail), or a read() of completions with an odd length. The pool:
 *   --src   sources, opened read-only (prd disks, partitions, DAX files)
 *   --ro    sources whose bytes must not change: opened read-only, never a
 *           copy target; a checksum before and after (write(2) through a
 *           read-only fd is refused, so must a copy be)
 *   --wsrc  opened write-only: read(2) refuses them, so a send or copy
 *           from one that succeeds is a failure (a copy onto one is
 *           what write(2) allows)
 *   --dst   copy targets, opened read-write (scratch)
 *   --nodst opened read-write, but write(2) refuses them (an active swap
 *           device: ETXTBSY): a copy onto one that succeeds is a failure
 *   --tsrc  sources that a racer truncates, punches and rewrites
 *   --misc  anything else, opened read-only (directories, non-pmem disks
 *           and files)
 *   --nosrc files the module must refuse as sources, opened read-only
 *           (DAX files of XFS, which may share their extents without a
 *           writer: ext2/3/4 only): a send or copy from one that succeeds
 *           is a failure
 * and what the fuzzer makes itself: TCP sockets connected to a sink that
 * reads, to a listener that never accepts, listening, unconnected, shut
 * down, reset by the peer; UDP and UNIX sockets, pipes, an eventfd, a
 * memfd, an io_uring, a number just closed, /dev/pmem_zc itself. Over
 * loopback every send goes by copy; with --peer, TCP sockets connected to
 * another host's `zc_fuzz --serve` (a sink on port PEER_SINK that reads, a
 * listener on PEER_STALL that never accepts) take pages by reference, and
 * their completions come from the stack's callback, in softirq or in the
 * process that closes, resets or disconnects them.
 *
 * Beside the callers, a racer closes and reopens pool entries, dup2()s
 * one fd over another, shuts sockets down, resets them (SO_LINGER 0) or
 * disconnects them (connect(AF_UNSPEC)), truncates, punches and unlinks
 * --tsrc files (a new file under the name; the pool's fds keep the old
 * one), re-reads the partition table of --src disks (BLKRRPART, with the
 * pool's fds of their partitions closed: done unless a call holds one,
 * and reopened after), fork()s a child that makes a few calls, and
 * signals the callers
 * (SIGUSR1, no SA_RESTART); a reader drains completions and checks their
 * reserved fields. With --unpriv, the last caller thread runs as UID:GID
 * (its own credentials, set by the raw syscalls, which change one thread
 * only) on a /dev/pmem_zc of its own opening (the group's access): without
 * CAP_SYS_RAWIO, so the owner rule of file sources is reached (EPERM for
 * another user's file, a send for its own). With one thread the sequence
 * of calls is the seed's;
 * races are not, so each thread logs every call (DIR/calls.T) and the
 * test keeps the logs of a failing run.
 *
 * The last line: "zc_fuzz: seed=S calls=N secs=T rate=R/s ... failures=F";
 * exit 0 when F is 0, 1 otherwise, 2 on a usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/pmem_zc.h>

#define POOL_MAX	96
#define THREADS_MAX	8
#define PEER_SINK	5011	/* --serve's ports */
#define PEER_STALL	5012

enum kind {
	K_SRC, K_RO, K_WSRC, K_DST, K_NODST, K_TSRC, K_MISC, K_NOSRC,
	K_SINK, K_STALL, K_LISTEN, K_UNCONN, K_SHUT, K_RESET, K_UDP, K_UNIX,
	K_PIPE, K_EVENTFD, K_MEMFD, K_URING, K_CLOSED, K_ZC,
	K_RSINK, K_RSTALL,	/* --peer's */
	K_NR
};

static const char *const kind_name[K_NR] = {
	"src", "ro", "wsrc", "dst", "nodst", "tsrc", "misc", "nosrc", "sink", "stall",
	"listen", "unconn", "shut", "reset", "udp", "unix", "pipe", "eventfd",
	"memfd", "uring", "closed", "zc", "rsink", "rstall",
};

struct ent {
	enum kind kind;
	const char *path;	/* the kinds opened from a path */
	_Atomic int fd;
	uint64_t size;		/* of a path's file or disk, at start */
	uint64_t sum;		/* K_RO: its checksum at start */
	bool foreign;		/* a regular file not --unpriv's */
};

static struct ent pool[POOL_MAX];
static unsigned int npool;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int zc = -1;
static __thread int my_zc = -1;	/* the calling thread's /dev/pmem_zc */
static __thread bool am_unpriv;		/* the --unpriv thread */
static long unpriv_uid = -1, unpriv_gid = -1;
static int sink_port, stall_port;
static struct in_addr peer;	/* --peer's address */
static atomic_bool stop;
static _Atomic uint64_t ncalls, nok_send, nok_copy, nfail, ncompl;
/* the racer's unlinks of --tsrc files, partition rescans, done and EBUSY */
static uint64_t nunlink, nrescan, nrescan_ok, nrescan_busy;
static _Atomic uint64_t nerr[160];
static uint64_t max_calls = 100000;
static double max_secs = 120;
static unsigned int nthreads = 2;
static const char *logdir = "/tmp";
static uint64_t seed = 1;
static pthread_t callers[THREADS_MAX];

/* xorshift64*: per thread, from the seed */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

static void failure(FILE *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void failure(FILE *log, const char *fmt, ...)
{
	va_list ap;

	nfail++;
	va_start(ap, fmt);
	fputs("zc_fuzz: FAILURE: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	if (log) {
		va_start(ap, fmt);
		fputs("FAILURE: ", log);
		vfprintf(log, fmt, ap);
		fputc('\n', log);
		fflush(log);
		va_end(ap);
	}
}

/* --- the pool ------------------------------------------------------------- */

static int tcp_socket(void)
{
	struct timeval tv = { 0, 200000 };	/* a blocking send ends */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	return fd;
}

static int tcp_connect_to(struct in_addr addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr = addr };
	int fd = tcp_socket();

	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tcp_connect(int port)
{
	return tcp_connect_to((struct in_addr){ htonl(INADDR_LOOPBACK) },
			      port);
}

/* a listener on @addr; @port in: the port (0: any), out: the one bound */
static int tcp_listen_on(in_addr_t addr, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port ? *port : 0),
				 .sin_addr.s_addr = htonl(addr) };
	socklen_t al = sizeof(a);
	int fd = tcp_socket(), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1024) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		close(fd);
		return -1;
	}
	if (port)
		*port = ntohs(a.sin_port);
	return fd;
}

static int tcp_listen(int *port)
{
	if (port)
		*port = 0;
	return tcp_listen_on(INADDR_LOOPBACK, port);
}

/* A connection the peer resets: SO_LINGER 0 on the accepted end. */
static int tcp_reset(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int l = tcp_listen(NULL), port, fd = -1, peer;
	struct sockaddr_in a;
	socklen_t al = sizeof(a);

	if (l < 0 || getsockname(l, (struct sockaddr *)&a, &al))
		goto out;
	port = ntohs(a.sin_port);
	fd = tcp_connect(port);
	peer = fd >= 0 ? accept4(l, NULL, NULL, SOCK_CLOEXEC) : -1;
	if (peer >= 0) {
		setsockopt(peer, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(peer);
	}
out:
	if (l >= 0)
		close(l);
	return fd;
}

static int open_kind(const struct ent *e)
{
	int fd = -1, p[2];

	switch (e->kind) {
	case K_SRC: case K_RO: case K_TSRC: case K_MISC: case K_NOSRC:
		fd = open(e->path, O_RDONLY | O_CLOEXEC);
		break;
	case K_WSRC:
		fd = open(e->path, O_WRONLY | O_CLOEXEC);
		break;
	case K_DST: case K_NODST:
		fd = open(e->path, O_RDWR | O_CLOEXEC);
		break;
	case K_SINK:
		fd = tcp_connect(sink_port);
		break;
	case K_STALL:
		fd = tcp_connect(stall_port);
		break;
	case K_RSINK:
		fd = tcp_connect_to(peer, PEER_SINK);
		break;
	case K_RSTALL:
		fd = tcp_connect_to(peer, PEER_STALL);
		break;
	case K_LISTEN:
		fd = tcp_listen(NULL);
		break;
	case K_UNCONN:
		fd = tcp_socket();
		break;
	case K_SHUT:
		fd = tcp_connect(sink_port);
		if (fd >= 0)
			shutdown(fd, SHUT_WR);
		break;
	case K_RESET:
		fd = tcp_reset();
		break;
	case K_UDP:
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		break;
	case K_UNIX:
		if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p)) {
			close(p[1]);
			fd = p[0];
		}
		break;
	case K_PIPE:
		if (!pipe2(p, O_CLOEXEC | O_NONBLOCK)) {
			close(p[0]);
			fd = p[1];
		}
		break;
	case K_EVENTFD:
		fd = eventfd(0, EFD_CLOEXEC);
		break;
	case K_MEMFD:
		fd = memfd_create("zc_fuzz", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, 1 << 20)) {
			close(fd);
			fd = -1;
		}
		break;
	case K_URING: {
		/* io_uring_setup(2): its params are zeroed but for the out */
		char params[120] = {};

		fd = syscall(__NR_io_uring_setup, 4, params);
		break;
	}
	case K_CLOSED:
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);	/* the number, no longer open */
		break;
	case K_ZC:
		fd = dup(zc);
		break;
	default:
		break;
	}
	return fd;
}

static uint64_t size_of(const char *path)
{
	struct stat st;
	uint64_t sz = 0;
	int fd;

	if (stat(path, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return st.st_size;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &sz))
		sz = 0;
	if (fd >= 0)
		close(fd);
	return sz;
}

static void add(enum kind k, const char *path)
{
	struct ent *e;

	if (npool >= POOL_MAX) {
		fprintf(stderr, "zc_fuzz: more than %d pool entries\n",
			POOL_MAX);
		exit(2);
	}
	e = &pool[npool++];
	e->kind = k;
	e->path = path;
	e->size = path ? size_of(path) : 1 << 20;
	e->fd = open_kind(e);
	if (path && e->fd < 0) {
		fprintf(stderr, "zc_fuzz: %s %s: %s\n", kind_name[k], path,
			strerror(errno));
		exit(2);
	}
}

/* Close @e's fd and open its kind again (the number may be another). */
/* close E's fd, pool_lock held; whether there was one */
static bool drop_locked(struct ent *e)
{
	int old = atomic_exchange(&e->fd, -1);

	if (old < 0 || e->kind == K_CLOSED)
		return false;
	close(old);
	return true;
}

static void reopen(struct ent *e)
{
	pthread_mutex_lock(&pool_lock);
	drop_locked(e);
	e->fd = open_kind(e);
	pthread_mutex_unlock(&pool_lock);
}

/* --- the checksums -------------------------------------------------------- */

/*
 * FNV-1a of the bytes as the medium has them: a disk's page cache is
 * dropped first (a copy writes the disk by bio, under its cache).
 */
static uint64_t checksum(const char *path)
{
	static char buf[1 << 20];
	uint64_t h = 1469598103934665603ULL;
	struct stat st;
	off_t off = 0;
	ssize_t n, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISBLK(st.st_mode))
		ioctl(fd, BLKFLSBUF, 0);
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		for (i = 0; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
		off += n;
	}
	close(fd);
	return h;
}

/* --- the threads beside the callers --------------------------------------- */

static void *sink_thread(void *arg)
{
	int l = *(int *)arg, fds[256], n = 0, i;
	char buf[65536];

	while (!stop) {
		struct pollfd p[257];

		p[0].fd = l;
		p[0].events = POLLIN;
		for (i = 0; i < n; i++) {
			p[i + 1].fd = fds[i];
			p[i + 1].events = POLLIN;
		}
		if (poll(p, n + 1, 100) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int fd = accept4(l, NULL, NULL,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd >= 0 && n < 256)
				fds[n++] = fd;
			else if (fd >= 0)
				close(fd);
		}
		for (i = 0; i < n; i++) {
			if (!(p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (read(fds[i], buf, sizeof(buf)) == 0 ||
			    (p[i + 1].revents & (POLLHUP | POLLERR))) {
				close(fds[i]);
				fds[i] = fds[--n];
				p[i + 1] = p[n + 1];
				i--;
			}
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return NULL;
}

/* Completions: whole records, reserved fields zero. */
static void *reader_thread(void *arg)
{
	struct pmem_zc_completion c[16];
	int fd = dup(zc);

	(void)arg;
	while (!stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int i;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, c, sizeof(c));
		if (n < 0)
			continue;
		if (n % sizeof(c[0]))
			failure(NULL, "read() of completions returned %zd bytes",
				n);
		for (i = 0; i < n / (ssize_t)sizeof(c[0]); i++) {
			ncompl++;
			if (c[i].__reserved[0] || c[i].__reserved[1])
				failure(NULL, "completion %" PRIu64
					" with reserved fields set",
					(uint64_t)c[i].cookie);
		}
	}
	close(fd);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void one_call(uint64_t *s, FILE *log, unsigned int t);

/*
 * Kinds whose numbers always name their own file: the checks of a call's
 * success (a write-only source, a copy onto a refused target) and the
 * checksums rely on it
 */
static const unsigned int no_dup2 = 1 << K_CLOSED | 1 << K_RO |
				    1 << K_WSRC | 1 << K_NODST | 1 << K_DST |
				    1 << K_NOSRC;

/*
 * A socket's end: shut down, reset (SO_LINGER 0 and close: the queue
 * purged) or disconnected (connect(AF_UNSPEC): tcp_disconnect()), each
 * with sends of it in flight.
 */
static void racer_sock(uint64_t *s, struct ent *e)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr sa = { .sa_family = AF_UNSPEC };
	const unsigned int connected = 1 << K_SINK | 1 << K_STALL |
				       1 << K_RSINK | 1 << K_RSTALL;
	int fd = e->fd;

	if (fd < 0)
		return;
	switch (below(s, 4)) {
	case 0:
		if (1U << e->kind & connected) {
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
			reopen(e);
		}
		break;
	case 1:
		connect(fd, &sa, sizeof(sa));
		break;
	default:
		shutdown(fd, below(s, 3));
	}
}

/* unlink E's file and make a new one of the same size under its name */
static void racer_unlink(uint64_t *s, struct ent *e)
{
	char buf[4096];
	int fd;

	if (unlink(e->path))
		return;
	nunlink++;
	fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	memset(buf, (int)below(s, 256), sizeof(buf));
	pwrite(fd, buf, sizeof(buf), 0);
	ftruncate(fd, e->size);
	close(fd);
}

/* @part is a partition of the disk at @disk: "/dev/pmem0p2" of "/dev/pmem0" */
static bool partition_of(const char *part, const char *disk)
{
	size_t n = strlen(disk);

	return part && !strncmp(part, disk, n) && part[n] == 'p' &&
	       part[n + 1] >= '1' && part[n + 1] <= '9';
}

/*
 * re-read a disk's partition table (BLKRRPART), which the block layer
 * refuses (EBUSY) while one of its partitions is open: the pool's fds of
 * the disk's partitions are closed first, so that it is done unless a
 * send or copy still holds one (its file), and the partitions are deleted
 * and made anew under the sends from the disk; then they are reopened
 */
static void racer_rescan(struct ent *e)
{
	bool closed[POOL_MAX] = { false };
	struct stat st;
	unsigned int i;
	int fd = e->fd;

	if (e->kind != K_SRC || fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return;
	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < npool; i++)
		if (partition_of(pool[i].path, e->path))
			closed[i] = drop_locked(&pool[i]);
	pthread_mutex_unlock(&pool_lock);
	nrescan++;
	if (!ioctl(fd, BLKRRPART))
		nrescan_ok++;
	else if (errno == EBUSY)
		nrescan_busy++;
	for (i = 0; i < npool; i++)
		if (closed[i])
			reopen(&pool[i]);
}

/* one of the pool's entries that @want takes, each as likely; NULL if none */
static struct ent *pick(uint64_t *s, bool (*want)(const struct ent *))
{
	unsigned int i, n = 0, k;

	for (i = 0; i < npool; i++)
		n += want(&pool[i]);
	if (!n)
		return NULL;
	k = below(s, n);
	for (i = 0; i < npool; i++)
		if (want(&pool[i]) && !k--)
			break;
	return &pool[i];
}

static bool is_tsrc(const struct ent *e)
{
	return e->kind == K_TSRC;
}

/* a --src disk (a path under /dev), whose partition table may be re-read */
static bool is_src_disk(const struct ent *e)
{
	return e->kind == K_SRC && !strncmp(e->path, "/dev/", 5);
}

static void *racer_thread(void *arg)
{
	uint64_t s = seed ^ 0x9e3779b97f4a7c15ULL;
	struct ent *e, *f;

	(void)arg;
	my_zc = zc;		/* a forked child's calls */
	while (!stop) {
		e = &pool[below(&s, npool)];
		switch (below(&s, 10)) {
		case 0: case 1:
			reopen(e);
			break;
		case 2:
			f = &pool[below(&s, npool)];
			pthread_mutex_lock(&pool_lock);
			if (e != f && e->fd >= 0 && f->fd >= 0 &&
			    !((1U << e->kind | 1U << f->kind) & no_dup2))
				dup2(e->fd, f->fd);	/* f's number is e's file */
			pthread_mutex_unlock(&pool_lock);
			if (e != f)
				reopen(f);
			break;
		case 3:
			racer_sock(&s, e);
			break;
		case 4: {
			struct pollfd p = { .fd = zc, .events = POLLIN | POLLOUT };

			poll(&p, 1, 0);
			break;
		}
		case 5:
			/* a --tsrc file, the racer's own */
			e = pick(&s, is_tsrc);
			if (e) {
				int fd = open(e->path, O_WRONLY | O_CLOEXEC);

				if (fd >= 0) {
					switch (below(&s, 4)) {
					case 0:
						ftruncate(fd, below(&s, e->size + 1));
						break;
					case 1:
						fallocate(fd, FALLOC_FL_PUNCH_HOLE |
							  FALLOC_FL_KEEP_SIZE,
							  below(&s, e->size) & ~4095ULL,
							  4096 << below(&s, 8));
						break;
					case 2:
						pwrite(fd, "zc_fuzz", 7,
						       below(&s, e->size));
						break;
					default:
						/*
						 * a new file under the name: the
						 * pool's fds still hold the old
						 * inode, whose eviction waits for
						 * the pages in flight
						 */
						racer_unlink(&s, e);
					}
					close(fd);
				}
			}
			break;
		case 7:
			pthread_kill(callers[below(&s, nthreads)], SIGUSR1);
			break;
		case 8:
			/* one step in 80: a re-read takes milliseconds */
			e = below(&s, 8) ? NULL : pick(&s, is_src_disk);
			if (e)
				racer_rescan(e);
			break;
		case 6: {
			pid_t pid = fork();
			int st;

			if (!pid) {
				uint64_t cs = s, before = nfail;
				int i;

				for (i = 0; i < 8; i++)
					one_call(&cs, NULL, 99);
				/* the child's own, counted by the parent */
				_exit(nfail != before);
			}
			if (pid > 0 && waitpid(pid, &st, 0) == pid &&
			    (!WIFEXITED(st) || WEXITSTATUS(st)))
				failure(NULL, "a forked child's calls failed (status %#x)",
					st);
			break;
		}
		default:
			usleep(1000);
		}
	}
	return NULL;
}

/* --- the calls ------------------------------------------------------------ */

/* the kinds a call's role wants most: half the picks are one of them */
static const unsigned int want_src = 1 << K_SRC | 1 << K_RO | 1 << K_TSRC |
				     1 << K_WSRC | 1 << K_NOSRC;
static const unsigned int want_sock = 1 << K_SINK | 1 << K_STALL |
				      1 << K_SHUT | 1 << K_RESET |
				      1 << K_RSINK | 1 << K_RSTALL;
static const unsigned int want_dst = 1 << K_DST | 1 << K_NODST | 1 << K_RO |
				     1 << K_WSRC;

static int pick_fd(uint64_t *s, const struct ent **which, unsigned int want)
{
	static const int odd[] = { -1, -2, INT_MAX, 1023, 1024, 65535 };
	uint64_t r = below(s, 100);
	unsigned int i, tries;

	*which = NULL;
	if (r < 50) {
		for (tries = 0; tries < 64; tries++) {
			i = below(s, npool);
			if (want & 1U << pool[i].kind)
				break;
		}
		*which = &pool[i];
		return (*which)->fd;
	}
	if (r < 92) {
		*which = &pool[below(s, npool)];
		return (*which)->fd;
	}
	return odd[below(s, sizeof(odd) / sizeof(odd[0]))];
}

static uint64_t pick_off(uint64_t *s, uint64_t size)
{
	static const uint64_t edge[] = {
		0, 1, 511, 512, 4095, 4096, 4097, 65536, 1 << 20, 1ULL << 30,
		1ULL << 40, 1ULL << 63, UINT64_MAX, UINT64_MAX - 4095,
		UINT64_MAX - 511,
	};

	switch (below(s, 8)) {
	case 0:
		return edge[below(s, sizeof(edge) / sizeof(edge[0]))];
	case 6:		/* blocks within the source: what a copy takes */
	case 7:
		return 4096 * below(s, size / 4096 / 4 + 1);
	case 1:		/* around the end */
		return size + below(s, 9) - 4;
	case 2:		/* a block edge of the source */
		return (below(s, size / 4096 + 2) * 4096) + below(s, 3) - 1;
	case 3:
		return below(s, size + 1);
	case 4:
		return below(s, 1 << 16);
	default:
		return 0;
	}
}

static uint32_t pick_flags(uint64_t *s)
{
	switch (below(s, 10)) {
	case 0:
		return (uint32_t)rnd(s);
	case 1:
		return 1U << below(s, 32);
	case 2:
	case 3:
		return 0;
	default:
		return below(s, 32);	/* the five known bits */
	}
}

static void count_err(int err)
{
	nerr[err >= 0 && err < 160 ? err : 0]++;
}

static const char *kname(const struct ent *e)
{
	return e ? kind_name[e->kind] : "odd";
}

/* One call, logged before it is made (a crash shows what it was). */
static void one_call(uint64_t *s, FILE *log, unsigned int t)
{
	union {
		struct pmem_zc_send snd;
		struct pmem_zc_copy cpy;
		char raw[1 << 14];	/* any _IOC_SIZE */
	} u;
	const struct ent *src, *dst;
	unsigned long req;
	unsigned int op = below(s, 100), size;
	int ret, err;
	uint64_t n = ++ncalls;

	memset(&u, 0, 256);
	if (op < 85) {
		bool is_send = op < 50;
		int sfd = pick_fd(s, &src, want_src);
		int dfd = pick_fd(s, &dst, is_send ? want_sock : want_dst);
		uint64_t ssz = src ? src->size : 1 << 20;
		uint32_t fl = pick_flags(s);
		uint64_t off = pick_off(s, ssz), len = pick_off(s, ssz);

		if (is_send) {
			u.snd = (struct pmem_zc_send){
				.flags = fl, .src_fd = sfd, .sock_fd = dfd,
				.offset = off, .length = len,
				.user_data = rnd(s),
				.cookie = rnd(s), .bytes_queued = rnd(s),
			};
			size = sizeof(u.snd);
			req = PMEM_ZC_IOC_SEND;
		} else {
			u.cpy = (struct pmem_zc_copy){
				.flags = fl, .src_fd = sfd, .dst_fd = dfd,
				.offset = off, .length = len,
				.dst_offset = pick_off(s, dst ? dst->size : 0),
				.bytes_done = rnd(s),
			};
			size = sizeof(u.cpy);
			req = PMEM_ZC_IOC_COPY;
		}
		if (!below(s, 20))	/* a reserved field set */
			u.raw[is_send ? (below(s, 2) ? 12 : 60 + below(s, 36)) :
			      (below(s, 2) ? 12 : 76 + below(s, 36))] =
				1 + below(s, 255);
		if (op >= 70) {		/* a size of its own, maybe a tail */
			size = below(s, size + 65);
			if (size > (is_send ? sizeof(u.snd) : sizeof(u.cpy)) &&
			    below(s, 2))
				u.raw[size - 1 - below(s, size -
					(is_send ? sizeof(u.snd) :
					 sizeof(u.cpy)))] = 1;
			req = _IOC(_IOC_READ | _IOC_WRITE, PMEM_ZC_IOC_MAGIC,
				   is_send ? 0x10 : 0x11, size);
		}
		if (log)
			fprintf(log, "%u %" PRIu64 " %s size=%u flags=%#x src=%d(%s) %s=%d(%s) off=%#" PRIx64 " len=%#" PRIx64 "\n",
				t, n, is_send ? "send" : "copy", size, fl, sfd,
				kname(src), is_send ? "sock" : "dst", dfd,
				kname(dst), off, len);
		ret = ioctl(my_zc, req, &u);
		err = ret < 0 ? errno : 0;
		count_err(err);
		if (ret)
			return;
		/* succeeded: what read(2) and write(2) would have refused? */
		if (src && src->kind == K_WSRC && sfd == src->fd)
			failure(log, "%s from a write-only fd succeeded (call %" PRIu64 ")",
				is_send ? "send" : "copy", n);
		if (src && src->kind == K_NOSRC && sfd == src->fd)
			failure(log, "%s from %s, a source the module refuses, succeeded (call %" PRIu64 ")",
				is_send ? "send" : "copy", src->path, n);
		/* K_RO's fds are never dup2() targets: still its file */
		if (am_unpriv && src && src->kind == K_RO && src->foreign &&
		    sfd == src->fd)
			failure(log, "%s of %s, not the caller's, without CAP_SYS_RAWIO succeeded (call %" PRIu64 ")",
				is_send ? "send" : "copy", src->path, n);
		if (!is_send && dst && (dst->kind == K_NODST ||
					dst->kind == K_RO) && dfd == dst->fd)
			failure(log, "copy onto %s fd %d (%s) succeeded (call %" PRIu64 ")",
				kname(dst), dfd, dst->path, n);
		if (is_send)
			nok_send++;
		else
			nok_copy++;
		return;
	}
	if (op < 93) {			/* a number that is not ours */
		req = _IOC(below(s, 4), below(s, 2) ? PMEM_ZC_IOC_MAGIC :
			   below(s, 256), below(s, 256), below(s, 1 << 14));
		memset(&u, 0, sizeof(u));
		if (log)
			fprintf(log, "%u %" PRIu64 " ioctl %#lx\n", t, n, req);
		ret = ioctl(my_zc, req, &u);
		err = ret < 0 ? errno : 0;
		count_err(err);
		if (!ret && req != PMEM_ZC_IOC_SEND && req != PMEM_ZC_IOC_COPY &&
		    _IOC_TYPE(req) == PMEM_ZC_IOC_MAGIC &&
		    _IOC_NR(req) != 0x10 && _IOC_NR(req) != 0x11)
			failure(log, "ioctl %#lx succeeded", req);
		return;
	}
	/* a read() of completions, of any length, without blocking */
	size = below(s, 3) ? sizeof(struct pmem_zc_completion) *
	       (1 + below(s, 4)) : below(s, 100);
	if (log)
		fprintf(log, "%u %" PRIu64 " read %u\n", t, n, size);
	{
		struct pollfd p = { .fd = my_zc, .events = POLLIN };

		if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
			ssize_t r = read(my_zc, u.raw, size > sizeof(u.raw) ?
					 sizeof(u.raw) : size);

			if (r > 0 && r % sizeof(struct pmem_zc_completion))
				failure(log, "read(%u) returned %zd", size, r);
			count_err(r < 0 ? errno : 0);
		}
	}
}

/*
 * Join a thread that may sleep in a read() of completions: another reader
 * can take the completion its poll() saw, and with the rest of the sends
 * held by a stalled peer the read waits for as long as the peer does.
 * SIGUSR1 (no SA_RESTART) ends it with EINTR, again every 100 ms: a signal
 * that came before the read began woke nothing.
 */
static void join_kicking(pthread_t t)
{
	struct timespec ts;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000 * 1000 * 1000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000 * 1000 * 1000;
		}
		if (pthread_timedjoin_np(t, NULL, &ts) != ETIMEDOUT)
			return;
		pthread_kill(t, SIGUSR1);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *caller_thread(void *arg)
{
	unsigned int t = (uintptr_t)arg;
	uint64_t s = seed * 0x2545f4914f6cdd1dULL + t + 1;
	char path[512];
	FILE *log;
	unsigned long i;

	snprintf(path, sizeof(path), "%s/calls.%u", logdir, t);
	log = fopen(path, "w");
	my_zc = zc;
	if (unpriv_uid >= 0 && t == nthreads - 1) {
		/* this thread only: glibc's setuid() would change them all */
		if (syscall(SYS_setgroups, 0, NULL) ||
		    syscall(SYS_setresgid, unpriv_gid, unpriv_gid, unpriv_gid) ||
		    syscall(SYS_setresuid, unpriv_uid, unpriv_uid, unpriv_uid) ||
		    (my_zc = open("/dev/pmem_zc", O_RDWR | O_CLOEXEC)) < 0) {
			perror("zc_fuzz: --unpriv");
			exit(2);
		}
		am_unpriv = true;
		if (log)
			fprintf(log, "%u as uid %ld gid %ld, /dev/pmem_zc fd %d\n",
				t, unpriv_uid, unpriv_gid, my_zc);
	}
	for (i = 0; !stop; i++) {
		one_call(&s, log, t);
		if (log && !(i % 256))
			fflush(log);
	}
	if (log)
		fclose(log);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: zc_fuzz --seed N [--calls N] [--secs S] [--threads N] [--log DIR] [--src|--ro|--wsrc|--dst|--nodst|--tsrc|--misc PATH]... [--peer IPV4] [--unpriv UID:GID]\n       zc_fuzz --serve SECS\n");
	exit(2);
}

/*
 * The peer of --peer, on the other host: a sink that reads on PEER_SINK,
 * a listener on PEER_STALL that never accepts (its queue fills, then the
 * handshakes stall), for @secs or until killed.
 */
static int serve_peer(double secs)
{
	int sink_port = PEER_SINK, stall_port = PEER_STALL;
	int sl = tcp_listen_on(INADDR_ANY, &sink_port);
	int st = tcp_listen_on(INADDR_ANY, &stall_port);
	pthread_t sink;
	double t0 = now();

	if (sl < 0 || st < 0) {
		perror("zc_fuzz: --serve: listen");
		return 2;
	}
	printf("zc_fuzz: serving on %d and %d\n", sink_port, stall_port);
	pthread_create(&sink, NULL, sink_thread, &sl);
	while (now() - t0 < secs)
		usleep(100000);
	stop = true;
	pthread_join(sink, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *opt; enum kind k; } popt[] = {
		{ "--src", K_SRC }, { "--ro", K_RO }, { "--wsrc", K_WSRC },
		{ "--dst", K_DST }, { "--nodst", K_NODST },
		{ "--tsrc", K_TSRC }, { "--misc", K_MISC }, { "--nosrc", K_NOSRC },
	};
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t sink, reader, racer;
	int i, k, sink_l, stall_l;
	bool have_peer = false;
	unsigned int changed = 0, nro = 0, t;
	double t0, secs;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* nothing for a child to repeat */
	if (argc == 3 && !strcmp(argv[1], "--serve"))
		return serve_peer(atof(argv[2]));
	zc = open("/dev/pmem_zc", O_RDWR | O_CLOEXEC);
	if (zc < 0) {
		perror("zc_fuzz: /dev/pmem_zc");
		return 2;
	}
	sink_l = tcp_listen(&sink_port);
	stall_l = tcp_listen(&stall_port);	/* never accepts */
	if (sink_l < 0 || stall_l < 0) {
		perror("zc_fuzz: listen");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0) ?: 1;
		else if (!strcmp(a, "--calls"))
			max_calls = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--secs"))
			max_secs = atof(v);
		else if (!strcmp(a, "--threads"))
			nthreads = atoi(v);
		else if (!strcmp(a, "--log"))
			logdir = v;
		else if (!strcmp(a, "--unpriv")) {
			if (sscanf(v, "%ld:%ld", &unpriv_uid, &unpriv_gid) != 2 ||
			    unpriv_uid < 1 || unpriv_gid < 1)
				usage();
		} else if (!strcmp(a, "--peer")) {
			if (inet_pton(AF_INET, v, &peer) != 1)
				usage();
			have_peer = true;
		} else {
			for (k = 0; k < (int)(sizeof(popt) / sizeof(popt[0])); k++)
				if (!strcmp(a, popt[k].opt))
					break;
			if (k == (int)(sizeof(popt) / sizeof(popt[0])))
				usage();
			add(popt[k].k, v);
		}
	}
	if (!nthreads || nthreads > THREADS_MAX ||
	    (unpriv_uid >= 0 && nthreads < 2))
		usage();
	for (k = K_SINK; k <= K_ZC; k++)
		add(k, NULL);
	for (i = 0; have_peer && i < 3; i++) {
		add(K_RSINK, NULL);
		add(K_RSTALL, NULL);
	}
	add(K_SINK, NULL);		/* the useful ones twice */
	add(K_SINK, NULL);
	add(K_STALL, NULL);
	for (t = 0; t < npool; t++) {
		struct stat st;

		if (pool[t].kind == K_RO)
			pool[t].sum = checksum(pool[t].path);
		pool[t].foreign = unpriv_uid >= 0 && pool[t].path &&
				  !stat(pool[t].path, &st) &&
				  S_ISREG(st.st_mode) &&
				  st.st_uid != (uid_t)unpriv_uid;
	}
	sigaction(SIGUSR1, &sa, NULL);		/* no SA_RESTART */
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&sink, NULL, sink_thread, &sink_l);
	pthread_create(&reader, NULL, reader_thread, NULL);
	t0 = now();
	for (t = 0; t < nthreads; t++)
		pthread_create(&callers[t], NULL, caller_thread,
			       (void *)(uintptr_t)t);
	pthread_create(&racer, NULL, racer_thread, NULL);
	while (ncalls < max_calls && now() - t0 < max_secs)
		usleep(20000);
	stop = true;
	for (t = 0; t < nthreads; t++)
		join_kicking(callers[t]);
	secs = now() - t0;
	pthread_join(racer, NULL);
	join_kicking(reader);
	pthread_join(sink, NULL);
	for (t = 0; t < npool; t++) {
		if (pool[t].kind != K_RO)
			continue;
		nro++;
		if (checksum(pool[t].path) != pool[t].sum) {
			changed++;
			failure(NULL, "%s changed: a write landed that write(2) would refuse",
				pool[t].path);
		}
	}
	printf("zc_fuzz: racer: unlinks=%" PRIu64 " rescans=%" PRIu64
	       " rescans_done=%" PRIu64 " rescans_busy=%" PRIu64 "\n", nunlink,
	       nrescan, nrescan_ok, nrescan_busy);
	printf("zc_fuzz: errnos:");
	for (i = 0; i < 160; i++)
		if (nerr[i])
			printf(" %s=%" PRIu64, i ? strerrorname_np(i) ?: "?" : "OK",
			       (uint64_t)nerr[i]);
	printf("\nzc_fuzz: seed=%" PRIu64 " threads=%u calls=%" PRIu64
	       " secs=%.1f rate=%.0f/s sends_ok=%" PRIu64 " copies_ok=%" PRIu64
	       " completions=%" PRIu64 " pool=%u ro_checked=%u ro_changed=%u failures=%" PRIu64 "\n",
	       seed, nthreads, (uint64_t)ncalls, secs, ncalls / secs,
	       (uint64_t)nok_send, (uint64_t)nok_copy, (uint64_t)ncompl,
	       npool, nro, changed, (uint64_t)nfail);
	return nfail ? 1 : 0;
}
