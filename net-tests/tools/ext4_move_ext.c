// SPDX-License-Identifier: GPL-2.0
/*
 * ext4_move_ext ORIG DONOR [BLOCKS]: EXT4_IOC_MOVE_EXT, what e4defrag
 * asks of ext4, with a donor of the caller's choosing: BLOCKS blocks
 * (default: all of ORIG) of ORIG's extents exchanged with DONOR's, both
 * from block 0. The caller needs nothing but write access to both files
 * (ORIG opened read-write, DONOR write-only, as e4defrag opens them).
 * Prints "moved N" (the blocks the kernel says it moved).
 *
 * ext4_move_ext swap-boot FILE: EXT4_IOC_SWAP_BOOT, FILE's blocks
 * exchanged with those of the boot loader inode (CAP_SYS_ADMIN, FILE's
 * owner). Prints "swapped".
 *
 * Exits 0, or prints "refused: ERROR" and exits 1; 2 on bad usage or a
 * file that cannot be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

/* fs/ext4/ext4.h (not uapi) */
struct move_extent {
	uint32_t reserved;	/* should be zero */
	uint32_t donor_fd;	/* donor file descriptor */
	uint64_t orig_start;	/* logical start offset in block for orig */
	uint64_t donor_start;	/* logical start offset in block for donor */
	uint64_t len;		/* block length to be moved */
	uint64_t moved_len;	/* moved block length */
};

#define EXT4_IOC_MOVE_EXT	_IOWR('f', 15, struct move_extent)
#define EXT4_IOC_SWAP_BOOT	_IO('f', 17)

static int swap_boot(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "ext4_move_ext: open %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (ioctl(fd, EXT4_IOC_SWAP_BOOT)) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	printf("swapped\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct move_extent me = { 0 };
	struct stat st;
	int orig, donor;
	char *end;

	if (argc == 3 && !strcmp(argv[1], "swap-boot"))
		return swap_boot(argv[2]);
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ext4_move_ext ORIG DONOR [BLOCKS] | swap-boot FILE\n");
		return 2;
	}
	orig = open(argv[1], O_RDWR);
	donor = open(argv[2], O_WRONLY);
	if (orig < 0 || donor < 0) {
		fprintf(stderr, "ext4_move_ext: open %s: %s\n",
			argv[orig < 0 ? 1 : 2], strerror(errno));
		return 2;
	}
	if (fstat(orig, &st)) {
		perror("ext4_move_ext: fstat");
		return 2;
	}
	me.len = (st.st_size + st.st_blksize - 1) / st.st_blksize;
	if (argc == 4) {
		errno = 0;
		me.len = strtoull(argv[3], &end, 0);
		if (errno || *end || end == argv[3]) {
			fprintf(stderr, "ext4_move_ext: bad BLOCKS '%s'\n", argv[3]);
			return 2;
		}
	}
	me.donor_fd = donor;
	if (ioctl(orig, EXT4_IOC_MOVE_EXT, &me)) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	printf("moved %llu\n", (unsigned long long)me.moved_len);
	return 0;
}
