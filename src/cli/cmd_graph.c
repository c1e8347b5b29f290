/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg graph: a PNG of one of the Proxmox UI's graphs of a guest or of
 * the node (graph_def.h), drawn by librrd over the same window `pvecg
 * rrddata` prints for the timeframe, with the legacy pve2 file's history
 * before its last update when the window reaches into it.
 */
#include "commands.h"
#include "cli_number.h"
#include "cli_options.h"
#include "pvecg/graph_def.h"
#include "pvecg/rrddata.h"
#include "pvecg/view_source.h"
#include "view_cluster.h"

#include <rrd.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg graph"

#define GRAPH_DEFAULT_WIDTH 800
#define GRAPH_DEFAULT_HEIGHT 300
#define GRAPH_SIZE_MIN 64
#define GRAPH_SIZE_MAX 8192

static const char usage_text[] =
    "usage: pvecg graph --what memory|pressure|cpu|net|disk --out FILE.png\n"
    "                   --timeframe hour|day|week|month|year|decade\n"
    "                   [--cf AVERAGE|MAX]\n"
    "                   (--vmid VMID | --node NAME | --file PATH)\n"
    "                   [--cluster NAME] [--width W] [--height H]\n"
    "                   [--data-dir DIR] [--daemon ADDRESS] [--now EPOCH]\n"
    "\n"
    "Draws a guest's or the node's graph as the Proxmox UI shows it, as a\n"
    "PNG of exactly W x H pixels (default 800 x 300).  --cluster NAME: the\n"
    "file of --vmid/--node in the cluster NAME (<data dir>/NAME); without\n"
    "it the data directory's own, else the one cluster that has it.\n"
    "See pvecg-graph(1).\n";

enum { OPT_WHAT = 0x200, OPT_OUT, OPT_WIDTH, OPT_HEIGHT };

struct graph_opts {
  struct view_args view;
  const char *timeframe_name;
  const char *out;
  bool has_what;
  enum graph_what what;
  unsigned width, height;
};

static int parse_size(const char *value, unsigned *ret) {
  uint64_t v = 0;
  if (cli_count(value, GRAPH_SIZE_MIN, GRAPH_SIZE_MAX, &v) < 0)
    return -EINVAL;
  *ret = (unsigned)v;
  return 0;
}

static int set_graph_option(struct graph_opts *o, int opt, const char *value) {
  switch (opt) {
  case OPT_WHAT:
    o->has_what = true;
    return graph_what_parse(value, &o->what);
  case OPT_OUT:
    o->out = value;
    return 0;
  case OPT_WIDTH:
    return parse_size(value, &o->width);
  case OPT_HEIGHT:
    return parse_size(value, &o->height);
  }
  return -ENOENT;
}

static int set_option(struct graph_opts *o, int opt, const char *value) {
  int r = set_graph_option(o, opt, value);
  if (r == -EINVAL)
    fprintf(stderr,
            CMD ": bad value '%s' (--what memory|pressure|cpu|net|disk, "
                "--width/--height %d..%d)\n",
            value, GRAPH_SIZE_MIN, GRAPH_SIZE_MAX);
  if (r != -ENOENT)
    return r;
  if (opt == VIEW_OPT_TIMEFRAME)
    o->timeframe_name = value;
  return view_args_set(&o->view, opt, value, CMD) == 0 ? 0 : -EINVAL;
}

/* The legacy file, when the window reaches into its history. */
static int find_legacy(const struct graph_opts *o,
                       const struct view_source *src, struct graph_request *req,
                       char *path, size_t size) {
  char err[512];
  time_t last;
  int r = view_source_legacy(src, path, size, &last, err, sizeof(err));
  if (r == -ENOENT)
    return 0;
  if (r != 0) {
    fprintf(stderr, CMD ": %s: %s\n", path, err);
    return r;
  }
  struct rrddata_plan plan;
  rrddata_plan(o->view.timeframe, o->view.now, &last, &plan);
  if (plan.use_legacy) {
    req->legacy_path = path;
    req->legacy_layout = rrddata_legacy_layout(src->layout);
    req->legacy_last = last;
  }
  return 0;
}

static int draw(const struct graph_def *def, const struct graph_request *req) {
  struct graph_args args;
  if (graph_args_build(def, req, &args) != 0) {
    fputs(CMD ": out of memory\n", stderr);
    return PVECG_EXIT_FAILURE;
  }
  rrd_clear_error();
  rrd_info_t *info = rrd_graph_v(args.argc, args.argv);
  graph_args_free(&args);
  if (info == NULL) {
    fprintf(stderr, CMD ": %s\n", rrd_get_error());
    return PVECG_EXIT_FAILURE;
  }
  rrd_info_free(info);
  return PVECG_EXIT_OK;
}

static int run(struct graph_opts *o) {
  struct view_source src;
  char cluster[RRD_FILE_NAME_MAX + 1];
  if (view_cluster_pick(&o->view, CMD, cluster) != 0 ||
      view_source_resolve(&o->view, CMD, &src) != 0)
    return PVECG_EXIT_USAGE;
  if (!o->has_what || o->out == NULL) {
    fprintf(stderr, CMD ": give --what and --out\n");
    return PVECG_EXIT_USAGE;
  }
  bool node =
      src.layout == &layout_pve_node_9_0 || src.layout == &layout_pve2_node;
  bool legacy_file =
      src.layout != NULL && rrddata_legacy_layout(src.layout) == NULL;
  struct rrddata_window window;
  rrddata_window(o->view.timeframe, legacy_file, o->view.now, &window);
  const char *slash = strrchr(src.path, '/');
  struct graph_request req = {
      .out = o->out,
      .path = src.path,
      .name = slash != NULL ? slash + 1 : src.path,
      .timeframe = o->timeframe_name,
      .cf = o->view.cf,
      .start = window.start,
      .end = window.end + 1,
      .step = window.resolution,
      .width = o->width,
      .height = o->height,
      .daemon = src.daemon,
  };
  char legacy_path[sizeof(src.path) + 8];
  if (find_legacy(o, &src, &req, legacy_path, sizeof(legacy_path)) != 0)
    return PVECG_EXIT_FAILURE;
  return draw(graph_def_get(o->what, node), &req);
}

static int take_option(void *o, int opt, const char *value) {
  return set_option(o, opt, value);
}

int cmd_graph(int argc, char **argv) {
  static const struct option options[] = {
      VIEW_OPTIONS,
      {"what", required_argument, NULL, OPT_WHAT},
      {"out", required_argument, NULL, OPT_OUT},
      {"width", required_argument, NULL, OPT_WIDTH},
      {"height", required_argument, NULL, OPT_HEIGHT},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  struct graph_opts o = {.width = GRAPH_DEFAULT_WIDTH,
                         .height = GRAPH_DEFAULT_HEIGHT};
  view_args_init(&o.view);
  static const struct cli_command command = {CMD, usage_text, options, true};
  int r = cli_options_read(&command, argc, argv, take_option, &o);
  if (r != 0)
    return r > 0 ? PVECG_EXIT_OK : PVECG_EXIT_USAGE;
  return run(&o);
}
