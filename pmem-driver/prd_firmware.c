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
 * message naming the region and what it overlaps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/ioport.h>
#include <linux/printk.h>
#include <linux/uuid.h>
#include "prd_dev.h"

/* UUID_PERSISTENT_MEMORY of include/acpi/acuuid.h, as a guid_t */
static const guid_t prd_spa_pm_guid =
	GUID_INIT(0x66f0d379, 0xb4f3, 0x4074,
		  0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb);

/* what the firmware says of [start, end] */
struct prd_fw_scan {
	u64 start, end;
	bool covered;		/* one persistent memory range holds it all */
	const char *by;		/* the table that says so */
	u64 part_start, part_end; /* a persistent memory range it only overlaps */
};

#ifdef CONFIG_ACPI
static void prd_fw_scan_nfit(struct prd_fw_scan *s)
{
	struct acpi_table_header *tbl;
	void *p, *end;

	if (acpi_disabled ||
	    ACPI_FAILURE(acpi_get_table(ACPI_SIG_NFIT, 0, &tbl)))
		return;
	p = (void *)tbl + sizeof(struct acpi_table_nfit);
	end = (void *)tbl + tbl->length;
	while (p + sizeof(struct acpi_nfit_header) <= end) {
		struct acpi_nfit_header *h = p;
		struct acpi_nfit_system_address *spa = p;
		u64 last;

		if (h->length < sizeof(*h) || p + h->length > end)
			break;	/* a malformed table describes nothing more */
		p += h->length;
		/* ACPI 6.0 tables have no location_cookie */
		if (h->type != ACPI_NFIT_TYPE_SYSTEM_ADDRESS ||
		    h->length < offsetof(typeof(*spa), location_cookie) ||
		    !spa->length ||
		    !guid_equal((guid_t *)spa->range_guid, &prd_spa_pm_guid) ||
		    check_add_overflow(spa->address, spa->length - 1, &last))
			continue;
		if (s->start >= spa->address && s->end <= last) {
			s->covered = true;
			s->by = "ACPI NFIT";
			break;
		}
		if (s->start <= last && s->end >= spa->address) {
			s->part_start = spa->address;
			s->part_end = last;
		}
	}
	acpi_put_table(tbl);
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

/**
 * prd_firmware_check - is a region persistent memory the firmware describes
 * @prd: the region; phys_addr and size are set
 *
 * Return: 0 when one NFIT or e820 persistent memory range holds the whole
 * region; -EINVAL after one pr_err() saying what the region is instead.
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
		return 0;
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
