/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every text form of the export is written from: whose rows (a
 * guest's or a node's file, its names, its cluster, the time's unit) and
 * what a row gave.  Below the forms themselves (export_format.h, and
 * Proxmox's export_pve.h beside it), so that each form is written from
 * the same source without calling the others.
 */
#ifndef PVECG_EXPORT_SOURCE_H
#define PVECG_EXPORT_SOURCE_H

#include "pvecg/export_names.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <stdint.h>

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
  /* The layout's columns named (export_columns_of()) once for the file;
   * NULL: named for each row. */
  const struct export_columns *columns;
  /* How values are named (export_names.h); for EXPORT_NAMES_PVE also: */
  enum export_names names;
  const char *object;   /* "qemu", "lxc" or "nodes" */
  const char *nodename; /* a guest's node */
  const char *title;    /* a guest's name, "" when it has none */
  unsigned long step;   /* the rows' resolution in s (JSON says it), 0 */
  /* The file's cluster: NULL in a data directory without named clusters
   * (no label), "" for its own files (CSV/JSON say ""), else the
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

/* Why prefix cannot be a metric prefix (empty, longer than 64 bytes, a
 * character other than letters, digits, '_', '-' and inner single dots),
 * or NULL when it can. */
const char *export_prefix_problem(const char *prefix);

#endif
