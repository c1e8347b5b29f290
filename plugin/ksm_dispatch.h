/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's KSM rows (KSM true): each interval the node's
 * /sys/kernel/mm/ksm/ is read once and dispatched as one
 * pvecg_ksm_node_1_0 list (host = the node name, when the node row is
 * on), and every VM's ksm_stat as one pvecg_ksm_vm_1_0 list
 * (plugin_instance = VMID), which pve_rrd writes to pvecg-ksm-node-1.0/
 * and pvecg-ksm-vm-1.0/.  One wide list each, like the pve rows: the
 * dispatch is what costs.  A VM whose QEMU process is not known this
 * interval (restarting, or a stale pid caught) gets a row of unknowns;
 * containers have no QEMU process and no KSM row.  Problems with the
 * node's files are logged when they start and when they end.
 */
#ifndef PVECG_KSM_DISPATCH_H
#define PVECG_KSM_DISPATCH_H

#include "pvecg/guest.h"

#include <stdint.h>

/* sys_root: "/sys"; node_name: the node row's host, NULL for no node row.
 * Returns 0 or -1 (logged). */
int ksm_dispatch_init(const char *sys_root, const char *node_name);

/* Reads the node's KSM figures (the VMs' rows of this interval use them)
 * and dispatches the node's row; time is collectd's cdtime_t. */
void ksm_dispatch_node(uint64_t time);

/* Dispatches a VM's row (nothing for containers). */
void ksm_dispatch_guest(const struct guest_sample *s, uint64_t time);

void ksm_dispatch_shutdown(void);

#endif
