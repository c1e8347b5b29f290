/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guests' network byte counters.
 *
 * The host side of a guest's NIC is a tap interface (QEMU:
 * tap<vmid>i<n>) or a veth (LXC: veth<vmid>i<n>).  Their counters are
 * summed per guest and seen from the guest, as PVE shows them: netin is
 * what the host sent into the interface (its tx_bytes), netout what it
 * received from it (rx_bytes).  All interfaces come from one read of
 * /proc/net/dev per run, kept open and re-read with pread.
 */
#ifndef PVECG_GUEST_NET_H
#define PVECG_GUEST_NET_H

#include "pvecg/guest.h"
#include "kept_file.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct guest_net_entry {
  uint64_t key; /* guest_key() */
  uint64_t in, out;
};

struct guest_net {
  char path[256];
  struct kept_file file;
  struct read_buffer buf;
  struct guest_net_entry *entries; /* sorted by key */
  size_t count, cap;
  int error; /* of the last refresh: 0, or why the table is unusable */
};

/* Parses "tap<vmid>i<n>" / "veth<vmid>i<n>".  Returns 0 or -EINVAL. */
int guest_net_parse_name(const char *name, enum guest_type *type,
                         uint32_t *vmid);

/* proc_root: "/proc" normally; "" leaves the table always unusable. */
void guest_net_init(struct guest_net *net, const char *proc_root);
void guest_net_free(struct guest_net *net);

/* Reads /proc/net/dev again.  Returns 0 or the error (also in ->error). */
int guest_net_refresh(struct guest_net *net);

/* The guest's totals (0 and 0 for a guest without interfaces).  Returns 0,
 * or the refresh error when the table is unusable. */
int guest_net_lookup(const struct guest_net *net, uint64_t key, uint64_t *in,
                     uint64_t *out);

#endif
