/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Invariant checks for the fuzz targets.  A violated contract is as much a
 * bug as a crash, so it aborts: libFuzzer then saves the input as a crash.
 * The digit helpers are the targets' own, deliberately naive, oracles: they
 * share no code with src/parse/decimal.c.
 */
#ifndef PVECG_FUZZ_CHECK_H
#define PVECG_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__,   \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#define FUZZ_U64_MAX_TEXT "18446744073709551615"

static inline size_t fuzz_digit_run(const char *p, const char *end) {
  size_t n = 0;

  while (p + n < end && p[n] >= '0' && p[n] <= '9')
    n++;
  return n;
}

/* Whether the digits [p, p + n) denote a value that fits 64 bits. */
static inline bool fuzz_digits_fit_u64(const char *p, size_t n) {
  size_t max = strlen(FUZZ_U64_MAX_TEXT);

  while (n > 1 && *p == '0')
    p++, n--;
  return n < max || (n == max && memcmp(p, FUZZ_U64_MAX_TEXT, n) <= 0);
}

/* The value of n digits that fit 64 bits, by strtoull on a copy. */
static inline uint64_t fuzz_digits_value(const char *p, size_t n) {
  char *copy = malloc(n + 1);
  uint64_t v;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, p, n);
  copy[n] = '\0';
  v = strtoull(copy, NULL, 10);
  free(copy);
  return v;
}

/* libFuzzer's entry point; declared here for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
