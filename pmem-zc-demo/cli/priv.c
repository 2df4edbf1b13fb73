// SPDX-License-Identifier: GPL-2.0
/*
 * priv: the user and group of serve --user/--group, and the drop to them.
 *
 * The binary is static, so the C library's getpwnam() (NSS) is not used:
 * names are looked up in /etc/passwd and /etc/group, where the package's
 * system user is (and numbers are taken as they are). The drop is nginx's
 * workers' (setgroups(), setgid(), setuid()), but with the primary group
 * only (nginx calls initgroups()), and for every process of the server
 * (the workers are forked after it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "priv.h"

/* a number of all digits, below 2^32 - 1 (-1 means "unchanged") */
static bool id_number(const char *s, unsigned long *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && *v < 0xffffffffUL;
}

/*
 * The entry of @name (or of number @num, when @name is NULL) in @path:
 * fields 3 and 4 (passwd: uid, gid; group: gid, the member list). 1 found,
 * 0 not, -1 on an error of @path.
 */
static int id_entry(const char *path, const char *name, unsigned long num,
		    unsigned long *f3, unsigned long *f4)
{
	FILE *f = fopen(path, "re");
	char line[1024], *fld[5], *p;
	int found = 0, i;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f)) {
			int c;	/* a longer line: no entry of ours, skipped whole */

			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		for (p = line, i = 0; i < 5; i++)
			fld[i] = strsep(&p, ":");
		if (!fld[2] || !id_number(fld[2], f3))
			continue;
		if (name ? strcmp(fld[0], name) : *f3 != num)
			continue;
		if (f4 && (!fld[3] || !id_number(fld[3], f4)))
			continue;
		found = 1;
	}
	fclose(f);
	return found;
}

int priv_lookup(const char *user, const char *group, struct priv_id *id,
		char *why, size_t size)
{
	unsigned long uid, gid = 0, n;
	int r;

	if (id_number(user, &n))
		r = id_entry("/etc/passwd", NULL, n, &uid, &gid);
	else
		r = id_entry("/etc/passwd", user, 0, &uid, &gid);
	if (r <= 0) {		/* a uid without an entry: itself, with --group */
		if (!id_number(user, &n) || !group) {
			snprintf(why, size, "--user %s: %s", user, r < 0 ?
				 "no /etc/passwd" : "no such user");
			return -1;
		}
		uid = n;
	}
	if (group) {
		if (id_number(group, &n)) {
			gid = n;
		} else if (id_entry("/etc/group", group, 0, &gid, NULL) != 1) {
			snprintf(why, size, "--group %s: no such group", group);
			return -1;
		}
	}
	if (!uid || !gid) {
		snprintf(why, size, "--user %s%s%s: uid %lu, gid %lu: root is what it drops",
			 user, group ? " --group " : "", group ? group : "",
			 uid, gid);
		return -1;
	}
	id->uid = uid;
	id->gid = gid;
	return 0;
}

int priv_drop(const struct priv_id *id, char *why, size_t size)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct cap[2] = {};
	uid_t r, e, s;
	gid_t rg, eg, sg;

	/* started as the user already: checked all the same */
	if (!geteuid() &&
	    (setgroups(1, &id->gid) || setresgid(id->gid, id->gid, id->gid) ||
	     setresuid(id->uid, id->uid, id->uid))) {
		snprintf(why, size, "dropping to uid %u gid %u: %s",
			 (unsigned int)id->uid, (unsigned int)id->gid,
			 strerror(errno));
		return -1;
	}
	/* what the kernel says now, not what we asked */
	if (getresuid(&r, &e, &s) || getresgid(&rg, &eg, &sg) ||
	    r != id->uid || e != id->uid || s != id->uid ||
	    rg != id->gid || eg != id->gid || sg != id->gid ||
	    syscall(SYS_capget, &hdr, cap) ||
	    cap[0].effective || cap[1].effective || cap[0].permitted ||
	    cap[1].permitted) {	/* (the ambient set is within permitted) */
		snprintf(why, size, "after dropping to uid %u: still privileged",
			 (unsigned int)id->uid);
		return -1;
	}
	/*
	 * No way back through a setuid binary (it runs none), and no
	 * ptrace() or pidfd_getfd() by other processes of the user, which
	 * would take the device files opened as root
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		snprintf(why, size, "prctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}
