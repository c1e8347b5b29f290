/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's KSM rows: once per RRD step (KSMInterval) the node's
 * /sys/kernel/mm/ksm/ is read once and dispatched as one
 * pvecg_ksm_node_1_0 list (host = the node name, when the node row is
 * on), and every VM's ksm_stat as one pvecg_ksm_vm_1_0 list
 * (plugin_instance = VMID), which pve_rrd writes to pvecg-ksm-node-1.0/
 * and pvecg-ksm-vm-1.0/.  One wide list each, like the pve rows: the
 * dispatch is what costs, so KSM, which changes at ksmd's pace, is not
 * dispatched every interval.  A VM whose QEMU process is not known this
 * interval (restarting, or a stale pid caught) gets a row of unknowns;
 * containers have no QEMU process and no KSM row.  Problems with the
 * node's files are logged when they start and when they end.
 */
#ifndef PVECG_KSM_DISPATCH_H
#define PVECG_KSM_DISPATCH_H

#include "pvecg/guest.h"

#include <stdbool.h>
#include <stdint.h>

/* sys_root: "/sys"; node_name: the node row's host, NULL for no node row;
 * interval: the rows' interval (cdtime_t), how often they come.  Returns 0
 * or -1 (logged). */
int ksm_dispatch_init(const char *sys_root, const char *node_name,
                      uint64_t interval);

/* Reads the node's KSM figures (the VMs' next rows use them).  Returns
 * whether the host runs KSM: ksmd running, or pages merged (ksmtuned
 * stops ksmd and leaves them merged). */
bool ksm_dispatch_read_node(void);

/* Says what changed in the node's files and dispatches the node's row
 * from the last read; time is collectd's cdtime_t. */
void ksm_dispatch_node(uint64_t time);

/* Dispatches a VM's row (nothing for containers). */
void ksm_dispatch_guest(const struct guest_sample *s, uint64_t time);

void ksm_dispatch_shutdown(void);

#endif
