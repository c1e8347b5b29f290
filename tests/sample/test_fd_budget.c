/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the descriptor budget (src/sample/fd_budget.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/fd_budget.h"

#include <sys/resource.h>

static void test_budget_for_limit(void **state) {
  (void)state;
  assert_int_equal(fd_budget_for_limit(1024), 1024 - 256 - 128);
  assert_int_equal(fd_budget_for_limit(20000), 20000 - 256 - 2500);
  assert_int_equal(fd_budget_for_limit(1048576), 1048576 - 256 - 131072);
  assert_int_equal(fd_budget_for_limit(256), 0);
  assert_int_equal(fd_budget_for_limit(0), 0);
}

static void test_prepare_raises_soft_limit(void **state) {
  (void)state;
  struct rlimit rl;
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20))
    skip();
  rl.rlim_cur = rl.rlim_max > 512 ? 512 : rl.rlim_max;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
  struct fd_budget b;
  assert_int_equal(fd_budget_prepare(&b), 0);
  assert_int_equal(b.old_soft, rl.rlim_cur);
  assert_int_equal(b.soft, rl.rlim_max);
  assert_int_equal(b.budget, fd_budget_for_limit(rl.rlim_max));
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
  assert_int_equal(rl.rlim_cur, rl.rlim_max);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_for_limit),
      cmocka_unit_test(test_prepare_raises_soft_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
