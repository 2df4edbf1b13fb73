// SPDX-License-Identifier: GPL-2.0
/*
 * zc_badioctl PMEMDEV OTHERFILE: bad calls to /dev/pmem_zc that the CLI
 * never makes: unknown and retired ioctl numbers, structs too short or too
 * long for the size versioning, reserved fields set, bad flags, unconnected
 * or non-TCP sockets, wrong open modes, bad pointers, read() with a short
 * buffer or nothing to read. Prints one line per case, "CASE ERRNO-NAME",
 * for the test to compare; "out_fields_zeroed" prints OK when a refused
 * send wrote its out fields back as zeros over garbage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/pmem_zc.h>

static int zc;

static const char *ename(int e)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "OK" }, { ENOTTY, "ENOTTY" }, { EINVAL, "EINVAL" },
		{ E2BIG, "E2BIG" }, { ENOTCONN, "ENOTCONN" },
		{ ENOTSOCK, "ENOTSOCK" }, { EBADF, "EBADF" },
		{ ERANGE, "ERANGE" }, { EFAULT, "EFAULT" }, { ENODEV, "ENODEV" },
		{ ENOSPC, "ENOSPC" }, { EROFS, "EROFS" }, { EISDIR, "EISDIR" },
		{ EAGAIN, "EAGAIN" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	return strerror(e);
}

static void report(const char *name, int ret)
{
	printf("%s %s\n", name, ename(ret < 0 ? errno : 0));
}

static struct pmem_zc_send snd(int src, int sock)
{
	struct pmem_zc_send s = {
		.src_fd = src, .sock_fd = sock, .offset = 0, .length = 4096,
	};
	return s;
}

static struct pmem_zc_copy cpy(int src, int dst)
{
	struct pmem_zc_copy c = {
		.src_fd = src, .dst_fd = dst, .offset = 0, .length = 4096,
	};
	return c;
}

/* a connected loopback TCP socket (the listener stays, never accepting) */
static int connected(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || s < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 4) || getsockname(l, (struct sockaddr *)&a, &len) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return s;
}

#define IOC_SEND_SIZE(n)	_IOC(_IOC_READ | _IOC_WRITE, PMEM_ZC_IOC_MAGIC, \
				     _IOC_NR(PMEM_ZC_IOC_SEND), (n))
#define IOC_COPY_SIZE(n)	_IOC(_IOC_READ | _IOC_WRITE, PMEM_ZC_IOC_MAGIC, \
				     _IOC_NR(PMEM_ZC_IOC_COPY), (n))

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(9) };
	unsigned char big[sizeof(struct pmem_zc_send) + 32];
	struct pmem_zc_send s;
	struct pmem_zc_copy c;
	int pm, pm_wo, other, tcp, udp, conn;
	char buf[64];

	if (argc != 3) {
		fprintf(stderr, "usage: %s PMEMDEV OTHERFILE\n", argv[0]);
		return 2;
	}
	zc = open("/dev/pmem_zc", O_RDWR);
	pm = open(argv[1], O_RDONLY);
	pm_wo = open(argv[1], O_WRONLY);
	other = open(argv[2], O_RDWR | O_CREAT, 0600);
	tcp = socket(AF_INET, SOCK_STREAM, 0);
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	conn = connected();
	if (zc < 0 || pm < 0 || pm_wo < 0 || other < 0 || tcp < 0 || udp < 0 ||
	    conn < 0 || connect(udp, (struct sockaddr *)&a, sizeof(a))) {
		perror("setup");
		return 1;
	}

	report("unknown_ioctl", ioctl(zc, _IO(PMEM_ZC_IOC_MAGIC, 99)));
	report("retired_abi_v1_send", ioctl(zc, _IOC(_IOC_READ | _IOC_WRITE,
				PMEM_ZC_IOC_MAGIC, 1, 48), &s));
	report("null_argument", ioctl(zc, PMEM_ZC_IOC_SEND, NULL));
	s = snd(pm, conn);
	report("send_struct_too_short",
	       ioctl(zc, IOC_SEND_SIZE(PMEM_ZC_SEND_SIZE_VER0 - 8), &s));
	memset(big, 0, sizeof(big));
	s = snd(pm, conn); s.flags = 0x80;
	memcpy(big, &s, sizeof(s));
	big[sizeof(s) + 3] = 1;
	report("send_longer_struct_nonzero_tail",
	       ioctl(zc, IOC_SEND_SIZE(sizeof(big)), big));
	big[sizeof(s) + 3] = 0;
	report("send_longer_struct_zero_tail_bad_flags",
	       ioctl(zc, IOC_SEND_SIZE(sizeof(big)), big));
	s = snd(pm, conn); s.__reserved0 = 1;
	report("send_reserved0", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.__reserved1 = 1;
	report("send_reserved1", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.__reserved[3] = 1;
	report("send_reserved_array", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.flags = 0x80;
	report("send_bad_flags", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.flags = PMEM_ZC_F_FUA;
	report("send_copy_only_flag", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.length = 0;
	report("send_zero_length", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.length = UINT64_C(1) << 63;
	report("send_huge_length", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.offset = UINT64_MAX - 100;
	report("send_offset_wraps", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp);
	report("send_unconnected_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, udp);
	report("send_udp_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, other);
	report("send_not_a_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, 999);
	report("send_closed_fd", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm_wo, conn);
	report("send_src_write_only", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, conn); s.length = 0;
	s.cookie = s.bytes_queued = ~0ULL; s.error = -1;
	printf("out_fields_zeroed %s\n",
	       ioctl(zc, PMEM_ZC_IOC_SEND, &s) < 0 && !s.cookie &&
	       !s.bytes_queued && !s.error ? "OK" : "GARBAGE");

	c = cpy(pm, pm_wo);
	report("copy_struct_too_short",
	       ioctl(zc, IOC_COPY_SIZE(PMEM_ZC_COPY_SIZE_VER0 - 8), &c));
	c = cpy(pm, pm_wo); c.__reserved[0] = 1;
	report("copy_reserved_array", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo); c.flags = PMEM_ZC_F_MORE;
	report("copy_send_only_flag", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, other);
	report("copy_to_regular_file", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo);
	report("copy_onto_itself", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo); c.offset = 100;
	report("copy_unaligned_offset", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo); c.length = 1000;
	report("copy_unaligned_length", ioctl(zc, PMEM_ZC_IOC_COPY, &c));

	report("read_short_buffer", (int)read(zc, buf, 10));
	fcntl(zc, F_SETFL, O_NONBLOCK);
	report("read_nothing_nonblocking", (int)read(zc, buf, sizeof(buf)));
	return 0;
}
