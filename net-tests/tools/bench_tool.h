/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_tool.h: what the benchmark tools (mzc_send, sendfile_send,
 * memcpy_bw, uring_send_zc) and dax_hold share: failing with errno, sizes,
 * IPv4 HOST:PORT, the source file, clocks.
 * Header-only, as each tool is built from one .c file; define
 * `static const char *prog` before including it.
 */
#ifndef BENCH_TOOL_H
#define BENCH_TOOL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BENCH_UNUSED	__attribute__((unused))

static BENCH_UNUSED void fail(const char *call)
{
	fprintf(stderr, "%s: %s: %s (errno %d)\n", prog, call, strerror(errno),
		errno);
	exit(1);
}

/* N[K|M|G] in bytes; 0 on a malformed or zero size */
static BENCH_UNUSED uint64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || v > (~0ULL >> 30))
		return 0;
	switch (*end) {
	case 'K':
	case 'k':
		v <<= 10;
		end++;
		break;
	case 'M':
	case 'm':
		v <<= 20;
		end++;
		break;
	case 'G':
	case 'g':
		v <<= 30;
		end++;
		break;
	}
	return *end ? 0 : v;
}

/* numeric IPv4 HOST:PORT; 0 on success */
static BENCH_UNUSED int parse_addr(const char *arg, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(arg, ':');
	unsigned long port;
	char *end;

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(host))
		return -1;
	memcpy(host, arg, colon - arg);
	host[colon - arg] = 0;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || !port || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

/*
 * FILE opened read-only, *size its size (lseek, not fstat: a block
 * device's st_size is 0), or length when that is set: what the send tools
 * send. An empty FILE or a length beyond its end fails.
 */
static BENCH_UNUSED int open_source(const char *file, uint64_t length,
				    off_t *size)
{
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		fail("open");
	*size = lseek(fd, 0, SEEK_END);
	if (*size < 0)
		fail("lseek(SEEK_END)");
	if (!*size) {
		errno = EINVAL;
		fail("lseek(SEEK_END): empty file");
	}
	if (length) {
		if (length > (uint64_t)*size) {
			errno = EINVAL;
			fail("--length beyond the end of FILE");
		}
		*size = length;
	}
	return fd;
}

static BENCH_UNUSED double now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		fail("clock_gettime");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static BENCH_UNUSED double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		fail("getrusage");
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

#endif
