/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /etc/pve/.version, which pmxcfs (the Proxmox VE cluster file system)
 * generates when it is opened:
 *
 *   {
 *   "starttime": 1764934800,
 *   "clinfo": 5,
 *   "vmlist": 12,
 *   "corosync.conf": 3,
 *   ...
 *
 * "vmlist" counts the changes of the cluster's guest list (a guest's
 * configuration created, removed, or moved to another node, which is what
 * a migration does at its end).  PVE::Cluster re-reads the guest list when
 * it changes; pve_cgroup lists this node's configurations then.
 */
#ifndef PVECG_PMXCFS_VERSION_H
#define PVECG_PMXCFS_VERSION_H

#include <stddef.h>
#include <stdint.h>

/*
 * The "vmlist" counter of the text in buf, which may be the file's first
 * bytes only: its line must be whole ('"vmlist": ' then digits, then ','
 * or '\n').  Returns 0, -ENOENT when no line starts with "vmlist" as key,
 * -EBADMSG when that line is not of that form, -ERANGE for a number over
 * 64 bits; *ret is written only on success.
 */
int pmxcfs_version_vmlist(const char *buf, size_t len, uint64_t *ret);

#endif
