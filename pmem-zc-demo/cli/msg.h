/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg: the messages of pmem-zc and its exit codes. Every message goes to
 * stderr as "pmem-zc <subcommand>: text"; main.c sets the name.
 */
#ifndef PMEM_ZC_MSG_H
#define PMEM_ZC_MSG_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* exit codes of every subcommand */
enum { RC_OK = 0, RC_FAIL = 1, RC_USAGE = 2 };

extern const char *prog;	/* "pmem-zc" or "pmem-zc <subcommand>" */

void __printf(1, 2) pr_err(const char *fmt, ...);
/* An error in the command line: prints it and a hint, returns RC_USAGE. */
int __printf(1, 2) usage_err(const char *fmt, ...);

#endif
