/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg rrddata: a file's rows as the JSON Proxmox's rrddata API returns
 * for it, so the web UI's data (or a script written for the API) can be
 * had from our files.  The rules are in rrddata.h, the reading in
 * rrddata_print.c (shared with `pvecg serve`); this file takes the options.
 */
#include "commands.h"
#include "cli_options.h"
#include "pvecg/rrddata_print.h"
#include "pvecg/view_source.h"
#include "view_cluster.h"

#include <getopt.h>
#include <stdio.h>

#define CMD "pvecg rrddata"

static const char usage_text[] =
    "usage: pvecg rrddata --timeframe hour|day|week|month|year|decade\n"
    "                     [--cf AVERAGE|MAX]\n"
    "                     (--vmid VMID | --node NAME | --file PATH)\n"
    "                     [--ksm | --pressure] [--cluster NAME] "
    "[--data-dir DIR]\n"
    "                     [--daemon ADDRESS] [--now EPOCH]\n"
    "\n"
    "Prints the rows of a pve-vm-9.0/pve-node-9.0 file as Proxmox's rrddata\n"
    "API does: {\"data\":[{\"time\":...,\"<ds>\":...},...]}, joined with the\n"
    "older rows of its pve2 file when there is one.\n"
    "  --ksm            the guest's or node's KSM file instead "
    "(pvecg-ksm-vm-1.0,\n"
    "                   pvecg-ksm-node-1.0), in the same JSON\n"
    "  --pressure       the guest's or node's stall-time file instead\n"
    "                   (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0):\n"
    "                   microseconds stalled per second\n"
    "  --cluster NAME   the cluster of --vmid/--node (<data dir>/NAME);\n"
    "                   without it: the data directory's own file, else the\n"
    "                   one cluster that has it\n"
    "  --data-dir DIR   where --vmid/--node files are (" PVECG_DEFAULT_DATA_DIR
    ")\n"
    "  --daemon ADDRESS read through rrdcached (unix:/path or host[:port])\n"
    "  --now EPOCH      take this time as now\n"
    "See pvecg-rrddata(1).\n";

enum { OPT_KSM = 0x200, OPT_PRESSURE };

static int run(struct view_args *args) {
  struct view_source src;
  char cluster[RRD_FILE_NAME_MAX + 1];
  if (view_cluster_pick(args, CMD, cluster) != 0 ||
      view_source_resolve(args, CMD, &src) != 0)
    return PVECG_EXIT_USAGE;
  char err[1024];
  if (rrddata_print(args, &src, stdout, err, sizeof(err)) != 0) {
    fprintf(stderr, CMD ": %s\n", err);
    return PVECG_EXIT_FAILURE;
  }
  fputc('\n', stdout);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return PVECG_EXIT_OK;
}

static int take_option(void *ctx, int opt, const char *value) {
  struct view_args *args = ctx;
  if (opt == OPT_KSM || opt == OPT_PRESSURE) {
    if (opt == OPT_KSM ? args->pressure : args->ksm) {
      fprintf(stderr, CMD ": --ksm and --pressure name different files; "
                          "give one\n");
      return -1;
    }
    *(opt == OPT_KSM ? &args->ksm : &args->pressure) = true;
    return 0;
  }
  return view_args_set(args, opt, value, CMD);
}

int cmd_rrddata(int argc, char **argv) {
  static const struct option options[] = {
      VIEW_OPTIONS,
      {"ksm", no_argument, NULL, OPT_KSM},
      {"pressure", no_argument, NULL, OPT_PRESSURE},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  struct view_args args;
  view_args_init(&args);
  static const struct cli_command command = {CMD, usage_text, options, true};
  int r = cli_options_read(&command, argc, argv, take_option, &args);
  if (r != 0)
    return r > 0 ? PVECG_EXIT_OK : PVECG_EXIT_USAGE;
  return run(&args);
}
