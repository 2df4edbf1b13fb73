// SPDX-License-Identifier: GPL-2.0
/*
 * tap: TAP lines and the helpers of tap.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tap.h"

char tmp[64];
const char *fake_bin, *real_bin;
static int count, failed;

static bool vresult(bool cond, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	failed += !cond;
	return cond;
}

bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(cond, fmt, ap);
	va_end(ap);
	return cond;
}

bool is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		diag("  got %lld, want %lld", got, want);
	return got == want;
}

bool has(const char *hay, const char *needle, const char *fmt, ...)
{
	bool cond = hay && needle && strstr(hay, needle);
	va_list ap;

	va_start(ap, fmt);
	vresult(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("  '%s' not in '%.400s'", needle ? needle : "(null)",
		     hay ? hay : "(null)");
	return cond;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int tap_end(void)
{
	printf("1..%d\n", count);
	printf("# %d passed, %d failed\n", count - failed, failed);
	return failed ? 1 : 0;
}

const char *tpath(const char *name)
{
	static char ring[8][256];
	static int i;
	char *p = ring[i++ % 8];

	snprintf(p, sizeof(ring[0]), "%s/%s", tmp, name);
	return p;
}

void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

void random_file(const char *path, size_t len)
{
	char *buf = malloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = random();
	write_file(path, buf, len);
	free(buf);
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			cap = 2 * cap + 65536;
			buf = realloc(buf, cap + 1);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

bool same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	bool same = x && y && la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return same;
}

static void redirect(const char *path, int fd, int flags)
{
	int f = open(path ? path : "/dev/null", flags, 0644);

	if (f >= 0 && f != fd) {
		dup2(f, fd);
		close(f);
	}
}

pid_t spawn(char *const argv[], char *const env[], const char *out,
	    const char *err)
{
	return spawn_pre(argv, env, out, err, NULL);
}

pid_t spawn_pre(char *const argv[], char *const env[], const char *out,
		const char *err, int (*pre)(void))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	for (; env && *env; env++)
		putenv(*env);
	redirect(NULL, 0, O_RDONLY);
	redirect(out, 1, O_WRONLY | O_CREAT | O_TRUNC);
	redirect(err, 2, O_WRONLY | O_CREAT | O_TRUNC);
	if (pre && pre())
		_exit(126);
	execvp(argv[0], argv);
	_exit(127);
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int wait_exit(pid_t pid, double secs)
{
	int st, i;

	for (i = 0; i < secs * 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
			       128 + WTERMSIG(st);
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	diag("  pid %d still running after %.1f s: killed", (int)pid, secs);
	return -1;
}

int run(char *const argv[], char *const env[], const char *out,
	const char *err, double secs)
{
	return wait_exit(spawn(argv, env, out, err), secs);
}

int tcp_to(const char *addr, int port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	struct timeval tv = { 5, 0 };
	bool v6 = strchr(addr, ':');
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET6, addr, &s6.sin6_addr);
	inet_pton(AF_INET, addr, &s4.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (fd < 0 || connect(fd, v6 ? (struct sockaddr *)&s6 :
			      (struct sockaddr *)&s4,
			      v6 ? sizeof(s6) : sizeof(s4))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

size_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size && (r = recv(fd, buf + n, size - n, 0)) > 0)
		n += r;
	return n;
}
