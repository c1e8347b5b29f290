/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The memory breakdown of memory.stat (see memory_detail.h). */
#include "pvecg/memory_detail.h"

#include "pvecg/flat_keyed.h"

#include <errno.h>

static const char *const names[MEMORY_DETAIL_COUNT] = {
    [MEMORY_ANON] = "anon",
    [MEMORY_FILE] = "file",
    [MEMORY_SHMEM] = "shmem",
    [MEMORY_KERNEL] = "kernel",
    [MEMORY_SOCK] = "sock",
    [MEMORY_FILE_MAPPED] = "file_mapped",
    [MEMORY_FILE_DIRTY] = "file_dirty",
    [MEMORY_SEC_PAGETABLES] = "sec_pagetables",
    [MEMORY_SWAP] = "swap",
};

/* memory.stat keys per field; NULL where the hierarchy has none.  In the
 * order of enum memory_detail_field, which the packed lines keep visible. */
/* clang-format off */
static const char *const v2_keys[MEMORY_DETAIL_COUNT] = {
    "anon", "file", "shmem", "kernel", "sock", "file_mapped", "file_dirty",
    "sec_pagetables", NULL /* memory.swap.current */};
static const char *const v1_keys[MEMORY_DETAIL_COUNT] = {
    "total_rss", "total_cache", "total_shmem", NULL, NULL,
    "total_mapped_file", "total_dirty", NULL, "total_swap"};
/* clang-format on */

const char *memory_detail_name(enum memory_detail_field field) {
  return (unsigned)field < MEMORY_DETAIL_COUNT ? names[field] : "unknown";
}

int memory_detail_parse(enum cgroup_memory_version version, const char *stat,
                        size_t len, struct memory_detail *ret) {
  const char *const *table = version == CGROUP_MEMORY_V1 ? v1_keys : v2_keys;
  const char *keys[MEMORY_DETAIL_COUNT];
  int field_of[MEMORY_DETAIL_COUNT];
  size_t n = 0;
  for (int f = 0; f < MEMORY_DETAIL_COUNT; f++)
    if (table[f]) {
      keys[n] = table[f];
      field_of[n++] = f;
    }
  uint64_t values[MEMORY_DETAIL_COUNT], found = 0;
  int err = flat_keyed_parse(stat, len, keys, n, values, &found);
  if (err < 0)
    return err;
  struct memory_detail out = {0};
  for (size_t i = 0; i < n; i++)
    if (found & (UINT64_C(1) << i)) {
      out.valid |= 1u << field_of[i];
      out.bytes[field_of[i]] = values[i];
    }
  *ret = out;
  return 0;
}
