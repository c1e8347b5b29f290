/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options of a subcommand (see cli_options.h). */
#include "cli_options.h"

#include <errno.h>
#include <stdio.h>

static int usage_error(const struct cli_command *c) {
  if (c->usage_on_error)
    fputs(c->usage, stderr);
  return -EINVAL;
}

int cli_options_read(const struct cli_command *c, int argc, char **argv,
                     cli_option_fn *set, void *ctx) {
  int opt;
  while ((opt = getopt_long(argc, argv, "h", c->table, NULL)) != -1) {
    if (opt == 'h') {
      fputs(c->usage, stdout);
      return 1;
    }
    if (opt == '?' || set(ctx, opt, optarg) != 0)
      return usage_error(c);
  }
  if (optind != argc) {
    fprintf(stderr, "%s: unexpected argument '%s'\n", c->name, argv[optind]);
    return usage_error(c);
  }
  return 0;
}
