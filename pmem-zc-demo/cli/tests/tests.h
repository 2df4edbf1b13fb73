/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests: the groups of the pmem-zc test program (test-main.c runs them).
 */
#ifndef PMEM_ZC_TESTS_H
#define PMEM_ZC_TESTS_H

void test_units(void);		/* units.c, report.c */
void test_http(void);		/* http.c */
void test_log(void);		/* log.c */
void test_cli(void);		/* send, copy, stats, --help: processes */
void test_serve(void);		/* serve against curl, wget, raw sockets */

#endif
