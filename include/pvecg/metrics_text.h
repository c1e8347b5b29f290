/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The newest row of many files as one Prometheus scrape: every metric
 * family once, with its HELP and TYPE, then its sample of each file, in
 * Prometheus' text format (0.0.4, times in milliseconds) or OpenMetrics
 * (1.0.0, times in seconds, counters' families named without _total,
 * "# EOF" at the end).  Names and the `id` label are those of
 * `pvecg export --format openmetrics` (export_names.h):
 *
 *   # HELP pve_memory_host_bytes Memory used on the host ...
 *   # TYPE pve_memory_host_bytes gauge
 *   pve_memory_host_bytes{id="qemu/100"} 1073741824 1700000060000
 *
 * Guests and nodes share a family where prometheus-pve-exporter does
 * (pve_memory_usage_bytes holds both), so the families are written across
 * all files, not file by file.  A value that is unknown is left out.
 */
#ifndef PVECG_METRICS_TEXT_H
#define PVECG_METRICS_TEXT_H

#include "pvecg/export_format.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* One file's newest row. */
struct metrics_file {
  enum export_kind kind;
  const char *id; /* the label: "qemu/100", "lxc/101", "node/pve1" */
  const struct rrd_layout *layout;
  time_t time;          /* of the row */
  const double *values; /* layout->ds_count of them, NAN unknown */
};

/* What a guest's configuration says (pve_guest_info). */
struct metrics_guest {
  const char *id, *node, *name, *type;
};

/* format: EXPORT_PROMETHEUS or EXPORT_OPENMETRICS. */
void metrics_text_files(FILE *out, enum export_format format,
                        const struct metrics_file *files, size_t count);

/* pve_guest_info{id,node,name,type} 1 for each guest. */
void metrics_text_guests(FILE *out, const struct metrics_guest *guests,
                         size_t count);

/* A gauge family of one label: name{label="keys[i]"} values[i]. */
void metrics_text_gauge(FILE *out, const char *name, const char *help,
                        const char *label, const char *const *keys,
                        const double *values, size_t count);

/* What ends the scrape ("# EOF" for OpenMetrics). */
void metrics_text_end(FILE *out, enum export_format format);

#endif
