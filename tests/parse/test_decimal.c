/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/decimal.c: the kernel's number forms are accepted
 * exactly, everything strtoull/strtod would also take (signs, spaces, hex,
 * exponents) is refused, 64-bit overflow is -ERANGE, and fixed-point values
 * come back as the nearest double.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "pvecg/decimal.h"
#include "exact_buffer.h"

#define SENTINEL_U64 UINT64_C(0xdeadbeefcafef00d)
#define SENTINEL_DOUBLE -42.5

/* Parses s with decimal_parse_u64; on success checks the value and that
 * exactly `consumed` bytes were eaten, on error that nothing was touched. */
static void check_u64(const char *s, int want_r, uint64_t want,
                      size_t consumed) {
  size_t len = strlen(s);
  char *buf = exact_copy(s, len);
  const char *pos = buf;
  uint64_t v = SENTINEL_U64;
  int r = decimal_parse_u64(&pos, buf + len, &v);

  assert_int_equal(r, want_r);
  if (r == 0) {
    assert_int_equal(v, want);
    assert_int_equal(pos - buf, consumed);
  } else {
    assert_int_equal(v, SENTINEL_U64);
    assert_ptr_equal(pos, buf);
  }
  free(buf);
}

static void check_fixed(const char *s, int want_r, double want,
                        size_t consumed) {
  size_t len = strlen(s);
  char *buf = exact_copy(s, len);
  const char *pos = buf;
  double v = SENTINEL_DOUBLE;
  int r = decimal_parse_fixed(&pos, buf + len, &v);

  assert_int_equal(r, want_r);
  if (r == 0) {
    assert_double_identical(v, want);
    assert_int_equal(pos - buf, consumed);
  } else {
    assert_double_identical(v, SENTINEL_DOUBLE);
    assert_ptr_equal(pos, buf);
  }
  free(buf);
}

static void check_file(const char *s, size_t len, int want_r, uint64_t want) {
  char *buf = exact_copy(s, len);
  uint64_t v = SENTINEL_U64;

  assert_int_equal(decimal_parse_u64_file(buf, len, &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL_U64);
  free(buf);
}

static void test_u64_accepts_digits(void **state) {
  (void)state;
  check_u64("0", 0, 0, 1);
  check_u64("7", 0, 7, 1);
  check_u64("2579710", 0, 2579710, 7);
  check_u64("007", 0, 7, 3);
  check_u64("123abc", 0, 123, 3);
  check_u64("42\n", 0, 42, 2);
  check_u64("1.5", 0, 1, 1);
  check_u64("1e3", 0, 1, 1);
  check_u64("0x10", 0, 0, 1);
}

static void test_u64_limits(void **state) {
  (void)state;
  check_u64("18446744073709551615", 0, UINT64_MAX, 20);
  check_u64("18446744073709551615 ", 0, UINT64_MAX, 20);
  check_u64("00000000000000000000018446744073709551615", 0, UINT64_MAX, 41);
  check_u64("18446744073709551616", -ERANGE, 0, 0);
  check_u64("18446744073709551620", -ERANGE, 0, 0);
  check_u64("99999999999999999999", -ERANGE, 0, 0);
  check_u64("184467440737095516150", -ERANGE, 0, 0);
  check_u64("9223372036854771712", 0, UINT64_C(9223372036854771712), 19);
}

static void test_u64_refuses_non_digits(void **state) {
  (void)state;
  check_u64("", -EINVAL, 0, 0);
  check_u64("-1", -EINVAL, 0, 0);
  check_u64("+1", -EINVAL, 0, 0);
  check_u64(" 1", -EINVAL, 0, 0);
  check_u64("\t1", -EINVAL, 0, 0);
  check_u64("\n", -EINVAL, 0, 0);
  check_u64("a1", -EINVAL, 0, 0);
  check_u64(".5", -EINVAL, 0, 0);
  check_u64("max", -EINVAL, 0, 0);
}

/* The end pointer bounds the parse even inside a run of digits. */
static void test_u64_stops_at_end(void **state) {
  const char *s = "123456";
  const char *pos = s;
  uint64_t v = 0;

  (void)state;
  assert_int_equal(decimal_parse_u64(&pos, s + 3, &v), 0);
  assert_int_equal(v, 123);
  assert_ptr_equal(pos, s + 3);
  pos = s + 3;
  assert_int_equal(decimal_parse_u64(&pos, s + 3, &v), -EINVAL);
  assert_ptr_equal(pos, s + 3);
}

static void test_fixed_kernel_forms(void **state) {
  (void)state;
  check_fixed("0.00", 0, 0.0, 4);
  check_fixed("0.59", 0, 0.59, 4);
  check_fixed("1.23", 0, 1.23, 4);
  check_fixed("31.26", 0, 31.26, 5);
  check_fixed("7.54 ", 0, 7.54, 4);
  check_fixed("100.00", 0, 100.0, 6);
  check_fixed("99.99", 0, 99.99, 5);
  check_fixed("0.1", 0, 0.1, 3);
  check_fixed("12", 0, 12.0, 2);
  check_fixed("0", 0, 0.0, 1);
  check_fixed("1.123456789", 0, 1.123456789, 11);
  check_fixed("0.000000001", 0, 0.000000001, 11);
  check_fixed("123456789.123456789", 0, 123456789.123456789, 19);
  check_fixed("1e3", 0, 1.0, 1);
  check_fixed("1,5", 0, 1.0, 1);
}

static void test_fixed_refuses(void **state) {
  (void)state;
  check_fixed("", -EINVAL, 0, 0);
  check_fixed(".5", -EINVAL, 0, 0);
  check_fixed("-1.00", -EINVAL, 0, 0);
  check_fixed("+1.00", -EINVAL, 0, 0);
  check_fixed(" 1.00", -EINVAL, 0, 0);
  check_fixed("1.", -EINVAL, 0, 0);
  check_fixed("1. ", -EINVAL, 0, 0);
  check_fixed("1.x", -EINVAL, 0, 0);
  check_fixed("1.-5", -EINVAL, 0, 0);
  check_fixed("1.1234567890", -EINVAL, 0, 0);
  check_fixed("0.00000000000000000001", -EINVAL, 0, 0);
  check_fixed("nan", -EINVAL, 0, 0);
  check_fixed("inf", -EINVAL, 0, 0);
  check_fixed("18446744073709551616", -ERANGE, 0, 0);
  check_fixed("18446744073709551616.5", -ERANGE, 0, 0);
}

/*
 * Values whose nearest double needs care: adding a rounded fraction to a
 * rounded integer part would round twice.  2^53 + 1 is halfway between two
 * doubles, so the smallest fraction decides the direction.
 */
static void test_fixed_rounds_once(void **state) {
  (void)state;
  check_fixed("9007199254740993", 0, 9007199254740992.0, 16);
  check_fixed("9007199254740993.0", 0, 9007199254740992.0, 18);
  check_fixed("9007199254740993.000000001", 0, 9007199254740994.0, 26);
  check_fixed("9007199254740992.999999999", 0, 9007199254740992.0, 26);
  check_fixed("9007199254740995", 0, 9007199254740996.0, 16);
  check_fixed("18014398509481989.000000001", 0, 18014398509481988.0, 27);
  check_fixed("18014398509481990", 0, 18014398509481992.0, 17);
  check_fixed("18014398509481990.000000001", 0, 18014398509481992.0, 27);
  check_fixed("18014398509481994", 0, 18014398509481992.0, 17);
  check_fixed("18014398509481994.000000001", 0, 18014398509481996.0, 27);
  check_fixed("18446744073709551615", 0, 18446744073709551616.0, 20);
  check_fixed("18446744073709551615.999999999", 0, 18446744073709551616.0, 30);
  check_fixed("9007199.254740993", 0, 9007199.254740993, 17);
  check_fixed("9999999.999999999", 0, 9999999.999999999, 17);
  check_fixed("4503599627370495.5", 0, 4503599627370495.5, 18);
  check_fixed("4503599627370496.25", 0, 4503599627370496.0, 19);
  check_fixed("4503599627370496.75", 0, 4503599627370497.0, 19);
}

/* glibc's strtod is correctly rounded: it is the oracle for the nearest
 * double over a spread of integer parts and fraction lengths. */
static void test_fixed_matches_strtod(void **state) {
  static const uint64_t ints[] = {0,
                                  1,
                                  99,
                                  100,
                                  4095,
                                  8388608,
                                  9007198,
                                  9007199,
                                  123456789,
                                  4294967295,
                                  UINT64_C(9007199254740991),
                                  UINT64_C(9007199254740993),
                                  UINT64_C(36028797018963971),
                                  UINT64_MAX};
  char s[64];
  uint64_t seed = 1;

  (void)state;
  for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
    for (unsigned digits = 1; digits <= 9; digits++) {
      for (unsigned k = 0; k < 200; k++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        unsigned frac = (unsigned)(seed >> 33) % 1000000000u;
        int n = snprintf(s, sizeof(s), "%llu.%09u", (unsigned long long)ints[i],
                         frac);
        s[n - 9 + (int)digits] = '\0';
        check_fixed(s, 0, strtod(s, NULL), strlen(s));
      }
    }
  }
}

static void test_file_forms(void **state) {
  (void)state;
  check_file("251666432\n", 10, 0, 251666432);
  check_file("251666432", 9, 0, 251666432);
  check_file("0\n", 2, 0, 0);
  check_file("18446744073709551615\n", 21, 0, UINT64_MAX);
  check_file("18446744073709551616\n", 21, -ERANGE, 0);
  check_file("", 0, -EINVAL, 0);
  check_file("\n", 1, -EINVAL, 0);
  check_file("1\n\n", 3, -EINVAL, 0);
  check_file("1 \n", 3, -EINVAL, 0);
  check_file(" 1\n", 3, -EINVAL, 0);
  check_file("-1\n", 3, -EINVAL, 0);
  check_file("1\r\n", 3, -EINVAL, 0);
  check_file("max\n", 4, -EINVAL, 0);
  check_file("1.5\n", 4, -EINVAL, 0);
  check_file("12\n3", 4, -EINVAL, 0);
  check_file("12\0", 3, -EINVAL, 0);
}

/* Truncation by a short read: every prefix is a number or an error. */
static void test_file_every_prefix(void **state) {
  static const char s[] = "251666432\n";
  static const uint64_t want[] = {0,        2,         25,       251,
                                  2516,     25166,     251666,   2516664,
                                  25166643, 251666432, 251666432};

  (void)state;
  check_file(s, 0, -EINVAL, 0);
  for (size_t len = 1; len <= strlen(s); len++)
    check_file(s, len, 0, want[len]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_u64_accepts_digits),
      cmocka_unit_test(test_u64_limits),
      cmocka_unit_test(test_u64_refuses_non_digits),
      cmocka_unit_test(test_u64_stops_at_end),
      cmocka_unit_test(test_fixed_kernel_forms),
      cmocka_unit_test(test_fixed_refuses),
      cmocka_unit_test(test_fixed_rounds_once),
      cmocka_unit_test(test_fixed_matches_strtod),
      cmocka_unit_test(test_file_forms),
      cmocka_unit_test(test_file_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
