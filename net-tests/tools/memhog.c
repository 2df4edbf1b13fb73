// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: allocate and touch memory 16 MiB at a time until the kernel
 * refuses or the OOM killer ends the process; prints "hogging" first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	size_t chunk = 16 << 20;
	char *p;

	printf("hogging\n");
	fflush(stdout);
	for (;;) {
		p = malloc(chunk);
		if (!p) {
			sleep(1);
			continue;
		}
		memset(p, 0x5a, chunk);
	}
}
