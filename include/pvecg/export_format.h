/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text forms of `pvecg export`: one stored RRD row becomes Graphite
 * plaintext lines, one InfluxDB line-protocol line, a CSV record or a JSON
 * line.  Pure formatting onto a stdio stream, so the same code feeds
 * stdout and the network sender, and the unit tests compare exact text.
 *
 * With Proxmox's names (the default) graphite and influx rows are written
 * by export_pve.h, OpenMetrics by export_openmetrics.h.  The RRD's own
 * names (`--names pvecg`, stable, documented in pvecg-export(1)) use only
 * what a file knows, its layout and its name (a VMID or a node name):
 *   graphite  <prefix>.vm.<vmid>.<ds> <value> <time>
 *             <prefix>.node.<name>.<ds> <value> <time>
 *   influx    <prefix>_vm,vmid=<vmid> <ds>=<value>,... <time in ns>
 *             <prefix>_node,node=<name> <ds>=<value>,... <time in ns>
 *   csv       file,time,<ds>...   (a header before each file's records)
 *   json      {"file":..,"vmid":<n>|"node":..,"time":..,"step":..,
 *              "<ds>":<value>,..}  ("step": the row's resolution in s)
 * A file of a named cluster (data_clusters.h) carries its cluster: the
 * Graphite path level right after the prefix (<prefix>.<cluster>.vm...),
 * the InfluxDB tag cluster=<cluster> after the others; in a data directory
 * with named clusters CSV has a first column "cluster" and JSON a field
 * "cluster" after "file", "" for the data directory's own files.  Without
 * named clusters nothing of it is written.
 * Unknown values (NaN) are left out, never written as 0, and a row whose
 * values are all unknown gives no output at all.  Values are written in
 * the shortest form that reads back as the same double.
 */
#ifndef PVECG_EXPORT_FORMAT_H
#define PVECG_EXPORT_FORMAT_H

#include "pvecg/export_names.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum export_format {
  EXPORT_GRAPHITE,
  EXPORT_INFLUX,
  EXPORT_CSV,
  EXPORT_JSON,
  EXPORT_OPENMETRICS, /* export_openmetrics.h: a whole file at a time */
  EXPORT_PROMETHEUS,  /* the same in Prometheus' text format */
};

enum export_kind {
  EXPORT_VM,   /* a guest's file: the name is its VMID */
  EXPORT_NODE, /* a node's file: the name is the node's */
};

/* Whose rows are formatted, and their columns. */
struct export_source {
  enum export_kind kind;
  const char *name;   /* the file's name: VMID or node name */
  const char *file;   /* "<layout>/<name>", how CSV and JSON name the file */
  const char *prefix; /* graphite path prefix / influx measurement prefix */
  const struct rrd_layout *layout; /* column names, in file order */
  /* How values are named (export_names.h); for EXPORT_NAMES_PVE also: */
  enum export_names names;
  const char *object;   /* "qemu", "lxc" or "nodes" */
  const char *nodename; /* a guest's node */
  const char *title;    /* a guest's name, "" when it has none */
  unsigned long step;   /* the rows' resolution in s (JSON says it), 0 */
  /* The file's cluster: NULL in a data directory without named clusters
   * (nothing said), "" for its own files (CSV/JSON say ""), else the
   * name, which every format says. */
  const char *cluster;
  /* InfluxDB: a row's time in the unit the target's URL asks for
   * (precision=): units per second, 1 (s) to 10^9 (ns, also 0). */
  int64_t time_scale;
};

/* The source's time_scale, 0 read as nanoseconds. */
#define EXPORT_NS_PER_S INT64_C(1000000000)
#define export_time_scale(src)                                                 \
  ((src)->time_scale > 0 ? (src)->time_scale : EXPORT_NS_PER_S)

/* Whether the source's points carry a cluster's name (tag, label, path). */
#define EXPORT_SOURCE_CLUSTERED(src)                                           \
  ((src)->cluster != NULL && (src)->cluster[0] != '\0')

/* What was written for a row. */
struct export_count {
  size_t lines;  /* text lines (graphite: one per value) */
  size_t values; /* known values */
};

/* Parses "graphite", "influx", "csv", "json", "openmetrics" or
 * "prometheus".  Returns 0 or -EINVAL. */
int export_format_parse(const char *name, enum export_format *ret);

/* Why prefix cannot be a metric prefix (empty, longer than 64 bytes, a
 * character other than letters, digits, '_', '-' and inner single dots),
 * or NULL when it can. */
const char *export_prefix_problem(const char *prefix);

/* Writes what precedes a file's rows: CSV's header line, nothing for the
 * other formats.  Returns 0. */
int export_format_header(enum export_format format,
                         const struct export_source *src, FILE *out);

/*
 * Writes the row of the source's layout->ds_count values ending at time t.
 * Returns 0 and what was written in *ret (zero lines for an all-unknown
 * row); -EINVAL when the source cannot be written in this format (e.g. a
 * newline in an InfluxDB tag value, a VM name that is not a VMID),
 * -ERANGE when t in nanoseconds does not fit InfluxDB's 64-bit time.
 * Nothing is written on error.
 */
int export_format_row(enum export_format format,
                      const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret);

#endif
