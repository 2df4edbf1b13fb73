// SPDX-License-Identifier: GPL-2.0
/*
 * stats: "pmem-zc stats", every file of the module's stats directory as
 * "name value", sorted by name, whatever counters the module has.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "msg.h"
#include "opts.h"

#define PZC_STATS_DIR	"/sys/class/misc/pmem_zc/stats"

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Print "name value" of one counter file; 0 or -1 after a message. */
static int stats_one(const char *dir, const char *name)
{
	char path[PATH_MAX], val[128];
	ssize_t len = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, val, sizeof(val) - 1);
		close(fd);
	}
	if (len < 0) {
		if (errno == EACCES)
			pr_err("%s: %s (the counters are root's only: they show every user's traffic)",
			       dir, strerror(errno));
		else
			pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	while (len && isspace((unsigned char)val[len - 1]))
		len--;
	val[len] = '\0';
	printf("%s %s\n", name, val);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	const char *dir = PZC_STATS_DIR;
	const struct opt_spec opts[] = {
		OPT_ARG("dir", OPT_STRING, &dir, "DIR",
			"the counters' directory (the module's)"),
		{}
	};
	const struct cmd_spec spec = {
		"stats", NULL,
		"Print every pmem_zc counter as \"name value\", sorted by name.",
		"The module's counters are in " PZC_STATS_DIR ".\n", opts, 0,
		0,
	};
	struct dirent **ents;
	char **args;
	int nargs, n, i, ret;

	ret = opts_parse(&spec, argc, argv, &args, &nargs);
	if (ret)
		return ret < 0 ? RC_OK : ret;
	n = scandir(dir, &ents, not_hidden, alphasort);
	if (n < 0) {
		if (errno == ENOENT && !strcmp(dir, PZC_STATS_DIR))
			pr_err("pmem_zc module not loaded (no %s)", dir);
		else
			pr_err("%s: %s", dir, strerror(errno));
		return RC_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (ret != RC_FAIL && stats_one(dir, ents[i]->d_name))
			ret = RC_FAIL;
		free(ents[i]);
	}
	free(ents);
	return ret;
}
