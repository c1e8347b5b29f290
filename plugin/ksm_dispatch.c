/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's KSM rows (see ksm_dispatch.h): collectd glue around
 * src/sample/ksm_node.c and src/row/ksm_row.c.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include "ksm_dispatch.h"
#include "pvecg/error_text.h"
#include "pvecg/ksm_row.h"
#include "pvecg/rrd_layout.h"
#include "row_type.h"

#include <unistd.h>

#define PLUGIN_NAME "pve_cgroup"

static struct ksm_node_reader *reader;
static struct ksm_node_sample sample;
static uint32_t failed; /* values whose file failed in the last sample */
static char node[DATA_MAX_NAME_LEN];
static double page_size;

int ksm_dispatch_init(const char *sys_root, const char *node_name) {
  ksm_dispatch_shutdown();
  if (row_type_register(&layout_pvecg_ksm_vm_1_0) != 0 ||
      (node_name != NULL && row_type_register(&layout_pvecg_ksm_node_1_0) != 0))
    return -1;
  int err = ksm_node_reader_new(sys_root, &reader);
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot read KSM below %s: %s.", sys_root,
          STRERROR(-err));
    return -1;
  }
  sstrncpy(node, node_name != NULL ? node_name : "", sizeof(node));
  long size = sysconf(_SC_PAGESIZE);
  page_size = size > 0 ? (double)size : 4096;
  failed = 0;
  return 0;
}

/* A file missing on an older kernel is no failure; other errors are, and
 * are said when they start and when they end. */
static void log_changes(void) {
  uint32_t now = 0;
  for (int v = 0; v < KSM_NODE_VALUE_COUNT; v++)
    if (sample.error[v] != 0 && sample.error[v] != -ENOENT)
      now |= 1u << v;
  for (int v = 0; v < KSM_NODE_VALUE_COUNT; v++) {
    uint32_t bit = 1u << v;
    if ((now & bit) && !(failed & bit))
      WARNING(PLUGIN_NAME " plugin: node: KSM's %s: %s; it is recorded as "
                          "unknown until it recovers.",
              ksm_node_file((enum ksm_node_value)v),
              error_text(sample.error[v]));
    else if (!(now & bit) && (failed & bit))
      INFO(PLUGIN_NAME " plugin: node: KSM's %s is readable again.",
           ksm_node_file((enum ksm_node_value)v));
  }
  failed = now;
}

static void dispatch(const char *host, const char *instance,
                     const struct rrd_layout *layout, const double *row,
                     uint64_t time) {
  value_t values[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < layout->ds_count; i++)
    values[i].gauge = row[i];
  value_list_t vl = VALUE_LIST_INIT;
  vl.values = values;
  vl.values_len = layout->ds_count;
  vl.time = (cdtime_t)time;
  if (host != NULL)
    sstrncpy(vl.host, host, sizeof(vl.host));
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, instance, sizeof(vl.plugin_instance));
  sstrncpy(vl.type, layout->type_name, sizeof(vl.type));
  plugin_dispatch_values(&vl);
}

void ksm_dispatch_node(uint64_t time) {
  if (reader == NULL)
    return;
  ksm_node_read(reader, &sample);
  log_changes();
  if (node[0] == '\0')
    return;
  double row[KSM_NODE_COLUMNS];
  ksm_node_row(&sample, page_size, row);
  dispatch(node, "", &layout_pvecg_ksm_node_1_0, row, time);
}

void ksm_dispatch_guest(const struct guest_sample *s, uint64_t time) {
  if (reader == NULL || s->type != GUEST_QEMU)
    return;
  double row[KSM_VM_COLUMNS];
  char instance[16];
  ksm_vm_row(s->ksm_valid ? &s->ksm : NULL, &sample, page_size, row);
  snprintf(instance, sizeof(instance), "%u", (unsigned)s->vmid);
  dispatch(NULL, instance, &layout_pvecg_ksm_vm_1_0, row, time);
}

void ksm_dispatch_shutdown(void) {
  ksm_node_reader_free(reader);
  reader = NULL;
  sample = (struct ksm_node_sample){0};
}
