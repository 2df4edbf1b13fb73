// SPDX-License-Identifier: GPL-2.0
/* what 6.12's gup_test.c takes from selftests/mm/vm_util.c (6.1's: nothing) */
unsigned int __page_size;
unsigned int __page_shift;
