/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/loadavg.c on the development host's /proc/loadavg, every
 * prefix of it, and the forms the strict parser must refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/loadavg.h"
#include "node_samples.h"

static int parse_len(const char *s, size_t len, struct loadavg *out) {
  char *buf = exact_copy(s, len);
  int r;

  memset(out, 0xa5, sizeof(*out));
  r = loadavg_parse(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, struct loadavg *out) {
  return parse_len(s, strlen(s), out);
}

static void check_error(const char *s, int want_r) {
  struct loadavg la, untouched;

  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(parse(s, &la), want_r);
  assert_memory_equal(&la, &untouched, sizeof(la));
}

static void test_host_sample(void **state) {
  struct loadavg la;

  (void)state;
  assert_int_equal(parse(loadavg_sample, &la), 0);
  assert_double_identical(la.avg1, 0.88);
  assert_double_identical(la.avg5, 0.63);
  assert_double_identical(la.avg15, 0.66);
  assert_int_equal(la.running, 2);
  assert_int_equal(la.threads, 101);
  assert_int_equal(la.last_pid, 9147);
}

static void test_forms(void **state) {
  struct loadavg la;

  (void)state;
  assert_int_equal(parse("0.00 0.00 0.00 1/1 1", &la), 0);
  assert_double_identical(la.avg1, 0.0);
  /* A loaded 1024-CPU host. */
  assert_int_equal(parse("1337.25 900.50 12.07 1201/98765 4194304\n", &la), 0);
  assert_double_identical(la.avg1, 1337.25);
  assert_double_identical(la.avg15, 12.07);
  assert_int_equal(la.threads, 98765);
  assert_int_equal(parse("7 8 9 0/18446744073709551615 0\n", &la), 0);
  assert_double_identical(la.avg5, 8.0);
  assert_int_equal(la.threads, UINT64_MAX);
}

static void test_malformed(void **state) {
  (void)state;
  check_error("", -EBADMSG);
  check_error("\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 \n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 9147 1\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 9147\n\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 9147\r\n", -EBADMSG);
  check_error("0.88  0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error(" 0.88 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("0.88\t0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("0.88 0.63 2/101 9147\n", -EBADMSG);
  check_error("0.88 0.63 0.66 101 9147\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2-101 9147\n", -EBADMSG);
  check_error("-0.88 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("+0.88 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error(".88 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("0,88 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 -1\n", -EBADMSG);
  check_error("0.88 0.63 0.66 2/101 0x10\n", -EBADMSG);
  check_error("nan 0.63 0.66 2/101 9147\n", -EBADMSG);
  check_error("0.1234567890 0.63 0.66 2/101 9147\n", -EBADMSG);
}

static void test_ranges(void **state) {
  (void)state;
  check_error("18446744073709551616.00 0.63 0.66 2/101 9147\n", -ERANGE);
  check_error("0.88 0.63 0.66 2/101 18446744073709551616\n", -ERANGE);
  check_error("0.88 0.63 0.66 99999999999999999999/101 9147\n", -ERANGE);
}

/* A megabyte of digits: refused without reading past the buffer. */
static void test_huge_input(void **state) {
  size_t len = 1 << 20;
  char *text = malloc(len);
  struct loadavg la;

  (void)state;
  assert_non_null(text);
  memset(text, '7', len);
  assert_int_equal(parse_len(text, len, &la), -ERANGE);
  memcpy(text, "0.88 0.63 0.66 2/101 ", 21);
  assert_int_equal(parse_len(text, len, &la), -ERANGE);
  free(text);
}

/* A prefix parses once it reaches the last PID's first digit; the PID is
 * then cut short (it is not used), the averages never are. */
static void test_every_prefix(void **state) {
  const char *s = loadavg_sample;
  size_t pid_start = (size_t)(strrchr(s, ' ') + 1 - s);
  struct loadavg la;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    int r = parse_len(s, len, &la);

    assert_int_equal(r, len > pid_start ? 0 : -EBADMSG);
    if (r == 0) {
      assert_double_identical(la.avg1, 0.88);
      assert_int_equal(la.threads, 101);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_sample), cmocka_unit_test(test_forms),
      cmocka_unit_test(test_malformed),   cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_huge_input),  cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
