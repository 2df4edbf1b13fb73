// SPDX-License-Identifier: GPL-2.0
/*
 * zc_badioctl PMEMDEV OTHERFILE: bad calls to /dev/pmem_zc that the CLI
 * never makes (unknown ioctl, wrong ABI version, bad flags, unconnected or
 * non-TCP sockets, wrong open modes, bad pointers). Prints one line per
 * case, "CASE ERRNO-NAME", for the test to compare.
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
	switch (e) {
	case 0: return "OK";
	case ENOTTY: return "ENOTTY";
	case EPROTO: return "EPROTO";
	case EINVAL: return "EINVAL";
	case ENOTCONN: return "ENOTCONN";
	case ENOTSOCK: return "ENOTSOCK";
	case EBADF: return "EBADF";
	case ERANGE: return "ERANGE";
	case EFAULT: return "EFAULT";
	case ENODEV: return "ENODEV";
	case ENOSPC: return "ENOSPC";
	case EROFS: return "EROFS";
	case EISDIR: return "EISDIR";
	default: return strerror(e);
	}
}

static void report(const char *name, int ret)
{
	printf("%s %s\n", name, ename(ret ? errno : 0));
}

static struct pmem_zc_send snd(int src, int sock)
{
	struct pmem_zc_send s = {
		.abi_version = PMEM_ZC_ABI_VERSION, .src_fd = src,
		.sock_fd = sock, .offset = 0, .length = 4096,
	};
	return s;
}

static struct pmem_zc_copy cpy(int src, int dst)
{
	struct pmem_zc_copy c = {
		.abi_version = PMEM_ZC_ABI_VERSION, .src_fd = src,
		.dst_fd = dst, .offset = 0, .length = 4096,
	};
	return c;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(9) };
	struct pmem_zc_send s;
	struct pmem_zc_copy c;
	int pm, pm_wo, other, tcp, udp;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PMEMDEV OTHERFILE\n", argv[0]);
		return 2;
	}
	zc = open("/dev/pmem_zc", O_RDWR);
	pm = open(argv[1], O_RDWR);
	pm_wo = open(argv[1], O_WRONLY);
	other = open(argv[2], O_RDWR | O_CREAT, 0600);
	tcp = socket(AF_INET, SOCK_STREAM, 0);
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	if (zc < 0 || pm < 0 || pm_wo < 0 || other < 0 || tcp < 0 || udp < 0 ||
	    connect(udp, (struct sockaddr *)&a, sizeof(a))) {
		perror("setup");
		return 1;
	}

	report("unknown_ioctl", ioctl(zc, _IO(PMEM_ZC_IOC_MAGIC, 99)));
	report("null_argument", ioctl(zc, PMEM_ZC_IOC_SEND, NULL));
	s = snd(pm, tcp); s.abi_version = 99;
	report("send_bad_version", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp); s.flags = 0x80;
	report("send_bad_flags", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp); s.length = 0;
	report("send_zero_length", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp); s.length = UINT64_C(1) << 63;
	report("send_huge_length", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp); s.offset = UINT64_MAX - 100;
	report("send_offset_wraps", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, tcp);
	report("send_unconnected_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, udp);
	report("send_udp_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, other);
	report("send_not_a_socket", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm, 999);
	report("send_closed_fd", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	s = snd(pm_wo, tcp);
	report("send_src_write_only", ioctl(zc, PMEM_ZC_IOC_SEND, &s));
	c = cpy(pm, other); c.abi_version = 0;
	report("copy_bad_version", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, other);
	report("copy_to_regular_file", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm);
	report("copy_onto_itself", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo); c.offset = 100;
	report("copy_unaligned_offset", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	c = cpy(pm, pm_wo); c.length = 1000;
	report("copy_unaligned_length", ioctl(zc, PMEM_ZC_IOC_COPY, &c));
	return 0;
}
