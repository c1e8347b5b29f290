/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which guests there are: the tracked guests, sorted by key, and the
 * listings of qemu.slice/ and lxc/ that keep them current
 * (sampler_discovery.c).  A scan opens the files of new guests within the
 * descriptor budget and drops the guests that are gone; the run loop
 * (sampler.c) calls it and walks the array.
 */
#ifndef PVECG_SAMPLER_DISCOVERY_H
#define PVECG_SAMPLER_DISCOVERY_H

#include "dir_change.h"
#include "local_configs.h"
#include "sampler_guest.h"

#include "pvecg/sampler.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A directory found by a scan that is not tracked yet. */
struct sampler_pending {
  uint64_t key;
  ino_t ino;
};

struct sampler_discovery {
  const struct sampler_config *config;
  struct guest_dirs dirs;
  struct guest *guests; /* sorted by key */
  size_t count, cap;
  struct sampler_pending *pending;
  size_t pending_count, pending_cap;
  unsigned scan_gen;
  size_t kept_count; /* guests whose files stay open */
  struct dir_change changes[GUEST_TYPE_COUNT];
  struct local_configs local; /* whose guests are this node's */
  unsigned long listings, listings_skipped;
};

/* config must outlive d; wanted: the guest_file bits to open. */
void sampler_discovery_init(struct sampler_discovery *d,
                            const struct sampler_config *config,
                            unsigned wanted);
void sampler_discovery_free(struct sampler_discovery *d);

/*
 * Lists the type directories (those cgroupfs says changed, all of them
 * when the guests whose configuration is here changed), drops the guests
 * marked gone, no longer listed or no longer this node's, and opens the
 * new ones.
 * Returns 0, or a negative errno when no directory could be listed.
 */
int sampler_discovery_scan(struct sampler_discovery *d, double now);

/* Makes the next scan list every directory, changed or not. */
void sampler_discovery_forget(struct sampler_discovery *d);

/* Descriptors held: the guests' files and the directories watched. */
size_t sampler_discovery_fd_count(const struct sampler_discovery *d);

#endif
