// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-zc - command line front end of /dev/pmem_zc
 *
 * send and copy hand a pmem range (a prd disk or partition, or a file on a
 * filesystem on one) to PMEM_ZC_IOC_SEND / PMEM_ZC_IOC_COPY in chunks, and
 * report how many bytes left by reference and how many by copy. serve and
 * fetch are a one-request-per-connection file server and its client:
 *
 *	client: "GET <relative path>\n"  (serve --root)
 *	        "RANGE <offset> <length>\n"  (serve --dev)
 *	server: "OK <length>\n" and exactly <length> bytes, or "ERR <message>\n"
 *
 * Exit status: 0 success, 1 the operation failed, 2 usage error. Every
 * message starts with "pmem-zc <subcommand>: ".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/fs.h>		/* BLKGETSIZE64 */
#include <linux/pmem_zc.h>

#define PZC_DEV		"/dev/pmem_zc"
#define PZC_STATS_DIR	"/sys/class/misc/pmem_zc/stats"
#ifndef SEND_CHUNK		/* the unit tests use smaller ones */
#define SEND_CHUNK	(16ULL << 20)
#define COPY_CHUNK	(64ULL << 20)
#endif
#define REQ_MAX		4096	/* a request line, '\n' included */
#define REPLY_MAX	512	/* a reply header, '\n' included */
#define MAX_CHILDREN	8	/* serve: connections handled at once */
#define IO_BUF		(256 << 10)
#define DEF_TIMEOUT	60	/* seconds */
#define NO_REQUEST	3	/* serve: exit code of a handler that got none */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

enum { RC_OK, RC_FAIL, RC_USAGE };

static const char *prog = "pmem-zc";	/* "pmem-zc <subcommand>" */
static const char *pzc_dev = PZC_DEV;	/* the unit tests use a fake */

static void __printf(1, 2) pr_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int __printf(1, 2) usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return RC_USAGE;
}

/* --- pure helpers, unit-tested ------------------------------------------- */

/* Decimal or 0x hex, optional K/M/G/T (1024-based). -EINVAL or -ERANGE. */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned int base = 10, shift = 0;
	const char *p = s;
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		return -EINVAL;
	for (; *p; p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (*p) {
		static const char units[] = "KMGT";
		const char *u = strchr(units, toupper((unsigned char)*p));

		if (!u || p[1])
			return -EINVAL;
		shift = 10 * (u - units + 1);
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/* A decimal TCP port; 0 only if @zero_ok. */
static int parse_port(const char *s, bool zero_ok, uint16_t *port)
{
	unsigned long v = 0;
	size_t i;

	if (!*s || strlen(s) > 5)
		return -EINVAL;
	for (i = 0; s[i]; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 65535 || (!v && !zero_ok))
		return -EINVAL;
	*port = v;
	return 0;
}

/* HOST:PORT or [IPv6]:PORT; @host gets HOST without brackets. */
static int parse_hostport(const char *s, char *host, size_t size, uint16_t *port)
{
	const char *colon, *h = s;
	size_t len, i;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		h = s + 1;
		len = rb - h;
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		len = colon - s;
		if (memchr(s, ':', len))	/* IPv6 wants brackets */
			return -EINVAL;
	}
	if (!len || len >= size)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)h[i]))
			return -EINVAL;
	if (parse_port(colon + 1, false, port))
		return -EINVAL;
	memcpy(host, h, len);
	host[len] = '\0';
	return 0;
}

/* Default length to the end of the source, and a range check. */
static int resolve_range(uint64_t size, uint64_t off, bool have_len,
			 uint64_t *len)
{
	if (off > size)
		return -ERANGE;
	if (!have_len)
		*len = size - off;
	else if (*len > size - off)
		return -ERANGE;
	return 0;
}

struct zc_req {
	enum { REQ_GET, REQ_RANGE } type;
	char path[REQ_MAX];
	uint64_t off, len;
};

/* One request line, @len bytes at @buf without its '\n'. */
static int parse_request(const char *buf, size_t len, struct zc_req *r,
			 const char **why)
{
	char tmp[REQ_MAX], *sp;

	if (len && buf[len - 1] == '\r')
		len--;
	*why = "bad request: want GET <path> or RANGE <offset> <length>";
	if (!len || len >= sizeof(tmp) || memchr(buf, '\0', len))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	if (!strncmp(tmp, "GET ", 4)) {
		r->type = REQ_GET;
		if (!tmp[4]) {
			*why = "GET needs a path";
			return -EINVAL;
		}
		strcpy(r->path, tmp + 4);
		return 0;
	}
	if (strncmp(tmp, "RANGE ", 6))
		return -EINVAL;
	r->type = REQ_RANGE;
	*why = "bad RANGE: want RANGE <offset> <length>";
	sp = strchr(tmp + 6, ' ');
	if (!sp)
		return -EINVAL;
	*sp = '\0';
	if (parse_size(tmp + 6, &r->off) || parse_size(sp + 1, &r->len))
		return -EINVAL;
	return 0;
}

/* A path relative to serve --root: no leading '/', no ".." component. */
static int check_rel_path(const char *path, const char **why)
{
	const char *p = path;

	*why = "empty path";
	if (!*path)
		return -EINVAL;
	*why = "absolute path";
	if (*path == '/')
		return -EINVAL;
	for (; *p; p++) {
		if (iscntrl((unsigned char)*p)) {
			*why = "control character in path";
			return -EINVAL;
		}
	}
	for (p = path; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/')) {
			*why = "'..' in path";
			return -EINVAL;
		}
	}
	return 0;
}

/* realpath of @root/@rel into @out, which must stay under @root (a realpath). */
static int resolve_under(const char *root, const char *rel, char *out,
			 const char **why)
{
	char joined[2 * PATH_MAX];
	size_t rl = strlen(root);
	int ret = check_rel_path(rel, why);

	if (ret)
		return ret;
	snprintf(joined, sizeof(joined), "%s/%s", root, rel);
	if (strlen(joined) >= PATH_MAX) {
		*why = "path too long";
		return -ENAMETOOLONG;
	}
	if (!realpath(joined, out)) {
		ret = -errno;
		*why = ret == -ENOENT || ret == -ENOTDIR ? "not found" :
		       strerror(-ret);
		return ret;
	}
	if (strncmp(out, root, rl) || (out[rl] != '/' && rl > 1)) {
		*why = "path escapes the served directory";
		return -EACCES;
	}
	return 0;
}

/* "OK <decimal>" or "ERR <message>", @len bytes at @buf without '\n'. */
static int parse_reply(char *buf, size_t len, uint64_t *n, const char **msg)
{
	uint64_t v = 0;
	size_t i;

	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (!strncmp(buf, "ERR", 3) && (!buf[3] || buf[3] == ' ')) {
		*msg = buf[3] ? buf + 4 : "(no message)";
		return -EREMOTEIO;
	}
	*msg = "bad reply header";
	if (strncmp(buf, "OK ", 3) || !buf[3])
		return -EPROTO;
	for (i = 3; buf[i]; i++) {
		if (!isdigit((unsigned char)buf[i]) ||
		    v > (UINT64_MAX - (buf[i] - '0')) / 10)
			return -EPROTO;
		v = v * 10 + (buf[i] - '0');
	}
	*n = v;
	return 0;
}

static const char *zero_copy_word(uint64_t by_ref, uint64_t copied)
{
	if (!by_ref)
		return "no";
	return copied ? "partial" : "yes";
}

static int format_summary(char *buf, size_t size, const char *op,
			  uint64_t bytes, double secs, uint64_t by_ref,
			  uint64_t copied, double cpu)
{
	return snprintf(buf, size, "summary: op=%s bytes=%" PRIu64
			" seconds=%.3f MBps=%.1f by_ref=%" PRIu64 " copied=%"
			PRIu64 " cpu_seconds=%.3f zero_copy=%s\n", op, bytes,
			secs, secs > 0 ? bytes / secs / 1e6 : 0.0, by_ref,
			copied, cpu, zero_copy_word(by_ref, copied));
}

/* What an errno of PMEM_ZC_IOC_SEND/COPY most likely means. */
static const struct {
	int err;
	const char *hint;
} ioc_hints[] = {
	{ EPROTO,	"ABI version mismatch" },
	{ ENODEV,	"not a prd disk (or a file on one)" },
	{ ERANGE,	"beyond the end of the source" },
	{ EINVAL,	"bad offset/length/alignment" },
	{ ENOTCONN,	"the peer closed the connection" },
	{ EPIPE,	"the peer closed the connection" },
	{ ECONNRESET,	"the peer closed the connection" },
	{ ENOSPC,	"target smaller than the range" },
	{ EBADF,	"target not opened for writing / read-only" },
	{ EROFS,	"target is read-only" },
	{ EOPNOTSUPP,	"file layout not supported (inline data?)" },
	{ EINTR,	"interrupted" },
	{ EISDIR,	"a directory, not a disk or file" },
	{ EAGAIN,	"the peer stopped reading" },
	{ ETIMEDOUT,	"the peer stopped acknowledging" },
	{ ENOTTY,	PZC_DEV " is not the pmem_zc device" },
};

static const char *ioc_hint(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ioc_hints); i++)
		if (ioc_hints[i].err == err)
			return ioc_hints[i].hint;
	return NULL;
}

/* --- time, progress, summary --------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct xfer {
	const char *op;
	uint64_t total, done, by_ref, copied, bios;
	double start, last;
	bool progress, drawn;
};

static void xfer_init(struct xfer *x, const char *op, uint64_t total,
		      bool progress)
{
	memset(x, 0, sizeof(*x));
	x->op = op;
	x->total = total;
	x->progress = progress || isatty(STDERR_FILENO);
	x->start = x->last = now();
}

/* About once a second, once the transfer has run for a second. */
static void xfer_progress(struct xfer *x, uint64_t done)
{
	double t = now();

	if (!x->progress || t - x->last < 1.0)
		return;
	x->last = t;
	x->drawn = true;
	fprintf(stderr, "\r%" PRIu64 "/%" PRIu64 " (%.0f%%) %.1f MB/s  ", done,
		x->total, x->total ? 100.0 * done / x->total : 100.0,
		done / (t - x->start) / 1e6);
}

static void xfer_summary(struct xfer *x, FILE *out)
{
	char line[320];

	if (x->drawn)
		fputc('\n', stderr);
	x->drawn = false;
	format_summary(line, sizeof(line), x->op, x->done, now() - x->start,
		       x->by_ref, x->copied, cpu_seconds());
	fputs(line, out);
	fflush(out);
}

/* --- files, sockets, the control device ---------------------------------- */

/* Size of a block device or regular file; -EINVAL for anything else. */
static int fd_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

static const char *size_err(int err)
{
	return err == -EINVAL ? "not a block device or regular file" :
	       strerror(-err);
}

static int open_src(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	ret = fd_size(fd, size);
	if (ret) {
		pr_err("%s: %s", path, size_err(ret));
		close(fd);
		return -1;
	}
	return fd;
}

/* Open /dev/pmem_zc and check its ABI; -errno, *why set. */
static int ctl_open(const char **why)
{
	static char buf[PATH_MAX + 64];
	__u32 version = 0;
	int fd = open(pzc_dev, O_RDWR | O_CLOEXEC), e;

	*why = buf;
	if (fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENXIO || e == ENODEV)
			snprintf(buf, sizeof(buf),
				 "pmem_zc module not loaded (no %s)", pzc_dev);
		else
			snprintf(buf, sizeof(buf), "%s: %s%s", pzc_dev,
				 strerror(e), e == EACCES || e == EPERM ?
				 " (run as root)" : "");
		return -e;
	}
	if (ioctl(fd, PMEM_ZC_IOC_VERSION, &version)) {
		e = errno;
		snprintf(buf, sizeof(buf), "%s: PMEM_ZC_IOC_VERSION: %s%s",
			 pzc_dev, strerror(e),
			 e == ENOTTY ? " (not the pmem_zc device)" : "");
	} else if (version != PMEM_ZC_ABI_VERSION) {
		e = EPROTO;
		snprintf(buf, sizeof(buf),
			 "%s speaks ABI %u, pmem-zc %d (ABI version mismatch)",
			 pzc_dev, version, PMEM_ZC_ABI_VERSION);
	} else {
		return fd;
	}
	close(fd);
	return -e;
}

static int tcp_connect(const char *hostport)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res, *ai;
	char host[256], port[8];
	uint16_t pnum;
	int fd = -1, rc, e = 0;

	if (parse_hostport(hostport, host, sizeof(host), &pnum))
		return -1;	/* checked by the caller */
	snprintf(port, sizeof(port), "%u", pnum);
	/* a numeric address needs no NSS library (static binary) */
	hints.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(host, port, &hints, &res);
	hints.ai_flags &= ~AI_NUMERICHOST;
	if (rc == EAI_NONAME)
		rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		pr_err("%s: %s", host, rc == EAI_SYSTEM ? strerror(errno) :
		       gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		e = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		pr_err("connect to %s: %s", hostport, strerror(e));
	return fd;
}

static void set_timeouts(int fd, unsigned int rcv, unsigned int snd)
{
	struct timeval r = { .tv_sec = rcv }, s = { .tv_sec = snd };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, sizeof(r));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, sizeof(s));
}

static int write_all(int fd, const void *buf, size_t len, int flags)
{
	const char *p = buf;

	while (len) {
		ssize_t n = flags >= 0 ? send(fd, p, len, flags) :
					 write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* --- the transfer loop ---------------------------------------------------- */

struct zc_job {
	int ctl, src, dst;	/* dst: a TCP socket, or the target disk */
	bool copy;		/* PMEM_ZC_IOC_COPY, else SEND */
	uint32_t flags;
	uint64_t off, len, dst_off;
	const char *src_name;
};

/* One ioctl: @n bytes at @pos; adds what moved to @x. 0 or -errno. */
static int zc_chunk(const struct zc_job *j, uint64_t pos, uint64_t n,
		    bool last, struct xfer *x)
{
	int ret, e;

	if (j->copy) {
		struct pmem_zc_copy a = {
			.abi_version = PMEM_ZC_ABI_VERSION,
			/* FUA and FLUSH belong to the end of the whole range */
			.flags = j->flags & (last ? PMEM_ZC_F_ALL : PMEM_ZC_F_COPY),
			.src_fd = j->src,
			.dst_fd = j->dst,
			.offset = pos,
			.length = n,
			.dst_offset = j->dst_off + (pos - j->off),
		};

		ret = ioctl(j->ctl, PMEM_ZC_IOC_COPY, &a);
		e = errno;
		x->by_ref += a.bytes_ref;
		x->copied += a.bytes_copied;
		x->bios += a.bios;
	} else {
		struct pmem_zc_send a = {
			.abi_version = PMEM_ZC_ABI_VERSION,
			.flags = j->flags & PMEM_ZC_F_COPY,
			.src_fd = j->src,
			.sock_fd = j->dst,
			.offset = pos,
			.length = n,
		};

		ret = ioctl(j->ctl, PMEM_ZC_IOC_SEND, &a);
		e = errno;
		x->by_ref += a.bytes_ref;
		x->copied += a.bytes_copied;
	}
	return ret ? -e : 0;
}

/*
 * The whole range, chunk by chunk. With @timeout, SIGALRM (default action)
 * ends the process if one chunk takes longer: the module waits for the
 * peer's acknowledgement and only a fatal signal ends that wait.
 */
static int zc_transfer(const struct zc_job *j, struct xfer *x,
		       unsigned int timeout, char *why, size_t size)
{
	uint64_t chunk = j->copy ? COPY_CHUNK : SEND_CHUNK;
	uint64_t pos = j->off, end = j->off + j->len;

	while (pos < end) {
		uint64_t n = end - pos < chunk ? end - pos : chunk;
		uint64_t before = x->by_ref + x->copied, moved;
		const char *hint;
		int ret, len;

		if (timeout)
			alarm(timeout);
		ret = zc_chunk(j, pos, n, pos + n == end, x);
		if (timeout)
			alarm(0);
		moved = x->by_ref + x->copied - before;
		x->done += moved;
		if (!ret && moved == n) {
			pos += n;
			xfer_progress(x, pos - j->off);
			continue;
		}
		hint = ioc_hint(-ret);
		len = snprintf(why, size, "%s %s offset %" PRIu64 " length %"
			       PRIu64 ": ", j->copy ? "PMEM_ZC_IOC_COPY" :
			       "PMEM_ZC_IOC_SEND", j->src_name, pos, n);
		if (!ret)
			snprintf(why + len, size - len, "the module moved %"
				 PRIu64 " bytes", moved);
		else
			snprintf(why + len, size - len, "%s%s%s%s",
				 strerror(-ret), hint ? " (" : "",
				 hint ? hint : "", hint ? ")" : "");
		return ret ? ret : -EIO;
	}
	return 0;
}

/* --- send and copy -------------------------------------------------------- */

static const char send_usage[] =
"Usage: pmem-zc send SRC --to HOST:PORT [--offset N] [--length N] [--copy]\n"
"                    [--progress]\n"
"\n"
"Send bytes of SRC to a TCP peer with PMEM_ZC_IOC_SEND, 16 MiB per ioctl.\n"
"SRC is a prd disk or partition (/dev/pmem0, /dev/pmem0p1) or a regular\n"
"file on a filesystem on one.\n"
"\n"
"  --to HOST:PORT  the peer: IPv4 address or name ([IPv6]:PORT also works)\n"
"  --offset N      byte offset in SRC (default 0)\n"
"  --length N      bytes to send (default: to the end of SRC; 0 sends none)\n"
"  --copy          send by copy, the bounce-buffer baseline (PMEM_ZC_F_COPY)\n"
"  --progress      progress on stderr even when it is not a terminal\n"
"  -h, --help      this text\n"
"\n"
"Sizes: decimal or 0x hex, optional K/M/G/T suffix (1024-based).\n"
"Prints on stdout, also after a failed transfer (what moved):\n"
"  summary: op=send bytes=N seconds=S.SSS MBps=X.X by_ref=N copied=N\n"
"           cpu_seconds=C.CCC zero_copy=yes|no|partial\n"
"(one line; MBps in 10^6 bytes per second; cpu_seconds: user+system).\n";

static const char copy_usage[] =
"Usage: pmem-zc copy SRC --to BLOCKDEV [--offset N] [--dst-offset N]\n"
"                    [--length N] [--copy] [--fua] [--flush] [--progress]\n"
"\n"
"Write bytes of SRC to a block device with PMEM_ZC_IOC_COPY, in bios whose\n"
"pages are the pmem pages themselves, 64 MiB per ioctl.\n"
"\n"
"  --to BLOCKDEV    the target block device (opened for writing)\n"
"  --offset N       byte offset in SRC, a multiple of 4096 (default 0)\n"
"  --dst-offset N   byte offset in BLOCKDEV, a multiple of 512 (default 0)\n"
"  --length N       bytes, a multiple of 512 (default: to the end of SRC)\n"
"  --copy           write through a bounce buffer (PMEM_ZC_F_COPY)\n"
"  --fua            the last bio of the range is REQ_FUA (only that bio)\n"
"  --flush          flush the target's cache at the end: all of it durable\n"
"  --progress       progress on stderr even when it is not a terminal\n"
"  -h, --help       this text\n"
"\n"
"Prints on stdout \"bios: N\" and the summary line (see pmem-zc send --help)\n"
"with op=copy.\n";

struct xfer_opts {
	const char *src, *to;
	uint64_t off, len, dst_off;
	bool have_len, progress;
	uint32_t flags;
};

static int opt_size(const char *name, const char *arg, uint64_t *v)
{
	int ret = parse_size(arg, v);

	if (ret)
		usage_err("%s '%s': %s", name, arg, ret == -ERANGE ? "too large" :
			  "not a size (decimal or 0x hex, optional K/M/G/T)");
	return ret;
}

/* Options of send and copy. RC_OK, or the exit code to return now. */
static int parse_xfer_opts(int argc, char **argv, bool copy,
			   struct xfer_opts *o)
{
	static const struct option opts[] = {
		{ "to",		required_argument,	NULL, 't' },
		{ "offset",	required_argument,	NULL, 'o' },
		{ "length",	required_argument,	NULL, 'l' },
		{ "dst-offset",	required_argument,	NULL, 'd' },
		{ "copy",	no_argument,		NULL, 'c' },
		{ "fua",	no_argument,		NULL, 'f' },
		{ "flush",	no_argument,		NULL, 'F' },
		{ "progress",	no_argument,		NULL, 'p' },
		{ "help",	no_argument,		NULL, 'h' },
		{}
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (!copy && (c == 'd' || c == 'f' || c == 'F'))
			return usage_err("--dst-offset, --fua and --flush are options of copy");
		switch (c) {
		case 't':
			o->to = optarg;
			break;
		case 'o':
			if (opt_size("--offset", optarg, &o->off))
				return RC_USAGE;
			break;
		case 'l':
			if (opt_size("--length", optarg, &o->len))
				return RC_USAGE;
			o->have_len = true;
			break;
		case 'd':
			if (opt_size("--dst-offset", optarg, &o->dst_off))
				return RC_USAGE;
			break;
		case 'c':
			o->flags |= PMEM_ZC_F_COPY;
			break;
		case 'f':
			o->flags |= PMEM_ZC_F_FUA;
			break;
		case 'F':
			o->flags |= PMEM_ZC_F_FLUSH;
			break;
		case 'p':
			o->progress = true;
			break;
		case 'h':
			fputs(copy ? copy_usage : send_usage, stdout);
			return -1;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return RC_USAGE;
		}
	}
	if (optind >= argc)
		return usage_err("missing SRC");
	if (optind + 1 < argc)
		return usage_err("unexpected argument '%s'", argv[optind + 1]);
	o->src = argv[optind];
	if (!o->to)
		return usage_err("missing --to %s", copy ? "BLOCKDEV" : "HOST:PORT");
	return RC_OK;
}

/* Open the target of copy: a block device large enough for the range. */
static int open_copy_target(const struct xfer_opts *o, uint64_t len)
{
	uint64_t size;
	struct stat st;
	int fd = open(o->to, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		pr_err("%s: %s", o->to, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		pr_err("%s: not a block device", o->to);
	} else if (ioctl(fd, BLKGETSIZE64, &size)) {
		pr_err("%s: BLKGETSIZE64: %s", o->to, strerror(errno));
	} else if (o->dst_off > size || len > size - o->dst_off) {
		pr_err("%s: %" PRIu64 " bytes at %" PRIu64 " do not fit in %"
		       PRIu64 " (target smaller than the range)", o->to, len,
		       o->dst_off, size);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

static int cmd_xfer(int argc, char **argv, bool copy)
{
	struct zc_job j = { .ctl = -1, .src = -1, .dst = -1, .copy = copy };
	struct xfer_opts o;
	struct xfer x;
	const char *why;
	char msg[512], host[256];
	uint64_t size;
	uint16_t port;
	int ret;

	ret = parse_xfer_opts(argc, argv, copy, &o);
	if (ret)
		return ret < 0 ? RC_OK : ret;
	if (!copy && parse_hostport(o.to, host, sizeof(host), &port))
		return usage_err("--to '%s': want HOST:PORT", o.to);

	ret = RC_FAIL;
	j.src = open_src(o.src, &size);
	if (j.src < 0)
		return RC_FAIL;
	j.src_name = o.src;
	j.off = o.off;
	j.len = o.len;
	j.dst_off = o.dst_off;
	j.flags = o.flags;
	if (resolve_range(size, o.off, o.have_len, &j.len)) {
		if (o.have_len)
			pr_err("%s: %" PRIu64 " bytes at offset %" PRIu64
			       ": beyond the end of the source (size %" PRIu64
			       ")", o.src, o.len, o.off, size);
		else
			pr_err("%s: offset %" PRIu64
			       ": beyond the end of the source (size %" PRIu64 ")",
			       o.src, o.off, size);
		goto out;
	}
	/* a peer sees no connection if the module is missing */
	if (copy)
		j.dst = open_copy_target(&o, j.len);
	if (copy && j.dst < 0)
		goto out;
	j.ctl = ctl_open(&why);
	if (j.ctl < 0) {
		pr_err("%s", why);
		goto out;
	}
	if (!copy)
		j.dst = tcp_connect(o.to);
	if (j.dst < 0)
		goto out;

	xfer_init(&x, copy ? "copy" : "send", j.len, o.progress);
	if (!zc_transfer(&j, &x, 0, msg, sizeof(msg)))
		ret = RC_OK;
	else
		pr_err("%s", msg);
	if (copy)
		printf("bios: %" PRIu64 "\n", x.bios);
	else
		shutdown(j.dst, SHUT_WR);
	xfer_summary(&x, stdout);
out:
	if (j.dst >= 0)
		close(j.dst);
	if (j.ctl >= 0)
		close(j.ctl);
	close(j.src);
	return ret;
}

static int cmd_send(int argc, char **argv)
{
	return cmd_xfer(argc, argv, false);
}

static int cmd_copy(int argc, char **argv)
{
	return cmd_xfer(argc, argv, true);
}

/* --- serve ---------------------------------------------------------------- */

static const char serve_usage[] =
"Usage: pmem-zc serve (--root DIR | --dev DEV) --port PORT [--count N]\n"
"                     [--copy] [--bind ADDR] [--timeout SECONDS]\n"
"\n"
"Serve one request per TCP connection, the data sent with PMEM_ZC_IOC_SEND\n"
"from the file or device itself:\n"
"  \"GET <path>\\n\"               (--root) a regular file under DIR\n"
"  \"RANGE <offset> <length>\\n\"  (--dev) a byte range of DEV\n"
"Reply: \"OK <length>\\n\" and exactly <length> bytes, or \"ERR <message>\\n\".\n"
"A transfer that fails after OK ends the connection early.\n"
"\n"
"  --root DIR       serve files under DIR (no absolute paths, no '..',\n"
"                   nothing that resolves outside DIR, regular files only)\n"
"  --dev DEV        serve ranges of DEV (a prd disk, partition or file)\n"
"  --port PORT      TCP port (0: any; the port is logged)\n"
"  --bind ADDR      IPv4 address to listen on (default 0.0.0.0)\n"
"  --count N        exit after N requests (connections that send nothing\n"
"                   are not counted); exit 1 if any of them failed\n"
"  --copy           send by copy (PMEM_ZC_F_COPY)\n"
"  --timeout SECS   per request line and per 16 MiB sent (default 60; 0 none)\n"
"  -h, --help       this text\n"
"\n"
"Up to 8 connections are handled at once, each by a child process. One log\n"
"line per connection on stderr: peer, request, bytes, ms, by_ref, copied.\n";

struct serve_cfg {
	char root[PATH_MAX];	/* realpath of --root, or "" */
	const char *dev;	/* --dev */
	int dev_fd;
	uint32_t flags;
	unsigned int timeout;
};

/* Request line from @fd: bytes up to '\n' (or EOF); its length or -errno. */
static ssize_t read_line(int fd, char *buf, size_t size)
{
	size_t have = 0;

	while (have < size) {
		ssize_t n = recv(fd, buf + have, size - have, 0);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return have ? (ssize_t)have : -ENODATA;
		nl = memchr(buf + have, '\n', n);
		if (nl)
			return nl - buf;
		have += n;
	}
	return -E2BIG;
}

/* Printable, bounded copy of a request for the log. */
static void shown(char *out, size_t size, const char *in, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 4 < size; i++)
		out[o++] = isprint((unsigned char)in[i]) ? in[i] : '?';
	if (i < len && o)
		out[o - 1] = '.';
	out[o] = '\0';
}

/* Fill @j's source and range for request @r; *why on failure. */
static int serve_source(const struct serve_cfg *cfg, const struct zc_req *r,
			struct zc_job *j, const char **why)
{
	uint64_t size, len = r->len;
	char path[PATH_MAX];
	struct stat st;
	int ret;

	if (r->type == REQ_RANGE) {
		*why = "RANGE needs serve --dev";
		if (!cfg->dev)
			return -EINVAL;
		j->src = cfg->dev_fd;
		j->src_name = cfg->dev;
		ret = fd_size(j->src, &size);
		if (ret) {
			*why = size_err(ret);
			return ret;
		}
		*why = "range beyond the end of the device";
		if (resolve_range(size, r->off, true, &len))
			return -ERANGE;
		j->off = r->off;
		j->len = len;
		return 0;
	}
	*why = "GET needs serve --root";
	if (!cfg->root[0])
		return -EINVAL;
	ret = resolve_under(cfg->root, r->path, path, why);
	if (ret)
		return ret;
	j->src = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (j->src < 0) {
		*why = strerror(errno);
		return -errno;
	}
	*why = "not a regular file";
	if (fstat(j->src, &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	j->src_name = r->path;
	j->off = 0;
	j->len = st.st_size;
	return 0;
}

/* FIN after the reply, then let the client close first: no RST on data. */
static void close_gracefully(int fd)
{
	char buf[512];
	int i;

	shutdown(fd, SHUT_WR);
	set_timeouts(fd, 1, 1);
	for (i = 0; i < 64 && recv(fd, buf, sizeof(buf), 0) > 0; i++)
		;
	close(fd);
}

/* One connection: the exit code of its handler (0, 1, NO_REQUEST). */
static int serve_conn(const struct serve_cfg *cfg, int fd, const char *peer)
{
	struct zc_job j = { .ctl = -1, .src = -1, .dst = fd,
			    .flags = cfg->flags };
	struct zc_req req;
	char line[REQ_MAX], reqs[100] = "", why[512] = "", hdr[40];
	const char *msg = NULL;
	struct xfer x;
	ssize_t n;
	double ms;
	int ret;

	xfer_init(&x, "serve", 0, false);
	x.progress = false;
	set_timeouts(fd, cfg->timeout, cfg->timeout);
	n = read_line(fd, line, sizeof(line));
	if (n == -ENODATA) {
		close(fd);
		fprintf(stderr, "%s: peer=%s no request\n", prog, peer);
		return NO_REQUEST;
	}
	if (n < 0) {
		msg = n == -E2BIG ? "request too long" : n == -EAGAIN ?
		      "timed out waiting for the request" : strerror(-n);
		ret = n;
		goto reply;
	}
	shown(reqs, sizeof(reqs), line, n);
	ret = parse_request(line, n, &req, &msg);
	if (!ret)
		ret = serve_source(cfg, &req, &j, &msg);
	if (!ret && j.len) {
		j.ctl = ctl_open(&msg);
		ret = j.ctl < 0 ? j.ctl : 0;
	}
	if (ret)
		goto reply;
	snprintf(hdr, sizeof(hdr), "OK %" PRIu64 "\n", j.len);
	ret = write_all(fd, hdr, strlen(hdr), MSG_NOSIGNAL | (j.len ? MSG_MORE : 0));
	if (ret)
		snprintf(why, sizeof(why), "sending the header: %s", strerror(-ret));
	else
		ret = zc_transfer(&j, &x, cfg->timeout, why, sizeof(why));
	goto out;
reply:
	snprintf(why, sizeof(why), "ERR %s\n", msg);
	write_all(fd, why, strlen(why), MSG_NOSIGNAL);
	why[strlen(why) - 1] = '\0';
out:
	ms = (now() - x.start) * 1e3;
	close_gracefully(fd);
	fprintf(stderr,
		"%s: peer=%s req=\"%s\" bytes=%" PRIu64 " ms=%.1f by_ref=%" PRIu64 " copied=%" PRIu64 " %s%s\n",
		prog, peer, reqs, x.done, ms, x.by_ref, x.copied,
		ret ? "failed: " : "ok", ret ? why : "");
	if (j.src >= 0 && j.src != cfg->dev_fd)
		close(j.src);
	if (j.ctl >= 0)
		close(j.ctl);
	return ret ? RC_FAIL : RC_OK;
}

struct serve_state {
	unsigned long children, served, failed;
};

/* Reap children; with @block, wait for one at least. */
static void serve_reap(struct serve_state *s, bool block)
{
	int st;
	pid_t pid;

	while (s->children) {
		pid = waitpid(-1, &st, block ? 0 : WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			return;
		s->children--;
		block = false;
		if (WIFEXITED(st) && WEXITSTATUS(st) == NO_REQUEST)
			continue;
		s->served++;
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		s->failed++;
		if (WIFSIGNALED(st))
			pr_err("handler %d killed by signal %d%s", (int)pid,
			       WTERMSIG(st), WTERMSIG(st) == SIGALRM ?
			       " (--timeout)" : "");
	}
}

static int serve_listen(const char *bind_addr, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t len = sizeof(sa);
	char addr[INET_ADDRSTRLEN];
	int fd, one = 1;

	inet_pton(AF_INET, bind_addr, &sa.sin_addr);	/* checked */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		pr_err("listen on %s:%u: %s", bind_addr, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof(addr));
	fprintf(stderr, "%s: listening on %s:%u\n", prog, addr,
		ntohs(sa.sin_port));
	return fd;
}

static void serve_accept(const struct serve_cfg *cfg, int lfd,
			 struct serve_state *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	char peer[INET_ADDRSTRLEN + 8], addr[INET_ADDRSTRLEN] = "?";
	pid_t pid;
	int fd;

	fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
			pr_err("accept: %s", strerror(errno));
			poll(NULL, 0, 100);	/* EMFILE and friends: no spin */
		}
		return;
	}
	inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
	snprintf(peer, sizeof(peer), "%s:%u", addr, ntohs(sin->sin_port));
	fflush(NULL);
	pid = fork();
	if (!pid) {
		close(lfd);
		signal(SIGALRM, SIG_DFL);	/* --timeout ends a stuck send */
		_exit(serve_conn(cfg, fd, peer));
	}
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		s->served++;
		s->failed++;
	} else {
		s->children++;
	}
	close(fd);
}

static int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root",	required_argument,	NULL, 'r' },
		{ "dev",	required_argument,	NULL, 'd' },
		{ "port",	required_argument,	NULL, 'p' },
		{ "count",	required_argument,	NULL, 'n' },
		{ "bind",	required_argument,	NULL, 'b' },
		{ "timeout",	required_argument,	NULL, 't' },
		{ "copy",	no_argument,		NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{}
	};
	struct serve_cfg cfg = { .dev_fd = -1, .timeout = DEF_TIMEOUT };
	struct serve_state s = {};
	const char *root = NULL, *port_s = NULL, *bind_addr = "0.0.0.0";
	uint64_t count = 0, size, t;
	struct in_addr in;
	uint16_t port;
	int c, lfd;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'd':
			cfg.dev = optarg;
			break;
		case 'p':
			port_s = optarg;
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'c':
			cfg.flags |= PMEM_ZC_F_COPY;
			break;
		case 'n':
			if (opt_size("--count", optarg, &count))
				return RC_USAGE;
			break;
		case 't':
			if (opt_size("--timeout", optarg, &t))
				return RC_USAGE;
			if (t > 86400)
				return usage_err("--timeout: at most 86400");
			cfg.timeout = t;
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return RC_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return RC_USAGE;
		}
	}
	if (optind < argc)
		return usage_err("unexpected argument '%s'", argv[optind]);
	if (!root == !cfg.dev)
		return usage_err("want exactly one of --root DIR and --dev DEV");
	if (!port_s)
		return usage_err("missing --port PORT");
	if (parse_port(port_s, true, &port))
		return usage_err("--port '%s': not a port number", port_s);
	if (inet_pton(AF_INET, bind_addr, &in) != 1)
		return usage_err("--bind '%s': not an IPv4 address", bind_addr);

	if (root) {
		struct stat st;

		if (!realpath(root, cfg.root) || stat(cfg.root, &st)) {
			pr_err("%s: %s", root, strerror(errno));
			return RC_FAIL;
		}
		if (!S_ISDIR(st.st_mode)) {
			pr_err("%s: not a directory", root);
			return RC_FAIL;
		}
	} else {
		cfg.dev_fd = open_src(cfg.dev, &size);
		if (cfg.dev_fd < 0)
			return RC_FAIL;
	}
	lfd = serve_listen(bind_addr, port);
	if (lfd < 0)
		return RC_FAIL;
	while (!count || s.served + s.children < count || s.children) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		serve_reap(&s, s.children >= MAX_CHILDREN);
		if (count && s.served + s.children >= count)
			serve_reap(&s, s.children > 0);
		else if (s.children < MAX_CHILDREN && poll(&pfd, 1, 1000) > 0)
			serve_accept(&cfg, lfd, &s);
	}
	close(lfd);
	if (cfg.dev_fd >= 0)
		close(cfg.dev_fd);
	return s.failed ? RC_FAIL : RC_OK;
}

/* --- fetch ---------------------------------------------------------------- */

static const char fetch_usage[] =
"Usage: pmem-zc fetch HOST:PORT (PATH | --range OFFSET LENGTH) [-o FILE]\n"
"                     [--progress] [--timeout SECONDS]\n"
"\n"
"The client of pmem-zc serve: request PATH (serve --root) or a byte range\n"
"(serve --dev), write exactly the announced bytes to FILE. Fails on ERR,\n"
"short or extra data, or a connection error; FILE is opened only after OK.\n"
"\n"
"  --range OFFSET LENGTH  request a range instead of a file\n"
"  -o, --output FILE      write to FILE (default: stdout)\n"
"  --progress             progress on stderr even when it is not a terminal\n"
"  --timeout SECS         give up after SECS without data (default 60)\n"
"  -h, --help             this text\n"
"\n"
"Prints the summary line (see pmem-zc send --help) on stderr, with op=fetch\n"
"by_ref=0 copied=0 zero_copy=no.\n";

/* Read the reply header; leftover data goes to @buf, its size to *extra. */
static int fetch_header(int fd, char *buf, size_t size, uint64_t *len,
			size_t *extra)
{
	char hdr[REPLY_MAX + 1];
	size_t have = 0;
	const char *msg;
	char *nl = NULL;
	int ret;

	while (!nl && have < REPLY_MAX) {
		ssize_t n = recv(fd, hdr + have, REPLY_MAX - have, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pr_err("reading the reply: %s", n ? strerror(errno) :
			       "connection closed before a reply");
			return -1;
		}
		nl = memchr(hdr + have, '\n', n);
		have += n;
	}
	if (!nl) {
		pr_err("bad reply header: no newline in %d bytes", REPLY_MAX);
		return -1;
	}
	*extra = have - (nl + 1 - hdr);
	memcpy(buf, nl + 1, *extra < size ? *extra : size);
	ret = parse_reply(hdr, nl - hdr, len, &msg);
	if (ret == -EREMOTEIO)
		pr_err("server: %s", msg);
	else if (ret)
		pr_err("%s", msg);
	return ret;
}

/* Body of the reply: exactly @len bytes to @out, @extra already in @buf. */
static int fetch_body(int fd, int out, const char *out_name, char *buf,
		      size_t extra, uint64_t len, struct xfer *x)
{
	ssize_t n = extra;

	for (;;) {
		int ret;

		if ((uint64_t)n > len - x->done) {
			pr_err("peer sent more than the %" PRIu64 " bytes announced",
			       len);
			return -1;
		}
		ret = write_all(out, buf, n, -1);
		if (ret) {
			pr_err("%s: %s", out_name, strerror(-ret));
			return -1;
		}
		x->done += n;
		xfer_progress(x, x->done);
		do {
			n = recv(fd, buf, IO_BUF, 0);
		} while (n < 0 && errno == EINTR);
		if (n < 0 && x->done == len)
			return 0;	/* all there; only the close went wrong */
		if (n < 0) {
			pr_err("after %" PRIu64 " of %" PRIu64 " bytes: %s",
			       x->done, len, errno == EAGAIN ?
			       "timed out" : strerror(errno));
			return -1;
		}
		if (!n && x->done < len) {
			pr_err("short data: got %" PRIu64 " of %" PRIu64 " bytes",
			       x->done, len);
			return -1;
		}
		if (!n)
			return 0;	/* EOF right after the data */
	}
}

struct fetch_opts {
	const char *target, *path, *out;
	uint64_t off, len;
	bool range, progress;
	unsigned int timeout;
};

static int parse_fetch_opts(int argc, char **argv, struct fetch_opts *o)
{
	static const struct option opts[] = {
		{ "range",	required_argument,	NULL, 'r' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "progress",	no_argument,		NULL, 'p' },
		{ "timeout",	required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{}
	};
	char host[256];
	uint16_t port;
	uint64_t t;
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout = DEF_TIMEOUT;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (optind >= argc)
				return usage_err("--range wants OFFSET LENGTH");
			if (opt_size("--range OFFSET", optarg, &o->off) ||
			    opt_size("--range LENGTH", argv[optind++], &o->len))
				return RC_USAGE;
			o->range = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			o->progress = true;
			break;
		case 't':
			if (opt_size("--timeout", optarg, &t))
				return RC_USAGE;
			if (t > 86400)
				return usage_err("--timeout: at most 86400");
			o->timeout = t;
			break;
		case 'h':
			fputs(fetch_usage, stdout);
			return -1;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return RC_USAGE;
		}
	}
	if (optind >= argc)
		return usage_err("missing HOST:PORT");
	o->target = argv[optind++];
	if (parse_hostport(o->target, host, sizeof(host), &port))
		return usage_err("'%s': want HOST:PORT", o->target);
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		return usage_err("unexpected argument '%s'", argv[optind]);
	if (!o->path == !o->range)
		return usage_err("want exactly one of PATH and --range OFFSET LENGTH");
	if (o->path && (!*o->path || strchr(o->path, '\n') ||
			strlen(o->path) > REQ_MAX - 8))
		return usage_err("PATH: empty, too long or with a newline");
	return RC_OK;
}

static int cmd_fetch(int argc, char **argv)
{
	char req[REQ_MAX], *buf = NULL;
	struct fetch_opts o;
	struct stat st;
	int fd, out = -1, ret;
	uint64_t len;
	size_t extra;
	struct xfer x;

	ret = parse_fetch_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? RC_OK : ret;
	if (o.range)
		snprintf(req, sizeof(req), "RANGE %" PRIu64 " %" PRIu64 "\n",
			 o.off, o.len);
	else
		snprintf(req, sizeof(req), "GET %s\n", o.path);

	ret = RC_FAIL;
	fd = tcp_connect(o.target);
	if (fd < 0)
		return RC_FAIL;
	set_timeouts(fd, o.timeout, o.timeout);
	buf = malloc(IO_BUF);
	if (!buf) {
		pr_err("%s", strerror(errno));
		goto out;
	}
	if (write_all(fd, req, strlen(req), MSG_NOSIGNAL)) {
		pr_err("sending the request to %s: %s", o.target, strerror(errno));
		goto out;
	}
	xfer_init(&x, "fetch", 0, o.progress);
	if (fetch_header(fd, buf, IO_BUF, &len, &extra))
		goto out;
	x.total = len;
	if (!o.out || !strcmp(o.out, "-"))
		out = STDOUT_FILENO;
	else
		out = open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		pr_err("%s: %s", o.out, strerror(errno));
		goto out;
	}
	if (!fetch_body(fd, out, o.out ? o.out : "stdout", buf, extra, len, &x))
		ret = RC_OK;
	else if (out != STDOUT_FILENO && !fstat(out, &st) && S_ISREG(st.st_mode))
		pr_err("%s holds partial data", o.out);
	xfer_summary(&x, stderr);
	if (out != STDOUT_FILENO && close(out) && !ret) {
		pr_err("%s: %s", o.out, strerror(errno));
		ret = RC_FAIL;
	}
out:
	free(buf);
	close(fd);
	return ret;
}

/* --- stats ---------------------------------------------------------------- */

static const char stats_usage[] =
"Usage: pmem-zc stats [--dir DIR]\n"
"\n"
"Print every pmem_zc counter as \"name: value\", sorted by name.\n"
"\n"
"  --dir DIR   read the counters from DIR (default " PZC_STATS_DIR ")\n"
"  -h, --help  this text\n";

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir",	required_argument,	NULL, 'd' },
		{ "help",	no_argument,		NULL, 'h' },
		{}
	};
	const char *dir = PZC_STATS_DIR;
	struct dirent **ents;
	int c, n, i, ret = RC_OK;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			fputs(stats_usage, stdout);
			return RC_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return RC_USAGE;
		}
	}
	if (optind < argc)
		return usage_err("unexpected argument '%s'", argv[optind]);
	n = scandir(dir, &ents, not_hidden, alphasort);
	if (n < 0) {
		if (errno == ENOENT && !strcmp(dir, PZC_STATS_DIR))
			pr_err("pmem_zc module not loaded (no %s)", dir);
		else
			pr_err("%s: %s", dir, strerror(errno));
		return RC_FAIL;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], val[64];
		ssize_t len = -1;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			len = read(fd, val, sizeof(val) - 1);
			close(fd);
		}
		if (len < 0) {
			pr_err("%s: %s", path, strerror(errno));
			ret = RC_FAIL;
		} else {
			while (len && isspace((unsigned char)val[len - 1]))
				len--;
			val[len] = '\0';
			printf("%s: %s\n", ents[i]->d_name, val);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/* --- main ----------------------------------------------------------------- */

static const char main_usage[] =
"Usage: pmem-zc <subcommand> [options]   (pmem-zc <subcommand> --help)\n"
"\n"
"Zero-copy I/O from persistent memory through " PZC_DEV ".\n"
"\n"
"  send    send a pmem range or file to a TCP peer\n"
"  copy    write a pmem range or file to a block device\n"
"  serve   serve files or device ranges over TCP, zero-copy\n"
"  fetch   the client of serve\n"
"  stats   print the pmem_zc counters\n"
"\n"
"Sizes: decimal or 0x hex with an optional K/M/G/T suffix (1024-based).\n"
"Exit status: 0 success, 1 the operation failed, 2 usage error.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "send", cmd_send },
	{ "copy", cmd_copy },
	{ "serve", cmd_serve },
	{ "fetch", cmd_fetch },
	{ "stats", cmd_stats },
};

int main(int argc, char **argv)
{
	static char name[32];
	const char *sub = argc > 1 ? argv[1] : NULL;
	size_t i;

	signal(SIGPIPE, SIG_IGN);	/* the module's sends raise it too */
	prog = "pmem-zc";
	if (!sub) {
		fputs(main_usage, stderr);
		return RC_USAGE;
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    (!strcmp(sub, "help") && argc == 2)) {
		fputs(main_usage, stdout);
		return RC_OK;
	}
	if (!strcmp(sub, "--version")) {
		printf("pmem-zc (ABI %d)\n", PMEM_ZC_ABI_VERSION);
		return RC_OK;
	}
	if (!strcmp(sub, "help") && argc == 3) {	/* help SUBCOMMAND */
		static char opt_help[] = "--help";	/* argv is not const */

		argv[1] = argv[2];
		argv[2] = opt_help;
		sub = argv[1];
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(sub, cmds[i].name))
			continue;
		snprintf(name, sizeof(name), "pmem-zc %s", cmds[i].name);
		prog = name;
		argv[1] = name;	/* getopt's own messages name it too */
		optind = 0;
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "pmem-zc: unknown subcommand '%s'\nTry 'pmem-zc --help'.\n",
		sub);
	return RC_USAGE;
}
