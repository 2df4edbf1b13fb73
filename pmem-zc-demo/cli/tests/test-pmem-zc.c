// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of pmem-zc, TAP output, exit 1 on any failure.
 *
 * The CLI is included whole with its main() renamed, so its static helpers
 * (sizes, HOST:PORT, the serve protocol, path sanitising, the summary) are
 * tested directly. Then the subcommands run in child processes: fetch
 * against canned one-shot servers, serve against raw requests and against
 * fetch, all on 127.0.0.1.
 *
 * /dev/pmem_zc is never touched: the control device is a file in the test
 * directory, absent for the "module not loaded" cases, and ioctl() is
 * replaced by fake_ioctl(), which does what the module promises in user
 * space (read the source, write the socket or the target) and can fail on
 * the Nth call. Chunks are made small so that a few hundred KiB span several
 * ioctls.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ftw.h>

#define SEND_CHUNK	(64ULL << 10)
#define COPY_CHUNK	(128ULL << 10)

static int fake_ioctl(int fd, unsigned long req, ...);
#define ioctl fake_ioctl
#define main pmem_zc_main
#include "../pmem-zc.c"
#undef main
#undef ioctl

static int nr, nfail;
static char tmpdir[64], out_f[128], err_f[128], fake_dev[128];
static char nomod[200];		/* serve's answer without the module */

/* --- the fake module ------------------------------------------------------ */

static unsigned int fake_version = PMEM_ZC_ABI_VERSION;
static int fake_calls;
static int fake_fail_call, fake_errno;	/* call N fails halfway with errno */
static int fake_short_call;		/* call N moves half and returns 0 */
static struct fake_call {
	unsigned long req;
	uint32_t flags;
	uint64_t off, len, dst_off;
} fake_log[16];

/* Move @len bytes at @off of @src to the socket @sock, or to @dst at @dst_off. */
static int64_t fake_move(int src, int sock, int dst, uint64_t off, uint64_t len,
			 uint64_t dst_off)
{
	static char buf[1 << 16];
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t r = pread(src, buf, n, off + done);

		if (r <= 0)
			return r ? -errno : -ERANGE;
		if (sock >= 0 ? write_all(sock, buf, r, MSG_NOSIGNAL) :
		    pwrite(dst, buf, r, dst_off + done) != r)
			return -EIO;
		done += r;
	}
	return done;
}

/* The arguments of either ioctl, the same for both. */
struct fake_args {
	unsigned long req;
	uint32_t abi, flags, allowed;
	int src, sock, dst;
	uint64_t off, len, dst_off, ref, copied, bios;
};

static int fake_op(struct fake_args *f)
{
	int call = ++fake_calls;
	bool fail = call == fake_fail_call, shrt = call == fake_short_call;
	int64_t moved;

	if (call <= (int)ARRAY_SIZE(fake_log))
		fake_log[call - 1] = (struct fake_call){ f->req, f->flags, f->off,
							 f->len, f->dst_off };
	if (f->abi != PMEM_ZC_ABI_VERSION) {
		errno = EPROTO;
		return -1;
	}
	if (!f->len || (f->flags & ~f->allowed)) {
		errno = EINVAL;
		return -1;
	}
	moved = fake_move(f->src, f->sock, f->dst, f->off,
			  fail || shrt ? f->len / 2 : f->len, f->dst_off);
	if (moved < 0) {
		errno = -moved;
		return -1;
	}
	*(f->flags & PMEM_ZC_F_COPY ? &f->copied : &f->ref) = moved;
	f->bios = (moved + 65535) >> 16;
	if (fail) {
		errno = fake_errno;
		return -1;
	}
	return 0;
}

static int fake_ioctl(int fd, unsigned long req, ...)
{
	struct pmem_zc_send *s;
	struct pmem_zc_copy *c;
	struct fake_args f;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (req) {
	case PMEM_ZC_IOC_VERSION:
		*(__u32 *)arg = fake_version;
		return 0;
	case PMEM_ZC_IOC_SEND:
		s = arg;
		f = (struct fake_args){ req, s->abi_version, s->flags,
			PMEM_ZC_F_COPY, s->src_fd, s->sock_fd, -1, s->offset,
			s->length };
		ret = fake_op(&f);
		s->bytes_ref = f.ref;
		s->bytes_copied = f.copied;
		return ret;
	case PMEM_ZC_IOC_COPY:
		c = arg;
		f = (struct fake_args){ req, c->abi_version, c->flags,
			PMEM_ZC_F_ALL, c->src_fd, -1, c->dst_fd, c->offset,
			c->length, c->dst_offset };
		ret = fake_op(&f);
		c->bytes_ref = f.ref;
		c->bytes_copied = f.copied;
		c->bios = f.bios;
		return ret;
	}
	return syscall(SYS_ioctl, fd, req, arg);
}

static void fake_reset(void)
{
	fake_version = PMEM_ZC_ABI_VERSION;
	fake_calls = fake_fail_call = fake_errno = fake_short_call = 0;
	memset(fake_log, 0, sizeof(fake_log));
}

/* Dump a file as TAP diagnostics. */
static void diag(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		printf("#   %s%s", line, strchr(line, '\n') ? "" : "\n");
	if (f)
		fclose(f);
}

static bool __printf(2, 3) ok(bool cond, const char *fmt, ...)
{
	char msg[512], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; *p; p++)	/* one TAP line */
		if (iscntrl((unsigned char)*p))
			*p = '?';
	nr++;
	if (!cond)
		nfail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", nr, msg);
	fflush(stdout);
	return cond;
}


/* --- pure helpers --------------------------------------------------------- */

static void test_parse_size(void)
{
	static const struct { const char *s; int ret; uint64_t v; } t[] = {
		{ "0", 0, 0 }, { "123", 0, 123 }, { "08", 0, 8 },
		{ "0x10", 0, 16 }, { "0X1f", 0, 31 }, { "4K", 0, 4096 },
		{ "4k", 0, 4096 }, { "1M", 0, 1 << 20 }, { "2G", 0, 2ULL << 30 },
		{ "1T", 0, 1ULL << 40 }, { "0x10M", 0, 16ULL << 20 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX },
		{ "16777215T", 0, 16777215ULL << 40 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "0x10000000000000000", -ERANGE, 0 },
		{ "16777216T", -ERANGE, 0 }, { "17179869184G", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "-0", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 }, { " 1", -EINVAL, 0 }, { "1 ", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 }, { "1KB", -EINVAL, 0 },
		{ "1KK", -EINVAL, 0 }, { "0x", -EINVAL, 0 }, { "0xg", -EINVAL, 0 },
		{ "0x-1", -EINVAL, 0 }, { "1.5M", -EINVAL, 0 }, { "K", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 }, { "0b1", -EINVAL, 0 }, { "1P", -EINVAL, 0 },
		{ "1\n", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		uint64_t v = 12345;
		int ret = parse_size(t[i].s, &v);

		ok(ret == t[i].ret && (ret || v == t[i].v),
		   "parse_size(\"%s\") = %d, %" PRIu64, t[i].s, ret, v);
	}
	ok(parse_size(NULL, NULL) == -EINVAL, "parse_size(NULL) = -EINVAL");
}

static void test_parse_hostport(void)
{
	static const struct { const char *s; const char *host; int port; } t[] = {
		{ "127.0.0.1:80", "127.0.0.1", 80 }, { "host:65535", "host", 65535 },
		{ "a:1", "a", 1 }, { "peer-b.local:00080", "peer-b.local", 80 },
		{ "[::1]:22", "::1", 22 },
		{ ":80" }, { "host:" }, { "host" }, { "host:0" }, { "host:65536" },
		{ "host:8x" }, { "host:-1" }, { "host:+80" }, { "host:123456" },
		{ "::1:80" }, { "[::1]80" }, { "[]:80" }, { "[::1" }, { "" },
		{ "a b:80" }, { "a\tb:80" },
	};
	char host[256], longhost[300];
	uint16_t port;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int ret = parse_hostport(t[i].s, host, sizeof(host), &port);

		if (t[i].host)
			ok(!ret && !strcmp(host, t[i].host) && port == t[i].port,
			   "parse_hostport(\"%s\") = %s port %u", t[i].s,
			   ret ? "error" : host, ret ? 0 : port);
		else
			ok(ret == -EINVAL, "parse_hostport(\"%s\") rejected",
			   t[i].s);
	}
	memset(longhost, 'h', 290);
	strcpy(longhost + 290, ":80");
	ok(parse_hostport(longhost, host, sizeof(host), &port) == -EINVAL,
	   "parse_hostport rejects a 290-character host");
	ok(!parse_port("0", true, &port) && port == 0, "parse_port(0) for serve");
	ok(parse_port("0", false, &port), "parse_port(0) rejected for a peer");
	ok(!parse_port("65535", true, &port) && port == 65535, "parse_port(65535)");
	ok(parse_port("", true, &port) && parse_port("1 ", true, &port),
	   "parse_port rejects \"\" and \"1 \"");
}

static void test_parse_request(void)
{
	static const struct {
		const char *s;
		int type;	/* -1: rejected */
		const char *path;
		uint64_t off, len;
	} t[] = {
		{ "GET a.txt", REQ_GET, "a.txt" },
		{ "GET a.txt\r", REQ_GET, "a.txt" },
		{ "GET dir/b c", REQ_GET, "dir/b c" },
		{ "GET ../x", REQ_GET, "../x" },	/* caught by the path check */
		{ "RANGE 0 4096", REQ_RANGE, NULL, 0, 4096 },
		{ "RANGE 0x1000 4K", REQ_RANGE, NULL, 4096, 4096 },
		{ "RANGE 8388608 67108864\r", REQ_RANGE, NULL, 8 << 20, 64 << 20 },
		{ "", -1 }, { "\r", -1 }, { "GET", -1 }, { "GET ", -1 },
		{ "get a", -1 }, { "PUT a", -1 }, { "GETa", -1 },
		{ "RANGE", -1 }, { "RANGE 1", -1 }, { "RANGE 1 2 3", -1 },
		{ "RANGE -1 2", -1 }, { "RANGE  1 2", -1 }, { "RANGE 1 ", -1 },
		{ "RANGE 99999999999999999999 1", -1 }, { "RANGE a b", -1 },
	};
	struct zc_req r;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int ret = parse_request(t[i].s, strlen(t[i].s), &r, &why);
		bool good;

		if (t[i].type < 0)
			good = ret == -EINVAL && why && *why;
		else if (t[i].type == REQ_GET)
			good = !ret && r.type == REQ_GET &&
			       !strcmp(r.path, t[i].path);
		else
			good = !ret && r.type == REQ_RANGE &&
			       r.off == t[i].off && r.len == t[i].len;
		ok(good, "parse_request(\"%s\") %s", t[i].s,
		   t[i].type < 0 ? "rejected" : "parsed");
	}
	ok(parse_request("GET a\0b", 7, &r, &why) == -EINVAL,
	   "parse_request rejects a NUL byte");
	{
		static char big[REQ_MAX + 10];

		memset(big, 'a', sizeof(big));
		memcpy(big, "GET ", 4);
		ok(parse_request(big, sizeof(big), &r, &why) == -EINVAL,
		   "parse_request rejects an oversized line");
	}
}

static void test_check_rel_path(void)
{
	static const char * const good[] = {
		"a", "a/b", "./a", "a/./b", "..a", "a..", "a/..b", "...", "a/b/",
		"dir with space/f",
	};
	static const char * const bad[] = {
		"", "/etc/passwd", "/", "..", "../a", "a/..", "a/../b", "a/b/..",
		"./..", "a//../b", "a\tb", "a\nb", "a\x7f",
	};
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		ok(!check_rel_path(good[i], &why), "check_rel_path(\"%s\") ok",
		   good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ok(check_rel_path(bad[i], &why) == -EINVAL,
		   "check_rel_path(\"%s\") rejected: %s", bad[i], why);
}

static void put_file(const char *dir, const char *name, const char *data)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(data, f) < 0 || fclose(f)) {
		perror(p);
		exit(1);
	}
}

static void tmp_path(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", tmpdir, name);
}

/* tmpdir/root: f, empty, d/g, in -> f, out -> ../secret, pfx -> ../rootx/f */
static void make_tree(void)
{
	char p[PATH_MAX], q[PATH_MAX];
	bool bad = false;

	tmp_path(p, "root");
	bad |= mkdir(p, 0755);
	put_file(p, "f", "data");
	put_file(p, "empty", "");
	tmp_path(q, "root/d");
	bad |= mkdir(q, 0755);
	put_file(q, "g", "gg");
	put_file(tmpdir, "secret", "secret");
	tmp_path(q, "rootx");
	bad |= mkdir(q, 0755);
	put_file(q, "f", "x");
	tmp_path(q, "root/in");
	bad |= symlink("f", q);
	tmp_path(q, "root/out");
	bad |= symlink("../secret", q);
	tmp_path(q, "root/pfx");
	bad |= symlink("../rootx/f", q);
	tmp_path(q, "root/loop");
	bad |= symlink("loop", q);
	if (bad) {
		perror("make_tree");
		exit(1);
	}
}

static void test_resolve_under(void)
{
	static const struct { const char *rel, *want; int ret; } t[] = {
		{ "f", "f", 0 }, { "d/g", "d/g", 0 }, { "./d/../f", NULL, -EINVAL },
		{ "in", "f", 0 }, { "d", "d", 0 }, { "out", NULL, -EACCES },
		{ "pfx", NULL, -EACCES }, { "nope", NULL, -ENOENT },
		{ "f/x", NULL, -ENOTDIR }, { "loop", NULL, -ELOOP },
		{ "../secret", NULL, -EINVAL }, { "/etc/passwd", NULL, -EINVAL },
	};
	char root[PATH_MAX], real[PATH_MAX], out[PATH_MAX], want[PATH_MAX + 8];
	const char *why;
	size_t i;

	tmp_path(root, "root");
	if (!realpath(root, real)) {
		perror(root);
		exit(1);
	}
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int ret = resolve_under(real, t[i].rel, out, &why);

		snprintf(want, sizeof(want), "%s/%s", real, t[i].want ? t[i].want : "");
		ok(ret == t[i].ret && (ret || !strcmp(out, want)),
		   "resolve_under(\"%s\") = %d%s%s", t[i].rel, ret,
		   ret ? ", " : "", ret ? why : "");
	}
	ok(!resolve_under("/", "etc", out, &why) && !strcmp(out, "/etc"),
	   "resolve_under with root \"/\"");
}

static void test_misc(void)
{
	char buf[320];
	uint64_t len = 7;
	const char *msg;

	ok(!resolve_range(100, 0, false, &len) && len == 100, "default length");
	ok(!resolve_range(100, 100, false, &len) && len == 0,
	   "offset at the end: length 0");
	ok(!resolve_range(0, 0, false, &len) && len == 0, "empty source");
	ok(resolve_range(100, 101, false, &len) == -ERANGE, "offset past the end");
	len = 50;
	ok(resolve_range(100, 60, true, &len) == -ERANGE, "range past the end");
	len = 40;
	ok(!resolve_range(100, 60, true, &len) && len == 40, "range to the end");
	len = 10;
	ok(resolve_range(100, UINT64_MAX - 1, true, &len) == -ERANGE,
	   "offset + length overflow");

	ok(!strcmp(zero_copy_word(5, 0), "yes") &&
	   !strcmp(zero_copy_word(0, 5), "no") &&
	   !strcmp(zero_copy_word(0, 0), "no") &&
	   !strcmp(zero_copy_word(5, 1), "partial"), "zero_copy yes/no/partial");
	format_summary(buf, sizeof(buf), "send", 67108864, 2.0, 67108864, 0, 0.25);
	ok(!strcmp(buf, "summary: op=send bytes=67108864 seconds=2.000 "
		   "MBps=33.6 by_ref=67108864 copied=0 cpu_seconds=0.250 "
		   "zero_copy=yes\n"), "summary line: %s", buf);
	format_summary(buf, sizeof(buf), "copy", 0, 0, 0, 0, 0);
	ok(!strcmp(buf, "summary: op=copy bytes=0 seconds=0.000 MBps=0.0 "
		   "by_ref=0 copied=0 cpu_seconds=0.000 zero_copy=no\n"),
	   "summary line of nothing: %s", buf);

	strcpy(buf, "OK 5\r");
	ok(!parse_reply(buf, 5, &len, &msg) && len == 5, "reply OK 5");
	strcpy(buf, "OK 0");
	ok(!parse_reply(buf, 4, &len, &msg) && len == 0, "reply OK 0");
	strcpy(buf, "ERR no such file");
	ok(parse_reply(buf, 16, &len, &msg) == -EREMOTEIO &&
	   !strcmp(msg, "no such file"), "reply ERR");
	strcpy(buf, "ERR");
	ok(parse_reply(buf, 3, &len, &msg) == -EREMOTEIO, "reply ERR, no message");
	{
		static const char * const bad[] = {
			"OK", "OK ", "OK -1", "OK 5x", "OK 0x5", "OK  5", "ok 5",
			"OK 18446744073709551616", "HTTP/1.0 200 OK", "ERRx", "",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			strcpy(buf, bad[i]);
			ok(parse_reply(buf, strlen(buf), &len, &msg) == -EPROTO,
			   "reply \"%s\" rejected", bad[i]);
		}
	}
	ok(!strcmp(ioc_hint(EPROTO), "ABI version mismatch") &&
	   !strcmp(ioc_hint(ENODEV), "not a prd disk (or a file on one)") &&
	   !strcmp(ioc_hint(ERANGE), "beyond the end of the source") &&
	   !strcmp(ioc_hint(EINVAL), "bad offset/length/alignment") &&
	   !strcmp(ioc_hint(ECONNRESET), "the peer closed the connection") &&
	   !strcmp(ioc_hint(EPIPE), "the peer closed the connection") &&
	   !strcmp(ioc_hint(ENOTCONN), "the peer closed the connection") &&
	   !strcmp(ioc_hint(ENOSPC), "target smaller than the range") &&
	   !strcmp(ioc_hint(EBADF), "target not opened for writing / read-only") &&
	   !strcmp(ioc_hint(EOPNOTSUPP), "file layout not supported (inline data?)") &&
	   !strcmp(ioc_hint(EINTR), "interrupted") && !ioc_hint(EIO),
	   "ioctl errno hints");
}

/* --- subcommands in child processes --------------------------------------- */

static pid_t spawn(char **argv, const char *out, const char *err)
{
	int argc = 0;
	pid_t pid;

	while (argv[argc])
		argc++;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* no server outlives us */
		if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
			_exit(99);
		setvbuf(stderr, NULL, _IONBF, 0);
		exit(pmem_zc_main(argc, argv));
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* true while @pid runs */
static bool reap_nohang(pid_t pid)
{
	int st;

	return !waitpid(pid, &st, WNOHANG);
}

static int run(char **argv)
{
	return reap(spawn(argv, out_f, err_f));
}

static size_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	n = n < 0 ? 0 : n;
	buf[n] = '\0';
	return n;
}

static bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 16];

	slurp(path, buf, sizeof(buf));
	return strstr(buf, needle);
}

static bool file_is(const char *path, const char *data, size_t len)
{
	static char buf[1 << 16];

	return slurp(path, buf, sizeof(buf)) == len && !memcmp(buf, data, len);
}

/* run @argv, expect exit @rc and @needle on stderr (or stdout if @on_out) */
static void expect(int rc, const char *needle, bool on_out, char **argv)
{
	char cmd[256] = "";
	int i, got;

	for (i = 1; argv[i] && strlen(cmd) < 200; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", argv[i]);
	got = run(argv);
	if (!ok(got == rc && (!needle || file_has(on_out ? out_f : err_f, needle)),
		"pmem-zc%s: exit %d (want %d)%s%s", cmd, got, rc,
		needle ? ", says: " : "", needle ? needle : ""))
		diag(err_f);
}

#define ARGV(...) ((char *[]){ "pmem-zc", __VA_ARGS__, NULL })

static void test_main_and_usage(void)
{
	char f[PATH_MAX], d[PATH_MAX], stats[PATH_MAX];

	tmp_path(f, "root/f");
	tmp_path(d, "root/d");
	expect(2, "Usage: pmem-zc <subcommand>", false, (char *[]){ "pmem-zc", NULL });
	expect(0, "stats", true, ARGV("--help"));
	expect(0, "Usage: pmem-zc serve", true, ARGV("help", "serve"));
	expect(2, "pmem-zc: unknown subcommand 'frob'", false, ARGV("frob"));
	expect(0, "Usage: pmem-zc send", true, ARGV("send", "--help"));
	expect(0, "Usage: pmem-zc copy", true, ARGV("copy", "-h"));
	expect(0, "Usage: pmem-zc serve", true, ARGV("serve", "--help"));
	expect(0, "Usage: pmem-zc fetch", true, ARGV("fetch", "--help"));
	expect(0, "Usage: pmem-zc stats", true, ARGV("stats", "--help"));

	expect(2, "pmem-zc send: missing SRC", false, ARGV("send"));
	expect(2, "pmem-zc send: missing --to", false, ARGV("send", f));
	expect(2, "pmem-zc send: unrecognized option '--frob'", false,
	       ARGV("send", f, "--frob"));
	expect(2, "pmem-zc send: --to 'nohost': want HOST:PORT", false,
	       ARGV("send", f, "--to", "nohost"));
	expect(2, "pmem-zc send: --offset '0x'", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--offset", "0x"));
	expect(2, "pmem-zc send: --length '-1'", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--length", "-1"));
	expect(2, "too large", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--length", "99999999T"));
	expect(2, "options of copy", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--fua"));
	expect(2, "unexpected argument", false,
	       ARGV("send", f, f, "--to", "127.0.0.1:9"));
	expect(1, "pmem-zc send: /nonexistent: No such file or directory", false,
	       ARGV("send", "/nonexistent", "--to", "127.0.0.1:9"));
	expect(1, "pmem-zc send: ", false, ARGV("send", d, "--to", "127.0.0.1:9"));
	expect(1, "beyond the end of the source (size 4)", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--offset", "5"));
	expect(1, "beyond the end of the source (size 4)", false,
	       ARGV("send", f, "--to", "127.0.0.1:9", "--offset", "2", "--length", "3"));
	expect(1, "pmem-zc send: pmem_zc module not loaded", false,
	       ARGV("send", f, "--to", "127.0.0.1:9"));
	expect(2, "pmem-zc copy: missing --to BLOCKDEV", false, ARGV("copy", f));
	expect(1, "pmem-zc copy: /dev/null: not a block device", false,
	       ARGV("copy", f, "--to", "/dev/null"));
	expect(1, "pmem-zc copy: /nonexistent: No such file", false,
	       ARGV("copy", f, "--to", "/nonexistent"));

	expect(2, "pmem-zc serve: missing --port", false, ARGV("serve", "--root", d));
	expect(2, "exactly one of --root DIR and --dev DEV", false,
	       ARGV("serve", "--port", "1"));
	expect(2, "exactly one of --root DIR and --dev DEV", false,
	       ARGV("serve", "--root", d, "--dev", f, "--port", "1"));
	expect(2, "--port '70000'", false, ARGV("serve", "--root", d, "--port", "70000"));
	expect(2, "--bind 'localhost'", false,
	       ARGV("serve", "--root", d, "--port", "1", "--bind", "localhost"));
	expect(2, "unexpected argument 'x'", false,
	       ARGV("serve", "--root", d, "--port", "1", "x"));
	expect(1, "pmem-zc serve: /nonexistent: No such file", false,
	       ARGV("serve", "--root", "/nonexistent", "--port", "1"));
	expect(1, "not a directory", false, ARGV("serve", "--root", f, "--port", "1"));

	expect(2, "pmem-zc fetch: missing HOST:PORT", false, ARGV("fetch"));
	expect(2, "exactly one of PATH and --range", false,
	       ARGV("fetch", "127.0.0.1:9"));
	expect(2, "exactly one of PATH and --range", false,
	       ARGV("fetch", "127.0.0.1:9", "a", "--range", "0", "1"));
	expect(2, "--range wants OFFSET LENGTH", false,
	       ARGV("fetch", "127.0.0.1:9", "--range", "0"));
	expect(2, "--range LENGTH 'x'", false,
	       ARGV("fetch", "127.0.0.1:9", "--range", "0", "x"));
	expect(2, "pmem-zc fetch: '127.0.0.1': want HOST:PORT", false,
	       ARGV("fetch", "127.0.0.1", "a"));
	expect(2, "PATH: empty", false, ARGV("fetch", "127.0.0.1:9", "a\nb"));

	tmp_path(stats, "stats");
	if (mkdir(stats, 0755))
		perror(stats);
	put_file(stats, "bytes_ref", "4096\n");
	put_file(stats, "err_inval", "0\n");
	put_file(stats, ".hidden", "x\n");
	expect(0, NULL, true, ARGV("stats", "--dir", stats));
	ok(file_is(out_f, "bytes_ref: 4096\nerr_inval: 0\n", 29),
	   "stats prints name: value, sorted, hidden files skipped");
	expect(1, "pmem-zc stats: /nonexistent: No such file", false,
	       ARGV("stats", "--dir", "/nonexistent"));
	if (access(PZC_STATS_DIR, F_OK))
		expect(1, "pmem-zc stats: pmem_zc module not loaded", false,
		       ARGV("stats"));
	expect(2, "unexpected argument", false, ARGV("stats", "x"));
}

/* A listening socket on 127.0.0.1, any port. */
static int listen_any(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&sa, &len)) {
		perror("listen_any");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* One-shot server: exits 0 if the request was @want, after sending @reply. */
static pid_t canned(uint16_t *port, const char *want, const char *reply,
		    size_t len)
{
	int lfd = listen_any(port);
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		char line[REQ_MAX];
		ssize_t n;
		bool good;
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		fd = accept(lfd, NULL, NULL);
		n = read_line(fd, line, sizeof(line));
		good = n >= 0 && (size_t)n + 1 == strlen(want) &&
		       !memcmp(line, want, n);

		write_all(fd, reply, len, MSG_NOSIGNAL);
		close_gracefully(fd);
		_exit(good ? 0 : 1);
	}
	close(lfd);
	return pid;
}

static void fetch_case(const char *desc, const char *want, const char *reply,
		       size_t len, int rc, const char *needle, char **argv)
{
	char addr[32];
	uint16_t port;
	pid_t srv = canned(&port, want, reply, len);
	int got, srv_rc;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	argv[2] = addr;
	unlink(out_f);
	got = run(argv);
	srv_rc = reap(srv);
	if (!ok(got == rc && !srv_rc && (!needle || file_has(err_f, needle)),
		"fetch %s: exit %d (want %d), server saw the request: %s%s%s",
		desc, got, rc, srv_rc ? "no" : "yes", needle ? ", says: " : "",
		needle ? needle : ""))
		diag(err_f);
}

static void test_fetch(void)
{
	char o[PATH_MAX], *big;
	size_t i, n = 3 << 20;
	int lfd;
	uint16_t port;
	char addr[32];

	tmp_path(o, "fetched");
	fetch_case("OK 5 hello", "GET a.txt\n", "OK 5\nhello", 10, 0,
		   "summary: op=fetch bytes=5 ",
		   ARGV("fetch", "", "a.txt", "-o", o));
	ok(file_is(o, "hello", 5), "fetch wrote exactly the 5 bytes");
	ok(file_has(err_f, " by_ref=0 copied=0 ") && file_has(err_f, "zero_copy=no\n"),
	   "fetch summary: by_ref=0 copied=0 zero_copy=no");
	fetch_case("to stdout", "GET a.txt\n", "OK 5\nhello", 10, 0, "summary: ",
		   ARGV("fetch", "", "a.txt"));
	ok(file_is(out_f, "hello", 5), "fetch to stdout: the data and nothing else");
	fetch_case("short data", "GET a\n", "OK 10\nhello", 11, 1,
		   "pmem-zc fetch: short data: got 5 of 10 bytes",
		   ARGV("fetch", "", "a", "-o", o));
	unlink(o);
	fetch_case("ERR", "GET a\n", "ERR no such file\n", 17, 1,
		   "pmem-zc fetch: server: no such file",
		   ARGV("fetch", "", "a", "-o", o));
	ok(access(o, F_OK), "fetch ERR: output file not created");
	fetch_case("extra data", "GET a\n", "OK 3\nhello", 10, 1,
		   "more than the 3 bytes", ARGV("fetch", "", "a", "-o", o));
	fetch_case("HTTP reply", "GET a\n", "HTTP/1.0 200 OK\r\n\r\n", 19, 1,
		   "bad reply header", ARGV("fetch", "", "a", "-o", o));
	fetch_case("no reply", "GET a\n", "", 0, 1,
		   "connection closed before a reply",
		   ARGV("fetch", "", "a", "-o", o));
	fetch_case("range", "RANGE 4096 8192\n", "OK 0\n", 5, 0,
		   "summary: op=fetch bytes=0 ",
		   ARGV("fetch", "", "--range", "0x1000", "8K", "-o", o));
	ok(file_is(o, "", 0), "fetch OK 0: empty file");

	big = malloc(n + 16);
	i = sprintf(big, "OK %zu\n", n);
	for (size_t k = 0; k < n; k++)
		big[i + k] = (char)(k * 7 + (k >> 12));
	fetch_case("3 MiB", "GET big\n", big, i + n, 0, "bytes=3145728 ",
		   ARGV("fetch", "", "big", "-o", o, "--progress"));
	{
		FILE *f = fopen(o, "r");
		char *got = malloc(n + 1);
		size_t r = f ? fread(got, 1, n + 1, f) : 0;

		ok(r == n && !memcmp(got, big + i, n), "fetch 3 MiB intact");
		if (f)
			fclose(f);
		free(got);
	}
	free(big);

	lfd = listen_any(&port);
	close(lfd);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(1, "pmem-zc fetch: connect to 127.0.0.1:", false,
	       ARGV("fetch", addr, "a"));
}

/* Connect, send @req, read the whole answer. */
static size_t ask(uint16_t port, const char *req, size_t len, char *buf,
		  size_t size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t have = 0;
	ssize_t n;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("connect");
		exit(1);
	}
	set_timeouts(fd, 10, 10);
	write_all(fd, req, len, MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	while (have + 1 < size && (n = recv(fd, buf + have, size - 1 - have, 0)) > 0)
		have += n;
	buf[have] = '\0';
	close(fd);
	return have;
}

/* Start serve with --port 0 and learn its port from the log. */
static pid_t start_serve(char **argv, const char *log, uint16_t *port)
{
	char buf[512] = "";
	pid_t pid;
	int i;

	unlink(log);	/* no port of an earlier run */
	pid = spawn(argv, out_f, log);

	for (i = 0; i < 500 && reap_nohang(pid); i++) {
		const char *p;

		slurp(log, buf, sizeof(buf));
		p = strstr(buf, "listening on 127.0.0.1:");
		if (p) {
			*port = atoi(p + 23);
			return pid;
		}
		usleep(10000);
	}
	printf("# serve did not start: %s\n", buf);
	kill(pid, SIGKILL);
	reap(pid);
	exit(1);
}

static void serve_case(uint16_t port, const char *req, const char *want)
{
	char buf[1024];
	size_t n = ask(port, req, strlen(req), buf, sizeof(buf));

	ok(!strncmp(buf, want, strlen(want)) && (want[strlen(want) - 1] != '\n' ||
						  n == strlen(want)),
	   "serve: \"%.*s\" -> \"%.*s\"", (int)strcspn(req, "\n"), req,
	   (int)strcspn(buf, "\n"), buf);
}

static void test_serve_root(void)
{
	char root[PATH_MAX], log[PATH_MAX], count[8], addr[32], o[PATH_MAX];
	char big[REQ_MAX + 100];
	int n = 16, rc;
	uint16_t port;
	pid_t pid;

	tmp_path(root, "root");
	tmp_path(log, "serve.log");
	tmp_path(o, "served");
	snprintf(count, sizeof(count), "%d", n);
	pid = start_serve(ARGV("serve", "--root", root, "--port", "0", "--bind",
			       "127.0.0.1", "--count", count, "--timeout", "5"),
			  log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);

	serve_case(port, "GET ../secret\n", "ERR '..' in path\n");
	serve_case(port, "GET /etc/passwd\n", "ERR absolute path\n");
	serve_case(port, "GET out\n", "ERR path escapes the served directory\n");
	serve_case(port, "GET pfx\n", "ERR path escapes the served directory\n");
	serve_case(port, "GET empty\n", "OK 0\n");
	serve_case(port, "RANGE 0 1\n", "ERR RANGE needs serve --dev\n");
	serve_case(port, "GET d\n", "ERR not a regular file\n");
	serve_case(port, "GET nope\n", "ERR not found\n");
	serve_case(port, "HELLO\n", "ERR bad request");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET ", 4);
	{
		char buf[256];

		ask(port, big, sizeof(big), buf, sizeof(buf));
		ok(!strcmp(buf, "ERR request too long\n"), "serve: oversized request -> %s", buf);
	}
	{
		char buf[8];

		ask(port, "", 0, buf, sizeof(buf));	/* a port probe */
		ok(!buf[0], "serve: a connection without request gets nothing");
	}
	expect(0, "summary: op=fetch bytes=0 ", false, ARGV("fetch", addr, "empty", "-o", o));
	ok(file_is(o, "", 0), "fetch from serve: empty file");
	serve_case(port, "GET f\n", nomod);
	serve_case(port, "GET in\n", nomod);	/* symlink inside: allowed */
	serve_case(port, "GET d/g\r\n", nomod);
	serve_case(port, "GET ./d/g\n", nomod);
	expect(1, "pmem-zc fetch: server: pmem_zc module not loaded", false,
	       ARGV("fetch", addr, "f", "-o", o));
	rc = reap(pid);
	ok(rc == 1, "serve --count %d exits 1 after failed requests (got %d)", n, rc);
	ok(file_has(log, "pmem-zc serve: peer=127.0.0.1:") &&
	   file_has(log, "req=\"GET empty\" bytes=0 ms=") &&
	   file_has(log, "by_ref=0 copied=0 ok") &&
	   file_has(log, "failed: ERR not found") &&
	   file_has(log, " no request"), "serve log lines");
}

static void test_serve_dev(void)
{
	char dev[PATH_MAX], log[PATH_MAX], o[PATH_MAX], addr[32];
	uint16_t port;
	pid_t pid;
	int rc;

	tmp_path(dev, "root/f");	/* a regular file stands in for a disk */
	tmp_path(log, "serve-dev.log");
	tmp_path(o, "served");
	pid = start_serve(ARGV("serve", "--dev", dev, "--port", "0", "--bind",
			       "127.0.0.1", "--count", "5"),
			  log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	serve_case(port, "RANGE 0 5\n", "ERR range beyond the end of the device\n");
	serve_case(port, "RANGE 5 0\n", "ERR range beyond the end of the device\n");
	serve_case(port, "RANGE 4 0\n", "OK 0\n");
	serve_case(port, "GET f\n", "ERR GET needs serve --root\n");
	serve_case(port, "RANGE 0 4\n", nomod);
	rc = reap(pid);
	ok(rc == 1, "serve --dev exits 1 after failed requests (got %d)", rc);
	pid = start_serve(ARGV("serve", "--dev", dev, "--port", "0", "--bind",
			       "127.0.0.1", "--count", "1"), log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, "bytes=0 ", false, ARGV("fetch", addr, "--range", "1", "0", "-o", o));
	rc = reap(pid);
	ok(rc == 0, "serve --count 1 exits 0 after a good request (got %d)", rc);
}

/* --- the data path, with the fake module ---------------------------------- */

static void make_pattern(const char *path, size_t size)
{
	char *buf = malloc(size + 1);
	size_t i;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	for (i = 0; i < size; i++)
		buf[i] = (char)(i * 131 + (i >> 8));
	if (fd < 0 || write_all(fd, buf, size, -1) || close(fd)) {
		perror(path);
		exit(1);
	}
	free(buf);
}

/* @b holds exactly the @len bytes at @off of @a */
static bool same_slice(const char *a, uint64_t off, uint64_t len, const char *b)
{
	char *x = malloc(len + 1), *y = malloc(len + 1);
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	bool same = fa >= 0 && fb >= 0 &&
		    pread(fa, x, len, off) == (ssize_t)len &&
		    read(fb, y, len + 1) == (ssize_t)len && !memcmp(x, y, len);

	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(x);
	free(y);
	return same;
}

/* A one-shot receiver on 127.0.0.1 that stores what it gets in @path. */
static pid_t sink(uint16_t *port, const char *path)
{
	int lfd = listen_any(port);
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		char buf[1 << 16];
		ssize_t n;
		int fd, out;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		fd = accept(lfd, NULL, NULL);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write_all(out, buf, n, -1))
				_exit(1);
		_exit(n < 0 || close(out));
	}
	close(lfd);
	return pid;
}

static int connect_local(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("connect");
		exit(1);
	}
	return fd;
}

/* zc_transfer() itself: chunks, offsets, flags, sums, error text */
static void test_transfer_loop(const char *src, const char *got)
{
	struct zc_job j = { .ctl = -1, .src_name = "big" };
	char why[512], target[PATH_MAX];
	uint16_t port;
	struct xfer x;
	pid_t pid;
	int ret;

	j.src = open(src, O_RDONLY);
	fake_reset();
	pid = sink(&port, got);
	j.dst = connect_local(port);
	j.off = 1000;
	j.len = 199000;
	xfer_init(&x, "send", j.len, false);
	ret = zc_transfer(&j, &x, 0, why, sizeof(why));
	close(j.dst);
	ok(!ret && fake_calls == 4 && reap(pid) == 0, "send loop: 4 ioctls of at most 64 KiB (test chunk)");
	ok(fake_log[0].off == 1000 && fake_log[0].len == 65536 &&
	   fake_log[1].off == 66536 && fake_log[2].off == 132072 &&
	   fake_log[3].off == 197608 && fake_log[3].len == 2392 &&
	   fake_log[0].req == PMEM_ZC_IOC_SEND && !fake_log[3].flags,
	   "send loop: offsets and lengths of the chunks");
	ok(x.done == 199000 && x.by_ref == 199000 && !x.copied,
	   "send loop: by_ref summed over the chunks");
	ok(same_slice(src, 1000, 199000, got), "send loop: the peer got the range");

	fake_reset();
	fake_fail_call = 2;
	fake_errno = ENODEV;
	pid = sink(&port, got);
	j.dst = connect_local(port);
	xfer_init(&x, "send", j.len, false);
	ret = zc_transfer(&j, &x, 0, why, sizeof(why));
	close(j.dst);
	reap(pid);
	ok(ret == -ENODEV && x.done == 65536 + 32768 && strstr(why,
	   "PMEM_ZC_IOC_SEND big offset 66536 length 65536: No such device (not a prd disk (or a file on one))"),
	   "send loop: a failing chunk ends it, counts kept: %s", why);
	fake_reset();
	fake_short_call = 1;
	pid = sink(&port, got);
	j.dst = connect_local(port);
	ret = zc_transfer(&j, &x, 0, why, sizeof(why));
	close(j.dst);
	reap(pid);
	ok(ret == -EIO && strstr(why, "the module moved 32768 bytes"),
	   "send loop: a short chunk is an error: %s", why);

	tmp_path(target, "target");
	j.dst = open(target, O_RDWR | O_CREAT | O_TRUNC, 0644);
	j.copy = true;
	j.off = 4096;
	j.len = 307200;
	j.dst_off = 512;
	j.flags = PMEM_ZC_F_FUA | PMEM_ZC_F_FLUSH;
	fake_reset();
	xfer_init(&x, "copy", j.len, false);
	ret = zc_transfer(&j, &x, 0, why, sizeof(why));
	ok(!ret && fake_calls == 3 && fake_log[0].req == PMEM_ZC_IOC_COPY &&
	   fake_log[0].len == 131072 && fake_log[2].len == 45056 &&
	   fake_log[1].off == 135168 && fake_log[2].off == 266240,
	   "copy loop: 3 ioctls of at most 128 KiB (test chunk)");
	ok(fake_log[0].dst_off == 512 && fake_log[1].dst_off == 131584 &&
	   fake_log[2].dst_off == 262656, "copy loop: dst_offset follows the chunks");
	ok(!fake_log[0].flags && !fake_log[1].flags &&
	   fake_log[2].flags == (PMEM_ZC_F_FUA | PMEM_ZC_F_FLUSH),
	   "copy loop: FUA and FLUSH on the last chunk only");
	ok(x.bios == 5 && x.by_ref == 307200 && x.done == 307200,
	   "copy loop: bios and by_ref summed");
	fsync(j.dst);
	{
		char slice[PATH_MAX];
		char *buf = malloc(j.len);
		int fd;

		tmp_path(slice, "slice");
		fd = open(slice, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ok(pread(j.dst, buf, j.len, 512) == (ssize_t)j.len &&
		   !write_all(fd, buf, j.len, -1) && !close(fd) &&
		   same_slice(src, 4096, j.len, slice),
		   "copy loop: the target holds the range at dst_offset");
		free(buf);
	}
	j.flags = PMEM_ZC_F_COPY | PMEM_ZC_F_FUA;
	fake_reset();
	xfer_init(&x, "copy", j.len, false);
	ret = zc_transfer(&j, &x, 0, why, sizeof(why));
	ok(!ret && fake_log[0].flags == PMEM_ZC_F_COPY &&
	   fake_log[2].flags == (PMEM_ZC_F_COPY | PMEM_ZC_F_FUA) &&
	   x.copied == 307200 && !x.by_ref, "copy loop: --copy on every chunk");
	close(j.dst);
	close(j.src);
}

static void test_data_path(void)
{
	char src[PATH_MAX], empty[PATH_MAX], got[PATH_MAX], root[PATH_MAX];
	char log[PATH_MAX], addr[32];
	uint16_t port;
	pid_t pid;
	int rc;

	put_file(tmpdir, "pmem_zc", "");	/* the fake module is loaded */
	tmp_path(src, "root/big");
	make_pattern(src, 400000);
	tmp_path(empty, "root/empty");
	tmp_path(got, "got");
	tmp_path(root, "root");
	tmp_path(log, "serve-data.log");
	test_transfer_loop(src, got);

	fake_reset();
	pid = sink(&port, got);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, "summary: op=send bytes=399000 seconds=", true,
	       ARGV("send", src, "--to", addr, "--offset", "1000"));
	ok(file_has(out_f, " by_ref=399000 copied=0 cpu_seconds=") &&
	   file_has(out_f, " zero_copy=yes\n"), "send: all by reference, zero_copy=yes");
	ok(!reap(pid) && same_slice(src, 1000, 399000, got),
	   "send: the peer got bytes 1000.. of the source");

	pid = sink(&port, got);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, " by_ref=0 copied=4096 ", true,
	       ARGV("send", src, "--to", addr, "--length", "4K", "--copy"));
	ok(file_has(out_f, "zero_copy=no\n") && !reap(pid) &&
	   same_slice(src, 0, 4096, got), "send --copy: by copy, zero_copy=no");

	pid = sink(&port, got);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, "summary: op=send bytes=0 ", true, ARGV("send", empty, "--to", addr));
	ok(!reap(pid) && file_is(got, "", 0), "send of an empty file: nothing sent, a summary");

	fake_fail_call = 2;
	fake_errno = ECONNRESET;
	pid = sink(&port, got);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(1, "Connection reset by peer (the peer closed the connection)", false,
	       ARGV("send", src, "--to", addr));
	ok(file_has(out_f, "summary: op=send bytes=98304 ") && !reap(pid),
	   "send: a failed ioctl still prints the summary of what moved");
	fake_reset();

	fake_version = 2;
	expect(1, "speaks ABI 2, pmem-zc 1 (ABI version mismatch)", false,
	       ARGV("send", src, "--to", "127.0.0.1:9"));
	fake_reset();

	pid = start_serve(ARGV("serve", "--root", root, "--port", "0", "--bind",
			       "127.0.0.1", "--count", "2"), log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, "summary: op=fetch bytes=400000 ", false,
	       ARGV("fetch", addr, "big", "-o", got));
	ok(same_slice(src, 0, 400000, got), "serve -> fetch: the file intact");
	expect(0, "bytes=0 ", false, ARGV("fetch", addr, "empty", "-o", got));
	rc = reap(pid);
	ok(!rc && file_has(log, "req=\"GET big\" bytes=400000 ms=") &&
	   file_has(log, "by_ref=400000 copied=0 ok"), "serve: logs the transfer, exits 0");

	pid = start_serve(ARGV("serve", "--dev", src, "--port", "0", "--bind",
			       "127.0.0.1", "--count", "1", "--copy"), log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(0, "bytes=70000 ", false,
	       ARGV("fetch", addr, "--range", "1000", "70000", "-o", got));
	ok(same_slice(src, 1000, 70000, got), "serve --dev -> fetch --range: the range intact");
	ok(!reap(pid) && file_has(log, "by_ref=0 copied=70000 ok"),
	   "serve --copy: logged as copied");

	fake_fail_call = 2;
	fake_errno = ENODEV;
	pid = start_serve(ARGV("serve", "--root", root, "--port", "0", "--bind",
			       "127.0.0.1", "--count", "1"), log, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	expect(1, "short data: got 98304 of 400000 bytes", false,
	       ARGV("fetch", addr, "big", "-o", got));
	rc = reap(pid);
	ok(rc == 1 && file_has(log, "failed: PMEM_ZC_IOC_SEND big offset 65536 length 65536: No such device (not a prd disk (or a file on one))"),
	   "serve: a failed send after OK cuts the connection and is logged");
	fake_reset();
	unlink(fake_dev);
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st; (void)type; (void)f;
	return remove(p);
}

int main(void)
{
	strcpy(tmpdir, "/tmp/pmem-zc-test.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(out_f, sizeof(out_f), "%s/stdout", tmpdir);
	snprintf(err_f, sizeof(err_f), "%s/stderr", tmpdir);
	snprintf(fake_dev, sizeof(fake_dev), "%s/pmem_zc", tmpdir);
	pzc_dev = fake_dev;	/* absent until test_data_path() */
	snprintf(nomod, sizeof(nomod), "ERR pmem_zc module not loaded (no %s)\n",
		 fake_dev);
	signal(SIGPIPE, SIG_IGN);
	alarm(300);	/* a hang is a failure, not a stuck make check */
	make_tree();

	test_parse_size();
	test_parse_hostport();
	test_parse_request();
	test_check_rel_path();
	test_resolve_under();
	test_misc();
	test_main_and_usage();
	test_fetch();
	test_serve_root();
	test_serve_dev();
	test_data_path();

	nftw(tmpdir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	printf("1..%d\n", nr);
	if (nfail)
		printf("# %d of %d failed\n", nfail, nr);
	return nfail ? 1 : 0;
}
