/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PVE's memhost figure from a guest cgroup's memory files: charged memory
 * minus page cache, which is what the guest costs the host beyond
 * reclaimable cache.  The two hierarchies name the same numbers differently;
 * this file is the one place that knows the mapping.
 */
#include "pvecg/cgroup_memory.h"

#include <errno.h>

#include "pvecg/decimal.h"
#include "pvecg/flat_keyed.h"

uint64_t cgroup_memory_used(uint64_t usage, uint64_t cache) {
  return usage > cache ? usage - cache : 0;
}

/* v1's memory.stat also has a local "cache"; total_cache includes the
 * cgroup's descendants, as usage_in_bytes does. */
static const char *cgroup_memory_cache_key(enum cgroup_memory_version version) {
  switch (version) {
  case CGROUP_MEMORY_V2:
    return "file";
  case CGROUP_MEMORY_V1:
    return "total_cache";
  }
  return NULL;
}

int cgroup_memory_parse(enum cgroup_memory_version version, const char *usage,
                        size_t usage_len, const char *stat, size_t stat_len,
                        uint64_t *ret) {
  const char *key = cgroup_memory_cache_key(version);
  uint64_t used, cache, found;
  int r;

  if (!key)
    return -EINVAL;
  r = decimal_parse_u64_file(usage, usage_len, &used);
  if (r < 0)
    return r;
  r = flat_keyed_parse(stat, stat_len, &key, 1, &cache, &found);
  if (r < 0)
    return r;
  if (!(found & 1))
    return -ENOMSG;
  *ret = cgroup_memory_used(used, cache);
  return 0;
}
