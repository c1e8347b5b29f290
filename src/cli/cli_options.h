/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every subcommand's options read one way: getopt_long over its table,
 * --help, each option handed to the subcommand's own setter, operands
 * refused, and the same words for a usage error whatever the subcommand.
 */
#ifndef PVECG_CLI_OPTIONS_H
#define PVECG_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

/* Takes one option: 0, or non-zero to refuse its value (having printed why,
 * or leaving it to the usage text). */
typedef int cli_option_fn(void *ctx, int opt, const char *value);

struct cli_command {
  const char *name;  /* "pvecg graph", how messages begin */
  const char *usage; /* --help's text */
  const struct option *table;
  bool usage_on_error; /* a usage error also prints usage on stderr */
};

/* Returns 0 when every option was taken and no operand is left, 1 after
 * --help (the usage on stdout), -EINVAL after a usage error (printed on
 * stderr). */
int cli_options_read(const struct cli_command *command, int argc, char **argv,
                     cli_option_fn *set, void *ctx);

#endif
