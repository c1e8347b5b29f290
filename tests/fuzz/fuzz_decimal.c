/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/decimal.c.  Besides memory safety it checks the
 * results against independent oracles: the digits printed back by
 * snprintf for integers, glibc's correctly rounded strtod for fixed point,
 * and the integer parser for the single-value file form.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/decimal.h"
#include "fuzz_check.h"

#define SENTINEL_U64 UINT64_C(0x0123456789abcdef)
#define SENTINEL_DOUBLE -1.5
#define FRACTION_DIGITS_MAX 9

/* The digits, less leading zeros, are exactly what printf makes of v. */
static bool digits_are(const char *p, size_t n, uint64_t v) {
  char text[sizeof(FUZZ_U64_MAX_TEXT)];

  while (n > 1 && *p == '0')
    p++, n--;
  snprintf(text, sizeof(text), "%" PRIu64, v);
  return strlen(text) == n && memcmp(text, p, n) == 0;
}

static void check_u64(const char *buf, size_t len) {
  const char *pos = buf, *end = buf + len;
  size_t run = fuzz_digit_run(buf, end);
  uint64_t v = SENTINEL_U64;
  int r = decimal_parse_u64(&pos, end, &v);

  if (run == 0 || !fuzz_digits_fit_u64(buf, run)) {
    FUZZ_CHECK(r == (run == 0 ? -EINVAL : -ERANGE));
    FUZZ_CHECK(pos == buf && v == SENTINEL_U64);
    return;
  }
  FUZZ_CHECK(r == 0 && pos == buf + run);
  FUZZ_CHECK(digits_are(buf, run, v));
}

/* Length of the fixed-point form at buf, 0 when it is not one. */
static size_t fixed_form_len(const char *buf, const char *end) {
  size_t ip = fuzz_digit_run(buf, end), fp;

  if (ip == 0 || buf + ip == end || buf[ip] != '.')
    return ip;
  fp = fuzz_digit_run(buf + ip + 1, end);
  return fp == 0 || fp > FRACTION_DIGITS_MAX ? 0 : ip + 1 + fp;
}

static double strtod_oracle(const char *s, size_t n) {
  char *copy = malloc(n + 1);
  double d;

  FUZZ_CHECK(copy != NULL);
  memcpy(copy, s, n);
  copy[n] = '\0';
  d = strtod(copy, NULL);
  free(copy);
  return d;
}

static bool same_double(double a, double b) {
  return memcmp(&a, &b, sizeof(a)) == 0;
}

static void check_fixed(const char *buf, size_t len) {
  const char *pos = buf, *end = buf + len;
  size_t run = fuzz_digit_run(buf, end), form = fixed_form_len(buf, end);
  double d = SENTINEL_DOUBLE, again;
  int r = decimal_parse_fixed(&pos, end, &d);
  int want_r = run == 0                         ? -EINVAL
               : !fuzz_digits_fit_u64(buf, run) ? -ERANGE
               : form == 0                      ? -EINVAL
                                                : 0;

  if (want_r < 0) {
    FUZZ_CHECK(r == want_r && pos == buf && same_double(d, SENTINEL_DOUBLE));
    return;
  }
  FUZZ_CHECK(r == 0 && pos == buf + form);
  FUZZ_CHECK(same_double(d, strtod_oracle(buf, form)));
  pos = buf;
  FUZZ_CHECK(decimal_parse_fixed(&pos, end, &again) == 0);
  FUZZ_CHECK(same_double(d, again));
}

static void check_file(const char *buf, size_t len) {
  const char *pos = buf, *end = buf + len;
  uint64_t v = SENTINEL_U64, u = SENTINEL_U64;
  int ru = decimal_parse_u64(&pos, end, &u);
  int r = decimal_parse_u64_file(buf, len, &v);
  bool rest_ok = pos == end || (pos + 1 == end && *pos == '\n');

  if (ru < 0)
    FUZZ_CHECK(r == ru && v == SENTINEL_U64);
  else if (!rest_ok)
    FUZZ_CHECK(r == -EINVAL && v == SENTINEL_U64);
  else
    FUZZ_CHECK(r == 0 && v == u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;

  check_u64(buf, size);
  check_fixed(buf, size);
  check_file(buf, size);
  return 0;
}
