/* SPDX-License-Identifier: GPL-2.0-or-later */
/* When pve_cgroup records KSM (see ksm_schedule.h). */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include "ksm_dispatch.h"
#include "ksm_schedule.h"
#include "pvecg/rrd_layout.h"
#include "step_slot.h"

#define PLUGIN_NAME "pve_cgroup"
/* The RRD step of pvecg-ksm-vm-1.0 and pvecg-ksm-node-1.0. */
#define DEFAULT_INTERVAL_SECONDS 60

enum ksm_mode { KSM_MODE_AUTO, KSM_MODE_ON, KSM_MODE_OFF };

static struct {
  enum ksm_mode mode;
  cdtime_t interval; /* 0: every collectd interval */
  bool active;       /* recorded now */
  struct step_slot slot;
} sched = {.interval = TIME_T_TO_CDTIME_T_STATIC(DEFAULT_INTERVAL_SECONDS)};

static int config_mode(const oconfig_item_t *ci) {
  if (ci->values_num == 1 && ci->values[0].type == OCONFIG_TYPE_STRING &&
      strcasecmp(ci->values[0].value.string, "auto") == 0) {
    sched.mode = KSM_MODE_AUTO;
    return 0;
  }
  bool on;
  if (ci->values_num != 1 || ci->values[0].type != OCONFIG_TYPE_BOOLEAN ||
      cf_util_get_boolean(ci, &on) != 0) {
    ERROR(PLUGIN_NAME " plugin: \"KSM\" takes true, false or \"auto\".");
    return -1;
  }
  sched.mode = on ? KSM_MODE_ON : KSM_MODE_OFF;
  return 0;
}

int ksm_schedule_config(const oconfig_item_t *ci) {
  if (strcasecmp("KSM", ci->key) == 0)
    return config_mode(ci);
  if (strcasecmp("KSMInterval", ci->key) != 0)
    return 1;
  cdtime_t interval;
  if (cf_util_get_cdtime(ci, &interval) != 0) {
    ERROR(PLUGIN_NAME " plugin: \"KSMInterval\" takes seconds (0: every "
                      "interval).");
    return -1;
  }
  /* Rows further apart than the files' heartbeat are stored as unknown. */
  unsigned long heartbeat = layout_pvecg_ksm_vm_1_0.heartbeat;
  if (layout_pvecg_ksm_node_1_0.heartbeat < heartbeat)
    heartbeat = layout_pvecg_ksm_node_1_0.heartbeat;
  if (interval > TIME_T_TO_CDTIME_T((time_t)heartbeat)) {
    ERROR(PLUGIN_NAME " plugin: \"KSMInterval\" %g is above %lu seconds, "
                      "the heartbeat of the KSM files: every KSM row would "
                      "be stored as unknown.",
          CDTIME_T_TO_DOUBLE(interval), heartbeat);
    return -1;
  }
  sched.interval = interval;
  return 0;
}

bool ksm_schedule_possible(void) { return sched.mode != KSM_MODE_OFF; }

cdtime_t ksm_schedule_row_interval(void) {
  cdtime_t collectd_interval = plugin_get_interval();
  return sched.interval > collectd_interval ? sched.interval
                                            : collectd_interval;
}

void ksm_schedule_init(void) {
  sched.slot = (struct step_slot){0};
  sched.active = sched.mode == KSM_MODE_ON;
  if (sched.mode != KSM_MODE_AUTO)
    return;
  sched.active = ksm_dispatch_read_node();
  if (sched.active)
    INFO(PLUGIN_NAME " plugin: KSM statistics on: this host runs KSM (ksmd "
                     "running or pages merged); set KSM false to leave them "
                     "out.");
  else
    INFO(PLUGIN_NAME " plugin: KSM statistics off for now: this host does "
                     "not run KSM (ksmd stopped, no pages merged); they start "
                     "when it does (KSM true records them anyway).");
}

bool ksm_schedule_due(cdtime_t time, bool *active) {
  *active = false;
  if (sched.mode == KSM_MODE_OFF)
    return false;
  bool due = step_slot_due(&sched.slot, time, sched.interval);
  if (due) {
    bool runs = ksm_dispatch_read_node();
    if (!sched.active && runs) {
      sched.active = true;
      INFO(PLUGIN_NAME " plugin: KSM statistics on: this host runs KSM now.");
    }
  }
  *active = sched.active;
  return due && sched.active;
}

void ksm_schedule_reset(void) {
  sched.mode = KSM_MODE_AUTO;
  sched.interval = TIME_T_TO_CDTIME_T_STATIC(DEFAULT_INTERVAL_SECONDS);
  sched.active = false;
  sched.slot = (struct step_slot){0};
}
