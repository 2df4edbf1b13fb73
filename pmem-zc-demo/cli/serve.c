// SPDX-License-Identifier: GPL-2.0
/*
 * serve: "pmem-zc serve", a static HTTP/1.1 origin server whose file
 * bodies leave through PMEM_ZC_IOC_SEND. This file owns the process: the
 * options, the listening socket, the workers (forked, sharing it), the
 * signals (SIGTERM/SIGINT stop, SIGHUP reopens the log), the epoll loop of
 * a worker, its slots, accepting with the connection limits, and the
 * timers. A connection in a slot is conn.c's, from conn_start() to
 * conn_destroy(): this file drives it through conn.h and never reads it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "cmds.h"
#include "conn.h"
#include "fcache.h"
#include "msg.h"
#include "net.h"
#include "opts.h"
#include "priv.h"
#include "report.h"
#include "sd.h"
#include "serve.h"
#include "units.h"
#include "xfer.h"

#define SLOT_SLACK	64	/* slots beyond 2 x --max-conns: 503s, zombies */
/*
 * A connection over a limit gets a slot only to hear its 503: at most
 * REJECT_SLOTS of them at once, each closed REJECT_S (conn.c) after it came
 * if its request has not; beyond that it is closed at accept. So one
 * address cannot fill the slots that the connections under the limits
 * need.
 */
#define REJECT_SLOTS	64
#define SLOTS_MAX	65535	/* the slot is 16 bits of user_data */
#define TICK_S		0.1	/* timers are checked this often */
#define ACCEPT_PAUSE_S	0.1	/* after EMFILE and the like */
#define ACCEPT_BATCH	64
#define WORKERS_MAX	64

/* epoll tags below the connections' (slot + EP_CONN) */
enum { EP_LISTEN, EP_SIGNAL, EP_XFER, EP_CONN };

/*
 * A slot of the worker's table: the connection in it (free: none), and
 * what the limits count of it. Only this file writes a slot; conn.c says
 * what happened through serve_pending(), serve_uncount(), serve_release().
 */
struct slot {
	struct conn *conn;		/* NULL: free */
	struct sockaddr_storage peer;	/* --max-conns-per-client */
	uint32_t events;		/* of its socket in the epoll set */
	bool counted;			/* in active: open, not a 503 */
	bool reject;			/* in rejecting: answering 503 */
	bool pending;			/* in pending: a pipelined request */
};

struct server {
	struct conn_env env;		/* for the connections (conn.h) */
	int ep, lfd, sfd;
	struct slot *slots;
	unsigned int nslots, active, used, pending;
	unsigned int rejecting;		/* slots answering 503 */
	bool stop_asked, accepting;
	double stop_deadline, accept_again;
	uint64_t refused;		/* connections closed at accept */
};

static int watch_fd(int ep, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* --- what conn.c tells of a slot (conn.h) --------------------------------- */

void serve_watch(struct server *s, unsigned int slot, int fd,
		 uint32_t events)
{
	struct epoll_event ev = { .events = events,
				  .data.u64 = slot + EP_CONN };

	if (s->slots[slot].events == events)
		return;
	s->slots[slot].events = events;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev);
}

void serve_pending(struct server *s, unsigned int slot, bool on)
{
	struct slot *sl = &s->slots[slot];

	if (sl->pending == on)
		return;
	sl->pending = on;
	if (on)
		s->pending++;
	else
		s->pending--;
}

void serve_uncount(struct server *s, unsigned int slot)
{
	struct slot *sl = &s->slots[slot];

	s->active -= sl->counted;
	sl->counted = false;
	serve_pending(s, slot, false);
}

void serve_release(struct server *s, unsigned int slot)
{
	serve_uncount(s, slot);
	s->rejecting -= s->slots[slot].reject;
	s->used--;
	s->slots[slot] = (struct slot){};
}

struct conn *serve_conn(struct server *s, unsigned int slot)
{
	return slot < s->nslots ? s->slots[slot].conn : NULL;
}

bool serve_stop_asked(const struct server *s)
{
	return s->stop_asked;
}

void serve_logged(struct server *s)
{
	const struct serve_cfg *cfg = s->env.cfg;

	if (cfg->count && s->env.tot->requests >= cfg->count)
		s->stop_asked = true;
}

/* --- accepting ------------------------------------------------------------ */

static void accept_on(struct server *s, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = EP_LISTEN };

	if (on == s->accepting || s->lfd < 0)
		return;
	if (on && s->env.cfg->workers > 1)
		ev.events |= EPOLLEXCLUSIVE;	/* one worker wakes */
	epoll_ctl(s->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->lfd, &ev);
	s->accepting = on;
}

static struct slot *free_slot(struct server *s)
{
	unsigned int i;

	for (i = 0; i < s->nslots; i++)
		if (!s->slots[i].conn)
			return &s->slots[i];
	return NULL;
}

static unsigned int from_host(struct server *s,
			      const struct sockaddr_storage *peer)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nslots; i++)
		n += s->slots[i].counted &&
		     net_same_host(&s->slots[i].peer, peer);
	return n;
}

static void serve_accept(struct server *s)
{
	struct sockaddr_storage peer;
	const struct serve_cfg *cfg = s->env.cfg;
	struct slot *sl;
	struct conn *c;
	socklen_t len;
	bool over;
	int i, fd;

	for (i = 0; i < ACCEPT_BATCH && s->accepting; i++) {
		len = sizeof(peer);
		fd = accept4(s->lfd, (struct sockaddr *)&peer, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				accept_on(s, false);	/* no spin */
				s->accept_again = now_mono() + ACCEPT_PAUSE_S;
			}
			return;
		}
		over = s->active >= cfg->max_conns ||
		       from_host(s, &peer) >= cfg->max_per_client;
		sl = over && s->rejecting >= REJECT_SLOTS ? NULL : free_slot(s);
		c = sl ? conn_start(&s->env, sl - s->slots, fd, &peer, over) :
			 NULL;
		if (!c) {	/* no slot, or no memory */
			close(fd);
			s->refused++;
			continue;
		}
		*sl = (struct slot){ .conn = c, .peer = peer, .events = EPOLLIN,
				     .counted = !over, .reject = over };
		s->used++;
		s->active += !over;
		s->rejecting += over;
		if (watch_fd(s->ep, fd, EP_CONN + (sl - s->slots)))
			conn_destroy(&s->env, c);
	}
}

/* --- the loop ------------------------------------------------------------- */

static void serve_stop(struct server *s)
{
	unsigned int i;

	if (s->env.stopping)
		return;
	s->env.stopping = true;
	s->stop_deadline = now_mono() + s->env.cfg->drain_ms / 1e3;
	accept_on(s, false);
	close(s->lfd);
	s->lfd = -1;
	for (i = 0; i < s->nslots; i++)
		if (s->slots[i].conn)
			conn_stop(&s->env, s->slots[i].conn);
}

static void on_signal(struct server *s)
{
	struct signalfd_siginfo si;
	int ret;

	while (read(s->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGHUP) {
			/* the main process's (several workers: the parent's) */
			if (!s->stop_asked && s->env.cfg->workers == 1)
				sd_notify_state("STOPPING=1");
			s->stop_asked = true;
			continue;
		}
		ret = log_reopen(s->env.log);
		if (ret)
			pr_err("reopening the access log: %s", strerror(-ret));
		fcache_flush(s->env.fc);	/* the operator's way out */
	}
}

static void on_completions(struct server *s)
{
	struct pmem_zc_completion done[32];
	unsigned int j;
	int n, i;

	do {
		n = xfer_reap(s->env.x, done, ARRAY_SIZE(done));
		for (i = 0; i < n; i++)
			conn_completion(&s->env, &done[i]);
	} while (n == ARRAY_SIZE(done));
	if (n < 0)
		pr_err("reading completions: %s", strerror(-n));
	for (j = 0; j < s->nslots && s->env.wait_room; j++)
		if (s->slots[j].conn)
			conn_room(&s->env, s->slots[j].conn);
}

static void dispatch(struct server *s, const struct epoll_event *ev)
{
	struct conn *c;

	switch (ev->data.u64) {
	case EP_LISTEN:
		serve_accept(s);
		break;
	case EP_SIGNAL:
		on_signal(s);
		break;
	case EP_XFER:
		on_completions(s);
		break;
	/*
	 * A connection: unless an event before it in @ev ended it. (Or ended
	 * it and accepted another into its slot: that one then gets an event
	 * meant for the first, which for a connection in C_READ means one
	 * recv() of EAGAIN or of its own request; harmless.)
	 */
	default:
		c = s->slots[ev->data.u64 - EP_CONN].conn;
		if (c)
			conn_event(&s->env, c, ev->events);
	}
}

static void timers(struct server *s, double now)
{
	unsigned int i;

	if (!s->accepting && !s->env.stopping && now >= s->accept_again)
		accept_on(s, true);
	for (i = 0; i < s->nslots; i++)
		if (s->slots[i].conn)
			conn_timer(&s->env, s->slots[i].conn, now);
}

static void run_pending(struct server *s)
{
	unsigned int i;

	for (i = 0; i < s->nslots && s->pending; i++)
		if (s->slots[i].pending)
			conn_parse(&s->env, s->slots[i].conn);
}

static int wait_ms(const struct server *s)
{
	if (s->pending || s->stop_asked)
		return 0;
	return s->used || s->env.stopping || !s->accepting ?
	       TICK_S * 1000 : -1;
}

static bool finished(const struct server *s)
{
	return s->env.stopping && (!s->used || now_mono() >= s->stop_deadline);
}

static int serve_loop(struct server *s)
{
	struct epoll_event ev[64];
	double next_tick = 0;
	int n, i;

	while (!finished(s)) {
		n = epoll_wait(s->ep, ev, ARRAY_SIZE(ev), wait_ms(s));
		if (n < 0 && errno != EINTR) {
			pr_err("epoll_wait: %s", strerror(errno));
			return RC_FAIL;
		}
		for (i = 0; i < n; i++)
			dispatch(s, &ev[i]);
		run_pending(s);
		if (s->stop_asked)
			serve_stop(s);
		if (now_mono() >= next_tick) {
			next_tick = now_mono() + TICK_S;
			timers(s, now_mono());
		}
	}
	return RC_OK;
}

/* --- a worker ------------------------------------------------------------- */

/*
 * The soft limit on open files (1024 by default) is below what --max-conns
 * 1024 needs; raise it towards the hard limit, as nginx's
 * worker_rlimit_nofile would. Short of it, accept pauses on EMFILE.
 */
static rlim_t raise_nofile(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return want;
	if (rl.rlim_cur >= want)
		return rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
		      want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		pr_err("open files limited to %llu: %s",
			(unsigned long long)rl.rlim_cur, strerror(errno));
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur;
}

/*
 * The open-file cache, in what the limit on open files leaves beside a
 * socket and a file per connection of --max-conns (cached fds must not
 * make accept() pause); without inotify, a worker opens per request.
 */
static void cache_setup(struct conn_env *e, rlim_t nofile, rlim_t others)
{
	uint64_t n = e->cfg->open_files;

	if (n && nofile < others + n) {
		n = nofile > others ? nofile - others : 0;
		pr_err("--open-file-cache %" PRIu64 ": %" PRIu64
		       " entries, what the limit on open files leaves",
		       e->cfg->open_files, n);
	}
	if (!n)
		return;
	e->fc = fcache_new(e->cfg->root_fd, n);
	if (!e->fc)
		pr_err("no open-file cache: %s (an open per request)",
		       errno == EOPNOTSUPP ?
		       "inotify does not report every change on --root's filesystem" :
		       strerror(errno));
}

static int worker_setup(struct server *s, sigset_t *sigs)
{
	struct conn_env *e = &s->env;
	rlim_t nofile;

	conn_env_init(e);
	s->nslots = 2 * e->cfg->max_conns + SLOT_SLACK;
	if (s->nslots > SLOTS_MAX)
		s->nslots = SLOTS_MAX;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	/* a socket and a file each, and the cache's */
	nofile = raise_nofile(2 * s->nslots + e->cfg->open_files + 64);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->sfd = signalfd(-1, sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (!s->slots || s->ep < 0 || s->sfd < 0 ||
	    watch_fd(s->ep, s->sfd, EP_SIGNAL)) {
		pr_err("worker set-up: %s", strerror(errno));
		return -1;
	}
	if (e->x && watch_fd(s->ep, xfer_fd(e->x), EP_XFER)) {
		pr_err("%s", strerror(errno));
		return -1;
	}
	cache_setup(e, nofile, 2 * e->cfg->max_conns + REJECT_SLOTS + 64);
	accept_on(s, true);
	return 0;
}

/* Connections still there after the drain timeout are cut. */
static void worker_cleanup(struct server *s)
{
	unsigned int i;

	for (i = 0; s->slots && i < s->nslots; i++)
		if (s->slots[i].conn)
			conn_destroy(&s->env, s->slots[i].conn);
	if (s->lfd >= 0)
		close(s->lfd);
}

/* A worker, with its own completion queue @x (NULL with --copy). */
static int worker_run(const struct serve_cfg *cfg, struct access_log *log,
		      int lfd, struct serve_totals *tot, sigset_t *sigs,
		      struct xfer *x)
{
	struct server s = { .ep = -1, .lfd = lfd, .sfd = -1,
			    .env = { .cfg = cfg, .x = x, .log = log,
				     .tot = tot } };
	struct fcache_stats st;
	int ret = RC_FAIL;

	s.env.srv = &s;
	if (!worker_setup(&s, sigs))
		ret = serve_loop(&s);
	worker_cleanup(&s);
	st = fcache_stats(s.env.fc);
	tot->cache_hits = st.hits;
	tot->cache_misses = st.misses;
	tot->cache_dropped = st.dropped;
	tot->cache_evicted = st.evicted;
	tot->cache_uncached = st.uncached;
	fcache_free(s.env.fc);
	if (s.env.stale)
		pr_err("%" PRIu64 " completions named no connection",
		       s.env.stale);
	if (log->lost)
		pr_err("%" PRIu64 " access log lines lost", log->lost);
	xfer_close(s.env.x);
	free(s.slots);
	if (s.ep >= 0)
		close(s.ep);
	if (s.sfd >= 0)
		close(s.sfd);
	return ret;
}

/* --- the process ---------------------------------------------------------- */

/* Forward @sig to the workers that are still running. */
static void forward(pid_t *pids, unsigned int n, int sig)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], sig);
}

/* Reap workers; how many are still running. *failed counts bad exits. */
static unsigned int reap(pid_t *pids, unsigned int n, unsigned int *failed)
{
	unsigned int i, alive = 0;
	int st;

	for (i = 0; i < n; i++) {
		if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				(*failed)++;
			if (WIFSIGNALED(st))
				pr_err("worker %d killed by signal %d",
				       (int)pids[i], WTERMSIG(st));
			pids[i] = 0;
		}
		alive += pids[i] > 0;
	}
	return alive;
}

static int run_workers(const struct serve_cfg *cfg, struct access_log *log,
		       int lfd, struct serve_totals *tot, sigset_t *sigs,
		       struct xfer **xs)
{
	pid_t pids[WORKERS_MAX] = {};
	unsigned int i, j, failed = 0;
	siginfo_t si;

	for (i = 0; i < cfg->workers; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			for (j = 0; j < cfg->workers; j++)
				if (j != i)
					xfer_close(xs[j]);
			_exit(worker_run(cfg, log, lfd, &tot[i], sigs, xs[i]));
		}
		if (pids[i] < 0) {
			pr_err("fork: %s", strerror(errno));
			failed++;
			forward(pids, i, SIGTERM);
			break;
		}
	}
	close(lfd);
	for (j = 0; j < cfg->workers; j++) {	/* the workers' own now */
		xfer_close(xs[j]);
		xs[j] = NULL;
	}
	while (reap(pids, cfg->workers, &failed)) {
		if (sigwaitinfo(sigs, &si) < 0 || si.si_signo == SIGCHLD)
			continue;
		if (si.si_signo != SIGHUP)
			sd_notify_state("STOPPING=1");
		forward(pids, cfg->workers, si.si_signo);
	}
	return failed ? RC_FAIL : RC_OK;
}

static void print_summary(const struct serve_totals *tot, unsigned int n)
{
	struct serve_totals t = {};
	unsigned int i;

	for (i = 0; i < n; i++) {
		t.requests += tot[i].requests;
		t.bytes += tot[i].bytes;
		t.by_ref += tot[i].by_ref;
		t.copied += tot[i].copied;
		t.cache_hits += tot[i].cache_hits;
		t.cache_misses += tot[i].cache_misses;
		t.cache_dropped += tot[i].cache_dropped;
		t.cache_evicted += tot[i].cache_evicted;
		t.cache_uncached += tot[i].cache_uncached;
	}
	fprintf(stderr, "%s: summary: requests=%" PRIu64 " bytes=%" PRIu64
		" by_ref=%" PRIu64 " copied=%" PRIu64 " zero_copy=%s\n", prog,
		t.requests, t.bytes, t.by_ref, t.copied,
		zero_copy_word(t.by_ref, t.copied));
	fprintf(stderr, "%s: open-file cache: hits=%" PRIu64 " misses=%"
		PRIu64 " evicted=%" PRIu64 " dropped=%" PRIu64 " uncached=%"
		PRIu64 "\n", prog, t.cache_hits, t.cache_misses,
		t.cache_evicted, t.cache_dropped, t.cache_uncached);
}

static const char *priv_str(const struct priv_id *id)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), ", as uid %u gid %u", (unsigned int)id->uid,
		 (unsigned int)id->gid);
	return buf;
}

/*
 * What needs root is opened before the drop to @id (when set): the socket
 * (a port below 1024), and each worker's own /dev/pmem_zc (the device is
 * root's; the module gives its holder no right of root's over files).
 */
static int open_privileged(const struct serve_cfg *cfg, const struct priv_id *id,
			   struct xfer **xs)
{
	char why[256];
	unsigned int i;

	for (i = 0; !cfg->copy && i < cfg->workers; i++) {
		xs[i] = xfer_open(why, sizeof(why));
		if (!xs[i]) {
			pr_err("%s", why);
			return RC_FAIL;
		}
	}
	if (!id)
		return RC_OK;
	if (geteuid() && geteuid() != id->uid) {
		pr_err("--user: started as uid %u, not root: cannot become uid %u",
		       (unsigned int)geteuid(), (unsigned int)id->uid);
		return RC_FAIL;
	}
	if (priv_drop(id, why, sizeof(why))) {
		pr_err("%s", why);
		return RC_FAIL;
	}
	return RC_OK;
}

/* Listen, open the devices, drop root, fork the workers (or be the only one), summary. */
static int serve_run(struct serve_cfg *cfg, struct sockaddr_storage *ss,
		     socklen_t sl, const char *backend,
		     const struct priv_id *id, const char *log_path)
{
	struct xfer *xs[WORKERS_MAX] = {};
	struct serve_totals *tot;
	char addr[INET6_ADDRSTRLEN + 8];
	unsigned int i;
	sigset_t sigs;
	int lfd, ret;

	/* systemd's socket (socket activation), or our own */
	lfd = sd_listen_fd();
	if (lfd == -2)
		return RC_FAIL;
	if (lfd >= 0) {
		sl = sizeof(*ss);
		if (getsockname(lfd, (struct sockaddr *)ss, &sl))
			ss->ss_family = AF_UNSPEC;
	} else {
		lfd = net_listen(ss, sl, 511);
	}
	if (lfd < 0) {
		pr_err("listen on %s: %s", net_addr_str(ss, true, addr,
		       sizeof(addr)), strerror(-lfd));
		return RC_FAIL;
	}
	ret = sd_notify_open();
	if (ret)
		pr_err("NOTIFY_SOCKET: %s", strerror(-ret));
	/*
	 * The access log after the drop, as the user: root never opens a
	 * name the user may have made (nor follows a link: O_NOFOLLOW)
	 */
	ret = 0;
	if (open_privileged(cfg, id, xs) ||
	    (ret = log_open(&cfg->log, log_path))) {
		if (ret < 0)
			pr_err("--access-log %s: %s", log_path, strerror(-ret));
		goto fail;
	}
	tot = mmap(NULL, cfg->workers * sizeof(*tot), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tot == MAP_FAILED) {
		pr_err("mmap: %s", strerror(errno));
		goto fail;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	fprintf(stderr, "%s: listening on %s, %u worker%s, bodies %s%s\n",
		prog, net_addr_str(ss, true, addr, sizeof(addr)), cfg->workers,
		cfg->workers > 1 ? "s" : "", backend,
		id ? priv_str(id) : "");
	/* listening, unprivileged: systemd's Type=notify may go on */
	ret = sd_notify_state("READY=1");
	if (ret)
		pr_err("NOTIFY_SOCKET: %s", strerror(-ret));
	if (cfg->workers == 1)
		ret = worker_run(cfg, &cfg->log, lfd, tot, &sigs, xs[0]);
	else
		ret = run_workers(cfg, &cfg->log, lfd, tot, &sigs, xs);
	print_summary(tot, cfg->workers);
	munmap(tot, cfg->workers * sizeof(*tot));
	return ret;
fail:
	for (i = 0; i < cfg->workers; i++)
		xfer_close(xs[i]);
	close(lfd);
	return RC_FAIL;
}

static const char serve_about[] =
"Serve the regular files under DIR over HTTP/1.1 (GET and HEAD), the\n"
"bodies sent zero-copy from pmem by PMEM_ZC_IOC_SEND; files the module\n"
"cannot send (not DAX on ext2/3/4 on a prd disk, open for writing...) and\n"
"all files with --copy go by sendfile(2) and count as copied. On a kernel\n"
"that splices DAX files by reference (fs.dax_splice_read 1), --body auto\n"
"sends every body by sendfile(2), without the module: copied= then counts\n"
"bytes the kernel sent from DAX pages by reference.";

static const char serve_more[] =
"Sizes: decimal or 0x hex, optional K/M/G/T. Durations: decimal, optional\n"
"ms/s/m/h. Limits answer 414 (request line), 431 (header bytes or fields),\n"
"408 (a request head slower than --header-timeout), 503 (--max-conns or\n"
"--max-conns-per-client, each per worker); an idle keep-alive connection is\n"
"closed quietly. Range: 206 with one range, 206 multipart/byteranges with\n"
"several (each part's body by reference, but parts of 2K at most), 416\n"
"when none is satisfiable; ranges that overlap, or more than --max-ranges,\n"
"get the whole file (200), as with nginx. ETag and Last-Modified give 304 to\n"
"If-None-Match and If-Modified-Since. A directory is 403 unless --index.\n"
"\n"
"Access log: the combined format plus \" by_ref=N copied=N\" (body bytes\n"
"sent from the pmem pages / by copy). SIGHUP reopens it and empties the\n"
"open-file cache; SIGTERM or SIGINT stops accepting, lets responses under\n"
"way finish (--drain-timeout), and ends with summary lines on stderr:\n"
"  pmem-zc serve: summary: requests=N bytes=N by_ref=N copied=N\n"
"                 zero_copy=yes|no|partial\n"
"  pmem-zc serve: open-file cache: hits=N misses=N evicted=N dropped=N\n"
"                 uncached=N\n"
"\n"
"Examples:\n"
"  pmem-zc serve --root /mnt/pmem --bind :: --port 8080 --access-log -\n"
"  curl -o f http://10.0.0.1:8080/file\n"
"  curl -I http://10.0.0.1:8080/file                       (HEAD)\n"
"  curl -r 0-1023 http://10.0.0.1:8080/file                (Range)\n"
"  curl -H 'If-None-Match: \"ETAG\"' http://10.0.0.1:8080/file  (304)\n"
"  curl -g 'http://[::1]:8080/file'                        (IPv6)\n";

/*
 * The kernel splices DAX files by reference (the project's 6.12 series
 * mm-export-patch/6.12/dax-splice/, switched on): sendfile(2) then sends
 * a DAX file's pages without pmem_zc.
 */
static bool kernel_splices_dax(void)
{
	char c = 0;
	int fd = open("/proc/sys/fs/dax_splice_read", O_RDONLY | O_CLOEXEC);
	bool on;

	if (fd < 0)
		return false;
	on = read(fd, &c, 1) == 1 && c == '1';
	close(fd);
	return on;
}

/* Open the root, the device (or say why not). RC_OK or not. */
static int serve_open(struct serve_cfg *cfg, const char *root,
		      const char *body, const char **backend)
{
	struct xfer *x;
	char why[256];
	int ret;

	cfg->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cfg->root_fd < 0) {
		pr_err("--root %s: %s", root, strerror(errno));
		return RC_FAIL;
	}
	/* or every request would be answered 500 */
	ret = files_check(cfg->root_fd);
	if (ret) {
		pr_err("--root %s: openat2(): %s%s", root, strerror(-ret),
		       ret == -ENOSYS ? " (it needs Linux 5.6 or later, and no seccomp filter that refuses it: systemd's RestrictSUIDSGID= does)" : "");
		return RC_FAIL;
	}
	if (!strcmp(body, "sendfile"))
		cfg->copy = true;
	*backend = "by copy (sendfile)";
	if (!cfg->copy && !strcmp(body, "auto") && kernel_splices_dax()) {
		cfg->copy = true;
		*backend = "by sendfile(2), which this kernel sends by reference from DAX files (fs.dax_splice_read is 1)";
	}
	if (!cfg->copy) {
		x = xfer_open(why, sizeof(why));
		if (!x) {
			pr_err("%s (--copy serves by sendfile without it)",
			       why);
			return RC_FAIL;
		}
		*backend = "zero-copy";
		xfer_close(x);
	}
	return RC_OK;
}

/* The command line of serve, with its defaults. */
struct serve_args {
	struct serve_cfg cfg;
	const char *root, *bind_addr, *log_path, *user, *group, *body;
	struct priv_id id;
	uint64_t workers, line, hdr, fields;
	uint16_t port;
	struct sockaddr_storage ss;
	socklen_t sl;
};

static int serve_parse(struct serve_args *a, int argc, char **argv)
{
	const struct opt_spec opts[] = {
		OPT_ARG("root", OPT_STRING, &a->root, "DIR",
			"serve the files under DIR (required)",
			.required = true),
		OPT_ARG("bind", OPT_STRING, &a->bind_addr, "ADDR",
			"IPv4 or IPv6 address, :: takes both (0.0.0.0)"),
		OPT_ARG("port", OPT_PORT, &a->port, "PORT",
			"TCP port, 0 for any (8080)"),
		OPT_ARG("user", OPT_STRING, &a->user, "USER",
			"started as root: become USER (name or uid) before the first accept"),
		OPT_ARG("group", OPT_STRING, &a->group, "GROUP",
			"with --user: this group, not USER's own"),
		OPT_ARG("workers", OPT_COUNT, &a->workers, "N",
			"processes sharing the socket (1)", .min = 1,
			.max = WORKERS_MAX),
		OPT_ARG("access-log", OPT_STRING, &a->log_path, "FILE",
			"the access log, - for stdout, off for none (-)"),
		OPT_BOOL("index", &a->cfg.index,
			 "serve DIR/index.html for a directory"),
		OPT_BOOL("copy", &a->cfg.copy,
			 "send every body by sendfile, not zero-copy (--body sendfile)"),
		OPT_ARG("body", OPT_STRING, &a->body, "HOW",
			"auto: sendfile where the kernel splices DAX files by reference (fs.dax_splice_read 1), else module; module; sendfile (auto)"),
		OPT_ARG("count", OPT_COUNT, &a->cfg.count, "N",
			"stop after N responses (per worker; 0 never)",
			.max = UINT64_MAX),
		OPT_ARG("max-conns", OPT_COUNT, &a->cfg.max_conns, "N",
			"connections at once, then 503 (1024)", .min = 1,
			.max = (SLOTS_MAX - SLOT_SLACK) / 2),
		OPT_ARG("max-conns-per-client", OPT_COUNT,
			&a->cfg.max_per_client, "N",
			"connections of one address, then 503 (64)", .min = 1,
			.max = UINT32_MAX),
		OPT_ARG("max-request-line", OPT_SIZE, &a->line, "N",
			"bytes, else 414 (8K)", .min = 64, .max = 1 << 20),
		OPT_ARG("max-header-bytes", OPT_SIZE, &a->hdr, "N",
			"bytes of header fields, else 431 (16K)", .min = 256,
			.max = 1 << 20),
		OPT_ARG("max-headers", OPT_COUNT, &a->fields, "N",
			"header fields, else 431 (100)", .min = 1,
			.max = 10000),
		OPT_ARG("header-timeout", OPT_DURATION, &a->cfg.header_ms, "T",
			"for a request head to arrive, else 408 (20s)"),
		OPT_ARG("idle-timeout", OPT_DURATION, &a->cfg.idle_ms, "T",
			"keep-alive without a request, then close (60s)"),
		OPT_ARG("send-timeout", OPT_DURATION, &a->cfg.send_ms, "T",
			"a response without progress, then reset (60s)"),
		OPT_ARG("drain-timeout", OPT_DURATION, &a->cfg.drain_ms, "T",
			"on SIGTERM, for responses under way (10s)"),
		OPT_ARG("inflight", OPT_COUNT, &a->cfg.inflight, "K",
			"zero-copy sends in flight per connection (4)",
			.min = 1, .max = 1024),
		OPT_ARG("chunk", OPT_SIZE, &a->cfg.chunk, "N",
			"bytes per send at most (16M)", .min = 1,
			.max = UINT64_MAX),
		OPT_ARG("open-file-cache", OPT_COUNT, &a->cfg.open_files, "N",
			"files kept open per worker, dropped when inotify says they changed; 0 opens each time (1024)",
			.max = 1 << 20),
		OPT_ARG("max-ranges", OPT_COUNT, &a->cfg.max_ranges, "N",
			"ranges of a request, more get the whole file; 0 turns Range off (16)",
			.max = HTTP_RANGES_MAX),
		{}
	};
	const struct cmd_spec spec = {
		"serve", NULL, serve_about, serve_more, opts, 0, 0,
	};
	char **args;
	int nargs, ret;

	ret = opts_parse(&spec, argc, argv, &args, &nargs);
	if (ret)
		return ret;
	if (units_addr(a->bind_addr, a->port, &a->ss, &a->sl))
		return usage_err("--bind '%s': not an IPv4 or IPv6 address",
				 a->bind_addr);
	if (a->group && !a->user)
		return usage_err("--group needs --user");
	if (strcmp(a->body, "auto") && strcmp(a->body, "module") &&
	    strcmp(a->body, "sendfile"))
		return usage_err("--body '%s': auto, module or sendfile",
				 a->body);
	if (a->user) {
		char why[256];

		if (priv_lookup(a->user, a->group, &a->id, why, sizeof(why)))
			return usage_err("%s", why);
	}
	a->cfg.lim = (struct http_limits){ a->line, a->hdr, a->fields };
	a->cfg.workers = a->workers;
	return RC_OK;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a = {
		.cfg = { .root_fd = -1, .max_conns = 1024,
			 .max_per_client = 64, .header_ms = 20000,
			 .idle_ms = 60000, .send_ms = 60000,
			 .drain_ms = 10000, .inflight = 4, .chunk = 16 << 20,
			 .max_ranges = 16, .open_files = 1024,
			 .log = { .fd = -1 } },
		.bind_addr = "0.0.0.0", .log_path = "-", .workers = 1,
		.body = "auto",
		.line = 8192, .hdr = 16384, .fields = 100, .port = 8080,
	};
	const char *backend;
	int ret = serve_parse(&a, argc, argv);

	if (ret)
		return ret < 0 ? RC_OK : ret;
	ret = serve_open(&a.cfg, a.root, a.body, &backend);
	if (!ret)
		ret = serve_run(&a.cfg, &a.ss, a.sl, backend,
				a.user ? &a.id : NULL, a.log_path);
	log_close(&a.cfg.log);
	if (a.cfg.root_fd >= 0)
		close(a.cfg.root_fd);
	return ret;
}
