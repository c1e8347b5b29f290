/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/meminfo.c.  Checks, beyond memory safety: only the
 * documented errors, *ret untouched on error, a deterministic result that
 * a final newline does not change, whole kibibytes on success, and that
 * the four lines printed back in the kernel's form parse to the same
 * values.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/meminfo.h"

#define FILL 0xa5

static int parse_filled(const char *buf, size_t len, struct meminfo *mi) {
  struct meminfo untouched;
  int r;

  memset(mi, FILL, sizeof(*mi));
  memset(&untouched, FILL, sizeof(untouched));
  r = meminfo_parse(buf, len, mi);
  if (r < 0) {
    FUZZ_CHECK(r == -EBADMSG || r == -ERANGE);
    FUZZ_CHECK(memcmp(mi, &untouched, sizeof(*mi)) == 0);
  }
  return r;
}

static void check_with_newline(const char *buf, size_t len, int r,
                               const struct meminfo *mi) {
  char *copy = malloc(len + 1);
  struct meminfo other;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, buf, len);
  copy[len] = '\n';
  FUZZ_CHECK(parse_filled(copy, len + 1, &other) == r);
  FUZZ_CHECK(r < 0 || memcmp(mi, &other, sizeof(*mi)) == 0);
  free(copy);
}

static void check_round_trip(const struct meminfo *mi) {
  char text[256];
  struct meminfo back;
  int n = snprintf(text, sizeof(text),
                   "MemTotal:       %8" PRIu64 " kB\n"
                   "MemAvailable:   %8" PRIu64 " kB\n"
                   "SwapTotal:      %8" PRIu64 " kB\n"
                   "SwapFree:       %8" PRIu64 " kB\n",
                   mi->mem_total >> 10, mi->mem_available >> 10,
                   mi->swap_total >> 10, mi->swap_free >> 10);

  FUZZ_CHECK(n > 0 && (size_t)n < sizeof(text));
  FUZZ_CHECK(parse_filled(text, (size_t)n, &back) == 0);
  FUZZ_CHECK(memcmp(mi, &back, sizeof(*mi)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct meminfo mi, again;
  int r = parse_filled(buf, size, &mi);

  FUZZ_CHECK(parse_filled(buf, size, &again) == r);
  check_with_newline(buf, size, r, &mi);
  if (r < 0)
    return 0;
  FUZZ_CHECK(memcmp(&mi, &again, sizeof(mi)) == 0);
  FUZZ_CHECK(((mi.mem_total | mi.mem_available | mi.swap_total | mi.swap_free) &
              1023) == 0);
  check_round_trip(&mi);
  return 0;
}
