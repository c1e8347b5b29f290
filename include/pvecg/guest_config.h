/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Proxmox VE guest configuration files: /etc/pve/qemu-server/<vmid>.conf
 * and /etc/pve/lxc/<vmid>.conf.
 *
 * Only the few keys the RRD row needs are taken: the CPU count (QEMU:
 * `vcpus`, else `sockets` x `cores`; LXC: `cores`), the configured memory
 * (`memory`, MiB; QEMU also accepts the property form `current=<MiB>`) and
 * the guest's name (`name`, LXC `hostname`), and for pve_guest_info whether
 * it is a template (`template: 1`) and its tags (`tags`, as written: PVE
 * separates them with ';'), and a VM's balloon minimum (`balloon`, MiB: 0
 * turns ballooning off; absent, the minimum is the whole `memory`) for
 * pve_guest_balloon_min_bytes.  Where a key is absent PVE's
 * default applies (QEMU 1 socket, 1 core, 512 MiB; LXC 512 MiB and all host
 * CPUs, i.e. unknown here).  The file's first section ends at a line
 * starting with '[' (snapshots, pending changes): nothing after it counts.
 */
#ifndef PVECG_GUEST_CONFIG_H
#define PVECG_GUEST_CONFIG_H

#include "pvecg/guest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUEST_CONFIG_NAME_SIZE 64
#define GUEST_CONFIG_TAGS_SIZE 256

struct guest_config {
  bool has_cpus; /* false: LXC without `cores` (all host CPUs) */
  unsigned cpus;
  uint64_t memory;                   /* bytes */
  char name[GUEST_CONFIG_NAME_SIZE]; /* "" when not set */
  bool template;                     /* `template: 1` */
  char tags[GUEST_CONFIG_TAGS_SIZE]; /* "" when not set */
  bool has_balloon_min;              /* a VM whose `balloon` is not malformed */
  uint64_t balloon_min; /* bytes: `balloon` (0: off), else memory */
};

/*
 * Parses a configuration file's content.  Lines are "key: value"; blank
 * lines and '#' comments are skipped; unknown keys are ignored.  Returns 0,
 * or -EBADMSG when a key this parser uses has a malformed value (then *ret
 * is untouched).  A name or tags that are too long or have control
 * characters are dropped (left ""), not an error; `template` is true only
 * for "1", PVE's way of writing it; a malformed `balloon` leaves the
 * minimum unknown (has_balloon_min false), not an error.
 */
int guest_config_parse(enum guest_type type, const char *buf, size_t len,
                       struct guest_config *ret);

#endif
