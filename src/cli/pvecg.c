/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg: look at what the pve_cgroup/pve_rrd plugins record and move it
 * elsewhere, without scripts around rrdtool.  This file only dispatches to
 * the subcommands (commands.h); they are built from the same libraries as
 * the plugins, so the layouts and parsers exist once.
 */
#include "commands.h"

#include <stdio.h>
#include <string.h>

struct subcommand {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct subcommand subcommands[] = {
    {"sample", cmd_sample,
     "one sample of every guest's cgroup, as a table or JSON"},
    {"rrddata", cmd_rrddata, "a file's rows as the Proxmox API's rrddata JSON"},
    {"graph", cmd_graph,
     "a PNG of a guest's or node's memory, pressure, cpu, net or disk"},
    {"export", cmd_export,
     "history as Graphite, InfluxDB line protocol, CSV or JSON"},
    {"ship", cmd_ship,
     "keeps a store fed with every row, and catches up after an outage"},
    {"check", cmd_check, "which layout a file has, or how it differs"},
    {"serve", cmd_serve,
     "the files over HTTP: Proxmox's rrddata API and a page of graphs"},
};

static void usage(FILE *out) {
  fputs("usage: pvecg <command> [options]   (pvecg <command> --help)\n\n"
        "commands:\n",
        out);
  for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
    fprintf(out, "  %-8s  %s\n", subcommands[i].name, subcommands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return PVECG_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return PVECG_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("pvecg %s\n", PVECG_VERSION);
    return PVECG_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
    if (strcmp(argv[1], subcommands[i].name) == 0)
      return subcommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "pvecg: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return PVECG_EXIT_USAGE;
}
