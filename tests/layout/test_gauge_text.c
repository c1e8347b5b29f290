/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/layout/gauge_text.c: every value it formats has, byte for
 * byte, the text of the printf loop it stands in for (%.15g, %.16g, %.17g:
 * the first that reads back), and every value it leaves to that loop is
 * one it must (more digits, an exponent, not finite).  rrd_row.c's text is
 * then the loop's for every value, which these tests also check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../helpers/gauge_oracle.h"
#include "../helpers/loop_count.h"
#include "gauge_text.h"
#include "pvecg/rrd_row.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the short form must do with v: the oracle's text when %.15g read
 * back without an exponent, else nothing. */
static void assert_as_printf(double v) {
  char want[64], got[GAUGE_TEXT_SIZE], row[64];
  gauge_oracle(v, want);
  char g15[64];
  snprintf(g15, sizeof(g15), "%.15g", v);
  bool short_form = isfinite(v) && strtod(g15, NULL) == v &&
                    strchr(g15, 'e') == NULL && strcmp(want, g15) == 0;
  int len = gauge_text_short(v, got);
  if (short_form) {
    assert_int_equal(len, strlen(want));
    assert_string_equal(got, want);
  } else {
    assert_int_equal(len, 0);
  }
  assert_int_equal(rrd_row_format_gauge(v, row, sizeof(row)), strlen(want));
  assert_string_equal(row, want);
}

static void assert_text(double v, const char *want) {
  char got[GAUGE_TEXT_SIZE];
  assert_int_equal(gauge_text_short(v, got), strlen(want));
  assert_string_equal(got, want);
  assert_as_printf(v);
}

static void test_exact_texts(void **state) {
  (void)state;
  assert_text(0, "0");
  assert_text(-0.0, "-0");
  assert_text(4, "4");
  assert_text(0.25, "0.25");
  assert_text(-2.5, "-2.5");
  assert_text(8589934592, "8589934592");
  assert_text(1.5, "1.5");
  assert_text(0.1, "0.1");
  assert_text(0.3, "0.3");
  assert_text(1.23, "1.23");
  assert_text(0.0001, "0.0001");
  assert_text(0.00012, "0.00012");
  assert_text(999999999999999, "999999999999999");
  assert_text(123456789.123456, "123456789.123456");
  assert_text(-0.000123456789012345, "-0.000123456789012345");
}

/* Left to printf: more than 15 digits, exponents, not finite. */
static void test_left_to_printf(void **state) {
  (void)state;
  char got[GAUGE_TEXT_SIZE];
  const double others[] = {
      1.0 / 3,  0.1 + 0.2,         1e15,     1e21, 1e-5,     0.0000999,
      5e-324,   DBL_MAX,           -DBL_MIN, NAN,  INFINITY, -INFINITY,
      1e15 + 2, 9007199254740993.0};
  for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
    assert_int_equal(gauge_text_short(others[i], got), 0);
    assert_as_printf(others[i]);
  }
}

/* Around the edges of the fixed form and of 15 digits. */
static void test_edges(void **state) {
  (void)state;
  const double edges[] = {1e-4, 1e15, 1e14, 1,       0.5,   10,
                          100,  1e-3, 0.1,  999.999, 9.999, 99999999999999.9};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
    double v = edges[i];
    for (int s = 0; s < 2; s++, v = -v) {
      double up = v, down = v;
      assert_as_printf(v);
      for (int n = 0; n < 8; n++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        assert_as_printf(up);
        assert_as_printf(down);
      }
    }
  }
}

static uint64_t next_random(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Short decimals m / 10^k, as measured values and averages are. */
static void test_short_decimals(void **state) {
  (void)state;
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < loop_count(100000); i++) {
    uint64_t digits = 1 + next_random(&x) % 17;
    uint64_t m = next_random(&x) % (uint64_t)pow(10, (double)digits);
    int k = (int)(next_random(&x) % 20);
    double v = (double)m / pow(10, k);
    assert_as_printf(next_random(&x) % 2 ? v : -v);
  }
}

/* Any bit pattern: integers, fractions, tiny and huge values. */
static void test_random_doubles(void **state) {
  (void)state;
  uint64_t x = 2463534242ULL;
  for (int i = 0; i < loop_count(100000); i++) {
    uint64_t bits = next_random(&x);
    double v;
    memcpy(&v, &bits, sizeof(v));
    assert_as_printf(v);
    assert_as_printf(nearbyint(fmod(v, 1e17))); /* integers up to 17 digits */
    assert_as_printf((double)(int64_t)(bits >> 12) / 64); /* fractions */
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_texts),
    cmocka_unit_test(test_left_to_printf),
    cmocka_unit_test(test_edges),
    cmocka_unit_test(test_short_decimals),
    cmocka_unit_test(test_random_doubles),
};

int main(void) { return cmocka_run_group_tests(tests, NULL, NULL); }
