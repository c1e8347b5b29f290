/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bucket of a file's entry, for the tables keyed by (layout, cluster,
 * name): the store's (rrd_store_table.c) and the owners'
 * (rrd_owner_table.c).  FNV-1a of the cluster, a NUL and the name (so that
 * no two keys run together), mixed with the layout's address (the same
 * name is two files in two layouts).
 */
#ifndef PVECG_RRD_ENTRY_HASH_H
#define PVECG_RRD_ENTRY_HASH_H

#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <stdint.h>

static inline size_t rrd_entry_hash(const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)cluster; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  h *= 1099511628211ULL; /* the NUL between them */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  return (size_t)(h ^ ((uintptr_t)layout * 0x9e3779b97f4a7c15ULL));
}

#endif
