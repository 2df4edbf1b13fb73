// SPDX-License-Identifier: GPL-2.0
/*
 * msg: error messages on stderr, prefixed with the program and subcommand.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

const char *prog = "pmem-zc";

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

int usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return RC_USAGE;
}
