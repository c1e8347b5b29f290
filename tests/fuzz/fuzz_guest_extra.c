/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/guest_extra.c and src/parse/memory_detail.c: the
 * input is split at NUL bytes into memory.stat, memory.events and
 * memory.swap.current, fed for both hierarchy versions.  Invariants: only
 * documented results, nothing filled when memory.stat is refused, and
 * memory_with_shmem never above the usage.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/guest_extra.h"

static const char *part(const char **p, const char *end, size_t *len) {
  const char *start = *p;
  const char *nul = memchr(start, '\0', (size_t)(end - start));
  *len = (size_t)((nul ? nul : end) - start);
  *p = nul ? nul + 1 : end;
  return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = (const char *)data, *end = p + size;
  struct guest_extra_input in = {.usage = size * 1000003u};
  in.stat = part(&p, end, &in.stat_len);
  in.events = part(&p, end, &in.events_len);
  in.swap = part(&p, end, &in.swap_len);
  for (int v = 0; v < 2; v++) {
    in.version = v ? CGROUP_MEMORY_V1 : CGROUP_MEMORY_V2;
    struct guest_sample out;
    memset(&out, 0, sizeof(out));
    int eerr = 0, werr = 0;
    int r = guest_extra_fill(&in, &out, &eerr, &werr);
    FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ERANGE || r == -EINVAL);
    if (r != 0) {
      FUZZ_CHECK(out.memory_detail.valid == 0 && !out.oom_kill_valid);
      continue;
    }
    FUZZ_CHECK(eerr == 0 || eerr == -EBADMSG || eerr == -ERANGE);
    FUZZ_CHECK(werr == 0 || werr == -EINVAL || werr == -ERANGE);
    FUZZ_CHECK(out.memory_detail.valid < (1u << MEMORY_DETAIL_COUNT));
    FUZZ_CHECK(!out.memory_with_shmem_valid ||
               out.memory_with_shmem <= in.usage);
  }
  return 0;
}
