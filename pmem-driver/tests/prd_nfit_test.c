// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of prd's NFIT walker (../prd_nfit.c), TAP output: crafted
 * tables with what QEMU never builds (flush hints, unarmed and failed
 * NVDIMMs, interleaves, malformed structures), then random mutations of
 * them under ASan and UBSan. Exit status 0 only if every test passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prd_nfit.h"

#define G	(1ULL << 30)
#define M	(1ULL << 20)

static unsigned char tbl[4096];
static size_t tlen;

static void put(size_t at, u64 v, unsigned int bytes)
{
	while (bytes--) {
		tbl[at++] = v & 0xff;
		v >>= 8;
	}
}

static void t_begin(void)
{
	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, "NFIT", 4);
	tlen = PRD_NFIT_HDR_LEN;
}

/* finish: the ACPI header's length, as the firmware writes it */
static size_t t_end(void)
{
	put(4, tlen, 4);
	return tlen;
}

static const unsigned char pm_guid[16] = {
	0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
	0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb,
};

/* a volatile memory range GUID: 7305944f-fdda-44e3-b16c-3f22d252e5d0 */
static const unsigned char vm_guid[16] = {
	0x4f, 0x94, 0x05, 0x73, 0xda, 0xfd, 0xe3, 0x44,
	0xb1, 0x6c, 0x3f, 0x22, 0xd2, 0x52, 0xe5, 0xd0,
};

static void t_spa(unsigned int len, unsigned int idx, const unsigned char *guid,
		  u64 addr, u64 size)
{
	size_t at = tlen;

	put(at, 0, 2);
	put(at + 2, len, 2);
	put(at + 4, idx, 2);
	if (len >= 32)
		memcpy(tbl + at + 16, guid, 16);
	if (len >= 48) {
		put(at + 32, addr, 8);
		put(at + 40, size, 8);
	}
	tlen += len;
}

static void t_memdev(unsigned int len, unsigned int handle, unsigned int idx,
		     unsigned int flags)
{
	size_t at = tlen;

	put(at, 1, 2);
	put(at + 2, len, 2);
	put(at + 4, handle, 4);
	put(at + 12, idx, 2);
	if (len >= 46)
		put(at + 44, flags, 2);
	tlen += len;
}

static void t_flush(unsigned int len, unsigned int handle, unsigned int count)
{
	size_t at = tlen;

	put(at, 6, 2);
	put(at + 2, len, 2);
	put(at + 4, handle, 4);
	put(at + 8, count, 2);
	tlen += len;
}

/* a structure of another type (a control region, type 4) */
static void t_other(unsigned int type, unsigned int len)
{
	put(tlen, type, 2);
	put(tlen + 2, len, 2);
	tlen += len;
}

static int failed, n;

static void expect(const char *what, int ok, const struct prd_nfit_scan *s)
{
	n++;
	if (ok) {
		printf("ok %d - %s\n", n, what);
		return;
	}
	failed++;
	printf("not ok %d - %s\n", n, what);
	printf("# covered=%d part=%#llx-%#llx dimms=%u flags=%#x flags_handle=%#x hinted=%u hint_handle=%#x\n",
	       s->covered, s->part_start, s->part_end, s->dimms, s->flags,
	       s->flags_handle, s->hinted, s->hint_handle);
}

static struct prd_nfit_scan scan(u64 start, u64 size, size_t len)
{
	struct prd_nfit_scan s;

	memset(&s, 0xa5, sizeof(s));	/* every output must be written */
	s.start = start;
	s.end = start + size - 1;
	prd_nfit_scan(tbl, len, &s);
	return s;
}

/* one SPA range at 4 GiB, 1 GiB, index 1, ACPI 6.3 length */
static void t_qemu(void)
{
	t_begin();
	t_spa(64, 1, pm_guid, 4 * G, G);
}

static void crafted(void)
{
	struct prd_nfit_scan s;

	t_qemu();
	s = scan(4 * G, 256 * M, t_end());
	expect("an SPA range alone covers a region inside it", s.covered &&
	       !s.dimms && !s.flags && !s.hinted && !s.part_end, &s);
	s = scan(5 * G - 4096, 4096, tlen);
	expect("its last page is covered", s.covered, &s);
	s = scan(5 * G - 4096, 8192, tlen);
	expect("a region past its end is only overlapping it",
	       !s.covered && s.part_start == 4 * G &&
	       s.part_end == 5 * G - 1, &s);
	s = scan(3 * G, 256 * M, tlen);
	expect("a region elsewhere is neither", !s.covered && !s.part_end, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	s = scan(4 * G, 256 * M, t_end());
	expect("one armed NVDIMM: no flags", s.covered && s.dimms == 1 &&
	       !s.flags && !s.hinted, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, PRD_NFIT_NOT_ARMED);
	s = scan(4 * G, 256 * M, t_end());
	expect("an unarmed NVDIMM (QEMU unarmed=on) is seen",
	       s.covered && (s.flags & PRD_NFIT_NOT_ARMED) &&
	       s.flags_handle == 0x1, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	t_memdev(48, 0x101, 1, PRD_NFIT_NOT_ARMED | PRD_NFIT_SAVE_FAILED);
	s = scan(4 * G, 256 * M, t_end());
	expect("a two-way interleave with its second NVDIMM unarmed",
	       s.dimms == 2 && (s.flags & PRD_NFIT_NOT_ARMED) &&
	       (s.flags & PRD_NFIT_SAVE_FAILED) && s.flags_handle == 0x101,
	       &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 1 << 5);	/* health events enabled */
	s = scan(4 * G, 256 * M, t_end());
	expect("a flag that is no failure names no NVDIMM",
	       s.flags == 1 << 5 && !(s.flags & PRD_NFIT_FAILED_MASK) &&
	       !s.flags_handle, &s);

	t_qemu();
	t_memdev(48, 0x1, 2, PRD_NFIT_NOT_ARMED);
	t_spa(64, 2, pm_guid, 8 * G, G);
	s = scan(4 * G, 256 * M, t_end());
	expect("an unarmed NVDIMM of another range does not count",
	       s.covered && !s.dimms && !s.flags, &s);

	t_begin();
	t_spa(64, 0, pm_guid, 4 * G, G);
	t_memdev(48, 0x1, 0, PRD_NFIT_NOT_ARMED);
	s = scan(4 * G, 256 * M, t_end());
	expect("range index 0 maps no NVDIMM", s.covered && !s.dimms, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	t_flush(24, 0x1, 1);
	s = scan(4 * G, 256 * M, t_end());
	expect("flush hints for the NVDIMM are seen", s.hinted == 1 &&
	       s.hint_handle == 0x1, &s);

	t_qemu();
	t_flush(32, 0x101, 2);		/* before the memdev: order is free */
	t_memdev(48, 0x1, 1, 0);
	t_memdev(48, 0x101, 1, 0);
	s = scan(4 * G, 256 * M, t_end());
	expect("hints of the second NVDIMM of an interleave, listed first",
	       s.dimms == 2 && s.hinted == 1 && s.hint_handle == 0x101, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	t_flush(16, 0x1, 0);
	t_flush(24, 0x2, 1);
	s = scan(4 * G, 256 * M, t_end());
	expect("no hints: a count of 0, or hints for another NVDIMM",
	       s.dimms == 1 && !s.hinted, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	t_flush(12, 0x1, 1);
	s = scan(4 * G, 256 * M, t_end());
	expect("a flush hint structure too short to read is skipped",
	       !s.hinted, &s);

	t_begin();
	t_spa(64, 1, vm_guid, 4 * G, G);
	s = scan(4 * G, 256 * M, t_end());
	expect("a volatile memory range is no persistent memory",
	       !s.covered && !s.part_end, &s);

	t_begin();
	t_spa(56, 1, pm_guid, 4 * G, G);	/* ACPI 6.0 */
	t_memdev(48, 0x1, 1, PRD_NFIT_NOT_ARMED);
	s = scan(4 * G, 256 * M, t_end());
	expect("an ACPI 6.0 SPA range (no location cookie)",
	       s.covered && (s.flags & PRD_NFIT_NOT_ARMED), &s);

	t_begin();
	t_spa(48, 1, pm_guid, 4 * G, G);
	s = scan(4 * G, 256 * M, t_end());
	expect("an SPA range too short for its length field is skipped",
	       !s.covered, &s);

	t_begin();
	t_spa(64, 1, pm_guid, ~0ULL - 4095, 8192);
	s = scan(~0ULL - 4095, 4096, t_end());
	expect("an SPA range that wraps is skipped", !s.covered, &s);

	t_begin();
	t_spa(64, 1, pm_guid, 4 * G, 0);
	s = scan(4 * G, 4096, t_end());
	expect("an empty SPA range is skipped", !s.covered && !s.part_end, &s);

	t_qemu();
	t_other(4, 80);
	t_memdev(46, 0x1, 1, PRD_NFIT_NOT_ARMED);
	t_memdev(48, 0x2, 1, 0);
	s = scan(4 * G, 256 * M, t_end());
	expect("other structures, and a memdev too short, are skipped",
	       s.dimms == 1 && !s.flags, &s);

	t_qemu();
	t_memdev(48, 0x1, 1, PRD_NFIT_NOT_ARMED);
	s = scan(4 * G, 256 * M, tlen - 1);
	expect("a structure past the table's end ends the walk",
	       s.covered && !s.dimms, &s);

	t_begin();
	t_other(4, 2);
	t_spa(64, 1, pm_guid, 4 * G, G);
	s = scan(4 * G, 256 * M, t_end());
	expect("a structure length below 4 ends the walk", !s.covered, &s);

	t_begin();
	t_other(4, 0);
	s = scan(4 * G, 256 * M, t_end());
	expect("a structure length of 0 ends the walk", !s.covered, &s);

	t_qemu();
	s = scan(4 * G, 256 * M, 12);
	expect("a table shorter than its header has nothing", !s.covered, &s);
	s = scan(4 * G, 256 * M, 0);
	expect("an empty table has nothing", !s.covered, &s);
}

static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Random mutations of a rich table, each walked in a buffer of exactly its
 * length (ASan sees any read past it); the findings must be consistent.
 */
static void mutations(void)
{
	unsigned char base[512];
	size_t blen, len;
	unsigned int i, j, bad = 0;
	struct prd_nfit_scan s;
	unsigned char *buf;

	t_qemu();
	t_memdev(48, 0x1, 1, 0);
	t_memdev(48, 0x101, 1, PRD_NFIT_NOT_ARMED);
	t_flush(32, 0x101, 2);
	t_spa(56, 2, pm_guid, 8 * G, G);
	t_other(4, 80);
	blen = t_end();
	memcpy(base, tbl, blen);

	for (i = 0; i < 200000; i++) {
		len = rnd() % (blen + 8);
		buf = malloc(len ? len : 1);
		if (!buf)
			abort();
		memcpy(buf, base, len < blen ? len : blen);
		for (j = blen; j < len; j++)
			buf[j] = rnd();
		for (j = rnd() % 6; j; j--)
			if (len)
				buf[rnd() % len] = rnd();
		memset(&s, 0, sizeof(s));
		s.start = 4 * G + (rnd() % 4) * 256 * M;
		s.end = s.start + 256 * M - 1;
		prd_nfit_scan(buf, len, &s);
		if (s.hinted > s.dimms ||
		    (!s.covered && (s.dimms || s.flags || s.hinted)) ||
		    (s.flags && !s.dimms))
			bad++;
		free(buf);
	}
	n++;
	if (bad)
		failed++;
	printf("%sok %d - %u random mutations of a table walked, %u inconsistent findings\n",
	       bad ? "not " : "", n, i, bad);
}

int main(void)
{
	crafted();
	mutations();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
