/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Proxmox names of every RRD column (see export_names.h).  InfluxDB
 * and Graphite names are pvestatd's keys (pve-manager PVE/Service/
 * pvestatd.pm: the guest's status hash, the node's cpustat/memory/
 * blockstat/nics); Prometheus names are prometheus-pve-exporter's
 * (collector/cluster.py), which reads the same values from
 * /cluster/resources.
 */
#include "pvecg/export_names.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int export_names_parse(const char *name, enum export_names *ret) {
  if (name != NULL && strcmp(name, "pve") == 0)
    *ret = EXPORT_NAMES_PVE;
  else if (name != NULL && strcmp(name, "pvecg") == 0)
    *ret = EXPORT_NAMES_PVECG;
  else
    return -EINVAL;
  return 0;
}

#define PSI_HELP(what, kind)                                                   \
  "Share of the last 10 s in which " kind " were stalled on " what             \
  " (pressure stall information, avg10)"

/* Pressure is named alike for guests and nodes. */
#define PRESSURE(res, kind, text, kind_text)                                   \
  {                                                                            \
    "pressure" res kind, "system", NULL, "pressure" res kind,                  \
        "pve_pressure_" res "_" kind "_ratio", PSI_HELP(text, kind_text),      \
        false, true, false, NULL                                               \
  }

#define SOME "some tasks"
#define FULL "all tasks"

/* pvecg's stall files (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0):
 * the kernel's PSI totals, microseconds stalled, as counters in seconds
 * named as node_exporter's node_pressure_* and cAdvisor's
 * container_pressure_* name them: the `some` line's total is
 * ..._waiting_seconds, the `full` line's ..._stalled_seconds, so that a
 * query written for either reads ours alike. */
#define STALL(res, kind, name, help)                                           \
  {                                                                            \
    "stall" res kind, "system", NULL, "stall" res kind,                        \
        "pve_pressure_" res "_" name "_seconds", help, true, false, true, NULL \
  }
#define WAITING(res, text)                                                     \
  STALL(res, "some", "waiting",                                                \
        "Seconds in which at least one task waited for " text                  \
        " (the kernel's PSI some total)")
#define STALLED(res, text)                                                     \
  STALL(res, "full", "stalled",                                                \
        "Seconds in which all non-idle tasks were stalled on " text            \
        " at once (the kernel's PSI full total)")
#define STALLS                                                                 \
  WAITING("cpu", "CPU"), STALLED("cpu", "CPU"), WAITING("io", "IO"),           \
      STALLED("io", "IO"), WAITING("memory", "memory"),                        \
      STALLED("memory", "memory")

/* prometheus-pve-exporter's HELP of its byte counters (collector/
 * cluster.py, 3.8).  A node's physical NICs are in the same families, so
 * a node's column gives the same HELP: one text for the family, whichever
 * file comes first. */
#define RECEIVE_HELP                                                           \
  "The amount of traffic in bytes that was sent to the guest over the "        \
  "network since it was started. (for types 'qemu' and 'lxc')"
#define TRANSMIT_HELP                                                          \
  "The amount of traffic in bytes that was sent from the guest over the "      \
  "network since it was started. (for types 'qemu' and 'lxc')"
#define READ_HELP                                                              \
  "The amount of bytes the guest read from its block devices since the "       \
  "guest was started. This info is not available for all storage types. "      \
  "(for types 'qemu' and 'lxc')"
#define WRITTEN_HELP                                                           \
  "The amount of bytes the guest wrote to its block devices since the guest "  \
  "was started. This info is not available for all storage types. (for "       \
  "types 'qemu' and 'lxc')"

/* pvecg's KSM files (a guest's and a node's columns of the same meaning
 * share a name): beside Proxmox's values, in the guest's `system` and the
 * node's `memory`, under the RRD's names. */
#define KSM_ZERO(m)                                                            \
  {                                                                            \
    "ksmzero", m, NULL, "ksmzero", "pve_ksm_zero_pages",                       \
        "Pages KSM merged with the zero page", false, false, false, NULL       \
  }
#define KSM_PROFIT(m, help)                                                    \
  {                                                                            \
    "ksmprofit", m, NULL, "ksmprofit", "pve_ksm_profit_bytes", help, false,    \
        false, false, NULL                                                     \
  }
#define KSM_SAVED(m, help)                                                     \
  {                                                                            \
    "ksmsaved", m, NULL, "ksmsaved", "pve_memory_ksm_saved_bytes", help,       \
        false, false, false, NULL                                              \
  }

static const struct export_metric guest_metrics[] = {
    {"maxcpu", "system", NULL, "cpus", "pve_cpu_usage_limit",
     "Number of available CPUs", false, false, false, NULL},
    {"cpu", "system", NULL, "cpu", "pve_cpu_usage_ratio", "CPU utilization",
     false, false, false, NULL},
    {"maxmem", "system", NULL, "maxmem", "pve_memory_size_bytes",
     "Number of available memory in bytes", false, false, false, NULL},
    {"mem", "system", NULL, "mem", "pve_memory_usage_bytes",
     "Used memory in bytes", false, false, false, NULL},
    {"maxdisk", "system", NULL, "maxdisk", "pve_disk_size_bytes",
     "Root image size in bytes", false, false, false, NULL},
    {"disk", "system", NULL, "disk", "pve_disk_usage_bytes",
     "Used root image space in bytes", false, false, false, NULL},
    {"netin", "system", NULL, "netin", "pve_network_receive_bytes",
     RECEIVE_HELP, true, false, false, "pve_network_receive_bytes"},
    {"netout", "system", NULL, "netout", "pve_network_transmit_bytes",
     TRANSMIT_HELP, true, false, false, "pve_network_transmit_bytes"},
    {"diskread", "system", NULL, "diskread", "pve_disk_read_bytes", READ_HELP,
     true, false, false, "pve_disk_read_bytes"},
    {"diskwrite", "system", NULL, "diskwrite", "pve_disk_written_bytes",
     WRITTEN_HELP, true, false, false, "pve_disk_write_bytes"},
    {"memhost", "system", NULL, "memhost", "pve_memory_host_bytes",
     "Host memory the guest's cgroup uses, page cache excluded "
     "(memory.current - memory.stat file)",
     false, false, false, NULL},
    PRESSURE("cpu", "some", "CPU", SOME),
    PRESSURE("cpu", "full", "CPU", FULL),
    PRESSURE("io", "some", "IO", SOME),
    PRESSURE("io", "full", "IO", FULL),
    PRESSURE("memory", "some", "memory", SOME),
    PRESSURE("memory", "full", "memory", FULL),
    {"ksmmerging", "system", NULL, "ksmmerging", "pve_ksm_merging_pages",
     "Pages of the guest's QEMU process merged by KSM", false, false, false,
     NULL},
    KSM_ZERO("system"),
    KSM_PROFIT("system", "KSM's profit for the guest's QEMU process: merged "
                         "bytes minus KSM's bookkeeping (ksm_process_profit)"),
    KSM_SAVED("system", "Memory KSM saves the guest: its share of the node's "
                        "saving (docs/values.md)"),
    STALLS,
};

static const struct export_metric node_metrics[] = {
    {"loadavg", "cpustat", NULL, "avg1", "pve_load1",
     "Load average over 1 minute", false, false, false, NULL},
    {"maxcpu", "cpustat", NULL, "cpus", "pve_cpu_usage_limit",
     "Number of available CPUs", false, false, false, NULL},
    {"cpu", "cpustat", NULL, "cpu", "pve_cpu_usage_ratio", "CPU utilization",
     false, false, false, NULL},
    {"iowait", "cpustat", NULL, "wait", "pve_cpu_iowait_ratio",
     "Share of CPU time waiting for IO", false, false, false, NULL},
    {"memtotal", "memory", NULL, "memtotal", "pve_memory_size_bytes",
     "Number of available memory in bytes", false, false, false, NULL},
    {"memused", "memory", NULL, "memused", "pve_memory_usage_bytes",
     "Used memory in bytes", false, false, false, NULL},
    {"swaptotal", "memory", NULL, "swaptotal", "pve_swap_size_bytes",
     "Swap space in bytes", false, false, false, NULL},
    {"swapused", "memory", NULL, "swapused", "pve_swap_usage_bytes",
     "Used swap space in bytes", false, false, false, NULL},
    {"roottotal", "blockstat", NULL, "blocks", "pve_disk_size_bytes",
     "Size of the root file system in bytes", false, false, false, NULL},
    {"rootused", "blockstat", NULL, "used", "pve_disk_usage_bytes",
     "Used space of the root file system in bytes", false, false, false, NULL},
    {"netin", "nics", "physical", "receive", "pve_network_receive_bytes",
     RECEIVE_HELP, true, false, false, "pve_network_receive_bytes"},
    {"netout", "nics", "physical", "transmit", "pve_network_transmit_bytes",
     TRANSMIT_HELP, true, false, false, "pve_network_transmit_bytes"},
    {"memavailable", "memory", NULL, "memavailable",
     "pve_memory_available_bytes", "Memory available for new workloads", false,
     false, false, NULL},
    {"arcsize", "memory", NULL, "arcsize", "pve_zfs_arc_size_bytes",
     "Size of the ZFS ARC in bytes", false, false, false, NULL},
    PRESSURE("cpu", "some", "CPU", SOME),
    PRESSURE("io", "some", "IO", SOME),
    PRESSURE("io", "full", "IO", FULL),
    PRESSURE("memory", "some", "memory", SOME),
    PRESSURE("memory", "full", "memory", FULL),
    {"ksmrun", "memory", NULL, "ksmrun", "pve_ksm_run_state",
     "ksmd's state: 0 stopped, 1 running, 2 unmerging", false, false, false,
     NULL},
    {"ksmshared", "memory", NULL, "ksmshared", "pve_ksm_shared_pages",
     "KSM pages in use (pages_shared)", false, false, false, NULL},
    {"ksmsharing", "memory", NULL, "ksmsharing", "pve_ksm_sharing_pages",
     "Further page sites sharing KSM pages (pages_sharing)", false, false,
     false, NULL},
    KSM_ZERO("memory"),
    KSM_PROFIT("memory", "KSM's profit on the node: merged bytes minus its "
                         "bookkeeping (general_profit)"),
    KSM_SAVED("memory", "Memory KSM saves on the node: (pages_sharing + "
                        "ksm_zero_pages) pages"),
    STALLS,
};

const char *const export_guest_info_labels[EXPORT_GUEST_INFO_LABELS] = {
    [EXPORT_GUEST_INFO_NODE] = "node",
    [EXPORT_GUEST_INFO_NAME] = "name",
    [EXPORT_GUEST_INFO_TYPE] = "type",
    [EXPORT_GUEST_INFO_TEMPLATE] = "template",
    [EXPORT_GUEST_INFO_TAGS] = "tags"};

const struct export_metric *export_metric_of(const struct rrd_layout *layout,
                                             bool node, size_t ds) {
  const struct export_metric *m = node ? node_metrics : guest_metrics;
  size_t n = node ? sizeof(node_metrics) / sizeof(node_metrics[0])
                  : sizeof(guest_metrics) / sizeof(guest_metrics[0]);
  if (ds >= layout->ds_count)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (strcmp(m[i].ds, layout->ds[ds].name) == 0)
      return &m[i];
  return NULL;
}

void export_metric_older_help(const struct export_metric *m, char *buf,
                              size_t size) {
  snprintf(buf, size, "%s DEPRECATED: Use %s_total instead.", m->help, m->prom);
}

double export_metric_counter_unit(const struct export_metric *m) {
  if (m == NULL || !m->counter)
    return 0;
  return m->micro ? 1e6 : 1;
}

double export_metric_prom_value(const struct export_metric *m, double v) {
  return m->percent ? v / 100 : m->micro ? v / 1e6 : v;
}

static bool same_group(const struct export_metric *a,
                       const struct export_metric *b) {
  return strcmp(a->measurement, b->measurement) == 0 &&
         (a->instance == NULL) == (b->instance == NULL) &&
         (a->instance == NULL || strcmp(a->instance, b->instance) == 0);
}

_Static_assert(RRD_LAYOUT_DS_MAX <= 256, "a column's group fits a byte");

void export_columns_of(const struct rrd_layout *layout, bool node,
                       struct export_columns *ret) {
  for (size_t i = 0; i < layout->ds_count && i < RRD_LAYOUT_DS_MAX; i++) {
    const struct export_metric *m = export_metric_of(layout, node, i);
    size_t g = i;
    for (size_t j = 0; m != NULL && j < i && g == i; j++)
      if (ret->metric[j] != NULL && same_group(ret->metric[j], m))
        g = j;
    ret->metric[i] = m;
    ret->group[i] = (unsigned char)g; /* the first of it: its own group */
  }
}
