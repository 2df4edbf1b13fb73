// SPDX-License-Identifier: GPL-2.0
/*
 * send: "pmem-zc send", a range of a pmem source to a TCP peer through
 * PMEM_ZC_IOC_SEND, with up to --inflight sends whose completions are
 * outstanding; the by_ref/copied split of the summary comes from the
 * completions.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "cmds.h"
#include "msg.h"
#include "net.h"
#include "opts.h"
#include "report.h"
#include "source.h"
#include "units.h"
#include "xfer.h"

#define SEND_INFLIGHT	4		/* default; to be tuned by measurement */
#define SEND_CHUNK	(16ULL << 20)	/* bytes per PMEM_ZC_IOC_SEND */
#define SEND_TIMEOUT_MS	60000		/* wait for a completion at most */

struct send_job {
	struct src_job s;
	int sock;
	uint32_t flags;
	uint64_t chunk, max_inflight, timeout_ms;
	uint64_t inflight, queued;
	int status;		/* first failed completion, -errno */
};

/* Take the completions that are there; 0, or -errno of reading them. */
static int send_reap(struct send_job *j)
{
	struct pmem_zc_completion c[16];
	int n, i;

	n = xfer_reap(j->s.x, c, ARRAY_SIZE(c));
	for (i = 0; i < n; i++) {
		j->inflight--;
		j->s.by_ref += c[i].bytes_ref;
		j->s.copied += c[i].bytes_copied;
		if (c[i].status && !j->status)
			j->status = c[i].status;
	}
	return n < 0 ? n : 0;
}

/* Wait up to the timeout for a completion and take it: 0 or -errno. */
static int send_wait(struct send_job *j)
{
	struct pollfd p = { .fd = xfer_fd(j->s.x), .events = POLLIN };
	double until = now_mono() + j->timeout_ms / 1e3;
	uint64_t before = j->inflight;
	int ret;

	while (j->inflight == before) {
		double left = until - now_mono();

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&p, 1, left * 1000 + 1);
		if (ret < 0 && errno != EINTR)
			return -errno;
		ret = send_reap(j);
		if (ret)
			return ret;
	}
	return 0;
}

static void send_failed(const struct send_job *j, const char *what, int err)
{
	char why[256];

	pr_err("%s: %s at offset %" PRIu64 ", %" PRIu64 " bytes queued: %s",
	       j->s.name, what, j->s.pos, j->queued,
	       ioc_strerror(err, why, sizeof(why)));
}

/* One PMEM_ZC_IOC_SEND from j->s.pos: 0 to go on, or -errno (reported). */
static int send_one(struct send_job *j)
{
	struct pmem_zc_send s = {
		.flags = j->flags,
		.src_fd = j->s.fd,
		.sock_fd = j->sock,
		.offset = j->s.pos,
		.length = j->s.end - j->s.pos < j->chunk ? j->s.end - j->s.pos :
			  j->chunk,
		.user_data = j->s.pos,
	};
	int ret = xfer_send(j->s.x, &s);

	if (ret == -ENOBUFS && j->inflight)
		return send_wait(j);	/* the cap: wait for room */
	if (ret) {
		send_failed(j, "PMEM_ZC_IOC_SEND", -ret);
		return ret;
	}
	j->inflight++;
	j->s.pos += s.bytes_queued;
	j->queued += s.bytes_queued;
	progress_update(&j->s.prog, j->queued);
	if (!s.error || s.error == EINTR || s.error == ENOBUFS)
		return 0;	/* a short send goes on from where it ended */
	send_failed(j, "PMEM_ZC_IOC_SEND stopped", s.error);
	return -s.error;
}

/* Every completion, each within the timeout. 0 or -errno (reported). */
static int send_drain(struct send_job *j)
{
	int ret = 0;

	while (j->inflight && !ret)
		ret = send_wait(j);
	if (ret == -ETIMEDOUT)
		pr_err("%" PRIu64 " sends not completed after %" PRIu64
		       " ms: the peer stopped acknowledging", j->inflight,
		       j->timeout_ms);
	else if (ret)
		pr_err("reading completions: %s", strerror(-ret));
	if (!ret && j->status) {
		char why[256];

		pr_err("a send completed with %s",
		       ioc_strerror(-j->status, why, sizeof(why)));
		ret = j->status;
	}
	return ret;
}

static int send_run(struct send_job *j)
{
	int ret = 0;

	while (j->s.pos < j->s.end && !ret) {
		if (j->inflight >= j->max_inflight)
			ret = send_wait(j);
		else
			ret = send_one(j);
	}
	if (ret == -ETIMEDOUT)
		pr_err("no completion for %" PRIu64 " ms: the peer stopped "
		       "acknowledging", j->timeout_ms);
	if (!ret)
		shutdown(j->sock, SHUT_WR);
	if (ret != -ETIMEDOUT && send_drain(j) && !ret)
		ret = -EIO;
	return ret;
}

static const char send_more[] =
"SRC is a prd disk or partition (/dev/pmem0, /dev/pmem0p1) or a DAX file\n"
"on ext2/3/4 on one (mount -o dax, pages=devmap). Sizes: decimal or 0x\n"
"hex, optional K/M/G/T\n"
"suffix (1024-based). Each send returns once its bytes are queued; its\n"
"completion comes when the peer has acknowledged them. pmem-zc waits for\n"
"all of them before it exits, at most --timeout for each.\n"
"\n"
"Prints on stdout, also after a failed transfer (what moved):\n"
"  summary: op=send bytes=N seconds=S.SSS MBps=X.X by_ref=N copied=N\n"
"           cpu_seconds=C.CCC zero_copy=yes|no|partial\n"
"(one line; bytes: queued; by_ref and copied: from the completions;\n"
"MBps in 10^6 bytes per second; cpu_seconds: user + system).\n"
"\n"
"Example:\n"
"  B$ socat -u TCP-LISTEN:5001 - > /tmp/range\n"
"  A$ pmem-zc send /dev/pmem0 --offset 8M --length 64M --to 10.0.0.2:5001\n";

int cmd_send(int argc, char **argv)
{
	struct send_job j = { .sock = -1, .max_inflight = SEND_INFLIGHT,
			      .chunk = SEND_CHUNK,
			      .timeout_ms = SEND_TIMEOUT_MS };
	const char *to = NULL;
	uint64_t off = 0, len = 0;
	bool have_len = false, copy = false, force_progress = false;
	const struct opt_spec opts[] = {
		OPT_ARG("to", OPT_STRING, &to, "HOST:PORT",
			"the peer: IPv4, [IPv6] or localhost, and a port",
			.required = true),
		OPT_ARG("offset", OPT_SIZE, &off, "N",
			"byte offset in SRC (0)"),
		OPT_ARG("length", OPT_SIZE, &len, "N",
			"bytes to send (default: to the end of SRC)",
			.given = &have_len),
		OPT_BOOL("copy", &copy,
			 "send by copy, the bounce-buffer baseline"),
		OPT_ARG("inflight", OPT_COUNT, &j.max_inflight, "K",
			"sends in flight at most (4)", .min = 1, .max = 1024),
		OPT_ARG("chunk", OPT_SIZE, &j.chunk, "N",
			"bytes per send (16M)", .min = 1, .max = UINT64_MAX),
		OPT_ARG("timeout", OPT_DURATION, &j.timeout_ms, "T",
			"wait for a completion at most T (60s)"),
		OPT_BOOL("progress", &force_progress,
			 "progress on stderr even when it is not a terminal"),
		{}
	};
	const struct cmd_spec spec = {
		"send", "SRC", "Send bytes of SRC to a TCP peer, zero-copy.",
		send_more, opts, 1, 1,
	};
	struct sockaddr_storage ss;
	socklen_t sl;
	char **args;
	int nargs, ret;

	ret = opts_parse(&spec, argc, argv, &args, &nargs);
	if (ret)
		return ret < 0 ? RC_OK : ret;
	if (units_hostport(to, &ss, &sl))
		return usage_err("--to '%s': want ADDR:PORT or [IPv6]:PORT",
				 to);
	j.flags = copy ? PMEM_ZC_F_COPY : 0;
	ret = RC_FAIL;
	/* the device before the connection: no peer sees a failed start */
	if (src_job_open(&j.s, args[0], off, have_len, len))
		goto out;
	j.sock = net_connect(&ss, sl);
	if (j.sock < 0) {
		pr_err("connect to %s: %s", to, strerror(-j.sock));
		goto out;
	}
	src_job_start(&j.s, force_progress);
	if (!send_run(&j))
		ret = RC_OK;
	src_job_summary(&j.s, "send", j.queued);
out:
	if (j.sock >= 0)
		close(j.sock);
	src_job_close(&j.s);
	return ret;
}
