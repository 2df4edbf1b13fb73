/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap: TAP output of the pmem-zc tests (one stream, the plan at the end)
 * and the helpers they share: processes with timeouts, files, sockets.
 */
#ifndef PMEM_ZC_TAP_H
#define PMEM_ZC_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define __tap_printf(a, b)	__attribute__((format(printf, a, b)))

bool __tap_printf(2, 3) ok(bool cond, const char *fmt, ...);
bool __tap_printf(3, 4) is_int(long long got, long long want,
			       const char *fmt, ...);
/* @hay holds @needle (either may be NULL: not ok). */
bool __tap_printf(3, 4) has(const char *hay, const char *needle,
			    const char *fmt, ...);
void __tap_printf(1, 2) diag(const char *fmt, ...);
int tap_end(void);	/* prints the plan; 0 when every test passed */

extern char tmp[64];	/* the test directory */
extern const char *fake_bin, *real_bin;

/* A path under tmp (static buffer ring of 8). */
const char *tpath(const char *name);
void write_file(const char *path, const void *buf, size_t len);
void random_file(const char *path, size_t len);
char *slurp(const char *path, size_t *len);	/* malloc'd, NUL added */
bool same_file(const char *a, const char *b);

/*
 * Start @argv with @env added to the environment, stdin from /dev/null,
 * stdout and stderr to files (NULL: /dev/null). Its pid.
 */
pid_t spawn(char *const argv[], char *const env[], const char *out,
	    const char *err);
/* spawn(), @pre called in the child before the exec (its exit 126 if not 0) */
pid_t spawn_pre(char *const argv[], char *const env[], const char *out,
		const char *err, int (*pre)(void));
/* Its exit code, 128 + signal, or -1 after @secs (then it is killed). */
int wait_exit(pid_t pid, double secs);
int run(char *const argv[], char *const env[], const char *out,
	const char *err, double secs);

/* A blocking TCP connection with 5 s timeouts, or -1. */
int tcp_to(const char *addr, int port);
/* Everything until EOF, a timeout or @size: the length. */
size_t read_all(int fd, char *buf, size_t size);
void sleep_ms(int ms);

#endif
