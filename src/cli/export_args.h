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

#include <getopt.h>
#include <stdbool.h>

#define EXPORT_NODE_NAME_SIZE 65
#define EXPORT_TOKEN_MAX 4096
#define EXPORT_HEADERS_MAX 16

struct export_args {
  const char *command; /* how messages name it (NULL: "pvecg export") */
  bool has_format, all, quiet, prefix_set;
  const char *since, *until, *to, *data_dir, *config_dir, *token_file;
  const char *ca_file;
  const char *cluster; /* --cluster (export), NULL: none given */
  double timeout;
  bool http;                /* --to is http(s):// */
  bool insecure;            /* https: the certificate is not checked (a Proxmox
                             * metric server's verify-certificate 0) */
  struct net_target target; /* --to tcp:// or udp:// */
  char node_name[EXPORT_NODE_NAME_SIZE];
  char token[EXPORT_TOKEN_MAX]; /* read from --token-file */
  /* --header "Name: value" lines, NULL-ended, with room for remote
   * write's two before them */
  const char *headers[EXPORT_HEADERS_MAX + 3];
  size_t header_count;
  bool remote_headers; /* remote write's two are in headers */
  struct export_files files;
  struct export_run run;
};

/* The options' codes, for getopt_long; `pvecg ship` takes most of them
 * too. */
enum {
  OPT_FORMAT = 0x100,
  OPT_VMID,
  OPT_NODE,
  OPT_ALL,
  OPT_NAMES,
  OPT_SINCE,
  OPT_UNTIL,
  OPT_CF,
  OPT_TO,
  OPT_TOKEN_FILE,
  OPT_CA_FILE,
  OPT_TIMEOUT,
  OPT_BATCH_BYTES,
  OPT_QUIET,
  OPT_DATA_DIR,
  OPT_DAEMON,
  OPT_CONFIG_DIR,
  OPT_NODE_NAME,
  OPT_UNKNOWN,
  OPT_PREFIX,
  OPT_CLUSTER,
  OPT_HEADER,
};

extern const char export_usage_text[];

/* Fills a from the command line.  Returns 0, 1 for --help (printed), or
 * -EINVAL with the reason on stderr. */
int export_args_parse(int argc, char **argv, struct export_args *a);

/* A command's own options, then the ones export and ship share (with
 * --help), ended for getopt_long.  own holds at most EXPORT_OPTIONS_MAX -
 * 18 entries. */
#define EXPORT_OPTIONS_MAX 32
void export_options_join(const struct option *own, size_t n,
                         struct option out[EXPORT_OPTIONS_MAX]);

/* One option: 0, or -EINVAL with the reason on stderr. */
int export_args_option(struct export_args *a, int opt, const char *value);

/* Once every option is read: the defaults, and the options checked
 * against each other.  0 or -EINVAL with the reason on stderr. */
int export_args_finish(struct export_args *a);

/* The HTTP sender's options the arguments say: URL, token, CA, timeout,
 * the --header lines and, for remote write, the spec's headers before
 * them and protobuf's content type. */
void export_args_http_options(struct export_args *a,
                              struct http_sender_options *o);

#endif
