/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest memory figure Proxmox VE calls memhost (and mem for LXC):
 * the cgroup's charged memory minus its page cache.
 *
 *   cgroup v2:          memory.current        - memory.stat[file]
 *   cgroup v1 (hybrid): memory.usage_in_bytes - memory.stat[total_cache]
 *
 * A negative difference (the two files are read at slightly different
 * moments) is clamped to 0, as PVE does.
 */
#ifndef PVECG_CGROUP_MEMORY_H
#define PVECG_CGROUP_MEMORY_H

#include <stddef.h>
#include <stdint.h>

enum cgroup_memory_version {
  CGROUP_MEMORY_V2,
  CGROUP_MEMORY_V1,
};

/* usage - cache, clamped to 0. */
uint64_t cgroup_memory_used(uint64_t usage, uint64_t cache);

/*
 * Computes the figure from the contents of the usage file (memory.current or
 * memory.usage_in_bytes) and of memory.stat for the given hierarchy version.
 * Returns 0, or the error of the file that was malformed: -EINVAL/-ERANGE
 * from the usage file, -EBADMSG/-ERANGE from memory.stat, -ENOMSG when
 * memory.stat lacks the cache key (-EINVAL too for a version that is not
 * in the enum).  *ret is written only on success.
 */
int cgroup_memory_parse(enum cgroup_memory_version version, const char *usage,
                        size_t usage_len, const char *stat, size_t stat_len,
                        uint64_t *ret);

#endif
