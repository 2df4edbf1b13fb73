// SPDX-License-Identifier: GPL-2.0
/*
 * copy: "pmem-zc copy", a range of a pmem source to a block device through
 * PMEM_ZC_IOC_COPY (synchronous), chunk by chunk, FUA and flush on the
 * last chunk only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "cmds.h"
#include "msg.h"
#include "opts.h"
#include "report.h"
#include "source.h"
#include "xfer.h"

#define COPY_CHUNK	(64ULL << 20)	/* bytes per PMEM_ZC_IOC_COPY */

struct copy_job {
	struct src_job s;
	int dst;
	uint32_t flags;
	uint64_t dst_off, chunk;
	uint64_t done, bios;
};

/*
 * Open the target: a block device (a regular file only reaches the
 * module, which refuses it, or the fake). Its size and logical block size
 * in *size and *lbs (a regular file: no size limit, 512). fd or -1.
 */
static int copy_target(const char *path, uint64_t *size, int *lbs)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	struct stat st;

	*size = UINT64_MAX;
	*lbs = 512;
	if (fd < 0) {
		pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !(S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)))
		pr_err("%s: not a block device", path);
	else if (S_ISBLK(st.st_mode) && (ioctl(fd, BLKGETSIZE64, size) ||
					 ioctl(fd, BLKSSZGET, lbs)))
		pr_err("%s: %s", path, strerror(errno));
	else
		return fd;
	close(fd);
	return -1;
}

/* The range against the target: fits, and aligned to its blocks. */
static int copy_check(const struct copy_job *j, const char *to,
		      uint64_t size, int lbs)
{
	uint64_t len = j->s.end - j->s.off;

	if (j->dst_off > size || len > size - j->dst_off) {
		pr_err("%s: %" PRIu64 " bytes at %" PRIu64 " do not fit in %"
		       PRIu64 " (target smaller than the range)", to, len,
		       j->dst_off, size);
		return -1;
	}
	if ((j->s.off | len | j->dst_off | j->chunk) % lbs) {
		pr_err("bad alignment: --offset, --length, --dst-offset and "
		       "--chunk must be multiples of %d, the logical block "
		       "size of %s", lbs, to);
		return -1;
	}
	return 0;
}

/* One PMEM_ZC_IOC_COPY from j->s.pos: 0 or -errno (reported). */
static int copy_one(struct copy_job *j)
{
	uint64_t n = j->s.end - j->s.pos < j->chunk ? j->s.end - j->s.pos : j->chunk;
	bool last = j->s.pos + n == j->s.end;
	struct pmem_zc_copy c = {
		/* FUA and FLUSH belong to the end of the whole range */
		.flags = last ? j->flags : j->flags & PMEM_ZC_F_COPY,
		.src_fd = j->s.fd,
		.dst_fd = j->dst,
		.offset = j->s.pos,
		.length = n,
		.dst_offset = j->dst_off + (j->s.pos - j->s.off),
	};
	int ret = xfer_copy(j->s.x, &c), err;
	char why[256];

	if (!ret) {
		j->s.pos += c.bytes_done;
		j->done += c.bytes_done;
		j->s.by_ref += c.bytes_ref;
		j->s.copied += c.bytes_copied;
		j->bios += c.bios;
		progress_update(&j->s.prog, j->done);
	}
	err = ret ? -ret : c.error;
	if (!err || err == EINTR)
		return 0;
	pr_err("%s: PMEM_ZC_IOC_COPY at offset %" PRIu64 ", %" PRIu64
	       " bytes written: %s", j->s.name, j->s.pos, j->done,
	       ioc_strerror(err, why, sizeof(why)));
	return -err;
}

static const char copy_more[] =
"Writes in bios whose pages are the pmem pages themselves (by reference),\n"
"or through a bounce buffer with --copy. --offset, --length, --dst-offset\n"
"and --chunk are multiples of the target's logical block size. --fua marks\n"
"the last bio of the range REQ_FUA (only that bio); --flush flushes the\n"
"target's cache at the end, which makes all of the range durable.\n"
"\n"
"Prints on stdout \"bios: N\" and the summary line (see pmem-zc send\n"
"--help) with op=copy, also after a failed copy.\n"
"\n"
"Example:\n"
"  pmem-zc copy /dev/pmem0 --length 256M --to /dev/nbd0 --flush\n";

static int copy_run(struct copy_job *j)
{
	int ret = 0;

	while (j->s.pos < j->s.end && !ret)
		ret = copy_one(j);
	return ret;
}

int cmd_copy(int argc, char **argv)
{
	struct copy_job j = { .dst = -1, .chunk = COPY_CHUNK };
	const char *to = NULL;
	uint64_t off = 0, len = 0, size;
	bool have_len = false, copy = false, fua = false, flush = false;
	bool force_progress = false;
	const struct opt_spec opts[] = {
		OPT_ARG("to", OPT_STRING, &to, "BLOCKDEV",
			"the target block device (opened for writing)",
			.required = true),
		OPT_ARG("offset", OPT_SIZE, &off, "N",
			"byte offset in SRC (0)"),
		OPT_ARG("dst-offset", OPT_SIZE, &j.dst_off, "N",
			"byte offset in BLOCKDEV (0)"),
		OPT_ARG("length", OPT_SIZE, &len, "N",
			"bytes (default: to the end of SRC)",
			.given = &have_len),
		OPT_BOOL("copy", &copy, "write through a bounce buffer"),
		OPT_BOOL("fua", &fua, "the last bio is REQ_FUA"),
		OPT_BOOL("flush", &flush,
			 "flush the target at the end (durable)"),
		OPT_ARG("chunk", OPT_SIZE, &j.chunk, "N",
			"bytes per copy (64M)", .min = 1, .max = UINT64_MAX),
		OPT_BOOL("progress", &force_progress,
			 "progress on stderr even when it is not a terminal"),
		{}
	};
	const struct cmd_spec spec = {
		"copy", "SRC", "Write bytes of SRC to a block device by bio.",
		copy_more, opts, 1, 1,
	};
	char **args;
	int nargs, ret, lbs;

	ret = opts_parse(&spec, argc, argv, &args, &nargs);
	if (ret)
		return ret < 0 ? RC_OK : ret;
	j.flags = (copy ? PMEM_ZC_F_COPY : 0) | (fua ? PMEM_ZC_F_FUA : 0) |
		  (flush ? PMEM_ZC_F_FLUSH : 0);
	ret = RC_FAIL;
	if (src_job_open(&j.s, args[0], off, have_len, len))
		goto out;
	j.dst = copy_target(to, &size, &lbs);
	if (j.dst < 0 || copy_check(&j, to, size, lbs))
		goto out;
	src_job_start(&j.s, force_progress);
	if (!copy_run(&j))
		ret = RC_OK;
	printf("bios: %" PRIu64 "\n", j.bios);
	src_job_summary(&j.s, "copy", j.done);
out:
	if (j.dst >= 0)
		close(j.dst);
	src_job_close(&j.s);
	return ret;
}
