// SPDX-License-Identifier: GPL-2.0
/*
 * report: clocks, the progress line, the summary line, errno hints.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "msg.h"
#include "report.h"

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void progress_init(struct progress *p, uint64_t total, bool force)
{
	memset(p, 0, sizeof(*p));
	p->total = total;
	p->on = force || isatty(STDERR_FILENO);
	p->start = p->last = now_mono();
}

void progress_update(struct progress *p, uint64_t done)
{
	double t = now_mono();

	if (!p->on || t - p->last < 1.0)
		return;
	p->last = t;
	p->drawn = true;
	fprintf(stderr, "\r%" PRIu64 "/%" PRIu64 " (%.0f%%) %.1f MB/s  ",
		done, p->total, p->total ? 100.0 * done / p->total : 100.0,
		done / (t - p->start) / 1e6);
}

void progress_end(struct progress *p)
{
	if (p->drawn)
		fputc('\n', stderr);
	p->drawn = false;
}

const char *zero_copy_word(uint64_t by_ref, uint64_t copied)
{
	if (!by_ref)
		return "no";
	return copied ? "partial" : "yes";
}

int summary_format(char *buf, size_t size, const char *op, uint64_t bytes,
		   double secs, uint64_t by_ref, uint64_t copied, double cpu)
{
	return snprintf(buf, size, "summary: op=%s bytes=%" PRIu64
			" seconds=%.3f MBps=%.1f by_ref=%" PRIu64
			" copied=%" PRIu64 " cpu_seconds=%.3f zero_copy=%s\n",
			op, bytes, secs, secs > 0 ? bytes / secs / 1e6 : 0.0,
			by_ref, copied, cpu, zero_copy_word(by_ref, copied));
}

void summary_print(FILE *out, const char *op, uint64_t bytes, double start,
		   uint64_t by_ref, uint64_t copied)
{
	char line[320];

	summary_format(line, sizeof(line), op, bytes, now_mono() - start,
		       by_ref, copied, cpu_seconds());
	fputs(line, out);
	fflush(out);
}

static const struct {
	int err;
	const char *hint;
} ioc_hints[] = {
	{ ENODEV,	"not a prd disk, or a file on one" },
	{ ERANGE,	"beyond the end of the source" },
	{ EINVAL,	"bad offset, length, flags or alignment" },
	{ E2BIG,	"the module is older than this pmem-zc" },
	{ ENOTTY,	"not the pmem_zc device, or a module with another ABI" },
	{ ETXTBSY,	"the file is open for writing, or the target is active swap" },
	{ EPERM,	"the file belongs to another user" },
	{ EOPNOTSUPP,	"not a DAX file on ext2/3/4 (mount -o dax; not verity, encrypted, journalled or inline)" },
	{ EIO,		"bad blocks in the source, or the target failed" },
	{ ENOBUFS,	"too many bytes in flight for this file or user" },
	{ EAGAIN,	"the socket buffer is full (the peer stopped reading)" },
	{ EINTR,	"interrupted by a signal" },
	{ ENOTCONN,	"the peer closed the connection" },
	{ EPIPE,	"the peer closed the connection" },
	{ ECONNRESET,	"the peer reset the connection" },
	{ ETIMEDOUT,	"the peer stopped acknowledging" },
	{ ENOTSOCK,	"not a socket" },
	{ ENOSPC,	"the target is smaller than the range" },
	{ EBADF,	"the target is not open for writing" },
	{ EROFS,	"the target is read-only" },
	{ ENOTBLK,	"the target is not a block device" },
	{ EISDIR,	"a directory, not a disk or file" },
};

const char *ioc_hint(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ioc_hints); i++)
		if (ioc_hints[i].err == err)
			return ioc_hints[i].hint;
	return NULL;
}

const char *ioc_strerror(int err, char *buf, size_t size)
{
	const char *hint = ioc_hint(err);

	snprintf(buf, size, "%s%s%s%s", strerror(err), hint ? " (" : "",
		 hint ? hint : "", hint ? ")" : "");
	return buf;
}
