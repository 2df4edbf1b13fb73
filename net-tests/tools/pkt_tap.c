// SPDX-License-Identifier: GPL-2.0
/*
 * pkt_tap IFACE SECS: an AF_PACKET socket that taps every packet of IFACE
 * for SECS seconds, as tcpdump would (prints "tapping" once bound, then the
 * number of packets seen). A tap makes the stack copy the fragments of
 * zero-copy skbs it hands to it.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ALL) };
	struct pollfd p;
	char buf[65536];
	long seen = 0;
	time_t end;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IFACE SECS\n", argv[0]);
		return 2;
	}
	a.sll_ifindex = if_nametoindex(argv[1]);
	p.fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (!a.sll_ifindex || p.fd < 0 ||
	    bind(p.fd, (struct sockaddr *)&a, sizeof(a))) {
		perror(argv[1]);
		return 1;
	}
	printf("tapping\n");
	fflush(stdout);
	p.events = POLLIN;
	end = time(NULL) + atoi(argv[2]);
	while (time(NULL) < end)
		if (poll(&p, 1, 200) == 1 && recv(p.fd, buf, sizeof(buf), 0) > 0)
			seen++;
	printf("packets %ld\n", seen);
	return 0;
}
