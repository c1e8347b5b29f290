/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A row in Proxmox's own InfluxDB and Graphite forms (export_names.h),
 * as pve-manager's PVE/Status/InfluxDB.pm and Graphite.pm write them:
 *
 *   system,object=qemu,vmid=100,nodename=pve1,host=web cpu=0.25,cpus=4,... T
 *   cpustat,object=nodes,host=pve1 avg1=0.5,cpu=0.1,cpus=8,wait=0 T
 *   nics,object=nodes,host=pve1,instance=physical receive=..,transmit=.. T
 *   proxmox.qemu.100.cpu 0.25 T      proxmox.nodes.pve1.cpustat.avg1 0.5 T
 *
 * InfluxDB times are nanoseconds, numbers have no `i` suffix (floats, as
 * Proxmox's are), tags are escaped as line protocol wants (Proxmox only
 * escapes spaces: the same for any name Proxmox accepts).  Graphite
 * values are plain decimals: Graphite.pm only sends what matches
 * [+-]?[0-9]*\.?[0-9]+, never an exponent.  Unknown values are left out;
 * a group with none writes no line.
 */
#ifndef PVECG_EXPORT_PVE_H
#define PVECG_EXPORT_PVE_H

#include "pvecg/export_source.h"

#include <stdbool.h>

#include <stdio.h>
#include <time.h>

/* Same contract as export_format_row(), for InfluxDB's line protocol
 * (influx) or Graphite's lines; counters must already be in values. */
int export_pve_row(bool influx, const struct export_source *src, time_t t,
                   const double *values, FILE *out, struct export_count *ret);

/* The shortest decimal that reads back as v, without an exponent
 * ("0.000015", "100000000000000000000").  Returns its length, or -ERANGE
 * when size is too small (EXPORT_PLAIN_SIZE always suffices). */
#define EXPORT_PLAIN_SIZE 400
int export_plain_number(double v, char *buf, size_t size);

#endif
