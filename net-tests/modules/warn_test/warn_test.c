// SPDX-License-Identifier: GPL-2.0
/*
 * warn_test: a test-only module whose load does one WARN(), so that the
 * test runner can prove it reports a kernel splat as a failure even when
 * the test's own checks passed. Never part of a product build.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_test_init(void)
{
	WARN(1, "warn_test: deliberate warning for the runner self-test\n");
	return 0;
}

static void __exit warn_test_exit(void)
{
}

module_init(warn_test_init);
module_exit(warn_test_exit);
MODULE_DESCRIPTION("Deliberate WARN for the pmem-zc test runner self-test");
MODULE_LICENSE("GPL");
