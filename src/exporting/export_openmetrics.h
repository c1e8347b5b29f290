/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file's history in Prometheus' names (export_names.h) as OpenMetrics
 * text, which `promtool tsdb create-blocks-from openmetrics` turns into
 * blocks, or as Prometheus' text format, which VictoriaMetrics'
 * /api/v1/import/prometheus takes:
 *
 *   # HELP pve_memory_usage_bytes Used memory in bytes
 *   # TYPE pve_memory_usage_bytes gauge
 *   pve_memory_usage_bytes{id="qemu/100"} 1073741824 1700000060
 *   # TYPE pve_network_receive_bytes_total unknown
 *   pve_network_receive_bytes_total{id="qemu/100"} 0 1700000060
 *   # TYPE pve_network_receive_bytes gauge
 *   pve_network_receive_bytes{id="qemu/100"} 0 1700000060
 *   ...
 *   # EOF
 *
 * A byte counter is written as prometheus-pve-exporter 3.8 serves it:
 * the counter (X_total) and, deprecated, the gauge it had before under
 * its older name, of the same values; in OpenMetrics the counter's
 * family is then `unknown`, as the gauge owns the name X (/metrics does
 * the same, metrics_text.h).  A counter without an older name is a
 * counter, its OpenMetrics family named without _total.
 *
 * The id label is prometheus-pve-exporter's ("qemu/100", "lxc/101",
 * "node/pve1").  A file's rows are gathered first, so each metric of the
 * file is one run of samples in time order; the next file repeats the
 * metric's HELP and TYPE (promtool and VictoriaMetrics take that; strict
 * OpenMetrics would want every family once, which would mean reading every
 * file once per metric).  Times are seconds in OpenMetrics, milliseconds
 * in Prometheus' text format, which has no "# EOF" and gives a counter's
 * HELP and TYPE under its sample name (pve_network_receive_bytes_total).
 * Pressure is a ratio (the RRD's percent / 100); counters must already be in
 * the rows (export_counter.h: stall totals in seconds, PSI's some line
 * as node_exporter's waiting, its full line as stalled):
 *
 *   # TYPE pve_pressure_cpu_waiting_seconds_total counter
 *   pve_pressure_cpu_waiting_seconds_total{id="qemu/100"} 0 ..
 *   # TYPE pve_pressure_cpu_stalled_seconds_total counter
 *   pve_pressure_cpu_stalled_seconds_total{id="qemu/100"} 0 ..
 *
 * A guest's file with a configuration also gives pve_guest_info (below).
 */
#ifndef PVECG_EXPORT_OPENMETRICS_H
#define PVECG_EXPORT_OPENMETRICS_H

#include "pvecg/export_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

struct export_series {
  const struct rrd_layout *layout; /* the file's (widest) layout */
  size_t count, capacity;
  time_t *time;
  double *value; /* count x layout->ds_count */
};

/* Starts gathering a file's rows of layout. */
void export_series_begin(struct export_series *s,
                         const struct rrd_layout *layout);

/* Adds a row of n <= layout->ds_count values (a legacy file's columns are
 * the first ones of the current layout; the rest stay unknown).  Returns 0
 * or -ENOMEM. */
int export_series_add(struct export_series *s, time_t t, const double *values,
                      size_t n);

/* Writes every metric of the gathered rows of src (its kind, name and
 * object), in `format` (EXPORT_OPENMETRICS or EXPORT_PROMETHEUS), and
 * forgets the rows.  Returns 0 with what was written in *ret. */
int export_series_write(struct export_series *s, enum export_format format,
                        const struct export_source *src, FILE *out,
                        struct export_count *ret);

/* Who a guest is (its configuration): the labels of its pve_guest_info
 * after id and cluster, as /metrics gives them (type is the source's
 * object). */
struct export_guest_info {
  const char *node, *name, *tags;
  bool template;
};

/* pve_guest_info{id,[cluster,]node,name,type,template,tags} 1 at each
 * gathered row of src's guest that has a known value, after its HELP and
 * TYPE, in `format`: the series rules join to a guest's values for its
 * name and node, at the times of those values, since an exported history
 * has no scrape that states it now.  Returns the samples written. */
size_t export_series_write_info(const struct export_series *s,
                                enum export_format format,
                                const struct export_source *src,
                                const struct export_guest_info *info,
                                FILE *out);

/* A metric family of a file's rows as a form that carries samples, not
 * text, names it (Prometheus remote write): its samples' name (X_total
 * for a counter, then its older gauge), its column and naming. */
struct export_family {
  char name[128];
  size_t column;
  const struct export_metric *metric;
};
#define EXPORT_FAMILIES_MAX (2 * RRD_LAYOUT_DS_MAX)

/* The families of src's rows, in the text's order; returns how many. */
size_t export_series_families(const struct export_series *s,
                              const struct export_source *src,
                              struct export_family out[EXPORT_FAMILIES_MAX]);

/* A sample's value in family f (a gauge in Prometheus' unit, a counter
 * as rebuilt). */
double export_family_value(const struct export_family *f, double v);

void export_series_free(struct export_series *s);

/* What ends an OpenMetrics text ("# EOF"), nothing for Prometheus'. */
void export_series_end(enum export_format format, FILE *out);

#endif
