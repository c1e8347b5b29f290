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

#include "pvecg/export_source.h"

#include <stdio.h>
#include <time.h>

enum export_format {
  EXPORT_GRAPHITE,
  EXPORT_INFLUX,
  EXPORT_CSV,
  EXPORT_JSON,
  EXPORT_OPENMETRICS, /* export_openmetrics.h: a whole file at a time */
  EXPORT_PROMETHEUS,  /* the same in Prometheus' text format */
  /* the same series as Prometheus remote write requests (protobuf and
   * snappy), posted to an http(s):// target only */
  EXPORT_REMOTE_WRITE,
};

/* Parses "graphite", "influx", "csv", "json", "openmetrics",
 * "prometheus" or "remote-write".  Returns 0 or -EINVAL. */
int export_format_parse(const char *name, enum export_format *ret);

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
