// SPDX-License-Identifier: GPL-2.0
/*
 * units: parsers of sizes, counts, durations, ports and socket addresses
 * from the command line (see units.h for the accepted forms).
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "units.h"

static int digit(char c, unsigned int base)
{
	int d;

	if (isdigit((unsigned char)c))
		d = c - '0';
	else if (isxdigit((unsigned char)c))
		d = tolower((unsigned char)c) - 'a' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/*
 * The number at the start of @s in @base; *end points past it. -EINVAL
 * when there is no digit, -ERANGE on overflow.
 */
static int parse_u64(const char *s, unsigned int base, uint64_t *out,
		     const char **end)
{
	uint64_t v = 0;
	const char *p = s;
	int d;

	for (; (d = digit(*p, base)) >= 0; p++) {
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (p == s)
		return -EINVAL;
	*out = v;
	*end = p;
	return 0;
}

/* @v times 2^@shift, or -ERANGE. */
static int scale(uint64_t v, unsigned int shift, uint64_t *out)
{
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int units_size(const char *s, uint64_t *out)
{
	static const char suffixes[] = "KMGT";
	unsigned int base = 10;
	const char *end, *u;
	uint64_t v;
	int ret;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	ret = parse_u64(s, base, &v, &end);
	if (ret)
		return ret;
	if (!*end)
		return scale(v, 0, out);
	u = strchr(suffixes, toupper((unsigned char)*end));
	if (!u || !*u || end[1])
		return -EINVAL;
	return scale(v, 10 * (u - suffixes + 1), out);
}

int units_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int ret = parse_u64(s, 10, &v, &end);

	if (ret)
		return ret;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int units_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {
		{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 },
		{ "h", 3600000 },
	};
	const char *end;
	uint64_t v;
	size_t i;
	int ret = parse_u64(s, 10, &v, &end);

	if (ret)
		return ret;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (v > UINT64_MAX / units[i].ms)
			return -ERANGE;
		*ms = v * units[i].ms;
		return 0;
	}
	return -EINVAL;
}

int units_port(const char *s, bool zero_ok, uint16_t *port)
{
	uint64_t v;
	int ret = units_count(s, zero_ok ? 0 : 1, 65535, &v);

	if (ret)
		return -EINVAL;
	*port = v;
	return 0;
}

int units_addr(const char *host, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!strcmp(host, "localhost"))
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return 0;
	}
	return -EINVAL;
}

int units_hostport(const char *s, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *h = s, *colon;
	size_t n;
	uint16_t port;

	if (*s == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		h = s + 1;
		n = rb - h;
		colon = rb + 1;
		if (!memchr(h, ':', n))	/* brackets are for IPv6 only */
			return -EINVAL;
	} else {
		colon = strrchr(s, ':');
		if (!colon || memchr(s, ':', colon - s))
			return -EINVAL;	/* none, or IPv6 without brackets */
		n = colon - s;
	}
	if (!n || n >= sizeof(host) || units_port(colon + 1, false, &port))
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	return units_addr(host, port, ss, len);
}
