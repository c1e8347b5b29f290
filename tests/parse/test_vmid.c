/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/vmid.c: exactly PVE's VMIDs (100..999999999, no leading
 * zero) pass, and nothing that could alias another guest or carry path
 * syntax does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/vmid.h"

#define SENTINEL 0xdeadbeefu

/* The three entry points on the same text: vmid_parse on an exact-length
 * heap copy, vmid_parse_string, and the name with ".scope" appended. */
static void check_vmid(const char *s, int want_r, uint32_t want) {
  size_t len = strlen(s);
  char *buf = exact_copy(s, len);
  char scope[64];
  uint32_t v = SENTINEL;

  assert_int_equal(vmid_parse(buf, len, &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL);
  v = SENTINEL;
  assert_int_equal(vmid_parse_string(s, &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL);
  v = SENTINEL;
  assert_true(strlen(s) + sizeof(".scope") <= sizeof(scope));
  strcpy(scope, s);
  strcat(scope, ".scope");
  assert_int_equal(vmid_parse_scope_name(scope, &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL);
  free(buf);
}

static void check_scope(const char *name, int want_r, uint32_t want) {
  uint32_t v = SENTINEL;

  assert_int_equal(vmid_parse_scope_name(name, &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL);
}

static void test_valid(void **state) {
  (void)state;
  check_vmid("100", 0, 100);
  check_vmid("101", 0, 101);
  check_vmid("999", 0, 999);
  check_vmid("1000", 0, 1000);
  check_vmid("123456", 0, 123456);
  check_vmid("100000000", 0, 100000000);
  check_vmid("999999999", 0, 999999999);
}

static void test_out_of_range(void **state) {
  (void)state;
  check_vmid("0", -EINVAL, 0);
  check_vmid("1", -EINVAL, 0);
  check_vmid("99", -EINVAL, 0);
  check_vmid("1000000000", -EINVAL, 0);
  check_vmid("4294967296", -EINVAL, 0);
  check_vmid("4294967396", -EINVAL, 0);
  check_vmid("18446744073709551616", -EINVAL, 0);
  check_vmid("99999999999999999999999", -EINVAL, 0);
}

static void test_not_plain_digits(void **state) {
  (void)state;
  check_vmid("", -EINVAL, 0);
  check_vmid("0100", -EINVAL, 0);
  check_vmid("00100", -EINVAL, 0);
  check_vmid("+100", -EINVAL, 0);
  check_vmid("-100", -EINVAL, 0);
  check_vmid(" 100", -EINVAL, 0);
  check_vmid("100 ", -EINVAL, 0);
  check_vmid("100\n", -EINVAL, 0);
  check_vmid("1e3", -EINVAL, 0);
  check_vmid("0x64", -EINVAL, 0);
  check_vmid("100.0", -EINVAL, 0);
  check_vmid("1_000", -EINVAL, 0);
  check_vmid("10a", -EINVAL, 0);
  check_vmid("..", -EINVAL, 0);
  check_vmid("100/..", -EINVAL, 0);
}

/* vmid_parse takes exactly len bytes: a NUL inside them is not an end. */
static void test_parse_length_is_exact(void **state) {
  uint32_t v = SENTINEL;

  (void)state;
  assert_int_equal(vmid_parse("100", 2, &v), -EINVAL);
  assert_int_equal(vmid_parse("1000", 3, &v), 0);
  assert_int_equal(v, 100);
  v = SENTINEL;
  assert_int_equal(vmid_parse("100\0", 4, &v), -EINVAL);
  assert_int_equal(vmid_parse("10\0"
                              "0",
                              4, &v),
                   -EINVAL);
  assert_int_equal(v, SENTINEL);
}

/* An overlong string is refused, however long it is. */
static void test_string_overlong(void **state) {
  char s[4096];
  uint32_t v = SENTINEL;

  (void)state;
  memset(s, '1', sizeof(s) - 1);
  s[sizeof(s) - 1] = '\0';
  assert_int_equal(vmid_parse_string(s, &v), -EINVAL);
  assert_int_equal(vmid_parse_scope_name(s, &v), -EINVAL);
  strcpy(s + sizeof(s) - 1 - strlen(".scope"), ".scope");
  assert_int_equal(vmid_parse_scope_name(s, &v), -EINVAL);
  assert_int_equal(v, SENTINEL);
}

static void test_scope_names(void **state) {
  (void)state;
  check_scope("100.scope", 0, 100);
  check_scope("999999999.scope", 0, 999999999);
  check_scope("100.scope.x", -EINVAL, 0);
  check_scope("100.scopex", -EINVAL, 0);
  check_scope("100.scop", -EINVAL, 0);
  check_scope("100.Scope", -EINVAL, 0);
  check_scope("100.service", -EINVAL, 0);
  check_scope("100.slice", -EINVAL, 0);
  check_scope("100", -EINVAL, 0);
  check_scope("100.", -EINVAL, 0);
  check_scope("100..scope", -EINVAL, 0);
  check_scope(".scope", -EINVAL, 0);
  check_scope("scope", -EINVAL, 0);
  check_scope("", -EINVAL, 0);
  check_scope("0100.scope", -EINVAL, 0);
  check_scope("99.scope", -EINVAL, 0);
  check_scope("1000000000.scope", -EINVAL, 0);
  check_scope(" 100.scope", -EINVAL, 0);
  check_scope("100 .scope", -EINVAL, 0);
  check_scope("+100.scope", -EINVAL, 0);
  check_scope("lxc-100.scope", -EINVAL, 0);
  check_scope("100.scope.scope", -EINVAL, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid),
      cmocka_unit_test(test_out_of_range),
      cmocka_unit_test(test_not_plain_digits),
      cmocka_unit_test(test_parse_length_is_exact),
      cmocka_unit_test(test_string_overlong),
      cmocka_unit_test(test_scope_names),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
