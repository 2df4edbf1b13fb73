// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-zc: command line front end of /dev/pmem_zc. main() picks the
 * subcommand and names it in messages; the top-level --help. Exit status
 * of every subcommand: 0 success, 1 the operation failed, 2 usage error.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "msg.h"

static const char main_usage[] =
"Usage: pmem-zc <subcommand> [options]   (pmem-zc <subcommand> --help)\n"
"\n"
"Zero-copy I/O from persistent memory through /dev/pmem_zc.\n"
"\n"
"  send    send a pmem range or file to a TCP peer\n"
"  copy    write a pmem range or file to a block device\n"
"  serve   an HTTP/1.1 static file server whose bodies leave zero-copy\n"
"  stats   print the pmem_zc counters\n"
"\n"
"Sizes: decimal or 0x hex with an optional K/M/G/T suffix (1024-based).\n"
"Durations: decimal with an optional ms, s (default), m or h.\n"
"Exit status: 0 success, 1 the operation failed, 2 usage error.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "send", cmd_send },
	{ "copy", cmd_copy },
	{ "serve", cmd_serve },
	{ "stats", cmd_stats },
};

int main(int argc, char **argv)
{
	static char name[32];
	const char *sub = argc > 1 ? argv[1] : NULL;
	size_t i;

	signal(SIGPIPE, SIG_IGN);
	if (!sub) {
		fputs(main_usage, stderr);
		return RC_USAGE;
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		fputs(main_usage, stdout);
		return RC_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(sub, cmds[i].name))
			continue;
		snprintf(name, sizeof(name), "pmem-zc %s", cmds[i].name);
		prog = name;
		argv[1] = name;	/* getopt's own messages name it too */
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "pmem-zc: unknown subcommand '%s'\n"
		"Try 'pmem-zc --help'.\n", sub);
	return RC_USAGE;
}
