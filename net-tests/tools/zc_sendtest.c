// SPDX-License-Identifier: GPL-2.0
/*
 * zc_sendtest MODE SRC IPV4:PORT LENGTH: PMEM_ZC_IOC_SEND the first LENGTH
 * bytes of SRC (a prd disk or a file on one) to a TCP receiver, the way a
 * test needs it, and print what happened as "key value" lines:
 *
 *   restart   SIGALRM every 20 ms with an SA_RESTART handler: every send
 *             ioctl that a signal cuts short must report its bytes, and the
 *             loop goes on from there, so the receiver gets each byte once;
 *             one interrupted before it queued anything restarts, as
 *             send(2), and never fails with EINTR ("eintr_nothing_queued")
 *   sndtimeo  SO_SNDTIMEO of 300 ms and one send of LENGTH to a receiver
 *             that stalls: "queued N" (0 < N < LENGTH) and "error EAGAIN"
 *   inflight  16 sends of LENGTH/16 on a non-blocking socket, completions
 *             reaped with poll() while later sends are still being queued
 *   hold      one send that queues what fits now (PMEM_ZC_F_DONTWAIT);
 *             "queued N", then sleep until killed (sends in flight at exit)
 *   ktls      one send on a socket with kernel TLS (a dummy AES-GCM-128
 *             key) for transmission: the stack cannot take pages there
 *   once      one send of LENGTH: "queued N" and "error E" (0 for none)
 *
 * SRC "-" is standard input: a file opened before the test changed what
 * an open of its path would do (a filesystem shut down since).
 *
 * Every mode but hold waits for all completions and prints "completions N",
 * "bytes N" (their sum) and "cookies_unique 1|0". Exit 0 when the calls
 * behaved (what the receiver got is the test's to check), 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/pmem_zc.h>
#include <linux/tls.h>
#include <netinet/tcp.h>

#define MAX_OPS 4096

static int zc, src, sock;
static uint64_t cookies[MAX_OPS], nr_cookies, completed, completed_bytes;
static uint64_t by_ref, copied, stack_copied;
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* a TCP connection to IPV4:PORT */
static int dial(const char *hostport)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char host[64], *port;
	int fd;

	snprintf(host, sizeof(host), "%s", hostport);
	port = strrchr(host, ':');
	if (!port)
		return -1;
	*port++ = 0;
	a.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

/* one send; returns bytes queued, -1 with errno when none */
static int64_t send_one(uint64_t off, uint64_t len, uint32_t flags, int *err)
{
	struct pmem_zc_send s = {
		.flags = flags, .src_fd = src, .sock_fd = sock,
		.offset = off, .length = len, .user_data = off,
	};

	*err = 0;
	if (ioctl(zc, PMEM_ZC_IOC_SEND, &s) < 0) {
		*err = errno;
		return -1;
	}
	if (nr_cookies < MAX_OPS)
		cookies[nr_cookies++] = s.cookie;
	*err = s.error;
	return (int64_t)s.bytes_queued;
}

/* read what completions there are (block: at least one) */
static int reap(int block)
{
	struct pmem_zc_completion c[16];
	ssize_t n;
	int i;

	fcntl(zc, F_SETFL, block ? 0 : O_NONBLOCK);
	n = read(zc, c, sizeof(c));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	for (i = 0; i < n / (ssize_t)sizeof(c[0]); i++) {
		completed++;
		completed_bytes += c[i].bytes;
		by_ref += c[i].bytes_ref;
		copied += c[i].bytes_copied;
		stack_copied += !!(c[i].flags & PMEM_ZC_C_STACK_COPIED);
		if (c[i].status)
			fprintf(stderr, "completion %llu status %d\n",
				(unsigned long long)c[i].cookie, c[i].status);
	}
	return i;
}

static int unique_cookies(void)
{
	uint64_t i, j;

	for (i = 0; i < nr_cookies; i++)
		for (j = i + 1; j < nr_cookies; j++)
			if (!cookies[i] || cookies[i] == cookies[j])
				return 0;
	return 1;
}

static int finish(uint64_t queued)
{
	while (completed < nr_cookies)
		if (reap(1) < 0) {
			perror("read completions");
			return 1;
		}
	printf("completions %llu\nbytes %llu\ncookies_unique %d\n",
	       (unsigned long long)completed,
	       (unsigned long long)completed_bytes, unique_cookies());
	printf("by_ref %llu\ncopied %llu\nstack_copied %llu\n",
	       (unsigned long long)by_ref, (unsigned long long)copied,
	       (unsigned long long)stack_copied);
	return completed_bytes == queued && unique_cookies() ? 0 : 1;
}

static int mode_restart(uint64_t len)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	uint64_t off = 0, cut = 0, eintr = 0;
	int64_t n;
	int err;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while (off < len) {
		n = send_one(off, len - off, 0, &err);
		if (n < 0) {
			/* nothing queued: SA_RESTART restarts it, as send(2) */
			eintr += err == EINTR;
			if (err == EINTR || err == ENOBUFS) {
				reap(0);
				continue;
			}
			printf("error %s\n", strerror(err));
			return 1;
		}
		off += n;
		if (err)
			cut++;
		reap(0);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("queued %llu\nsignals %d\ncut_short %llu\nsends %llu\neintr_nothing_queued %llu\n",
	       (unsigned long long)off, (int)alarms,
	       (unsigned long long)cut, (unsigned long long)nr_cookies,
	       (unsigned long long)eintr);
	return finish(off);
}

static int mode_sndtimeo(uint64_t len)
{
	struct timeval tv = { 0, 300000 };
	int64_t n;
	int err;

	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = send_one(0, len, 0, &err);
	printf("queued %lld\nerror %s\n", (long long)n,
	       err == EAGAIN ? "EAGAIN" : err ? strerror(err) : "0");
	if (n <= 0 || (uint64_t)n >= len || err != EAGAIN)
		return 1;
	return finish(n);
}

static int mode_inflight(uint64_t len)
{
	uint64_t each = len / 16, off = 0, early = 0;
	struct pollfd p[2] = { { .fd = sock, .events = POLLOUT },
			       { .fd = zc, .events = POLLIN } };
	int64_t n;
	int err;

	fcntl(sock, F_SETFL, O_NONBLOCK);
	while (off < 16 * each) {
		uint64_t end = (off / each + 1) * each;

		n = send_one(off, end - off, PMEM_ZC_F_DONTWAIT, &err);
		if (n > 0)
			off += n;
		if (n < 0 && err != EAGAIN && err != ENOBUFS) {
			printf("error %s\n", strerror(err));
			return 1;
		}
		if (n < 0 || err) {
			poll(p, 2, 1000);
			early += reap(0);
		}
	}
	printf("queued %llu\nsends %llu\nreaped_while_queueing %llu\n",
	       (unsigned long long)off, (unsigned long long)nr_cookies,
	       (unsigned long long)early);
	return finish(off);
}

static int mode_hold(uint64_t len)
{
	int64_t n;
	int err;

	n = send_one(0, len, PMEM_ZC_F_DONTWAIT, &err);
	printf("queued %lld\n", (long long)n);
	fflush(stdout);
	if (n <= 0)
		return 1;
	for (;;)
		pause();
}

static int mode_ktls(uint64_t len)
{
	struct tls12_crypto_info_aes_gcm_128 ci = {
		.info.version = TLS_1_2_VERSION,
		.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	};
	int64_t n;
	int err;

	if (setsockopt(sock, SOL_TCP, TCP_ULP, "tls", sizeof("tls")) ||
	    setsockopt(sock, SOL_TLS, TLS_TX, &ci, sizeof(ci))) {
		perror("kTLS");
		return 1;
	}
	n = send_one(0, len, 0, &err);
	printf("queued %lld\n", (long long)n);
	if (n <= 0)
		return 1;
	return finish(n);
}

static int mode_once(uint64_t len)
{
	int64_t n;
	int err;

	n = send_one(0, len, 0, &err);
	printf("queued %lld\nerror %s\n", (long long)(n < 0 ? 0 : n),
	       err ? strerror(err) : "0");
	if (n <= 0 || err)
		return 1;
	return finish(n);
}

int main(int argc, char **argv)
{
	uint64_t len;

	if (argc != 5) {
		fprintf(stderr, "usage: %s restart|sndtimeo|inflight|hold|ktls|once\n"
			"       SRC|- IPV4:PORT LENGTH\n", argv[0]);
		return 2;
	}
	len = strtoull(argv[4], NULL, 0);
	zc = open("/dev/pmem_zc", O_RDWR);
	src = strcmp(argv[2], "-") ? open(argv[2], O_RDONLY) : 0;
	sock = dial(argv[3]);
	if (zc < 0 || src < 0 || sock < 0 || !len) {
		perror("setup");
		return 1;
	}
	if (!strcmp(argv[1], "restart"))
		return mode_restart(len);
	if (!strcmp(argv[1], "sndtimeo"))
		return mode_sndtimeo(len);
	if (!strcmp(argv[1], "inflight"))
		return mode_inflight(len);
	if (!strcmp(argv[1], "hold"))
		return mode_hold(len);
	if (!strcmp(argv[1], "ktls"))
		return mode_ktls(len);
	if (!strcmp(argv[1], "once"))
		return mode_once(len);
	fprintf(stderr, "unknown mode %s\n", argv[1]);
	return 2;
}
