// SPDX-License-Identifier: GPL-2.0
/*
 * prd: which physical ranges the firmware describes as persistent memory.
 *
 * A map= region loads only when one such range holds all of it: an ACPI
 * NFIT System Physical Address range of the persistent memory type (read
 * here from the table itself, so that the nfit driver can stay unloaded),
 * or an e820 "Persistent Memory" / "Persistent Memory (legacy)" range
 * (types 7 and 12, the latter also what memmap=nn!ss makes). Anything else
 * (PCI MMIO, device memory, ranges where nothing is) is refused with one
 * message naming the region and what it overlaps. What the NFIT says of
 * the NVDIMMs behind a range (prd_nfit.c) counts too: an unarmed one makes
 * the disk read-only, flush hints make prd refuse it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/ioport.h>
#include <linux/printk.h>
#include "prd_dev.h"
#include "prd_nfit.h"

/* what the firmware says of [start, end] */
struct prd_fw_scan {
	u64 start, end;
	struct prd_nfit_scan nfit;
	bool covered;		/* one persistent memory range holds it all */
	const char *by;		/* the table that says so */
	u64 part_start, part_end; /* a persistent memory range it only overlaps */
};

#ifdef CONFIG_ACPI
/* prd_nfit.c reads the structures by offset: they are ACPI's */
static_assert(sizeof(struct acpi_table_nfit) == PRD_NFIT_HDR_LEN);
static_assert(ACPI_NFIT_MEM_NOT_ARMED == PRD_NFIT_NOT_ARMED);
static_assert(ACPI_NFIT_MEM_MAP_FAILED == PRD_NFIT_MAP_FAILED);
static_assert(offsetof(struct acpi_nfit_system_address, range_index) == 4);
static_assert(offsetof(struct acpi_nfit_system_address, range_guid) == 16);
static_assert(offsetof(struct acpi_nfit_system_address, address) == 32);
static_assert(offsetof(struct acpi_nfit_system_address, length) == 40);
static_assert(offsetof(struct acpi_nfit_memory_map, device_handle) == 4);
static_assert(offsetof(struct acpi_nfit_memory_map, range_index) == 12);
static_assert(offsetof(struct acpi_nfit_memory_map, flags) == 44);
static_assert(offsetof(struct acpi_nfit_flush_address, device_handle) == 4);
static_assert(offsetof(struct acpi_nfit_flush_address, hint_count) == 8);
static_assert(offsetof(struct acpi_nfit_flush_address, hint_address) == 16);

static void prd_fw_scan_nfit(struct prd_fw_scan *s)
{
	struct acpi_table_header *tbl;

	if (acpi_disabled ||
	    ACPI_FAILURE(acpi_get_table(ACPI_SIG_NFIT, 0, &tbl)))
		return;
	s->nfit.start = s->start;
	s->nfit.end = s->end;
	prd_nfit_scan(tbl, tbl->length, &s->nfit);
	acpi_put_table(tbl);
	if (s->nfit.covered) {
		s->covered = true;
		s->by = "ACPI NFIT";
	} else if (s->nfit.part_end) {
		s->part_start = s->nfit.part_start;
		s->part_end = s->nfit.part_end;
	}
}
#else
static void prd_fw_scan_nfit(struct prd_fw_scan *s)
{
}
#endif

/* walk_iomem_res_desc() hands each resource clipped to the range */
static int prd_fw_e820_one(struct resource *res, void *arg)
{
	struct prd_fw_scan *s = arg;

	if (res->start == s->start && res->end == s->end) {
		s->covered = true;
		s->by = "e820";
		return 1;
	}
	s->part_start = res->start;
	s->part_end = res->end;
	return 0;
}

static void prd_fw_scan_e820(struct prd_fw_scan *s)
{
	static const unsigned long descs[] = {
		IORES_DESC_PERSISTENT_MEMORY,
		IORES_DESC_PERSISTENT_MEMORY_LEGACY,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(descs) && !s->covered; i++)
		walk_iomem_res_desc(descs[i], IORESOURCE_MEM, s->start, s->end,
				    s, prd_fw_e820_one);
}

/* the first I/O memory resource in the range, whatever it is */
static int prd_fw_other_one(struct resource *res, void *arg)
{
	*(struct resource *)arg = *res;
	return 1;
}

static const char *prd_fw_kind(const struct resource *res)
{
	if (res->flags & IORESOURCE_SYSRAM)
		return "System RAM";
	switch (res->desc) {
	case IORES_DESC_RESERVED:
		return "reserved memory";
	case IORES_DESC_ACPI_TABLES:
		return "ACPI tables";
	case IORES_DESC_ACPI_NV_STORAGE:
		return "ACPI NVS";
	case IORES_DESC_SOFT_RESERVED:
		return "soft reserved memory";
	case IORES_DESC_DEVICE_PRIVATE_MEMORY:
		return "device private memory";
	default:
		return "device memory (MMIO)";
	}
}

/*
 * What the NFIT says of the NVDIMMs behind a region, read as libnvdimm
 * reads it. Not armed: the DIMM cannot save its data on power loss, and
 * libnvdimm makes its regions read-only: so does prd. Flush hints: the
 * platform wants a write to them (nvdimm_flush()) before a flush counts as
 * durable; prd writes none, so it refuses such a region rather than
 * complete flushes that may not be. The other failure flags get the one
 * line libnvdimm prints.
 */
static int prd_fw_check_nvdimms(struct prd_device *prd,
				const struct prd_nfit_scan *n)
{
	if (n->hinted) {
		pr_err("region %u %#llx+%#llx: the NFIT lists flush hint addresses for NVDIMM %#x: prd does not write them, so its flushes might not be durable (use nd_pmem for this range)\n",
		       prd->id, (u64)prd->phys_addr, prd->size,
		       n->hint_handle);
		return -EOPNOTSUPP;
	}
	if (!(n->flags & PRD_NFIT_FAILED_MASK))
		return 0;
	pr_warn("region %u: the NFIT reports NVDIMM %#x:%s%s%s%s%s\n",
		prd->id, n->flags_handle,
		n->flags & PRD_NFIT_SAVE_FAILED ? " save_fail" : "",
		n->flags & PRD_NFIT_RESTORE_FAILED ? " restore_fail" : "",
		n->flags & PRD_NFIT_FLUSH_FAILED ? " flush_fail" : "",
		n->flags & PRD_NFIT_NOT_ARMED ? " not_armed" : "",
		n->flags & PRD_NFIT_MAP_FAILED ? " map_fail" : "");
	if (n->flags & PRD_NFIT_NOT_ARMED) {
		prd->read_only = true;
		pr_warn("region %u: an NVDIMM behind it is not armed: the disk is read-only, as nd_pmem makes it\n",
			prd->id);
	}
	return 0;
}

/**
 * prd_firmware_check - is a region persistent memory the firmware describes
 * @prd: the region; phys_addr and size are set
 *
 * Sets @prd->described_by, and @prd->read_only when an NVDIMM behind the
 * region is not armed.
 *
 * Return: 0 when one NFIT or e820 persistent memory range holds the whole
 * region; -EOPNOTSUPP when the NFIT lists flush hints for its NVDIMMs;
 * -EINVAL when it is not persistent memory. Each after one pr_err().
 */
int prd_firmware_check(struct prd_device *prd)
{
	struct prd_fw_scan s = {
		.start = prd->phys_addr,
		.end = prd->phys_addr + prd->size - 1,
	};
	struct resource other = {};

	prd_fw_scan_nfit(&s);
	if (!s.covered)
		prd_fw_scan_e820(&s);
	if (s.covered) {
		prd->described_by = s.by;
		return s.nfit.covered ? prd_fw_check_nvdimms(prd, &s.nfit) : 0;
	}

	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_MEM, s.start, s.end,
			    &other, prd_fw_other_one);
	if (other.flags && other.desc != IORES_DESC_PERSISTENT_MEMORY &&
	    other.desc != IORES_DESC_PERSISTENT_MEMORY_LEGACY) {
		pr_err("region %u %#llx+%#llx is not persistent memory: it overlaps %s at %#llx-%#llx (see /proc/iomem)\n",
		       prd->id, s.start, prd->size, prd_fw_kind(&other),
		       (u64)other.start, (u64)other.end);
	} else if (s.part_end) {
		pr_err("region %u %#llx+%#llx is not persistent memory: it extends past the persistent memory range %#llx-%#llx\n",
		       prd->id, s.start, prd->size, s.part_start, s.part_end);
	} else {
		pr_err("region %u %#llx+%#llx is not persistent memory: nothing the firmware describes is there (no NFIT or e820 persistent memory range)\n",
		       prd->id, s.start, prd->size);
	}
	return -EINVAL;
}
