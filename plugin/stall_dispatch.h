/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's stall-time rows (StallTime true, the default): in the
 * first interval of each minute (the RRD step), each guest's recorded
 * stall counters (src/sample/stall_counter.c, from the PSI `total` of its
 * pressure files, read every interval anyway) as one pvecg_pressure_vm_1_0
 * list (plugin_instance = VMID, type_instance "qemu"/"lxc"), and the
 * node's from /proc/pressure/ as one pvecg_pressure_node_1_0 list (host =
 * the node name, with Node); pve_rrd writes them to pvecg-pressure-vm-1.0/
 * and pvecg-pressure-node-1.0/ as DERIVE.  Counters need no more than one
 * reading per step to give each step's exact stall time, so these rows
 * cost one value list per guest a minute.  Their values are gauges
 * holding whole microseconds (a counter to the RRD); an unknown one is a
 * column whose file was not read.  A counter that restarted within a
 * guest's cgroup is logged once, rate-limited.
 */
#ifndef PVECG_STALL_DISPATCH_H
#define PVECG_STALL_DISPATCH_H

#include "collectd/core/daemon/plugin.h"

#include "pvecg/guest.h"
#include "pvecg/node_sample.h"

#include <stdbool.h>

/* The option "StallTime" (true or false).  Returns 0, 1 (not this
 * option) or -1 (logged). */
int stall_dispatch_config(const oconfig_item_t *ci);

bool stall_dispatch_enabled(void);

/* Registers the types; node_name NULL: no node row.  Returns 0 or -1. */
int stall_dispatch_init(const char *node_name);

/* Whether the interval at time records stall time (the first of its
 * minute). */
bool stall_dispatch_due(cdtime_t time);

void stall_dispatch_guest(const struct guest_sample *s, cdtime_t time);

/* Advances the node's counters by its sample and dispatches its row. */
void stall_dispatch_node(const struct node_sample *s, cdtime_t time);

/* Back to the defaults (shutdown). */
void stall_dispatch_reset(void);

#endif
