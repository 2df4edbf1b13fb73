// SPDX-License-Identifier: GPL-2.0
/*
 * page_put_test: a test-only module whose load drops one reference of the
 * page at pfn= that nobody took: the stray put_page() of a buggy driver.
 * The prd unload test uses it on a ZONE_DEVICE page (which then sits at
 * refcount 0, below prd's base reference) to check that prd notices and
 * leaks the region instead of tearing its memmap down. Never part of a
 * product build; never to be used on a page that can reach the allocator.
 */
#include <linux/mm.h>
#include <linux/memremap.h>
#include <linux/module.h>

static unsigned long pfn;
module_param(pfn, ulong, 0444);
MODULE_PARM_DESC(pfn, "A ZONE_DEVICE page to put once");

static int __init page_put_test_init(void)
{
	struct page *page;

	if (!pfn_valid(pfn))
		return -EINVAL;
	page = pfn_to_page(pfn);
	if (!is_zone_device_page(page) || page_ref_count(page) != 1)
		return -EINVAL;
	put_page(page);
	pr_info("page_put_test: pfn %#lx put once, refcount now %d\n", pfn,
		page_ref_count(page));
	return 0;
}

static void __exit page_put_test_exit(void)
{
}

module_init(page_put_test_init);
module_exit(page_put_test_exit);
MODULE_DESCRIPTION("Stray put_page() on a ZONE_DEVICE page, for prd's unload test");
MODULE_LICENSE("GPL");
