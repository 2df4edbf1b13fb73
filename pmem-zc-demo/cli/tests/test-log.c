// SPDX-License-Identifier: GPL-2.0
/*
 * test-log: the access log line (TZ is UTC in the tests).
 */
#include <string.h>

#include "log.h"
#include "tap.h"
#include "tests.h"

void test_log(void)
{
	struct log_entry e = {
		.host = "::1", .when = 784111777,
		.request = { "GET /a\"b\\ HTTP/1.1", 18 },
		.user_agent = { "curl/8\x01", 7 },
		.status = 206, .bytes = 100, .by_ref = 64, .copied = 36,
	};
	char buf[4096], big[3000];
	size_t n;

	n = log_format(buf, sizeof(buf), &e);
	ok(n == strlen(buf) && !strcmp(buf, "::1 - - [06/Nov/1994:08:49:37 "
	   "+0000] \"GET /a\\x22b\\x5C HTTP/1.1\" 206 100 \"-\" "
	   "\"curl/8\\x01\" by_ref=64 copied=36\n"), "log line: %.*s",
	   (int)n - 1, buf);
	memset(big, 'x', sizeof(big));
	e.request = (struct http_slice){ big, sizeof(big) };
	e.referer = e.request;
	e.user_agent = e.request;
	n = log_format(buf, sizeof(buf), &e);
	ok(n < sizeof(buf) && buf[n - 1] == '\n' &&
	   strstr(buf, " by_ref=64 copied=36\n"),
	   "long fields are cut, the line stays whole");
	e.request = (struct http_slice){};
	n = log_format(buf, sizeof(buf), &e);
	has(buf, "] \"-\" 206", "no request line: \"-\"");
}
