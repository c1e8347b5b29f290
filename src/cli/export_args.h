/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of `pvecg export`, read and checked against each other
 * before anything is read or sent.
 */
#ifndef PVECG_EXPORT_ARGS_H
#define PVECG_EXPORT_ARGS_H

#include "pvecg/export_files.h"
#include "pvecg/export_run.h"
#include "pvecg/net_sender.h"

#include <stdbool.h>

#define EXPORT_NODE_NAME_SIZE 65
#define EXPORT_TOKEN_MAX 4096

struct export_args {
  bool has_format, all, quiet, prefix_set;
  const char *since, *until, *to, *data_dir, *config_dir, *token_file;
  const char *ca_file;
  double timeout;
  bool http;                /* --to is http(s):// */
  struct net_target target; /* --to tcp:// or udp:// */
  char node_name[EXPORT_NODE_NAME_SIZE];
  char token[EXPORT_TOKEN_MAX]; /* read from --token-file */
  struct export_files files;
  struct export_run run;
};

extern const char export_usage_text[];

/* Fills a from the command line.  Returns 0, 1 for --help (printed), or
 * -EINVAL with the reason on stderr. */
int export_args_parse(int argc, char **argv, struct export_args *a);

#endif
