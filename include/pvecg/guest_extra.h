/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ExtraStats figures of a guest, computed from file contents the
 * sampler has read: the memory.stat breakdown and swap (memory_detail.h),
 * the OOM counters of memory.events (v1: memory.oom_control's oom_kill),
 * and memory_with_shmem = usage - (file - shmem).
 *
 * Pure: buffers in, fields of the sample out, so it is unit-tested and
 * fuzzed like the parsers.
 */
#ifndef PVECG_GUEST_EXTRA_H
#define PVECG_GUEST_EXTRA_H

#include "pvecg/guest.h"

#include <stddef.h>
#include <stdint.h>

struct guest_extra_input {
  enum cgroup_memory_version version;
  uint64_t usage; /* memory.current / memory.usage_in_bytes, parsed */
  const char *stat;
  size_t stat_len;
  const char *events; /* NULL when the file could not be read */
  size_t events_len;
  const char *swap; /* memory.swap.current; NULL when not read */
  size_t swap_len;
};

/* Fills memory_detail, memory_with_shmem and the oom counters.  Returns 0,
 * or the error of memory.stat (then nothing is filled); a malformed events
 * or swap file only leaves its own fields unknown and is returned through
 * *events_err / *swap_err. */
int guest_extra_fill(const struct guest_extra_input *in,
                     struct guest_sample *out, int *events_err, int *swap_err);

#endif
