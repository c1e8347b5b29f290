/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/mountinfo.c.  Checks that *ret is always fully and
 * deterministically written, that any path found is absolute and
 * NUL-terminated within PATH_MAX, and that lines are independent with the
 * first match winning: known cgroup lines put after the input only fill
 * what the input left empty, and put before it always win.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/mountinfo.h"

#define KNOWN_UNIFIED "/fuzz/unified"
#define KNOWN_MEMORY "/fuzz/memory"
#define KNOWN_LINES                                                            \
  "1 1 0:1 / " KNOWN_UNIFIED " rw - cgroup2 cgroup2 rw\n"                      \
  "2 1 0:2 / " KNOWN_MEMORY " rw - cgroup cgroup rw,memory\n"

static void parse_into(const char *buf, size_t len, struct cgroup_mounts *m,
                       int fill) {
  memset(m, fill, sizeof(*m));
  FUZZ_CHECK(mountinfo_parse(buf, len, m) == 0);
}

static void check_path(const char *path) {
  size_t n = strnlen(path, PATH_MAX);

  FUZZ_CHECK(n < PATH_MAX);
  FUZZ_CHECK(n == 0 || path[0] == '/');
}

/* before: the known lines, then the input; otherwise input, '\n', lines. */
static void parse_joined(const char *buf, size_t len, bool before,
                         struct cgroup_mounts *m) {
  size_t known = strlen(KNOWN_LINES), total = len + 1 + known;
  char *joined = malloc(total);

  FUZZ_CHECK(joined != NULL);
  if (before) {
    memcpy(joined, KNOWN_LINES, known);
    memcpy(joined + known, buf, len);
    joined[total - 1] = '\n';
  } else {
    memcpy(joined, buf, len);
    joined[len] = '\n';
    memcpy(joined + len + 1, KNOWN_LINES, known);
  }
  parse_into(joined, total, m, 0);
  free(joined);
}

static const char *or_known(const char *path, const char *known) {
  return path[0] != '\0' ? path : known;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct cgroup_mounts m, other;
  const char *buf = (const char *)data;

  parse_into(buf, size, &m, 0x00);
  parse_into(buf, size, &other, 0xff);
  FUZZ_CHECK(memcmp(&m, &other, sizeof(m)) == 0);
  check_path(m.unified);
  check_path(m.memory_v1);
  parse_joined(buf, size, false, &other);
  FUZZ_CHECK(strcmp(other.unified, or_known(m.unified, KNOWN_UNIFIED)) == 0);
  FUZZ_CHECK(strcmp(other.memory_v1, or_known(m.memory_v1, KNOWN_MEMORY)) == 0);
  parse_joined(buf, size, true, &other);
  FUZZ_CHECK(strcmp(other.unified, KNOWN_UNIFIED) == 0);
  FUZZ_CHECK(strcmp(other.memory_v1, KNOWN_MEMORY) == 0);
  return 0;
}
