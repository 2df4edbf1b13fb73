// SPDX-License-Identifier: GPL-2.0
/*
 * prd: the layout of a region, recorded on the region itself.
 *
 * With memmap=dev the head of a region holds its memmap and the disk starts
 * after it. That offset must not depend on the page mode, on memmap= or on
 * the kernel's struct page size of a later load, or a filesystem made in
 * one would be garbage in the other and writes would land on the memmap.
 * So the first memmap=dev load of an empty region writes an info block in
 * its first page (as nd_pfn's info block does for upstream's --map=dev):
 * magic, version, region size, data offset and memmap reservation, with a
 * checksum. The reservation is a fixed PRD_MAX_STRUCT_PAGE bytes per page,
 * whatever this kernel's struct page size. Every later load, in any mode,
 * finds it and starts the disk at the recorded offset, or refuses the load
 * when the block does not fit the region; nothing shifts silently.
 *
 *   [0, 4 KiB)                   info block
 *   [4 KiB, data_offset)         memmap (memmap=dev), unused otherwise
 *   [data_offset, size)          the disk
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/fault-inject.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mm_types.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "prd_dev.h"

#define PRD_INFO_MAGIC		"PRDINFO1"
#define PRD_INFO_VERSION	1
/* bytes of memmap reserved per page: any struct page up to this size fits */
#define PRD_MAX_STRUCT_PAGE	64

/* all little endian; the checksum covers every byte before it */
struct prd_info_block {
	u8	magic[8];
	__le32	version;
	__le32	page_size;
	__le64	region_size;
	__le64	data_offset;
	__le64	memmap_offset;
	__le64	memmap_size;
	__le32	max_struct_page;
	u8	reserved[4040];
	__le32	checksum;
} __packed;

static_assert(sizeof(struct prd_info_block) == SZ_4K);
static_assert(sizeof(struct page) <= PRD_MAX_STRUCT_PAGE);

#ifdef CONFIG_FAULT_INJECTION
/*
 * fail_layout_write=<interval>,<probability>,<space>,<times> (as null_blk's
 * fault attributes): the info block write of a new layout fails as a
 * failed allocation or mapping would. A test of the error path only.
 */
static char prd_fail_layout_str[80];
module_param_string(fail_layout_write, prd_fail_layout_str,
		    sizeof(prd_fail_layout_str), 0444);
MODULE_PARM_DESC(fail_layout_write, "Fault injection (kernels with CONFIG_FAULT_INJECTION): fail the info block write of a new memmap=dev layout; <interval>,<probability>,<space>,<times>");
static DECLARE_FAULT_ATTR(prd_fail_layout);

int prd_layout_init(void)
{
	if (prd_fail_layout_str[0] &&
	    !setup_fault_attr(&prd_fail_layout, prd_fail_layout_str)) {
		pr_err("fail_layout_write=%s: expected <interval>,<probability>,<space>,<times>\n",
		       prd_fail_layout_str);
		return -EINVAL;
	}
	prd_fail_layout.verbose = 1;	/* one line, no stack dump */
	return 0;
}

static bool prd_layout_should_fail(void)
{
	return prd_fail_layout_str[0] && should_fail(&prd_fail_layout, 1);
}
#else
int prd_layout_init(void)
{
	return 0;
}

static bool prd_layout_should_fail(void)
{
	return false;
}
#endif

static u32 prd_info_checksum(const struct prd_info_block *ib)
{
	return crc32_le(~0, (const u8 *)ib, offsetof(struct prd_info_block,
						     checksum));
}

/* where the disk of a memmap=dev region of @size bytes starts */
static u64 prd_layout_data_offset(u64 size)
{
	return ALIGN(SZ_4K + (size >> PAGE_SHIFT) * PRD_MAX_STRUCT_PAGE, SZ_2M);
}

static void prd_info_fill(struct prd_info_block *ib, u64 size)
{
	u64 offset = prd_layout_data_offset(size);

	memset(ib, 0, sizeof(*ib));
	memcpy(ib->magic, PRD_INFO_MAGIC, sizeof(ib->magic));
	ib->version = cpu_to_le32(PRD_INFO_VERSION);
	ib->page_size = cpu_to_le32(PAGE_SIZE);
	ib->region_size = cpu_to_le64(size);
	ib->data_offset = cpu_to_le64(offset);
	ib->memmap_offset = cpu_to_le64(SZ_4K);
	ib->memmap_size = cpu_to_le64(offset - SZ_4K);
	ib->max_struct_page = cpu_to_le32(PRD_MAX_STRUCT_PAGE);
	ib->checksum = cpu_to_le32(prd_info_checksum(ib));
}

/* a block written by this or an earlier load: does it fit this region? */
static int prd_info_check(struct prd_device *prd,
			  const struct prd_info_block *ib)
{
	struct prd_info_block *want;
	int ret = 0;

	if (le32_to_cpu(ib->checksum) != prd_info_checksum(ib)) {
		pr_err("region %u %#llx+%#llx: prd info block with a bad checksum: refusing to guess the layout\n",
		       prd->id, (u64)prd->phys_addr, prd->size);
		return -EIO;
	}
	if (le32_to_cpu(ib->version) != PRD_INFO_VERSION) {
		pr_err("region %u %#llx+%#llx: prd info block version %u, this prd knows %u\n",
		       prd->id, (u64)prd->phys_addr, prd->size,
		       le32_to_cpu(ib->version), PRD_INFO_VERSION);
		return -EINVAL;
	}
	want = kmalloc(sizeof(*want), GFP_KERNEL);
	if (!want)
		return -ENOMEM;
	prd_info_fill(want, prd->size);
	if (memcmp(ib, want, sizeof(*want))) {
		pr_err("region %u %#llx+%#llx: laid out for %llu bytes with the disk at %llu (prd info block); map= says %llu bytes\n",
		       prd->id, (u64)prd->phys_addr, prd->size,
		       le64_to_cpu(ib->region_size),
		       le64_to_cpu(ib->data_offset), prd->size);
		ret = -EINVAL;
	}
	kfree(want);
	return ret;
}

/**
 * prd_layout_read - find the layout of a region before it is mapped
 * @prd: the region; phys_addr, size and memmap_on_dev are set
 *
 * Sets @prd->data_offset and @prd->info_block. A region with an info block
 * starts its disk at the recorded offset in every mode. One without gets
 * one when loaded with memmap=dev, if the area it reserves is all zeros
 * (else the load is refused: it would overwrite data): @prd->layout_new,
 * and prd_layout_write() writes the block before the disk is announced;
 * in the other modes its disk starts at 0.
 *
 * Return: 0, or a negative errno after one pr_err().
 */
int prd_layout_read(struct prd_device *prd)
{
	struct prd_info_block *ib;
	u64 offset = prd_layout_data_offset(prd->size), pos;
	void *head;
	int ret = 0;

	prd->data_offset = 0;
	prd->info_block = false;
	if (prd->size < SZ_4K)
		return 0;
	head = memremap(prd->phys_addr, SZ_4K, MEMREMAP_WB);
	if (!head) {
		pr_err("region %u: cannot map its first page\n", prd->id);
		return -ENXIO;
	}
	ib = kmalloc(sizeof(*ib), GFP_KERNEL);
	if (!ib) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	if (copy_mc_to_kernel(ib, head, sizeof(*ib))) {
		pr_err("region %u: its first page cannot be read (poison)\n",
		       prd->id);
		ret = -EIO;
		goto out_free;
	}

	if (!memcmp(ib->magic, PRD_INFO_MAGIC, sizeof(ib->magic))) {
		ret = prd_info_check(prd, ib);
		if (!ret) {
			prd->data_offset = offset;
			prd->info_block = true;
		}
		goto out_free;
	}
	if (!prd->memmap_on_dev)
		goto out_free;

	/* a first memmap=dev load: the reserved area must hold nothing */
	if (prd->read_only) {
		pr_err("region %u is read-only (an NVDIMM behind it is not armed): memmap=dev cannot record its layout there\n",
		       prd->id);
		ret = -EROFS;
		goto out_free;
	}
	if (offset >= prd->size) {
		pr_err("region %u (%llu bytes) is too small for its memmap on the device (%llu bytes)\n",
		       prd->id, prd->size, offset);
		ret = -ENOSPC;
		goto out_free;
	}
	memunmap(head);
	head = memremap(prd->phys_addr, offset, MEMREMAP_WB);
	if (!head) {
		pr_err("region %u: cannot map its head\n", prd->id);
		ret = -ENXIO;
		goto out_free;
	}
	for (pos = 0; pos < offset; pos += SZ_4K) {
		if (copy_mc_to_kernel(ib, head + pos, SZ_4K)) {
			pr_err("region %u: its head cannot be read (poison at %llu)\n",
			       prd->id, pos);
			ret = -EIO;
			goto out_free;
		}
		if (memchr_inv(ib, 0, SZ_4K)) {
			pr_err("region %u %#llx+%#llx holds data and no prd info block: memmap=dev would overwrite its first %llu bytes (load it with memmap=ram, or zero them first)\n",
			       prd->id, (u64)prd->phys_addr, prd->size, offset);
			ret = -EBUSY;
			goto out_free;
		}
	}
	/* the info block is written once the region is mapped */
	prd->data_offset = offset;
	prd->layout_new = true;
out_free:
	kfree(ib);
out_unmap:
	if (head)
		memunmap(head);
	return ret;
}

/**
 * prd_layout_write - record a new layout on the region
 * @prd: the region, mapped, its disk not announced
 *
 * Writes the info block of a region that prd_layout_read() laid out anew
 * (@prd->layout_new), durably, before anything announces the disk: a disk
 * that went live without it would start at @prd->data_offset now and at 0
 * under a later memmap=ram load. Nothing for other regions.
 *
 * Return: 0, or -ENOMEM after one pr_err(): the load fails, and
 * prd_layout_undo() gives the head back as it was.
 */
int prd_layout_write(struct prd_device *prd)
{
	struct prd_info_block *ib;
	void *head;
	int ret = 0;

	if (!prd->layout_new)
		return 0;
	ib = kmalloc(sizeof(*ib), GFP_KERNEL);
	head = memremap(prd->phys_addr, SZ_4K, MEMREMAP_WB);
	if (!ib || !head || prd_layout_should_fail()) {
		pr_err("region %u: cannot write its info block: load refused\n",
		       prd->id);
		ret = -ENOMEM;
		goto out;
	}
	prd_info_fill(ib, prd->size);
	memcpy_flushcache(head, ib, sizeof(*ib));
	wmb(); /* the info block is durable before anything relies on it */
	prd->info_block = true;
out:
	if (head)
		memunmap(head);
	kfree(ib);
	return ret;
}

/**
 * prd_layout_commit - the disk of a new layout is announced
 * @prd: the region; its info block is written (prd_layout_write())
 *
 * From here the layout belongs to the disk: prd_layout_undo() leaves it.
 */
void prd_layout_commit(struct prd_device *prd)
{
	if (!prd->layout_new)
		return;
	prd->layout_new = false;
	pr_info("region %u: laid out for memmap=dev, disk at %llu (info block written)\n",
		prd->id, prd->data_offset);
}

/**
 * prd_layout_undo - give a failed load's head back as it found it
 * @prd: the region, unmapped
 *
 * A region laid out anew by a load that did not commit had an all-zero
 * head, which its memmap and perhaps its info block then used: zero it
 * again, so that the next memmap=dev load finds it empty.
 */
void prd_layout_undo(struct prd_device *prd)
{
	u64 pos;
	void *head;

	if (!prd->layout_new)
		return;
	head = memremap(prd->phys_addr, prd->data_offset, MEMREMAP_WB);
	if (!head) {
		pr_err("region %u: cannot clear its head after a failed load\n",
		       prd->id);
		return;
	}
	for (pos = 0; pos < prd->data_offset; pos += PAGE_SIZE)
		memcpy_flushcache(head + pos, page_address(ZERO_PAGE(0)),
				  PAGE_SIZE);
	wmb(); /* the head reads as empty after a crash too */
	memunmap(head);
	prd->info_block = false;
	prd->layout_new = false;
}
