/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the ksm_stat and pid file parsers (src/parse/ksm_stat.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/ksm_stat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text, struct ksm_stat *k) {
  size_t len = strlen(text);
  char *buf = calloc(1, len ? len : 1);
  memcpy(buf, text, len);
  int r = ksm_stat_parse(buf, len, k);
  free(buf);
  return r;
}

static void test_ksm_stat(void **state) {
  (void)state;
  struct ksm_stat k;
  assert_int_equal(parse("ksm_rmap_items 1234\nksm_zero_pages 0\n"
                         "ksm_merging_pages 1000\n"
                         "ksm_process_profit 4063232\nksm_merge_any: no\n"
                         "ksm_mergeable: yes\n",
                         &k),
                   0);
  assert_int_equal(k.merging_pages, 1000);
  assert_int_equal(k.profit, 4063232);
  assert_int_equal(parse("ksm_merging_pages 0\nksm_process_profit -98304", &k),
                   0);
  assert_int_equal(k.profit, -98304);
  assert_int_equal(
      parse("ksm_merging_pages 1\nksm_process_profit -9223372036854775808\n",
            &k),
      0);
  assert_true(k.profit == INT64_MIN);
}

static void test_ksm_stat_malformed(void **state) {
  (void)state;
  struct ksm_stat k = {7, 7};
  const char *bad[] = {
      "ksm_merging_pages 1\n",  /* no profit */
      "ksm_process_profit 1\n", /* no pages */
      "ksm_merging_pages 1\nksm_process_profit --1\n",
      "ksm_merging_pages 1\nksm_process_profit 1x\n",
      "ksm_merging_pages 1\nksm_process_profit 1\nksm_process_profit 2\n",
      "ksm_merging_pages -1\nksm_process_profit 1\n",
      "ksm_merging_pages 1\nksm_process_profit 9223372036854775808\n",
      "",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_true(parse(bad[i], &k) < 0);
  assert_int_equal(k.merging_pages, 7);
  assert_int_equal(k.profit, 7);
}

static void test_pid_file(void **state) {
  (void)state;
  int pid = 5;
  assert_int_equal(pid_file_parse("4242\n", 5, &pid), 0);
  assert_int_equal(pid, 4242);
  assert_int_equal(pid_file_parse("0\n", 2, &pid), -EBADMSG);
  assert_int_equal(pid_file_parse("-1\n", 3, &pid), -EBADMSG);
  assert_int_equal(pid_file_parse("2147483648\n", 11, &pid), -EBADMSG);
  assert_int_equal(pid_file_parse("12 13\n", 6, &pid), -EBADMSG);
  assert_int_equal(pid, 4242);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ksm_stat),
      cmocka_unit_test(test_ksm_stat_malformed),
      cmocka_unit_test(test_pid_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
