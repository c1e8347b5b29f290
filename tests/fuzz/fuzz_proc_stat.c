/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/proc_stat.c.  Checks, beyond memory safety: only
 * the documented errors, *ret untouched on error, a deterministic result, at
 * least one CPU on success, that bytes after the input change nothing once
 * it parses (nothing after the CPU block is looked at), and that the
 * kernel's form printed back from a result parses to the same values.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/proc_stat.h"

#define FILL 0xa5

static int parse_filled(const char *buf, size_t len, struct proc_stat *st) {
  struct proc_stat untouched;
  int r;

  memset(st, FILL, sizeof(*st));
  memset(&untouched, FILL, sizeof(untouched));
  r = proc_stat_parse(buf, len, st);
  if (r < 0) {
    FUZZ_CHECK(r == -EBADMSG || r == -ERANGE);
    FUZZ_CHECK(memcmp(st, &untouched, sizeof(*st)) == 0);
  }
  return r;
}

static void check_appended(const char *buf, size_t len,
                           const struct proc_stat *st) {
  static const char junk[] = "cpu9 \n\xff junk";
  char *copy = malloc(len + sizeof(junk));
  struct proc_stat other;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, buf, len);
  memcpy(copy + len, junk, sizeof(junk));
  FUZZ_CHECK(parse_filled(copy, len + sizeof(junk), &other) == 0);
  FUZZ_CHECK(memcmp(st, &other, sizeof(*st)) == 0);
  free(copy);
}

static void check_round_trip(const struct proc_stat *st) {
  const struct proc_stat_cpu *c = &st->total;
  size_t size = 256 + (size_t)st->cpus * 16, n;
  char *text = malloc(size);
  struct proc_stat back;

  FUZZ_CHECK(text != NULL);
  n = (size_t)snprintf(text, size,
                       "cpu  %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                       " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                       " %" PRIu64 " %" PRIu64 "\n",
                       c->user, c->nice, c->system, c->idle, c->iowait, c->irq,
                       c->softirq, c->steal, c->guest, c->guest_nice);
  for (uint32_t i = 0; i < st->cpus; i++)
    n += (size_t)snprintf(text + n, size - n, "cpu%" PRIu32 " 0\n", i);
  n += (size_t)snprintf(text + n, size - n, "intr 0\n");
  FUZZ_CHECK(n < size);
  FUZZ_CHECK(parse_filled(text, n, &back) == 0);
  FUZZ_CHECK(memcmp(st, &back, sizeof(*st)) == 0);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct proc_stat st, again;
  int r = parse_filled(buf, size, &st);

  FUZZ_CHECK(parse_filled(buf, size, &again) == r);
  if (r < 0)
    return 0;
  FUZZ_CHECK(memcmp(&st, &again, sizeof(st)) == 0);
  FUZZ_CHECK(st.cpus >= 1);
  check_appended(buf, size, &st);
  check_round_trip(&st);
  return 0;
}
