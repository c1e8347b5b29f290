/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The members of a Proxmox VE pool, from the text of /etc/pve/user.cfg,
 * read as Proxmox's own parser (PVE::AccessControl::parse_user_config)
 * reads it: a line is split at ':' and each field trimmed;
 *   pool:<name>:<comment>:<vmid,vmid,...>:<storage,...>:
 * names a pool (several lines of one pool add up), its VMIDs separated by
 * ',', ';' or blanks.  A member that is not all digits is ignored, and a
 * VMID already in an earlier pool line stays that pool's (Proxmox warns
 * and ignores it), so no pool is read wider than Proxmox has it.  Pure,
 * so that it is unit tested and fuzzed; serve_secure.c reads the file.
 */
#ifndef PVECG_SERVE_POOLS_H
#define PVECG_SERVE_POOLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The VMIDs of pool in user.cfg's text[0..size), sorted, into *vmids
 * (malloc'd, *count of them; NULL when none).  Returns 0 (a pool without
 * members has none), -ENOENT when no line names the pool, or -ENOMEM.
 * A member that is no VMID pvecg could have a file of (100 to 999999999)
 * is left out too.
 */
int serve_pool_members(const char *text, size_t size, const char *pool,
                       uint32_t **vmids, size_t *count);

#endif
