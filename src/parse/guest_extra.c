/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ExtraStats figures from memory files (see guest_extra.h). */
#include "pvecg/guest_extra.h"

#include "pvecg/decimal.h"
#include "pvecg/flat_keyed.h"

#include <errno.h>

static int fill_events(const struct guest_extra_input *in,
                       struct guest_sample *out) {
  static const char *const v2_keys[] = {"oom", "oom_kill"};
  static const char *const v1_keys[] = {"oom_kill"};
  bool v1 = in->version == CGROUP_MEMORY_V1;
  uint64_t values[2], found = 0;
  int err = flat_keyed_parse(in->events, in->events_len, v1 ? v1_keys : v2_keys,
                             v1 ? 1 : 2, values, &found);
  if (err < 0)
    return err;
  if (v1) {
    out->oom_kill_valid = found & 1;
    out->oom_kill = values[0];
  } else {
    out->oom_valid = found & 1;
    out->oom = values[0];
    out->oom_kill_valid = (found >> 1) & 1;
    out->oom_kill = values[1];
  }
  return 0;
}

static int fill_swap(const struct guest_extra_input *in,
                     struct memory_detail *d) {
  uint64_t swap;
  int err = decimal_parse_u64_file(in->swap, in->swap_len, &swap);
  if (err < 0)
    return err;
  d->bytes[MEMORY_SWAP] = swap;
  d->valid |= 1u << MEMORY_SWAP;
  return 0;
}

int guest_extra_fill(const struct guest_extra_input *in,
                     struct guest_sample *out, int *events_err, int *swap_err) {
  struct memory_detail d;
  int err = memory_detail_parse(in->version, in->stat, in->stat_len, &d);
  if (err < 0)
    return err;
  *swap_err =
      in->swap && in->version == CGROUP_MEMORY_V2 ? fill_swap(in, &d) : 0;
  *events_err = in->events ? fill_events(in, out) : 0;
  unsigned need = 1u << MEMORY_FILE | 1u << MEMORY_SHMEM;
  if ((d.valid & need) == need) {
    uint64_t unshared = d.bytes[MEMORY_FILE] > d.bytes[MEMORY_SHMEM]
                            ? d.bytes[MEMORY_FILE] - d.bytes[MEMORY_SHMEM]
                            : 0;
    out->memory_with_shmem = in->usage > unshared ? in->usage - unshared : 0;
    out->memory_with_shmem_valid = true;
  }
  out->memory_detail = d;
  return 0;
}
