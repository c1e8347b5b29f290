/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rrddata rules of Proxmox's API as plain computations (see
 * rrddata.h): the timeframe tables, the windows, the legacy join and the
 * JSON rows.  Nothing here reads a file, so the unit test pins every rule
 * with exact numbers.
 */
#include "pvecg/rrddata.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct timeframe_span {
  const char *name;
  unsigned long resolution; /* seconds per row */
  unsigned long rows;
};

/* PVE 9's table for 9.0 files; decade is meant for nodes in PVE, but a
 * guest's 9.0 file has the same weekly archive, so it is allowed for both. */
static const struct timeframe_span spans_9_0[] = {
    [RRDDATA_HOUR] = {"hour", 60, 60},
    [RRDDATA_DAY] = {"day", 60, 1440},
    [RRDDATA_WEEK] = {"week", 1800, 336},
    [RRDDATA_MONTH] = {"month", 1800, 1440},
    [RRDDATA_YEAR] = {"year", 21600, 1440},
    [RRDDATA_DECADE] = {"decade", 604800, 570},
};

/* The pve2 table (PVE <= 8, and PVE 9 for legacy files); no decade. */
static const struct timeframe_span spans_pve2[] = {
    [RRDDATA_HOUR] = {"hour", 60, 60},
    [RRDDATA_DAY] = {"day", 1800, 70},
    [RRDDATA_WEEK] = {"week", 10800, 70},
    [RRDDATA_MONTH] = {"month", 43200, 70},
    [RRDDATA_YEAR] = {"year", 604800, 70},
};

#define SPAN_COUNT(a) (sizeof(a) / sizeof((a)[0]))

int rrddata_timeframe_parse(const char *name, enum rrddata_timeframe *ret) {
  for (size_t i = 0; name != NULL && i < SPAN_COUNT(spans_9_0); i++)
    if (strcmp(name, spans_9_0[i].name) == 0) {
      *ret = (enum rrddata_timeframe)i;
      return 0;
    }
  return -EINVAL;
}

void rrddata_window(enum rrddata_timeframe timeframe, bool legacy, time_t now,
                    struct rrddata_window *ret) {
  const struct timeframe_span *span;
  if (legacy)
    span = &spans_pve2[timeframe == RRDDATA_DECADE ? RRDDATA_YEAR : timeframe];
  else
    span = &spans_9_0[timeframe];
  time_t reso = (time_t)span->resolution;
  /* floor, also for a (nonsensical) negative now */
  time_t ctime = reso * (now / reso - (now % reso < 0 ? 1 : 0));
  *ret = (struct rrddata_window){
      .resolution = span->resolution,
      .start = ctime - reso * (time_t)span->rows,
      .end = ctime - 1,
  };
}

void rrddata_plan(enum rrddata_timeframe timeframe, time_t now,
                  const time_t *legacy_last, struct rrddata_plan *ret) {
  struct rrddata_plan plan = {0};
  rrddata_window(timeframe, false, now, &plan.current);
  if (legacy_last != NULL && plan.current.start < *legacy_last) {
    plan.use_legacy = true;
    rrddata_window(timeframe, true, now, &plan.legacy);
    plan.legacy.end = *legacy_last;
    plan.current.start = *legacy_last;
    /* a legacy file updated after the window's end (decade ends at the
     * last whole week): an empty 9.0 part rather than a start after the
     * end, which librrd refuses */
    if (plan.legacy.start > plan.legacy.end)
      plan.legacy.start = plan.legacy.end;
    if (plan.current.start > plan.current.end)
      plan.current.start = plan.current.end;
  }
  *ret = plan;
}

/* ---- which files -------------------------------------------------------- */

/* The directory name of path's file: [*dir, *dir + *len). */
static int parent_name(const char *path, const char **dir, size_t *len) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL || slash == path)
    return -EINVAL;
  const char *begin = slash;
  while (begin > path && begin[-1] != '/')
    begin--;
  *dir = begin;
  *len = (size_t)(slash - begin);
  return 0;
}

const struct rrd_layout *rrddata_path_layout(const char *path) {
  const char *dir;
  size_t len;
  if (path == NULL || parent_name(path, &dir, &len) != 0)
    return NULL;
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (strlen(rrd_layouts[i]->name) == len &&
        memcmp(rrd_layouts[i]->name, dir, len) == 0)
      return rrd_layouts[i];
  return NULL;
}

const struct rrd_layout *
rrddata_legacy_layout(const struct rrd_layout *layout) {
  if (layout == &layout_pve_vm_9_0)
    return &layout_pve2_vm;
  if (layout == &layout_pve_node_9_0)
    return &layout_pve2_node;
  return NULL;
}

int rrddata_legacy_path(const char *path, const char *suffix, char *buf,
                        size_t size) {
  const struct rrd_layout *legacy =
      rrddata_legacy_layout(rrddata_path_layout(path));
  if (legacy == NULL)
    return -EINVAL;
  const char *dir = NULL;
  size_t len = 0;
  if (parent_name(path, &dir, &len) != 0)
    return -EINVAL;
  const char *name = dir + len + 1;
  /* "<prefix><legacy>/<name><suffix>", prefix being what precedes dir */
  int n = snprintf(buf, size, "%.*s%s/%s%s", (int)(dir - path), path,
                   legacy->name, name, suffix);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* ---- rows --------------------------------------------------------------- */

bool rrddata_row_empty(const struct rrd_series *series, size_t i) {
  const double *row = rrd_series_row(series, i);
  for (size_t c = 0; c < series->ds_count; c++)
    if (!isnan(row[c]))
      return false;
  return true;
}

size_t rrddata_legacy_rows(const struct rrd_series *legacy,
                           const struct rrd_series *current) {
  if (current == NULL || current->row_count == 0)
    return legacy->row_count;
  /* by where rows begin: the two files' rows differ in length */
  time_t first = rrd_series_row_start(current, 0);
  size_t n = 0;
  while (n < legacy->row_count && rrd_series_row_start(legacy, n) < first)
    n++;
  return n;
}

static void write_row(struct json_writer *w, const struct rrd_series *series,
                      size_t i, bool node) {
  const double *row = rrd_series_row(series, i);
  bool alias = node && rrd_series_ds_index(series, "memavailable") < 0;
  json_begin_object(w);
  json_key(w, "time");
  json_int(w, (int64_t)rrd_series_time(series, i));
  for (size_t c = 0; c < series->ds_count; c++) {
    if (isnan(row[c]))
      continue;
    json_key(w, series->ds_names[c]);
    json_number(w, row[c]);
    if (alias && strcmp(series->ds_names[c], "memfree") == 0) {
      json_key(w, "memavailable");
      json_number(w, row[c]);
    }
  }
  json_end_object(w);
}

void rrddata_write(struct json_writer *w, const struct rrd_series *legacy,
                   const struct rrd_series *current, bool node) {
  size_t old_rows = legacy != NULL ? rrddata_legacy_rows(legacy, current) : 0;
  size_t rows = current->row_count;
  /* the newest row, when it holds nothing yet, is not shown */
  if (rows > 0 && rrddata_row_empty(current, rows - 1))
    rows--;
  else if (rows == 0 && old_rows > 0 && rrddata_row_empty(legacy, old_rows - 1))
    old_rows--;
  json_begin_object(w);
  json_key(w, "data");
  json_begin_array(w);
  for (size_t i = 0; i < old_rows; i++)
    write_row(w, legacy, i, node);
  for (size_t i = 0; i < rows; i++)
    write_row(w, current, i, node);
  json_end_array(w);
  json_end_object(w);
}
