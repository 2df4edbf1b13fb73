// SPDX-License-Identifier: GPL-2.0
/*
 * test-units: the parsers of units.c and the summary and hints of
 * report.c.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "report.h"
#include "tap.h"
#include "tests.h"
#include "units.h"

static void sizes(void)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t v;
	} t[] = {
		{ "0", 0, 0 }, { "4096", 0, 4096 }, { "16M", 0, 16 << 20 },
		{ "1k", 0, 1024 }, { "2G", 0, 2ULL << 30 },
		{ "1T", 0, 1ULL << 40 }, { "0x10", 0, 16 },
		{ "0x1fK", 0, 31 << 10 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "", -EINVAL }, { "x", -EINVAL }, { "0x", -EINVAL },
		{ "1KB", -EINVAL }, { "16E", -EINVAL }, { "-1", -EINVAL },
		{ " 1", -EINVAL }, { "1 ", -EINVAL },
		{ "18446744073709551616", -ERANGE },
		{ "17179869184G", -ERANGE },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 12345;
		int ret = units_size(t[i].s, &v);

		ok(ret == t[i].ret && (ret || v == t[i].v),
		   "units_size('%s') = %d, %llu", t[i].s, t[i].ret,
		   (unsigned long long)t[i].v);
	}
}

static void counts_durations_ports(void)
{
	uint64_t v = 0;
	uint16_t p = 0;

	ok(!units_count("5", 1, 10, &v) && v == 5, "count 5 in 1..10");
	is_int(units_count("11", 1, 10, &v), -ERANGE, "count 11 > 10");
	is_int(units_count("0", 1, 10, &v), -ERANGE, "count 0 < 1");
	is_int(units_count("5K", 1, 10, &v), -EINVAL, "count takes no suffix");
	ok(!units_duration_ms("30", &v) && v == 30000, "duration 30 is 30 s");
	ok(!units_duration_ms("500ms", &v) && v == 500, "duration 500ms");
	ok(!units_duration_ms("2m", &v) && v == 120000, "duration 2m");
	ok(!units_duration_ms("1h", &v) && v == 3600000, "duration 1h");
	ok(!units_duration_ms("0s", &v) && v == 0, "duration 0s");
	is_int(units_duration_ms("1x", &v), -EINVAL, "duration 1x refused");
	is_int(units_duration_ms("", &v), -EINVAL, "empty duration refused");
	is_int(units_duration_ms("18446744073709551615h", &v), -ERANGE,
	       "duration overflow");
	ok(!units_port("0", true, &p) && !p, "port 0 where allowed");
	is_int(units_port("0", false, &p), -EINVAL, "port 0 refused");
	ok(!units_port("65535", false, &p) && p == 65535, "port 65535");
	is_int(units_port("65536", false, &p), -EINVAL, "port 65536");
}

static void hostports(void)
{
	static const struct {
		const char *s;
		int family, port;
	} t[] = {
		{ "127.0.0.1:80", AF_INET, 80 },
		{ "[::1]:8080", AF_INET6, 8080 },
		{ "[fe80::1:2]:1", AF_INET6, 1 },
		{ "localhost:5001", AF_INET, 5001 },
		{ "::1:80", 0 }, { "[127.0.0.1]:80", 0 }, { "1.2.3.4", 0 },
		{ "1.2.3.4:0", 0 }, { "1.2.3.4:65536", 0 }, { "[::1]", 0 },
		{ "[::1]80", 0 }, { ":80", 0 }, { "host.example:80", 0 },
		{ "1.2.3:80", 0 },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = units_hostport(t[i].s, &ss, &len);
		int port = ntohs(((struct sockaddr_in *)&ss)->sin_port);

		if (ss.ss_family == AF_INET6)
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		if (t[i].family)
			ok(!ret && ss.ss_family == t[i].family &&
			   port == t[i].port, "HOST:PORT '%s'", t[i].s);
		else
			is_int(ret, -EINVAL, "HOST:PORT '%s' refused", t[i].s);
	}
}

static void summary(void)
{
	char line[320];

	summary_format(line, sizeof(line), "send", 67108864, 4.0, 67108864,
		       0, 0.75);
	ok(!strcmp(line, "summary: op=send bytes=67108864 seconds=4.000 "
		   "MBps=16.8 by_ref=67108864 copied=0 cpu_seconds=0.750 "
		   "zero_copy=yes\n"), "summary line of send");
	summary_format(line, sizeof(line), "copy", 10, 0, 4, 6, 0);
	has(line, "MBps=0.0 by_ref=4 copied=6", "partial summary, 0 s");
	has(line, "zero_copy=partial", "zero_copy=partial");
	ok(!strcmp(zero_copy_word(0, 5), "no"), "zero_copy=no");
	has(ioc_strerror(ENODEV, line, sizeof(line)), "No such device (not a "
	    "prd disk", "ENODEV hint");
	has(ioc_strerror(ETXTBSY, line, sizeof(line)), "open for writing",
	    "ETXTBSY hint");
	ok(!ioc_hint(EDOM), "no hint for EDOM");
}

void test_units(void)
{
	sizes();
	counts_durations_ports();
	hostports();
	summary();
}
