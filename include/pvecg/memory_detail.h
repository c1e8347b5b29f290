/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of a guest's memory that ExtraStats reports: what
 * memory.stat says the charged memory consists of, and swap.
 *
 * cgroup v2 keys are taken as they are; on the v1 hierarchy the
 * hierarchical totals stand in (total_rss for anon, total_cache for file,
 * total_shmem, total_mapped_file, total_dirty, total_swap); kernel, sock
 * and sec_pagetables have no v1 counterpart in memory.stat and stay
 * unknown there.  v2 swap lives in its own file (memory.swap.current).
 */
#ifndef PVECG_MEMORY_DETAIL_H
#define PVECG_MEMORY_DETAIL_H

#include "pvecg/cgroup_memory.h"

#include <stddef.h>
#include <stdint.h>

enum memory_detail_field {
  MEMORY_ANON,
  MEMORY_FILE,
  MEMORY_SHMEM,
  MEMORY_KERNEL,
  MEMORY_SOCK,
  MEMORY_FILE_MAPPED,
  MEMORY_FILE_DIRTY,
  MEMORY_SEC_PAGETABLES,
  MEMORY_SWAP,
  MEMORY_DETAIL_COUNT,
};

struct memory_detail {
  unsigned valid; /* bit per field */
  uint64_t bytes[MEMORY_DETAIL_COUNT];
};

/* "anon", "file", ..., "swap": also the collectd type instances. */
const char *memory_detail_name(enum memory_detail_field field);

/*
 * Takes the fields from memory.stat content of the given hierarchy
 * version; fields whose key is absent are left invalid.  Returns 0 or the
 * flat_keyed_parse error (*ret untouched then).
 */
int memory_detail_parse(enum cgroup_memory_version version, const char *stat,
                        size_t len, struct memory_detail *ret);

#endif
