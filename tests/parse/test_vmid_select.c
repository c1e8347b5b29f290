/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the VMID select list (src/parse/vmid_select.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/vmid_select.h"

#include <errno.h>
#include <string.h>

static struct vmid_select *make(const char *const *entries, size_t n,
                                bool ignore) {
  struct vmid_select *s;
  assert_int_equal(vmid_select_new(&s), 0);
  for (size_t i = 0; i < n; i++) {
    char why[128];
    assert_int_equal(vmid_select_add(s, entries[i], why, sizeof(why)), 0);
  }
  vmid_select_set_ignore_selected(s, ignore);
  return s;
}

static void test_empty_selects_all(void **state) {
  (void)state;
  struct vmid_select *s = make(NULL, 0, false);
  assert_true(vmid_select_match(s, 100));
  assert_true(vmid_select_match(s, 999999999));
  vmid_select_set_ignore_selected(s, true);
  assert_true(vmid_select_match(s, 100)); /* empty list: nothing ignored */
  vmid_select_free(s);
}

static void test_exact(void **state) {
  (void)state;
  const char *entries[] = {"101", "105", "100"};
  struct vmid_select *s = make(entries, 3, false);
  assert_true(vmid_select_match(s, 100));
  assert_true(vmid_select_match(s, 101));
  assert_true(vmid_select_match(s, 105));
  assert_false(vmid_select_match(s, 102));
  assert_false(vmid_select_match(s, 1010));
  vmid_select_set_ignore_selected(s, true);
  assert_false(vmid_select_match(s, 101));
  assert_true(vmid_select_match(s, 102));
  vmid_select_free(s);
}

static void test_regex(void **state) {
  (void)state;
  const char *entries[] = {"/^2[0-9]{2}$/", "900"};
  struct vmid_select *s = make(entries, 2, false);
  assert_true(vmid_select_match(s, 200));
  assert_true(vmid_select_match(s, 299));
  assert_true(vmid_select_match(s, 900));
  assert_false(vmid_select_match(s, 2000));
  assert_false(vmid_select_match(s, 300));
  vmid_select_free(s);
}

static void test_bad_entries(void **state) {
  (void)state;
  struct vmid_select *s;
  char why[256];
  assert_int_equal(vmid_select_new(&s), 0);
  const char *bad[] = {"", "99", "0100", "abc", "1000000000", "/", "/[/"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    why[0] = '\0';
    assert_int_equal(vmid_select_add(s, bad[i], why, sizeof(why)), -EINVAL);
    assert_true(strlen(why) > 0);
  }
  assert_non_null(strstr(why, "invalid regular expression /[/"));
  /* Patterns whose compilation could take gigabytes are refused first. */
  const struct {
    const char *entry, *why;
  } costly[] = {
      {"/.+++++++++++++++++++++++++++++++++++++++/",
       "regular expression /.+++++++++++++++++++++++++++++++++++++++/ "
       "refused: a repetition operator right after another"},
      {"/^1****+++/", "regular expression /^1****+++/ refused: a repetition "
                      "operator right after another"},
      {"/^1{2}*/", "regular expression /^1{2}*/ refused: a repetition "
                   "operator right after another"},
      {"/^((((((1*)+)*)+)*)+)*/",
       "regular expression /^((((((1*)+)*)+)*)+)*/ refused: more than 6 "
       "repetition operators"},
      {"/a{99}/", "regular expression /a{99}/ refused: a repetition count "
                  "above 9"},
      {"/a{9}b{9}c{9}/",
       "regular expression /a{9}b{9}c{9}/ refused: more than 2 "
       "counted repetitions"},
      {"/^(1|2|3|4|5|6|7|8|9|10|11|12|13|14|15|16|17|18|19|20|21|22|23|24)$/",
       "regular expression "
       "/^(1|2|3|4|5|6|7|8|9|10|11|12|13|14|15|16|17|18|19|20|21|22|23|24)$/ "
       "refused: longer than 64 characters"},
  };
  for (size_t i = 0; i < sizeof(costly) / sizeof(*costly); i++) {
    assert_int_equal(vmid_select_add(s, costly[i].entry, why, sizeof(why)),
                     -EINVAL);
    assert_string_equal(why, costly[i].why);
  }
  /* At the limits: accepted. */
  assert_int_equal(
      vmid_select_add(s, "/^[1-9][0-9]{2}[0-9]?[0-9]*$/", why, sizeof(why)), 0);
  assert_int_equal(vmid_select_add(s, "/^1[0-9]{2}$/", why, sizeof(why)), 0);
  assert_int_equal(
      vmid_select_add(s, "/^((((((1*)+)*)+)*)+)$/", why, sizeof(why)), 0);
  assert_true(vmid_select_match(s, 4711));
  vmid_select_free(s);
  assert_int_equal(vmid_select_new(&s), 0);
  /* Nothing was added: still selects everything. */
  assert_true(vmid_select_match(s, 123));
  vmid_select_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_selects_all),
      cmocka_unit_test(test_exact),
      cmocka_unit_test(test_regex),
      cmocka_unit_test(test_bad_entries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
