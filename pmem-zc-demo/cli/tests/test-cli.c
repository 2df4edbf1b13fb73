// SPDX-License-Identifier: GPL-2.0
/*
 * test-cli: the subcommands as processes: --help and usage errors, send
 * and copy through the fake xfer (bytes, summary, errors), the real
 * binary where it needs no module (no device, not the device, static),
 * stats on a directory of counters.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "tap.h"
#include "tests.h"

#define SRC_LEN	((1 << 20) + 1)

static char *out_txt, *err_txt;

/* Run a pmem-zc binary; its stdout and stderr in out_txt and err_txt. */
static int pz(const char *bin, char *const env[], const char *a0, ...)
{
	char *argv[24] = { (char *)bin };
	va_list ap;
	int i = 1, rc;

	va_start(ap, a0);
	for (argv[i] = (char *)a0; argv[i] && i < 22;)
		argv[++i] = va_arg(ap, char *);
	va_end(ap);
	rc = run(argv, env, tpath("cli.out"), tpath("cli.err"), 60);
	free(out_txt);
	free(err_txt);
	out_txt = slurp(tpath("cli.out"), NULL);
	err_txt = slurp(tpath("cli.err"), NULL);
	return rc;
}

/* A one-connection TCP receiver on 127.0.0.1 writing to @out: its port. */
static int receiver(const char *out, pid_t *pid)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fd;
	char buf[65536];
	FILE *f;
	ssize_t n;

	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len))
		return -1;
	*pid = fork();
	if (!*pid) {
		alarm(60);
		fd = accept(lfd, NULL, NULL);
		f = fopen(out, "w");
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, n, f);
		fclose(f);
		_exit(0);
	}
	close(lfd);
	return ntohs(sa.sin_port);
}

/* send of @src to a receiver with @env and options (up to 6): exit code. */
static int send_to(char *const env[], const char *src, ...)
{
	char to[32], *o[6] = {};
	pid_t rpid;
	int port = receiver(tpath("recv"), &rpid), rc, i = 0;
	va_list ap;

	va_start(ap, src);
	while (i < 6 && (o[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	snprintf(to, sizeof(to), "127.0.0.1:%d", port);
	rc = pz(fake_bin, env, "send", src, "--to", to, o[0], o[1], o[2],
		o[3], o[4], o[5], NULL);
	/* a send refused before it connects leaves the receiver waiting */
	wait_exit(rpid, rc ? 2 : 30);
	return rc;
}

static void help_and_usage(void)
{
	static const char *subs[] = { "send", "copy", "serve", "stats" };
	char want[64];
	size_t i;

	is_int(pz(fake_bin, NULL, "--help", NULL), 0, "pmem-zc --help: 0");
	has(out_txt, "  serve   an HTTP/1.1 static file server", "lists serve");
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(want, sizeof(want), "Usage: pmem-zc %s", subs[i]);
		is_int(pz(fake_bin, NULL, subs[i], "--help", NULL), 0,
		       "%s --help: 0", subs[i]);
		has(out_txt, want, "%s --help: usage", subs[i]);
	}
	pz(fake_bin, NULL, "serve", "--help", NULL);
	has(out_txt, "curl -r 0-1023 http://", "serve --help: curl examples");
	has(out_txt, "--max-header-bytes N", "serve --help: limits");
	is_int(pz(fake_bin, NULL, NULL), 2, "no subcommand: 2");
	is_int(pz(fake_bin, NULL, "fetch", NULL), 2, "fetch is gone: 2");
	has(err_txt, "unknown subcommand 'fetch'", "says so");
	is_int(pz(fake_bin, NULL, "send", "x", NULL), 2, "send without --to");
	has(err_txt, "pmem-zc send: missing --to HOST:PORT", "says so");
	is_int(pz(fake_bin, NULL, "send", "x", "--to", "::1:80", NULL), 2,
	       "IPv6 without brackets: 2");
	is_int(pz(fake_bin, NULL, "send", "x", "--to", "1.2.3.4:5",
		  "--offset", "1Q", NULL), 2, "bad size: 2");
	has(err_txt, "--offset '1Q': a size", "says what a size is");
	is_int(pz(fake_bin, NULL, "send", "x", "y", "--to", "1.2.3.4:5",
		  NULL), 2, "two sources: 2");
	is_int(pz(fake_bin, NULL, "send", "x", "--to", "1.2.3.4:5",
		  "--inflight", "0", NULL), 2, "--inflight 0: 2");
	has(err_txt, "want 1 to 1024", "says the bounds");
	is_int(pz(fake_bin, NULL, "serve", "--port", "80", NULL), 2,
	       "serve without --root: 2");
	is_int(pz(fake_bin, NULL, "serve", "--root", tmp, "--bind",
		  "localhost6", NULL), 2, "serve --bind of a name: 2");
	is_int(pz(fake_bin, NULL, "serve", "--root", tmp, "--body", "zerocopy",
		  NULL), 2, "serve --body zerocopy: 2");
	has(err_txt, "--body 'zerocopy': auto, module or sendfile",
	    "says the three ways");
	is_int(pz(fake_bin, NULL, "stats", "--bogus", NULL), 2,
	       "unknown option: 2");
}

static void sends(void)
{
	char *delay[] = { "PMEM_ZC_FAKE_DELAY_MS=20", NULL };
	char *max[] = { "PMEM_ZC_FAKE_MAX=100000", NULL };
	char *stack[] = { "PMEM_ZC_FAKE_STACK_COPIED=1", NULL };
	char *nodev[] = { "PMEM_ZC_FAKE_ERRNO=ENODEV", NULL };
	char src[256], *got, *whole;
	size_t len;

	snprintf(src, sizeof(src), "%s", tpath("src"));
	random_file(src, SRC_LEN);
	is_int(send_to(NULL, src, "--chunk", "64K", "--inflight", "2", NULL),
	       0,
	       "send 1 MiB + 1 in 64 KiB sends, 2 in flight");
	ok(same_file(src, tpath("recv")), "the peer got every byte");
	has(out_txt, "summary: op=send bytes=1048577 seconds=", "summary");
	has(out_txt, "by_ref=1048577 copied=0 cpu_seconds=",
	    "by_ref from the completions");
	has(out_txt, "zero_copy=yes\n", "zero_copy=yes");
	is_int(send_to(NULL, src, "--copy", "--offset", "4096", "--length",
		       "8K", NULL), 0, "send --copy --offset 4096 --length 8K");
	got = slurp(tpath("recv"), &len);
	whole = slurp(src, NULL);
	ok(got && whole && len == 8192 && !memcmp(got, whole + 4096, 8192),
	   "the 8 KiB at 4096 received");
	free(got);
	free(whole);
	has(out_txt, "bytes=8192 ", "bytes=8192");
	has(out_txt, "by_ref=0 copied=8192", "copied=8192");
	has(out_txt, "zero_copy=no", "zero_copy=no");
	is_int(send_to(delay, src, "--chunk", "128K", "--inflight", "2",
		       "--progress", NULL), 0,
	       "send with completions 20 ms late");
	ok(same_file(src, tpath("recv")), "intact with late completions");
	is_int(send_to(max, src, "--chunk", "1M", NULL), 0,
	       "send with ENOBUFS after 100000 bytes of each send");
	ok(same_file(src, tpath("recv")), "intact after short sends");
	is_int(send_to(stack, src, NULL), 0,
	       "send with the stack copying");
	has(out_txt, "by_ref=0 copied=1048577", "stack copies count as copied");
	is_int(send_to(nodev, src, NULL), 1,
	       "send of a file not on prd: 1");
	has(err_txt, "No such device (not a prd disk, or a file on one)",
	    "names the errno and its meaning");
	has(out_txt, "summary: op=send bytes=0 ", "summary of what moved");
	is_int(send_to(NULL, src, "--offset", "2M", NULL), 1,
	       "send beyond the end: 1");
	has(err_txt, "beyond the end of the source (size 1048577)",
	    "says the size");
	is_int(pz(fake_bin, NULL, "send", src, "--to", "127.0.0.1:1", NULL), 1,
	       "send to a closed port: 1");
	has(err_txt, "connect to 127.0.0.1:1: Connection refused", "says so");
}

static void copies(void)
{
	char *eio[] = { "PMEM_ZC_FAKE_ERRNO=EIO", NULL };
	char src[256], dst[256];

	snprintf(src, sizeof(src), "%s", tpath("src"));
	snprintf(dst, sizeof(dst), "%s", tpath("dst"));
	write_file(dst, "", 0);
	is_int(pz(fake_bin, NULL, "copy", src, "--to", dst, "--length", "1M",
		  "--chunk", "128K", "--flush", NULL), 0, "copy 1 MiB");
	has(out_txt, "bios: ", "bios line");
	has(out_txt, "summary: op=copy bytes=1048576 ", "copy summary");
	has(out_txt, "zero_copy=yes", "copy zero_copy=yes");
	is_int(pz(fake_bin, NULL, "copy", src, "--to", dst, "--offset",
		  "100", "--length", "512", NULL), 1, "misaligned copy: 1");
	has(err_txt, "bad alignment: --offset, --length, --dst-offset and "
	    "--chunk must be multiples of 512", "names the block size");
	is_int(pz(fake_bin, eio, "copy", src, "--to", dst, "--length", "4K",
		  NULL), 1, "copy from bad blocks: 1");
	has(err_txt, "(bad blocks in the source, or the target failed)", "EIO hint");
	is_int(pz(fake_bin, NULL, "copy", src, "--to", tmp, "--length", "4K",
		  NULL), 1, "copy to a directory: 1");
}

static bool is_static(const char *path)
{
	size_t len, i;
	char *f = slurp(path, &len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	bool interp = false;

	if (!f || len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return false;
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(f + eh->e_phoff) + i;

		interp |= ph->p_type == PT_INTERP;
	}
	free(f);
	return !interp;
}

static void real_binary(void)
{
	char *nodev[] = { "PMEM_ZC_DEV=/nonexistent/pmem_zc", NULL };
	char *null[] = { "PMEM_ZC_DEV=/dev/null", NULL };
	/* how the Makefile linked it: the Debian package's is dynamic */
	const char *linked = getenv("PMEMZC_CLI_STATIC");
	char to[32];
	pid_t rpid;
	int port;

	if (linked && !strcmp(linked, "0"))
		ok(!is_static(real_bin), "%s is dynamic (LDSTATIC=)", real_bin);
	else
		ok(is_static(real_bin), "%s is static (no PT_INTERP)", real_bin);
	is_int(pz(real_bin, nodev, "send", tpath("src"), "--to",
		  "127.0.0.1:1", NULL), 1, "real send without the module: 1");
	has(err_txt, "pmem_zc module not loaded (no /nonexistent/pmem_zc)",
	    "says the module is not loaded");
	port = receiver(tpath("recv"), &rpid);
	snprintf(to, sizeof(to), "127.0.0.1:%d", port);
	is_int(pz(real_bin, null, "send", tpath("src"), "--to", to, NULL), 1,
	       "real send to a device that is not pmem_zc: 1");
	wait_exit(rpid, 10);
	has(err_txt, "not the pmem_zc device", "ENOTTY hint");
	is_int(pz(real_bin, nodev, "serve", "--root", tmp, NULL), 1,
	       "real serve without the module: 1");
	has(err_txt, "(--copy serves by sendfile without it)", "says --copy");
	is_int(pz(real_bin, nodev, "serve", "--root", tmp, "--body", "module",
		  NULL), 1, "real serve --body module without the module: 1");
	/* --body auto (the default) above: the module, unless the kernel
	 * splices DAX files by reference, which the host's does not */
	ok(access("/proc/sys/fs/dax_splice_read", F_OK),
	   "the host kernel has no fs.dax_splice_read (auto means the module)");
}

static void stats(void)
{
	const char *dir = tpath("stats");

	mkdir(dir, 0755);
	write_file(tpath("stats/sends"), "12\n", 3);
	write_file(tpath("stats/bytes_ref"), "4096\n", 5);
	write_file(tpath("stats/pages_held"), "0", 1);
	is_int(pz(fake_bin, NULL, "stats", "--dir", dir, NULL), 0, "stats");
	ok(out_txt && !strcmp(out_txt, "bytes_ref 4096\npages_held 0\n"
			      "sends 12\n"), "every counter, sorted, name value");
	is_int(pz(fake_bin, NULL, "stats", "--dir", tpath("none"), NULL), 1,
	       "stats of a missing directory: 1");
}

void test_cli(void)
{
	help_and_usage();
	sends();
	copies();
	real_binary();
	stats();
	free(out_txt);
	free(err_txt);
}
