/* Unit tests of the VMID select list (plugin/vmid_select.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "vmid_select.h"

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
