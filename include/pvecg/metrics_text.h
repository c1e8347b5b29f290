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
 * Each counter also appears as a gauge under the exporter's older name
 * (pve_network_receive_bytes, pve_disk_write_bytes, ...), for old
 * dashboards; in OpenMetrics its _total family is then typed `unknown`,
 * as a counter family would own the older name.
 *
 * A data directory that keeps several clusters apart has a guest 196 in
 * more than one: the _cluster_ forms take each file's (and guest's)
 * cluster, clusters[i] for files[i], and add a `cluster` label after `id`
 * to every series of a file of a named cluster, so that no two files give
 * one series.  NULL clusters, or a NULL or "" entry, add no label: the
 * files of the data directory itself keep the series they always had.
 */
#ifndef PVECG_METRICS_TEXT_H
#define PVECG_METRICS_TEXT_H

#include "pvecg/export_format.h"
#include "pvecg/rrd_layout.h"

#include <stdbool.h>
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
  bool stale;           /* no fresh row: only pve_up 0, no values */
  bool beside;          /* a file beside the guest's or node's own (its KSM
                           file): its values only, never its pve_up or
                           pve_node_info, which the own file gives */
};

/* What a guest's configuration says (pve_guest_info,
 * pve_guest_balloon_min_bytes). */
struct metrics_guest {
  const char *id, *node, *name, *type;
  bool template;
  const char *tags;   /* as the configuration writes them; NULL: "" */
  double balloon_min; /* a VM's `balloon` in bytes (0: off; absent, its
                         memory); NAN for a container or when malformed */
};

/* format: EXPORT_PROMETHEUS or EXPORT_OPENMETRICS. */
void metrics_text_files(FILE *out, enum export_format format,
                        const struct metrics_file *files, size_t count);
void metrics_text_cluster_files(FILE *out, enum export_format format,
                                const struct metrics_file *files,
                                const char *const *clusters, size_t count);

/* pve_guest_info{id,node,name,type,template,tags} 1 for each guest
 * (template "1" or "0"), then pve_guest_balloon_min_bytes{id} for each
 * guest with a known balloon minimum.  Both without a time: they state
 * the configuration at the scrape. */
void metrics_text_guests(FILE *out, const struct metrics_guest *guests,
                         size_t count);
void metrics_text_cluster_guests(FILE *out, const struct metrics_guest *guests,
                                 const char *const *clusters, size_t count);

/* pve_up{id} for each file: 1 when it has a fresh row, 0 when stale;
 * none for a file beside another (metrics_file.beside). */
void metrics_text_up(FILE *out, const struct metrics_file *files, size_t count);
void metrics_text_cluster_up(FILE *out, const struct metrics_file *files,
                             const char *const *clusters, size_t count);

/* pve_node_info{id,level,name,nodeid} 1 for each node's file (id
 * "node/NAME"); level and nodeid are empty, as no RRD file holds them. */
void metrics_text_nodes(FILE *out, const struct metrics_file *files,
                        size_t count);
void metrics_text_cluster_nodes(FILE *out, const struct metrics_file *files,
                                const char *const *clusters, size_t count);

/* A gauge family of one label: name{label="keys[i]"} values[i]. */
void metrics_text_gauge(FILE *out, const char *name, const char *help,
                        const char *label, const char *const *keys,
                        const double *values, size_t count);

/* What ends the scrape ("# EOF" for OpenMetrics). */
void metrics_text_end(FILE *out, enum export_format format);

#endif
