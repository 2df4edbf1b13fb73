// SPDX-License-Identifier: GPL-2.0
/*
 * opts: getopt_long over a subcommand's option table, value conversion by
 * kind, --help generated from the table, usage errors (exit code 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "opts.h"
#include "units.h"

#define OPTS_MAX	32
#define HELP_OPT	1000	/* getopt value of --help */

static const char *kind_words[] = {
	[OPT_SIZE] = "a size (decimal or 0x hex, optional K/M/G/T)",
	[OPT_COUNT] = "a number",
	[OPT_DURATION] = "a duration (decimal, optional ms/s/m/h)",
	[OPT_PORT] = "a port number (0..65535)",
};

void opts_help(const struct cmd_spec *c, FILE *out)
{
	const struct opt_spec *o;
	char left[64];

	fprintf(out, "Usage: pmem-zc %s%s%s [options]\n\n%s\n\n", c->name,
		c->args ? " " : "", c->args ? c->args : "", c->about);
	for (o = c->opts; o->name; o++) {
		snprintf(left, sizeof(left), "--%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
	fprintf(out, "  %-26s %s\n", "-h, --help", "this text");
	if (c->more)
		fprintf(out, "\n%s", c->more);
}

/* A size or count within the option's bounds (when it has any). */
static int opt_number(const struct opt_spec *o, const char *arg)
{
	uint64_t v;
	int ret = o->kind == OPT_SIZE ? units_size(arg, &v) :
		  units_count(arg, 0, UINT64_MAX, &v);

	if (ret)
		return ret;
	if (o->max && (v < o->min || v > o->max))
		return usage_err("--%s '%s': want %llu to %llu", o->name, arg,
				 (unsigned long long)o->min,
				 (unsigned long long)o->max);
	*(uint64_t *)o->dst = v;
	return 0;
}

/* Store @arg in @o's destination; RC_OK or RC_USAGE after a message. */
static int opt_value(const struct opt_spec *o, const char *arg)
{
	int ret = 0;

	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)o->dst = true;
		break;
	case OPT_STRING:
		*(const char **)o->dst = arg;
		break;
	case OPT_SIZE:
	case OPT_COUNT:
		ret = opt_number(o, arg);
		if (ret == RC_USAGE)
			return ret;
		break;
	case OPT_DURATION:
		ret = units_duration_ms(arg, o->dst);
		break;
	case OPT_PORT:
		ret = units_port(arg, true, o->dst);
		break;
	}
	if (ret)
		return usage_err("--%s '%s': %s", o->name, arg,
				 ret == -ERANGE ? "too large" :
				 kind_words[o->kind]);
	if (o->given)
		*o->given = true;
	return RC_OK;
}

int opts_parse(const struct cmd_spec *c, int argc, char **argv,
	       char ***args, int *nargs)
{
	struct option lo[OPTS_MAX + 2] = {};
	int n, ch, ret;

	for (n = 0; c->opts[n].name && n < OPTS_MAX; n++) {
		lo[n].name = c->opts[n].name;
		lo[n].has_arg = c->opts[n].kind == OPT_FLAG ? no_argument :
			       required_argument;
		lo[n].val = n;
	}
	lo[n] = (struct option){ "help", no_argument, NULL, HELP_OPT };
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (ch == 'h' || ch == HELP_OPT) {
			opts_help(c, stdout);
			return -1;
		}
		if (ch == '?') {	/* getopt said what */
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return RC_USAGE;
		}
		ret = opt_value(&c->opts[ch], optarg);
		if (ret)
			return ret;
	}
	for (n = 0; c->opts[n].name; n++)
		if (c->opts[n].required && !*(const char **)c->opts[n].dst)
			return usage_err("missing --%s %s", c->opts[n].name,
					 c->opts[n].arg);
	*args = argv + optind;
	*nargs = argc - optind;
	if (*nargs < c->min_args)
		return usage_err("missing %s", c->args);
	if (*nargs > c->max_args)
		return usage_err("unexpected argument '%s'",
				 argv[optind + c->max_args]);
	return RC_OK;
}
