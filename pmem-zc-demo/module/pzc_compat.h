/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmem_zc on the kernels it is built for, Debian's 6.12 and 6.1: each API
 * that differs between them, defined once here. The gate is the release
 * the project builds and tests (Kbuild refuses others), not the one that
 * made the change.
 */
#ifndef PZC_COMPAT_H
#define PZC_COMPAT_H

#include <linux/fs.h>
#include <linux/mnt_idmapping.h>
#include <linux/skbuff.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)

/*
 * The zero-copy completion: ubuf_info points at its ops (complete, and
 * link_skb, left NULL: skb_zerocopy_iter_stream() then refuses to mix two
 * ubuf_infos in one skb, as for MSG_ZEROCOPY).
 */
#define PZC_UBUF_OPS(name, fn) \
	static const struct ubuf_info_ops name = { .complete = fn }
#define pzc_ubuf_set_ops(uarg, o)	((uarg)->ops = (o))

/* the owner of @file's inode as seen through its mount (idmapped mounts) */
static inline bool pzc_file_owned_by(struct file *file, kuid_t uid)
{
	return vfsuid_eq_kuid(i_uid_into_vfsuid(file_mnt_idmap(file),
						file_inode(file)), uid);
}

#else /* 6.1 */

struct pzc_ubuf_info_ops {
	void (*complete)(struct sk_buff *skb, struct ubuf_info *uarg,
			 bool zerocopy_success);
};

#define PZC_UBUF_OPS(name, fn) \
	static const struct pzc_ubuf_info_ops name = { .complete = fn }
#define pzc_ubuf_set_ops(uarg, o)	((uarg)->callback = (o)->complete)

static inline bool pzc_file_owned_by(struct file *file, kuid_t uid)
{
	return vfsuid_eq_kuid(i_uid_into_vfsuid(file_mnt_user_ns(file),
						file_inode(file)), uid);
}

#endif

#endif /* PZC_COMPAT_H */
