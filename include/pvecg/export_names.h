/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names `pvecg export` gives a row's values.
 *
 * `pve` (the default): exactly what Proxmox VE's own metric server plugins
 * (pve-manager PVE/Status/InfluxDB.pm and Graphite.pm, fed by pvestatd)
 * write for the same value, so a backfill lands in the series that
 * dashboards built on a Proxmox metric server already query:
 *   - a guest's values are fields of the measurement `system` (tags
 *     object=qemu|lxc, vmid, nodename, host=<guest name>), named as in
 *     the guest's status (`cpus` for the RRD's maxcpu, the rest as in the
 *     RRD);
 *   - a node's values go where pvestatd puts them: `cpustat` (avg1, cpus,
 *     cpu, wait), `memory` (memtotal, memused, swaptotal, swapused,
 *     memavailable, arcsize), `blockstat` (blocks, used: the root file
 *     system), `nics` (receive, transmit);
 *   - in Prometheus form, prometheus-pve-exporter's metric names with its
 *     `id` label where it has the value, new names in the same style where
 *     it has not.
 * The RRD keeps rates for netin/netout/diskread/diskwrite where Proxmox
 * sends cumulative byte counters: those are rebuilt as counters (see
 * export_counter.h).  prometheus-pve-exporter 3.8 serves them as counters
 * (pve_network_receive_bytes_total, ..., pve_disk_written_bytes_total)
 * and still, deprecated, as the gauges it had before
 * (pve_network_receive_bytes, ..., pve_disk_write_bytes): both are
 * written, with its HELP texts.
 *
 * What Proxmox does not send and pvecg does: memhost for a guest, and a
 * node's pressure (pvestatd writes node pressure only into the RRD): they
 * go to the same measurement (`system`) under the RRD's names.  So do the
 * columns of pvecg's KSM files: a guest's into `system`, a node's into
 * `memory`, where Proxmox's memory values are (ksmmerging, ksmzero,
 * ksmprofit, ksmsaved; ksmrun, ksmshared, ksmsharing), and in Prometheus
 * form pve_ksm_* and pve_memory_ksm_saved_bytes.  The columns of pvecg's
 * stall files (the kernel's PSI totals, kept as rates of microseconds per
 * second) are counters in seconds (`micro`): fields stallcpusome... of a
 * guest's and a node's `system`, and in Prometheus form node_exporter's
 * names, pve_pressure_<res>_waiting_seconds_total for the `some` line and
 * pve_pressure_<res>_stalled_seconds_total for `full`.  A node's
 * network traffic is in the RRD only as the sum over its physical NICs,
 * where Proxmox sends one `nics` point per interface: it is written as the
 * interface "physical".
 *
 * `pvecg`: the RRD's own names and rates, one point per row
 * (export_format.h).
 */
#ifndef PVECG_EXPORT_NAMES_H
#define PVECG_EXPORT_NAMES_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>

enum export_names {
  EXPORT_NAMES_PVE,
  EXPORT_NAMES_PVECG,
};

/* Parses "pve" or "pvecg".  Returns 0 or -EINVAL. */
int export_names_parse(const char *name, enum export_names *ret);

/* How one RRD column is named in Proxmox's forms. */
struct export_metric {
  const char *ds;          /* the RRD's column */
  const char *measurement; /* InfluxDB measurement, Graphite group */
  const char *instance;    /* the `instance` tag / Graphite level, or NULL */
  const char *field;       /* InfluxDB field, Graphite leaf */
  const char *prom;        /* Prometheus family (a counter's without _total) */
  const char *help;        /* its HELP text */
  bool counter;            /* rebuilt from the RRD's rate */
  bool percent;            /* the RRD holds percent: a Prometheus ratio is
                              the value / 100 */
  bool micro;              /* the RRD holds microseconds: Prometheus'
                              seconds are the value / 1e6 */
  const char *older;       /* a counter's name in prometheus-pve-exporter
                              before its _total families, or NULL */
};

/* The HELP of m's older gauge (m->older), as prometheus-pve-exporter 3.8
 * gives it beside the counter: m's HELP, then " DEPRECATED: Use
 * <counter>_total instead.", written to buf. */
void export_metric_older_help(const struct export_metric *m, char *buf,
                              size_t size);

/* The naming of column `ds` of a guest's (node false) or node's file of
 * layout, or NULL when the column has none. */
const struct export_metric *export_metric_of(const struct rrd_layout *layout,
                                             bool node, size_t ds);

/* The unit export_counter_apply() writes column m's counter in: 0 for
 * none (m NULL or not a counter), 1e6 for microseconds written as
 * seconds (m->micro), else 1. */
double export_metric_counter_unit(const struct export_metric *m);

/* A sample's value in m's Prometheus unit, from the RRD's own: a percent
 * as a ratio, microseconds as seconds (a counter rebuilt by
 * export_counter_apply() is in its unit already). */
double export_metric_prom_value(const struct export_metric *m, double v);

/* A file's columns named once, not for each row: each column's naming
 * (NULL: none) and the first column of its group (the same measurement
 * and instance: one InfluxDB line). */
struct export_columns {
  const struct export_metric *metric[RRD_LAYOUT_DS_MAX];
  unsigned char group[RRD_LAYOUT_DS_MAX];
};

void export_columns_of(const struct rrd_layout *layout, bool node,
                       struct export_columns *ret);

/* pve_guest_info, prometheus-pve-exporter's family of a configured guest:
 * its HELP, and its labels after id (and cluster) in their order, as
 * /metrics and the exports write them, so that both say the same. */
#define EXPORT_GUEST_INFO "pve_guest_info"
#define EXPORT_GUEST_INFO_HELP "VM/CT info"
enum {
  EXPORT_GUEST_INFO_NODE,
  EXPORT_GUEST_INFO_NAME,
  EXPORT_GUEST_INFO_TYPE,
  EXPORT_GUEST_INFO_TEMPLATE,
  EXPORT_GUEST_INFO_TAGS,
  EXPORT_GUEST_INFO_LABELS
};
extern const char *const export_guest_info_labels[EXPORT_GUEST_INFO_LABELS];

#endif
