/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guests whose configuration this node holds: the ones it reports, as
 * pvestatd decides.  On a Proxmox VE node <PveConfigDir>/qemu-server and
 * lxc are pmxcfs' links to nodes/<this node>/qemu-server and lxc, and a
 * live migration ends by moving the guest's .conf to the target node.
 * So the guest has one reporting node at every moment: the target's
 * incoming QEMU (its own scope, for the whole transfer) is not reported
 * until the configuration arrives, and the source stops with the move.
 *
 * The tree is pmxcfs' when <PveConfigDir>/.version exists.  Its "vmlist"
 * counter moves with every change of the cluster's guest list, so the two
 * directories are listed only when it moved: one small read an interval.
 * Without PveConfigDir, or without .version (a plain KVM/LXC host, a
 * fixture tree, or pmxcfs stopped and /etc/pve empty), every guest found
 * is reported.
 */
#ifndef PVECG_LOCAL_CONFIGS_H
#define PVECG_LOCAL_CONFIGS_H

#include "pvecg/guest.h"
#include "pvecg/sampler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct local_configs {
  const char *dir; /* PveConfigDir, "" for none */
  enum sampler_scope scope;
  bool listed;     /* keys hold the listing made at counter vmlist */
  uint64_t vmlist; /* .version's counter at that listing */
  uint64_t *keys;  /* guest_key()s, sorted */
  size_t count, cap;
};

void local_configs_init(struct local_configs *lc, const char *dir);
void local_configs_free(struct local_configs *lc);

/* Looks at .version and lists the directories when the guest list
 * changed.  Returns true when the guests to report may have changed. */
bool local_configs_refresh(struct local_configs *lc);

/* Whether the guest is to be reported: its configuration is here, or
 * there is no tree to ask. */
bool local_configs_hold(const struct local_configs *lc, enum guest_type type,
                        uint32_t vmid);

#endif
