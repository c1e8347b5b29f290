/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Proxmox VE guest IDs.
 *
 * A VMID is the only piece of outside data (directory names from cgroupfs,
 * plugin instances from the network) that becomes part of a path we open or
 * create, so it is validated in exactly one place.  PVE's rule: decimal
 * digits, no leading zero, 100..999999999.
 */
#ifndef PVECG_VMID_H
#define PVECG_VMID_H

#include <stddef.h>
#include <stdint.h>

#define VMID_MIN 100u
#define VMID_MAX 999999999u
/* Longest decimal VMID plus the terminating NUL. */
#define VMID_STRING_SIZE 10

/* Parses exactly len bytes of s as a VMID.  Returns 0 or -EINVAL. */
int vmid_parse(const char *s, size_t len, uint32_t *ret);

/* Parses a NUL-terminated string that must be a VMID and nothing else. */
int vmid_parse_string(const char *s, uint32_t *ret);

/*
 * Parses a QEMU scope directory name, "<vmid>.scope" (systemd's unit name for
 * a VM, as in qemu.slice/100.scope).  Returns 0 or -EINVAL.
 */
int vmid_parse_scope_name(const char *name, uint32_t *ret);

#endif
