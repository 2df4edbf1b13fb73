/* SPDX-License-Identifier: GPL-2.0 */
/*
 * priv: serve started as root drops to an unprivileged user once its
 * socket, its root and its device are open, before the first accept.
 */
#ifndef PMEM_ZC_PRIV_H
#define PMEM_ZC_PRIV_H

#include <stddef.h>
#include <sys/types.h>

struct priv_id {
	uid_t uid;
	gid_t gid;
};

/*
 * @user (a name of /etc/passwd or a number) and @group (of /etc/group or
 * a number; NULL: the user's primary group) as ids: 0, or a usage error
 * written to @why.
 */
int priv_lookup(const char *user, const char *group, struct priv_id *id,
		char *why, size_t size);

/*
 * Become @id (when root; started as @id, only the checks): supplementary
 * groups but @id's gid cleared, real, effective and saved ids set, then
 * checked (the ids @id's, no capability in the effective or permitted
 * sets, so none ambient), no_new_privs set and not dumpable. 0, or -1
 * with @why.
 */
int priv_drop(const struct priv_id *id, char *why, size_t size);

#endif
