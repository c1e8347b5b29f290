/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When pve_cgroup records KSM (plugin/ksm_schedule.c): whether at all, and
 * in which of collectd's intervals.
 *
 * `KSM auto` (the default) records it where the host runs KSM: ksmd
 * running, or pages merged (Proxmox's ksmtuned stops ksmd when memory is
 * plentiful and leaves the merged pages merged).  A host that does not is
 * looked at again once per KSMInterval and recording starts when it does;
 * it is not stopped again, so a file once begun does not fall silent.
 * The choice is logged once, and once more when it changes.
 *
 * KSM is read and dispatched in the first interval of each KSMInterval
 * (default 60 s, the RRD step of pvecg-ksm-vm-1.0), not in every one: a
 * VM's merged pages change at ksmd's pace (seconds to minutes for a
 * whole VM), and each row dispatched costs collectd as much as reading the
 * guest's files.  An RRD step then holds one reading instead of the
 * average of several; 0 reads KSM in every interval.
 */
#ifndef PVECG_KSM_SCHEDULE_H
#define PVECG_KSM_SCHEDULE_H

#include "collectd/core/daemon/plugin.h"

#include <stdbool.h>

/* The options "KSM" (true, false or auto) and "KSMInterval" (seconds).
 * Returns 0, 1 (not a KSM option) or -1 (logged). */
int ksm_schedule_config(const oconfig_item_t *ci);

/* Whether KSM may be recorded at all (not `KSM false`). */
bool ksm_schedule_possible(void);

/* The interval of the KSM rows: KSMInterval, or collectd's interval if
 * that is longer. */
cdtime_t ksm_schedule_row_interval(void);

/* At init, after ksm_dispatch_init(): decides and logs for `KSM auto`. */
void ksm_schedule_init(void);

/*
 * At the start of an interval at time: whether KSM is read and dispatched
 * in it (the node's KSM figures are then read already).  *active tells
 * whether it is recorded at all now (the VMs' processes are kept track
 * of).
 */
bool ksm_schedule_due(cdtime_t time, bool *active);

/* Back to the defaults (shutdown). */
void ksm_schedule_reset(void);

#endif
