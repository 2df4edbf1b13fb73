/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report: what send and copy tell the user about a transfer: progress on
 * stderr, the summary line on stdout, and what an errno of the pmem_zc
 * ioctls most likely means.
 */
#ifndef PMEM_ZC_REPORT_H
#define PMEM_ZC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	uint64_t total;
	double start, last;
	bool on, drawn;
};

double now_mono(void);		/* seconds, CLOCK_MONOTONIC */
double cpu_seconds(void);	/* user + system of this process */

/* Progress is drawn when stderr is a terminal, or with @force. */
void progress_init(struct progress *p, uint64_t total, bool force);
void progress_update(struct progress *p, uint64_t done);	/* ~1/s */
void progress_end(struct progress *p);

/* "yes" (all by reference), "no" (none) or "partial". */
const char *zero_copy_word(uint64_t by_ref, uint64_t copied);

/*
 * "summary: op=OP bytes=N seconds=S.SSS MBps=X.X by_ref=N copied=N
 * cpu_seconds=S.SSS zero_copy=W\n"; returns what snprintf returns.
 */
int summary_format(char *buf, size_t size, const char *op, uint64_t bytes,
		   double secs, uint64_t by_ref, uint64_t copied, double cpu);
/* The summary of a transfer that started at @start, on @out. */
void summary_print(FILE *out, const char *op, uint64_t bytes, double start,
		   uint64_t by_ref, uint64_t copied);

/* What @err (positive) from PMEM_ZC_IOC_SEND/COPY likely means, or NULL. */
const char *ioc_hint(int err);
/* "strerror (hint)" of @err into @buf. */
const char *ioc_strerror(int err, char *buf, size_t size);

#endif
