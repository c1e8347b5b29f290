/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads what rrddata.h's plan says and writes it (see rrddata_print.h).
 */
#include "pvecg/rrddata_print.h"

#include "pvecg/json_writer.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrddata.h"

#include <errno.h>
#include <stdio.h>

static int fetch(const struct view_source *src, const char *path,
                 const struct rrddata_window *window, enum rrd_cf cf,
                 struct rrd_series *ret, char *err, size_t err_size) {
  struct rrd_fetch_request req = {
      .path = path,
      .daemon = src->daemon,
      .cf = cf,
      .resolution = window->resolution,
      .start = window->start,
      .end = window->end,
  };
  char why[512];
  int r = rrd_fetch_series(&req, ret, why, sizeof(why));
  if (r != 0)
    snprintf(err, err_size, "%s: %s", path, why);
  return r != 0 ? -EIO : 0;
}

/* What to fetch: a legacy file itself is read with its own table and no
 * join; a 9.0 file is joined with its legacy file when that has history
 * the window wants; pvecg's KSM files, which have none, with the 9.0
 * table alone. */
static int plan_rows(const struct view_args *args,
                     const struct view_source *src, char *legacy_path,
                     size_t size, struct rrddata_plan *plan, char *err,
                     size_t err_size) {
  char why[512];
  time_t last;
  int r = view_source_legacy(src, legacy_path, size, &last, why, sizeof(why));
  if (r == -EIO) {
    snprintf(err, err_size, "%s: %s", legacy_path, why);
    return r;
  }
  if (src->layout == &layout_pve2_vm || src->layout == &layout_pve2_node) {
    *plan = (struct rrddata_plan){0};
    rrddata_window(args->timeframe, true, args->now, &plan->current);
  } else {
    rrddata_plan(args->timeframe, args->now, r == 0 ? &last : NULL, plan);
  }
  return 0;
}

/* Fetches the legacy part (if the plan has one) into *legacy, then the
 * 9.0 part into *current. */
static int read_rows(const struct view_args *args,
                     const struct view_source *src, struct rrd_series *legacy,
                     bool *has_legacy, struct rrd_series *current, char *err,
                     size_t err_size) {
  char legacy_path[sizeof(src->path) + 8];
  struct rrddata_plan plan;
  if (plan_rows(args, src, legacy_path, sizeof(legacy_path), &plan, err,
                err_size) != 0)
    return -EIO;
  *has_legacy = plan.use_legacy;
  if (plan.use_legacy && fetch(src, legacy_path, &plan.legacy, args->cf, legacy,
                               err, err_size) != 0)
    return -EIO;
  int r =
      fetch(src, src->path, &plan.current, args->cf, current, err, err_size);
  if (r != 0 && plan.use_legacy)
    rrd_series_free(legacy);
  return r;
}

int rrddata_read(const struct view_args *args, const struct view_source *src,
                 struct rrddata_rows *ret, char *err, size_t err_size) {
  *ret = (struct rrddata_rows){.node = src->layout == &layout_pve_node_9_0 ||
                                       src->layout == &layout_pve2_node};
  return read_rows(args, src, &ret->legacy, &ret->has_legacy, &ret->current,
                   err, err_size) != 0
             ? -EIO
             : 0;
}

void rrddata_rows_write(const struct rrddata_rows *rows, FILE *out) {
  struct json_writer w;
  json_writer_init(&w, out);
  rrddata_write(&w, rows->has_legacy ? &rows->legacy : NULL, &rows->current,
                rows->node);
}

void rrddata_rows_free(struct rrddata_rows *rows) {
  rrd_series_free(&rows->legacy);
  rrd_series_free(&rows->current);
  *rows = (struct rrddata_rows){0};
}

int rrddata_print(const struct view_args *args, const struct view_source *src,
                  FILE *out, char *err, size_t err_size) {
  struct rrddata_rows rows;
  if (rrddata_read(args, src, &rows, err, err_size) != 0)
    return -EIO;
  rrddata_rows_write(&rows, out);
  rrddata_rows_free(&rows);
  return 0;
}
