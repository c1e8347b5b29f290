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
  assert_true(k.has_profit);
  assert_true(k.has_zero_pages);
  assert_int_equal(k.zero_pages, 0);
  /* Linux 6.1 to 6.3: no profit, no zero pages */
  assert_int_equal(parse("ksm_rmap_items 5\nksm_merging_pages 12\n", &k), 0);
  assert_int_equal(k.merging_pages, 12);
  assert_false(k.has_profit);
  assert_false(k.has_zero_pages);
  assert_int_equal(parse("ksm_zero_pages 77\nksm_merging_pages 3\n", &k), 0);
  assert_true(k.has_zero_pages);
  assert_int_equal(k.zero_pages, 77);
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
  struct ksm_stat k = {.merging_pages = 7, .profit = 7};
  const char *bad[] = {
      "ksm_process_profit 1\n", /* no pages */
      "ksm_merging_pages 1\nksm_merging_pages 1\n",
      "ksm_merging_pages 1\nksm_zero_pages x\n",
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

static void test_pid_stat_start(void **state) {
  (void)state;
  /* a command name with a space and a ')' of its own */
  const char *stat = "4242 (kvm (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
                     "5 6 0 0 20 0 9 0 123456789 1000 50 18446744073709551615";
  uint64_t start = 1;
  assert_int_equal(pid_stat_start_parse(stat, strlen(stat), &start), 0);
  assert_int_equal(start, 123456789);
  const char *bad[] = {"4242 (kvm S 1", "4242 (kvm) S 1 2 3",
                       "1 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 x",
                       ""};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_int_equal(pid_stat_start_parse(bad[i], strlen(bad[i]), &start),
                     -EBADMSG);
  assert_int_equal(start, 123456789);
}

static void test_signed_file(void **state) {
  (void)state;
  int64_t v = 1;
  assert_int_equal(signed_file_parse("-4096\n", 6, &v), 0);
  assert_int_equal(v, -4096);
  assert_int_equal(signed_file_parse("8192", 4, &v), 0);
  assert_int_equal(v, 8192);
  assert_int_equal(signed_file_parse("", 0, &v), -EBADMSG);
  assert_int_equal(signed_file_parse("1 2\n", 4, &v), -EBADMSG);
  assert_int_equal(v, 8192);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ksm_stat),
      cmocka_unit_test(test_ksm_stat_malformed),
      cmocka_unit_test(test_pid_file),
      cmocka_unit_test(test_pid_stat_start),
      cmocka_unit_test(test_signed_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
