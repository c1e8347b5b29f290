/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/cgroup_memory.c.  The input is the usage file, a
 * NUL, then memory.stat (no NUL: all usage, empty stat).  For both hierarchy
 * versions the result must be what the two underlying parsers give: the
 * usage file's error first, then memory.stat's, -ENOMSG without the cache
 * key, else usage - cache clamped to 0; *ret untouched on error.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/cgroup_memory.h"
#include "pvecg/decimal.h"
#include "pvecg/flat_keyed.h"
#include "fuzz_check.h"

#define SENTINEL UINT64_C(0xfeedfacefeedface)

static int expected(enum cgroup_memory_version version, const char *usage,
                    size_t usage_len, const char *stat, size_t stat_len,
                    uint64_t *want) {
  const char *key = version == CGROUP_MEMORY_V2 ? "file" : "total_cache";
  uint64_t u, cache, found;
  int r = decimal_parse_u64_file(usage, usage_len, &u);

  if (r < 0)
    return r;
  r = flat_keyed_parse(stat, stat_len, &key, 1, &cache, &found);
  if (r < 0)
    return r;
  if (found != 1)
    return -ENOMSG;
  *want = u >= cache ? u - cache : 0;
  return 0;
}

static void check(enum cgroup_memory_version version, const char *usage,
                  size_t usage_len, const char *stat, size_t stat_len) {
  uint64_t got = SENTINEL, want = SENTINEL;
  int want_r = expected(version, usage, usage_len, stat, stat_len, &want);
  int r = cgroup_memory_parse(version, usage, usage_len, stat, stat_len, &got);

  FUZZ_CHECK(r == want_r);
  FUZZ_CHECK(got == want);
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -EBADMSG ||
             r == -ENOMSG);
}

/* Its own heap block, so that a read past len is reported by ASan instead
 * of landing in the other file. */
static char *copy_of(const char *p, size_t len) {
  char *c = malloc(len ? len : 1);

  FUZZ_CHECK(c != NULL);
  memcpy(c, p, len);
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  const char *nul = memchr(buf, '\0', size);
  size_t usage_len = nul ? (size_t)(nul - buf) : size;
  size_t stat_len = nul ? size - usage_len - 1 : 0;
  char *usage = copy_of(buf, usage_len);
  char *stat = copy_of(nul ? nul + 1 : buf, stat_len);

  check(CGROUP_MEMORY_V2, usage, usage_len, stat, stat_len);
  check(CGROUP_MEMORY_V1, usage, usage_len, stat, stat_len);
  free(usage);
  free(stat);
  return 0;
}
