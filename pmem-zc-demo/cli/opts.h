/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opts: the command line of every subcommand. A subcommand describes its
 * options in a table; opts_parse() runs getopt_long over it, converts each
 * value with the parser of its kind (units.h), prints --help from the same
 * table, and reports usage errors. No subcommand handles options itself.
 */
#ifndef PMEM_ZC_OPTS_H
#define PMEM_ZC_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,	/* bool *: set when given */
	OPT_STRING,	/* const char **: the argument as is */
	OPT_SIZE,	/* uint64_t *: units_size(), within [min, max] */
	OPT_COUNT,	/* uint64_t *: units_count(), within [min, max] */
	OPT_DURATION,	/* uint64_t *: units_duration_ms() */
	OPT_PORT,	/* uint16_t *: units_port(), 0 allowed */
};

struct opt_spec {
	const char *name;	/* long name, without "--" */
	enum opt_kind kind;
	void *dst;
	const char *arg;	/* the argument's name in --help */
	const char *help;	/* one line of --help */
	uint64_t min, max;	/* bounds of a size or count, if max > 0 */
	bool *given;		/* optional: set when the option is given */
	bool required;		/* OPT_STRING: a usage error without it */
};

/* An option with a value; more fields (.min, .max, .given) may follow. */
#define OPT_ARG(n, k, d, a, h, ...) \
	{ .name = (n), .kind = (k), .dst = (d), .arg = (a), .help = (h), \
	  __VA_ARGS__ }
/* A flag. */
#define OPT_BOOL(n, d, h) \
	{ .name = (n), .kind = OPT_FLAG, .dst = (d), .help = (h) }

struct cmd_spec {
	const char *name;	/* the subcommand */
	const char *args;	/* positional arguments in --help, or NULL */
	const char *about;	/* what it does, before the options */
	const char *more;	/* after the options: output, examples */
	const struct opt_spec *opts;	/* ends with a NULL name */
	int min_args, max_args;	/* positional arguments */
};

/*
 * Parse @argv (argv[0] is the subcommand) against @c. On RC_OK, *@args and
 * *@nargs are the positional arguments. Returns RC_OK, RC_USAGE after a
 * message, or -1 after printing --help (the caller exits with RC_OK).
 */
int opts_parse(const struct cmd_spec *c, int argc, char **argv,
	       char ***args, int *nargs);

/* The usage text of @c, as --help prints it. */
void opts_help(const struct cmd_spec *c, FILE *out);

#endif
