/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/psi.c.  Checks, beyond memory safety: only the
 * documented errors, *ret untouched on error, averages within 0..100, a
 * zero "full" when it is absent, a deterministic result that a final
 * newline does not change, and that the kernel's form printed back from a
 * result parses to the same values.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/psi.h"

#define FILL 0xa5

static bool same_double(double a, double b) {
  return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Field by field: struct padding is not part of the result. */
static bool same_line(const struct psi_line *a, const struct psi_line *b) {
  return same_double(a->avg10, b->avg10) && same_double(a->avg60, b->avg60) &&
         same_double(a->avg300, b->avg300) && a->total == b->total;
}

static bool same_stats(const struct psi_stats *a, const struct psi_stats *b) {
  return same_line(&a->some, &b->some) && same_line(&a->full, &b->full) &&
         a->has_full == b->has_full;
}

static int parse_filled(const char *buf, size_t len, struct psi_stats *st) {
  struct psi_stats untouched;
  int r;

  memset(st, FILL, sizeof(*st));
  memset(&untouched, FILL, sizeof(untouched));
  r = psi_parse(buf, len, st);
  if (r < 0) {
    FUZZ_CHECK(r == -EBADMSG || r == -ERANGE);
    FUZZ_CHECK(memcmp(st, &untouched, sizeof(*st)) == 0);
  }
  return r;
}

static void check_line(const struct psi_line *l) {
  /* Written as a range test so that a NaN fails it too. */
  FUZZ_CHECK(l->avg10 >= 0.0 && l->avg10 <= 100.0);
  FUZZ_CHECK(l->avg60 >= 0.0 && l->avg60 <= 100.0);
  FUZZ_CHECK(l->avg300 >= 0.0 && l->avg300 <= 100.0);
}

static int print_line(char *p, size_t n, const char *name,
                      const struct psi_line *l) {
  return snprintf(p, n,
                  "%s avg10=%.9f avg60=%.9f avg300=%.9f total=%" PRIu64 "\n",
                  name, l->avg10, l->avg60, l->avg300, l->total);
}

/* Every average came from at most 9 fraction digits and is <= 100, so
 * "%.9f" gives back that decimal and it parses to the same double. */
static void check_round_trip(const struct psi_stats *st) {
  char text[256];
  struct psi_stats back;
  int n = print_line(text, sizeof(text), "some", &st->some);

  if (st->has_full)
    n += print_line(text + n, sizeof(text) - (size_t)n, "full", &st->full);
  FUZZ_CHECK(n > 0 && (size_t)n < sizeof(text));
  FUZZ_CHECK(psi_parse(text, (size_t)n, &back) == 0);
  FUZZ_CHECK(same_stats(st, &back));
}

/* A final newline, or one more after it (an empty line), changes nothing. */
static void check_with_newline(const char *buf, size_t len, int r,
                               const struct psi_stats *st) {
  char *copy = malloc(len + 1);
  struct psi_stats other;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, buf, len);
  copy[len] = '\n';
  FUZZ_CHECK(parse_filled(copy, len + 1, &other) == r);
  FUZZ_CHECK(r < 0 || same_stats(st, &other));
  free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct psi_stats st, again;
  static const struct psi_line zero;
  int r = parse_filled(buf, size, &st);

  FUZZ_CHECK(parse_filled(buf, size, &again) == r);
  check_with_newline(buf, size, r, &st);
  if (r < 0)
    return 0;
  FUZZ_CHECK(same_stats(&st, &again));
  check_line(&st.some);
  check_line(&st.full);
  if (!st.has_full)
    FUZZ_CHECK(same_line(&st.full, &zero));
  check_round_trip(&st);
  return 0;
}
