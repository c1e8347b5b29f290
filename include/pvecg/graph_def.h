/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The graphs of `pvecg graph`: for a guest and for the node, which data
 * sources each graph draws, with the Proxmox UI's legends, scale (cpu and
 * iowait as percent) and units; and the librrd graph arguments that draw
 * one.  Building the arguments does no I/O, so the unit test pins them.
 */
#ifndef PVECG_GRAPH_DEF_H
#define PVECG_GRAPH_DEF_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum graph_what {
  GRAPH_MEMORY,
  GRAPH_PRESSURE,
  GRAPH_CPU,
  GRAPH_NET,
  GRAPH_DISK,
};

/* Parses "memory", "pressure", "cpu", "net", "disk".  Returns 0 or -EINVAL. */
int graph_what_parse(const char *name, enum graph_what *ret);

#define GRAPH_LINES_MAX 6

struct graph_line {
  const char *ds;
  const char *legend;
  const char *color; /* "#rrggbb" */
  bool percent;      /* a fraction drawn as percent (x100) */
};

struct graph_def {
  const char *title;
  const char *unit; /* the vertical label */
  unsigned base;    /* 1024 for memory sizes, else 1000 */
  struct graph_line lines[GRAPH_LINES_MAX];
  size_t line_count;
};

/* The graph of what for a guest (node false) or a node. */
const struct graph_def *graph_def_get(enum graph_what what, bool node);

struct graph_request {
  const char *out;  /* the PNG's path */
  const char *path; /* the 9.0 file */
  const char *name; /* for the title, e.g. "100" */
  const char *timeframe;
  enum rrd_cf cf;
  time_t start, end;
  unsigned long step;
  unsigned width, height;
  const char *daemon; /* or NULL */
  /* The legacy file and its layout, drawn before legacy_last (lines whose
   * data source it has); NULL for none. */
  const char *legacy_path;
  const struct rrd_layout *legacy_layout;
  time_t legacy_last;
};

/* The arguments of rrd_graph_v, argv[0] included, NULL-terminated. */
struct graph_args {
  int argc;
  char **argv;
};

/* Builds them into *ret (release with graph_args_free()).  Returns 0 or
 * -ENOMEM. */
int graph_args_build(const struct graph_def *def,
                     const struct graph_request *req, struct graph_args *ret);

void graph_args_free(struct graph_args *args);

#endif
