/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmds: the subcommands main.c dispatches to. Each takes its argv with the
 * subcommand as argv[0] and returns an exit code (msg.h).
 */
#ifndef PMEM_ZC_CMDS_H
#define PMEM_ZC_CMDS_H

int cmd_send(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_stats(int argc, char **argv);

#endif
