// SPDX-License-Identifier: GPL-2.0
/*
 * test-pmem-zc FAKE_BIN REAL_BIN: every test of the CLI, one TAP stream.
 * FAKE_BIN is pmem-zc linked with xfer_fake.c, REAL_BIN the static
 * pmem-zc (only run where it needs no module). Exit 1 on any failure.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "tests.h"

int main(int argc, char **argv)
{
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FAKE_BIN REAL_BIN\n", argv[0]);
		return 2;
	}
	fake_bin = argv[1];
	real_bin = argv[2];
	setenv("TZ", "UTC", 1);
	tzset();
	srandom(time(NULL));
	snprintf(tmp, sizeof(tmp), "/tmp/pmem-zc-test.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_units();
	test_http();
	test_log();
	test_cli();
	test_serve();
	ret = tap_end();
	if (!ret) {
		char *rm[] = { "rm", "-rf", tmp, NULL };

		run(rm, NULL, NULL, NULL, 30);
	} else {
		diag("test files kept in %s", tmp);
	}
	return ret;
}
