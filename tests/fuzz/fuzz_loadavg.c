/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/loadavg.c.  Checks, beyond memory safety: only the
 * documented errors, *ret untouched on error, a deterministic result that
 * one final newline does not change (and a second one refuses), finite
 * non-negative averages, and that the line printed back parses to the same
 * values (averages below 10^6, where "%.9f" is exact enough to round-trip).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/loadavg.h"

#define FILL 0xa5
#define ROUND_TRIP_MAX 1e6

static bool same_loadavg(const struct loadavg *a, const struct loadavg *b) {
  return memcmp(&a->avg1, &b->avg1, sizeof(double)) == 0 &&
         memcmp(&a->avg5, &b->avg5, sizeof(double)) == 0 &&
         memcmp(&a->avg15, &b->avg15, sizeof(double)) == 0 &&
         a->running == b->running && a->threads == b->threads &&
         a->last_pid == b->last_pid;
}

static int parse_filled(const char *buf, size_t len, struct loadavg *la) {
  struct loadavg untouched;
  int r;

  memset(la, FILL, sizeof(*la));
  memset(&untouched, FILL, sizeof(untouched));
  r = loadavg_parse(buf, len, la);
  if (r < 0) {
    FUZZ_CHECK(r == -EBADMSG || r == -ERANGE);
    FUZZ_CHECK(memcmp(la, &untouched, sizeof(*la)) == 0);
  }
  return r;
}

static void check_with_newline(const char *buf, size_t len, int r,
                               const struct loadavg *la) {
  bool ends_in_newline = len > 0 && buf[len - 1] == '\n';
  char *copy = malloc(len + 1);
  struct loadavg other;
  int r2;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, buf, len);
  copy[len] = '\n';
  r2 = parse_filled(copy, len + 1, &other);
  if (r == 0 && ends_in_newline)
    FUZZ_CHECK(r2 == -EBADMSG);
  else if (r == 0)
    FUZZ_CHECK(r2 == 0 && same_loadavg(la, &other));
  free(copy);
}

static bool averages_in(const struct loadavg *la, double lo, double hi) {
  /* Written as range tests so that a NaN fails them. */
  return la->avg1 >= lo && la->avg1 < hi && la->avg5 >= lo && la->avg5 < hi &&
         la->avg15 >= lo && la->avg15 < hi;
}

static void check_round_trip(const struct loadavg *la) {
  char text[256];
  struct loadavg back;
  int n;

  if (!averages_in(la, 0.0, ROUND_TRIP_MAX))
    return;
  n = snprintf(text, sizeof(text),
               "%.9f %.9f %.9f %" PRIu64 "/%" PRIu64 " %" PRIu64 "\n", la->avg1,
               la->avg5, la->avg15, la->running, la->threads, la->last_pid);
  FUZZ_CHECK(n > 0 && (size_t)n < sizeof(text));
  FUZZ_CHECK(parse_filled(text, (size_t)n, &back) == 0);
  FUZZ_CHECK(same_loadavg(la, &back));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct loadavg la, again;
  int r = parse_filled(buf, size, &la);

  FUZZ_CHECK(parse_filled(buf, size, &again) == r);
  check_with_newline(buf, size, r, &la);
  if (r < 0)
    return 0;
  FUZZ_CHECK(same_loadavg(&la, &again));
  FUZZ_CHECK(averages_in(&la, 0.0, 1.9e19));
  check_round_trip(&la);
  return 0;
}
