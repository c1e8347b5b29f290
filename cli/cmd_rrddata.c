/*
 * pvecg rrddata: a file's rows as the JSON Proxmox's rrddata API returns
 * for it, so the web UI's data (or a script written for the API) can be
 * had from our files.  The rules are in rrddata.h; this file reads the
 * files (the legacy pve2 file first, when its history is wanted) and
 * prints.
 */
#include "commands.h"
#include "json_writer.h"
#include "rrd_fetch.h"
#include "rrddata.h"
#include "view_source.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#define CMD "pvecg rrddata"

static const char usage_text[] =
    "usage: pvecg rrddata --timeframe hour|day|week|month|year|decade\n"
    "                     [--cf AVERAGE|MAX]\n"
    "                     (--vmid VMID | --node NAME | --file PATH)\n"
    "                     [--data-dir DIR] [--daemon ADDRESS] [--now EPOCH]\n"
    "\n"
    "Prints the rows of a pve-vm-9.0/pve-node-9.0 file as Proxmox's rrddata\n"
    "API does: {\"data\":[{\"time\":...,\"<ds>\":...},...]}, joined with the\n"
    "older rows of its pve2 file when there is one.\n"
    "  --data-dir DIR   where --vmid/--node files are (" PVECG_DEFAULT_DATA_DIR
    ")\n"
    "  --daemon ADDRESS read through rrdcached (unix:/path or host[:port])\n"
    "  --now EPOCH      take this time as now\n"
    "See pvecg-rrddata(1).\n";

static int fetch(const struct view_source *src, const char *path,
                 const struct rrddata_window *window, enum rrd_cf cf,
                 struct rrd_series *ret) {
  struct rrd_fetch_request req = {
      .path = path,
      .daemon = src->daemon,
      .cf = cf,
      .resolution = window->resolution,
      .start = window->start,
      .end = window->end,
  };
  char err[512];
  int r = rrd_fetch_series(&req, ret, err, sizeof(err));
  if (r != 0)
    fprintf(stderr, CMD ": %s: %s\n", path, err);
  return r;
}

/* Plans and fetches the legacy part (if any) into *legacy, then the 9.0
 * part into *current. */
static int read_rows(const struct view_args *args,
                     const struct view_source *src, struct rrd_series *legacy,
                     bool *has_legacy, struct rrd_series *current) {
  char legacy_path[sizeof(src->path) + 8], err[512];
  time_t last;
  int r = view_source_legacy(src, legacy_path, sizeof(legacy_path), &last, err,
                             sizeof(err));
  if (r == -EIO) {
    fprintf(stderr, CMD ": %s: %s\n", legacy_path, err);
    return r;
  }
  struct rrddata_plan plan;
  if (src->layout != NULL && rrddata_legacy_layout(src->layout) == NULL) {
    /* a legacy file itself: its own table, no join */
    plan = (struct rrddata_plan){0};
    rrddata_window(args->timeframe, true, args->now, &plan.current);
  } else {
    rrddata_plan(args->timeframe, args->now, r == 0 ? &last : NULL, &plan);
  }
  *has_legacy = plan.use_legacy;
  if (plan.use_legacy &&
      fetch(src, legacy_path, &plan.legacy, args->cf, legacy) != 0)
    return -EIO;
  r = fetch(src, src->path, &plan.current, args->cf, current);
  if (r != 0 && plan.use_legacy)
    rrd_series_free(legacy);
  return r;
}

static int run(const struct view_args *args) {
  struct view_source src;
  if (view_source_resolve(args, CMD, &src) != 0)
    return PVECG_EXIT_USAGE;
  struct rrd_series legacy = {0}, current = {0};
  bool has_legacy = false;
  if (read_rows(args, &src, &legacy, &has_legacy, &current) != 0)
    return PVECG_EXIT_FAILURE;
  bool node =
      src.layout == &layout_pve_node_9_0 || src.layout == &layout_pve2_node;
  struct json_writer w;
  json_writer_init(&w, stdout);
  rrddata_write(&w, has_legacy ? &legacy : NULL, &current, node);
  fputc('\n', stdout);
  rrd_series_free(&legacy);
  rrd_series_free(&current);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return PVECG_EXIT_OK;
}

int cmd_rrddata(int argc, char **argv) {
  static const struct option options[] = {
      VIEW_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  struct view_args args;
  view_args_init(&args);
  int opt;
  while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (opt == 'h') {
      fputs(usage_text, stdout);
      return PVECG_EXIT_OK;
    }
    if (opt == '?' || view_args_set(&args, opt, optarg, CMD) != 0) {
      fputs(usage_text, stderr);
      return PVECG_EXIT_USAGE;
    }
  }
  if (optind != argc) {
    fprintf(stderr, CMD ": unexpected argument '%s'\n", argv[optind]);
    return PVECG_EXIT_USAGE;
  }
  return run(&args);
}
