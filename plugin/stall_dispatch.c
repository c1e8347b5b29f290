/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pve_cgroup's stall-time rows (see stall_dispatch.h). */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/daemon/utils_complain.h"

#include "pvecg/rrd_layout.h"
#include "pvecg/stall_counter.h"
#include "row_type.h"
#include "stall_dispatch.h"
#include "step_slot.h"

#include <math.h>

#define PLUGIN_NAME "pve_cgroup"

static struct {
  bool enabled;
  char node[DATA_MAX_NAME_LEN]; /* "" for no node row */
  struct step_slot slot;
  struct stall_counter node_counter;
} st = {.enabled = true};

/* Counters that restarted within a cgroup: rare (a kernel change), logged
 * with collectd's back-off whichever guest it is. */
static c_complain_t restart_complaint = C_COMPLAIN_INIT_STATIC;

int stall_dispatch_config(const oconfig_item_t *ci) {
  if (strcasecmp("StallTime", ci->key) != 0)
    return 1;
  return cf_util_get_boolean(ci, &st.enabled) == 0 ? 0 : -1;
}

bool stall_dispatch_enabled(void) { return st.enabled; }

int stall_dispatch_init(const char *node_name) {
  st.slot = (struct step_slot){0};
  st.node_counter = (struct stall_counter){0};
  sstrncpy(st.node, node_name != NULL ? node_name : "", sizeof(st.node));
  if (row_type_register(&layout_pvecg_pressure_vm_1_0) != 0 ||
      (node_name != NULL &&
       row_type_register(&layout_pvecg_pressure_node_1_0) != 0))
    return -1;
  return 0;
}

bool stall_dispatch_due(cdtime_t time) {
  return st.enabled &&
         step_slot_due(&st.slot, time,
                       TIME_T_TO_CDTIME_T(layout_pvecg_pressure_vm_1_0.step));
}

static void dispatch(const char *host, const char *instance,
                     const char *type_instance, const struct rrd_layout *layout,
                     const uint64_t *value, unsigned valid, cdtime_t time) {
  value_t values[STALL_COLUMNS];
  for (int i = 0; i < STALL_COLUMNS; i++)
    values[i].gauge = (valid & (1u << i)) ? (double)value[i] : NAN;
  value_list_t vl = VALUE_LIST_INIT;
  vl.values = values;
  vl.values_len = STALL_COLUMNS;
  vl.time = time;
  vl.interval = TIME_T_TO_CDTIME_T(layout->step);
  if (host != NULL)
    sstrncpy(vl.host, host, sizeof(vl.host));
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, instance, sizeof(vl.plugin_instance));
  sstrncpy(vl.type, layout->type_name, sizeof(vl.type));
  sstrncpy(vl.type_instance, type_instance, sizeof(vl.type_instance));
  plugin_dispatch_values(&vl);
}

static void log_restart(const char *who, unsigned restarted) {
  static const char *const names[STALL_COLUMNS] = {
      "cpu some", "cpu full",    "io some",
      "io full",  "memory some", "memory full"};
  for (int i = 0; i < STALL_COLUMNS; i++)
    if (restarted & (1u << i)) {
      c_complain(LOG_INFO, &restart_complaint,
                 PLUGIN_NAME " plugin: %s: the kernel's %s stall total went "
                             "back or ran ahead of the time elapsed; its "
                             "stall time is unknown for one minute.",
                 who, names[i]);
      return;
    }
}

void stall_dispatch_guest(const struct guest_sample *s, cdtime_t time) {
  char instance[16], who[32];
  snprintf(instance, sizeof(instance), "%u", (unsigned)s->vmid);
  if (s->stall_restarted) {
    snprintf(who, sizeof(who), "%s %u", guest_type_name(s->type),
             (unsigned)s->vmid);
    log_restart(who, s->stall_restarted);
  }
  dispatch(NULL, instance, guest_type_name(s->type),
           &layout_pvecg_pressure_vm_1_0, s->stall, s->stall_valid, time);
}

void stall_dispatch_node(const struct node_sample *s, cdtime_t time) {
  if (st.node[0] == '\0')
    return;
  uint64_t total[STALL_COLUMNS];
  unsigned have;
  struct stall_reading reading;
  stall_counter_totals(s->psi, s->psi_read, total, &have);
  stall_counter_advance(&st.node_counter, total, have, CDTIME_T_TO_DOUBLE(time),
                        &reading);
  if (reading.restarted)
    log_restart("node", reading.restarted);
  dispatch(st.node, "", "", &layout_pvecg_pressure_node_1_0, reading.value,
           reading.valid, time);
}

void stall_dispatch_reset(void) {
  st.enabled = true;
  st.node[0] = '\0';
}
