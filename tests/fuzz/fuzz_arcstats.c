/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/arcstats.c.  Checks, beyond memory safety: only the
 * documented errors, *ret untouched on error, a deterministic result that
 * a final newline does not change, and that a minimal kstat printed back
 * in SPL's form parses to the same size.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "pvecg/arcstats.h"
#include "fuzz_check.h"

#define FILL 0xa5

static int parse_filled(const char *buf, size_t len, struct arcstats *arc) {
  struct arcstats untouched;
  int r;

  memset(arc, FILL, sizeof(*arc));
  memset(&untouched, FILL, sizeof(untouched));
  r = arcstats_parse(buf, len, arc);
  if (r < 0) {
    FUZZ_CHECK(r == -EBADMSG || r == -ERANGE);
    FUZZ_CHECK(memcmp(arc, &untouched, sizeof(*arc)) == 0);
  }
  return r;
}

static void check_with_newline(const char *buf, size_t len, int r,
                               const struct arcstats *arc) {
  char *copy = malloc(len + 1);
  struct arcstats other;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, buf, len);
  copy[len] = '\n';
  FUZZ_CHECK(parse_filled(copy, len + 1, &other) == r);
  FUZZ_CHECK(r < 0 || other.size == arc->size);
  free(copy);
}

static void check_round_trip(const struct arcstats *arc) {
  char text[256];
  struct arcstats back;
  int n =
      snprintf(text, sizeof(text),
               "13 1 0x01 1 80 1 2\n%-31s %-4s %s\n%-31s %-4d %" PRIu64 "\n",
               "name", "type", "data", "size", 4, arc->size);

  FUZZ_CHECK(n > 0 && (size_t)n < sizeof(text));
  FUZZ_CHECK(parse_filled(text, (size_t)n, &back) == 0);
  FUZZ_CHECK(back.size == arc->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct arcstats arc, again;
  int r = parse_filled(buf, size, &arc);

  FUZZ_CHECK(parse_filled(buf, size, &again) == r);
  check_with_newline(buf, size, r, &arc);
  if (r < 0)
    return 0;
  FUZZ_CHECK(again.size == arc.size);
  check_round_trip(&arc);
  return 0;
}
