/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's KSM rows (see ksm_dispatch.h): collectd glue around
 * src/sample/ksm_node.c and src/row/ksm_row.c.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/daemon/utils_complain.h"

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
static char sys_dir[PATH_MAX];
static double page_size;
/* The rows' interval: KSM is read once per RRD step (or every interval,
 * whichever is longer), so that is how often a row comes. */
static cdtime_t row_interval;
/* A VM's ksm_stat that cannot be had, and a kernel without KSM: one line,
 * then fewer (collectd's complaints back off), never one per row. */
static c_complain_t gone_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t missing_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t bad_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t no_ksm_complaint = C_COMPLAIN_INIT_STATIC;
/* VMs whose ksm_stat is told to be unreadable: logged when it starts and
 * when it ends, like the guests' cgroup files; more than this many are
 * logged together, with back-off.  Only the read callback's thread uses it. */
#define BAD_VMIDS_MAX 256
static uint32_t bad_vmids[BAD_VMIDS_MAX];
static size_t bad_count;

int ksm_dispatch_init(const char *sys_root, const char *node_name,
                      uint64_t interval) {
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
  snprintf(sys_dir, sizeof(sys_dir), "%s/kernel/mm/ksm", sys_root);
  long size = sysconf(_SC_PAGESIZE);
  page_size = size > 0 ? (double)size : 4096;
  failed = 0;
  row_interval = (cdtime_t)interval;
  return 0;
}

/* A file missing on an older kernel is no failure; other errors are, and
 * are logged when they start and when they end. */
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
  vl.interval = row_interval;
  if (host != NULL)
    sstrncpy(vl.host, host, sizeof(vl.host));
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, instance, sizeof(vl.plugin_instance));
  sstrncpy(vl.type, layout->type_name, sizeof(vl.type));
  plugin_dispatch_values(&vl);
}

bool ksm_dispatch_read_node(void) {
  if (reader == NULL)
    return false;
  ksm_node_read(reader, &sample);
  /* ksmtuned stops ksmd when memory is plentiful and the merged pages
   * stay merged: those count as running KSM too. */
  for (int v = KSM_NODE_PAGES_SHARING; v <= KSM_NODE_ZERO_PAGES; v++)
    if (ksm_node_has(&sample, (enum ksm_node_value)v) && sample.value[v] > 0)
      return true;
  return ksm_node_has(&sample, KSM_NODE_RUN) && sample.value[KSM_NODE_RUN] == 1;
}

void ksm_dispatch_node(uint64_t time) {
  if (reader == NULL)
    return;
  log_changes();
  if (sample.error[KSM_NODE_RUN] == -ENOENT)
    c_complain(LOG_WARNING, &no_ksm_complaint,
               PLUGIN_NAME " plugin: node: %s is missing: this kernel has no "
                           "KSM, and every KSM value is recorded as unknown.",
               sys_dir);
  else
    c_release(LOG_INFO, &no_ksm_complaint,
              PLUGIN_NAME " plugin: node: %s is there again.", sys_dir);
  if (node[0] == '\0')
    return;
  double row[KSM_NODE_COLUMNS];
  ksm_node_row(&sample, page_size, row);
  dispatch(node, "", &layout_pvecg_ksm_node_1_0, row, time);
}

/* Whether vmid is told about; its slot in *at. */
static bool told_bad(uint32_t vmid, size_t *at) {
  for (*at = 0; *at < bad_count; (*at)++)
    if (bad_vmids[*at] == vmid)
      return true;
  return false;
}

/* A ksm_stat that cannot be read or parsed: one line when it starts. */
static void log_bad(const struct guest_sample *s) {
  size_t at;
  if (told_bad(s->vmid, &at))
    return;
  if (bad_count == BAD_VMIDS_MAX) {
    c_complain(LOG_WARNING, &bad_complaint,
               PLUGIN_NAME " plugin: qemu %u and others: their QEMU "
                           "processes' ksm_stat: %s; their KSM values are "
                           "recorded as unknown.",
               (unsigned)s->vmid, error_text(s->ksm_error));
    return;
  }
  bad_vmids[bad_count++] = s->vmid;
  WARNING(PLUGIN_NAME " plugin: qemu %u: its QEMU process's ksm_stat: %s; "
                      "its KSM values are recorded as unknown until it "
                      "recovers.",
          (unsigned)s->vmid, error_text(s->ksm_error));
}

/* ...and one when it is read again. */
static void log_recovered(const struct guest_sample *s) {
  size_t at;
  if (!told_bad(s->vmid, &at))
    return;
  bad_vmids[at] = bad_vmids[--bad_count];
  INFO(PLUGIN_NAME " plugin: qemu %u: ksm_stat is read again.",
       (unsigned)s->vmid);
}

/* Why a VM's KSM values are unknown this interval, logged sparingly. */
static void complain(const struct guest_sample *s) {
  unsigned vmid = (unsigned)s->vmid;
  if (s->ksm_error == -ESRCH)
    c_complain(LOG_INFO, &gone_complaint,
               PLUGIN_NAME " plugin: qemu %u: its QEMU process went away (or "
                           "its pid is another process's now): its KSM values "
                           "are unknown until the new one is found.",
               vmid);
  else if (s->ksm_error == -ENOENT)
    c_complain(LOG_WARNING, &missing_complaint,
               PLUGIN_NAME " plugin: qemu %u: its QEMU process has no "
                           "ksm_stat (Linux before 6.1): VMs' KSM values are "
                           "recorded as unknown.",
               vmid);
  else if (s->ksm_error != 0)
    log_bad(s);
}

void ksm_dispatch_guest(const struct guest_sample *s, uint64_t time) {
  if (reader == NULL || s->type != GUEST_QEMU)
    return;
  if (s->ksm_valid)
    log_recovered(s);
  else
    complain(s);
  double row[KSM_VM_COLUMNS];
  char instance[16];
  ksm_vm_row(s->ksm_valid ? &s->ksm : NULL, &sample, page_size, row);
  snprintf(instance, sizeof(instance), "%u", (unsigned)s->vmid);
  dispatch(NULL, instance, &layout_pvecg_ksm_vm_1_0, row, time);
}

void ksm_dispatch_shutdown(void) {
  ksm_node_reader_free(reader);
  reader = NULL;
  bad_count = 0;
  sample = (struct ksm_node_sample){0};
}
