/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sd: what serve needs of systemd's service protocols, spoken directly
 * (the binary is static, without libsystemd): a listening socket passed
 * by socket activation, and readiness and stopping sent to
 * $NOTIFY_SOCKET (sd_notify(3), sd_listen_fds(3)).
 */
#ifndef PMEM_ZC_SD_H
#define PMEM_ZC_SD_H

/*
 * The listening socket systemd passed ($LISTEN_PID ours, $LISTEN_FDS 1:
 * fd 3), made non-blocking and close-on-exec; -1 when none was passed;
 * -2 (with a message) when what was passed is not one listening TCP
 * socket. The variables are removed, as sd_listen_fds(1) does.
 */
int sd_listen_fd(void);

/*
 * A datagram socket connected to $NOTIFY_SOCKET, when set (a path, or @
 * for an abstract name): opened before root is dropped, as the socket's
 * file may not let the user in. 0, or -errno.
 */
int sd_notify_open(void);
/* @state (e.g. "READY=1") to it, when open. 0, or -errno. */
int sd_notify_state(const char *state);

#endif
