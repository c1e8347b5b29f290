/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/text_copy.c: a string copied whole when it fits,
 * cut to size - 1 bytes and ended when it does not, nothing written for
 * size 0, and never a byte written past dst[size]; appends that continue
 * where the text ends and stop at a full buffer; a number's digits, from 0
 * to 2^64 - 1, without an end and without a byte more.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/text_copy.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define CANARY '#'
#define ROOM 16

/* A buffer of ROOM bytes, canaries from byte `size` on. */
static void fill(char buf[ROOM], size_t size) {
  memset(buf, CANARY, ROOM);
  if (size > 0)
    memset(buf, 'x', size);
}

static void canaries_kept(const char buf[ROOM], size_t size) {
  for (size_t i = size; i < ROOM; i++)
    assert_int_equal(buf[i], CANARY);
}

static void check_copy(const char *src, size_t size, const char *want) {
  char buf[ROOM];
  fill(buf, size);
  assert_int_equal(text_copy(buf, size, src), strlen(want));
  if (size > 0)
    assert_string_equal(buf, want);
  canaries_kept(buf, size);
}

static void copies_what_fits(void **state) {
  (void)state;
  check_copy("qemu", 8, "qemu");
  check_copy("", 8, "");
  check_copy("1234567", 8, "1234567");  /* exactly fits */
  check_copy("12345678", 8, "1234567"); /* one too long: cut */
  check_copy("a much longer text", 5, "a mu");
  check_copy("abc", 1, ""); /* room for the end only */
}

static void size_zero_writes_nothing(void **state) {
  (void)state;
  check_copy("abc", 0, "");
}

static void appends(void **state) {
  (void)state;
  char buf[ROOM];
  fill(buf, 10);
  size_t len = text_copy(buf, 10, "node");
  len = text_append(buf, 10, len, "/");
  len = text_append(buf, 10, len, "pve1");
  assert_int_equal(len, 9);
  assert_string_equal(buf, "node/pve1");
  assert_int_equal(text_append(buf, 10, len, "more"), 9); /* full: kept */
  assert_string_equal(buf, "node/pve1");
  assert_int_equal(text_append(buf, 10, 12, "x"), 12); /* past the end */
  canaries_kept(buf, 10);
}

static void appends_cut(void **state) {
  (void)state;
  char buf[ROOM];
  fill(buf, 8);
  size_t len = text_copy(buf, 8, "guest");
  assert_int_equal(text_append(buf, 8, len, "/12345"), 7);
  assert_string_equal(buf, "guest/1");
  canaries_kept(buf, 8);
}

static void check_u64(uint64_t v, const char *want) {
  char buf[TEXT_U64_DIGITS + 4];
  memset(buf, CANARY, sizeof(buf));
  size_t n = text_u64(buf, v);
  assert_int_equal(n, strlen(want));
  assert_memory_equal(buf, want, n);
  for (size_t i = n; i < sizeof(buf); i++)
    assert_int_equal(buf[i], CANARY);
}

static void numbers(void **state) {
  (void)state;
  check_u64(0, "0");
  check_u64(9, "9");
  check_u64(10, "10");
  check_u64(1796500620, "1796500620");
  check_u64(UINT64_MAX, "18446744073709551615");
}

/* Every length, at both ends of each (the digits go two at a time, so odd
 * and even lengths take different last steps), against printf. */
static void numbers_every_length(void **state) {
  (void)state;
  uint64_t p = 1;
  for (int digits = 1; digits <= 20; digits++) {
    uint64_t lo = p, hi = digits == 20 ? UINT64_MAX : p * 10 - 1;
    uint64_t v[] = {lo, lo + 1, hi - 1, hi, lo + (hi - lo) / 3};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
      char want[32];
      snprintf(want, sizeof(want), "%" PRIu64, v[i]);
      assert_int_equal(strlen(want), (size_t)digits);
      check_u64(v[i], want);
    }
    if (digits < 20)
      p *= 10;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_what_fits),
      cmocka_unit_test(size_zero_writes_nothing),
      cmocka_unit_test(appends),
      cmocka_unit_test(appends_cut),
      cmocka_unit_test(numbers),
      cmocka_unit_test(numbers_every_length),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
