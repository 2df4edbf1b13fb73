// SPDX-License-Identifier: GPL-2.0
/*
 * page_ref_test: a test-only module that plays two users of a device page
 * (pfn=) that prd's unload must cope with:
 *
 *   op=get   takes a reference at load and drops it at unload: a holder
 *            that outlives a disk (as an skb or a pipe buffer would),
 *            without a filesystem or a module dependency on prd
 *   op=put   drops, at load, a reference nobody took: the stray put_page()
 *            of a buggy driver; only for a ZONE_DEVICE page, which then
 *            sits at refcount 0 instead of reaching the page allocator
 *
 * Never part of a product build.
 */
#include <linux/mm.h>
#include <linux/memremap.h>
#include <linux/module.h>

static unsigned long pfn;
module_param(pfn, ulong, 0444);
MODULE_PARM_DESC(pfn, "The page");

static char *op = "get";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "get (hold a reference until unload) or put (drop one nobody took)");

static struct page *held;

static int __init page_ref_test_init(void)
{
	struct page *page;

	if (!pfn_valid(pfn))
		return -EINVAL;
	page = pfn_to_page(pfn);
	if (page_ref_count(page) != 1)
		return -EBUSY;
	if (!strcmp(op, "get")) {
		get_page(page);
		held = page;
	} else if (!strcmp(op, "put") && is_zone_device_page(page)) {
		put_page(page);
	} else {
		return -EINVAL;
	}
	pr_info("page_ref_test: pfn %#lx %s, refcount now %d\n", pfn, op,
		page_ref_count(page));
	return 0;
}

static void __exit page_ref_test_exit(void)
{
	if (held)
		put_page(held);
}

module_init(page_ref_test_init);
module_exit(page_ref_test_exit);
MODULE_DESCRIPTION("Holds or drops a page reference, for prd's unload test");
MODULE_LICENSE("GPL");
