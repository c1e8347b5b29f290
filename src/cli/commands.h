/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pvecg command's subcommands.  Each takes the arguments after its
 * name (argv[0] is the subcommand's name), handles its own --help, and
 * returns the process exit status: 0 done, 1 failed, 2 usage error.
 */
#ifndef PVECG_COMMANDS_H
#define PVECG_COMMANDS_H

int cmd_sample(int argc, char **argv);
int cmd_rrddata(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_ship(int argc, char **argv);

/* Exit statuses shared by the subcommands. */
enum {
  PVECG_EXIT_OK = 0,
  PVECG_EXIT_FAILURE = 1,
  PVECG_EXIT_USAGE = 2,
};

#endif
