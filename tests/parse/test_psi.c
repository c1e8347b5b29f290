/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/psi.c on pressure files captured from Linux 6.18 (system
 * wide and per cgroup), the pre-5.13 cgroup cpu.pressure without "full",
 * and every way the strict parser must refuse a file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/psi.h"

/* /proc/pressure/cpu: system-wide cpu "full" is always zero. */
static const char proc_cpu[] =
    "some avg10=0.59 avg60=0.21 avg300=0.18 total=2579710\n"
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
/* /proc/pressure/io */
static const char proc_io[] =
    "some avg10=0.00 avg60=0.10 avg300=0.24 total=2602223\n"
    "full avg10=0.00 avg60=0.10 avg300=0.23 total=2508081\n";
/* cpu.pressure of a cgroup running three busy loops on two CPUs. */
static const char cgroup_cpu[] =
    "some avg10=31.26 avg60=7.54 avg300=1.66 total=5523801\n"
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=29854\n";
/* Cgroup cpu.pressure before Linux 5.13: no "full" line. */
static const char cgroup_cpu_old[] =
    "some avg10=0.32 avg60=0.19 avg300=0.17 total=2591136\n";

#define SOME_ZERO "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
#define FULL_ZERO "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"

static int parse_len(const char *s, size_t len, struct psi_stats *out) {
  char *buf = exact_copy(s, len);
  int r;

  memset(out, 0xa5, sizeof(*out));
  r = psi_parse(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, struct psi_stats *out) {
  return parse_len(s, strlen(s), out);
}

/* An error leaves *ret exactly as it was. */
static void check_error(const char *s, int want_r) {
  struct psi_stats st, untouched;

  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(parse(s, &st), want_r);
  assert_memory_equal(&st, &untouched, sizeof(st));
}

static void check_line(const struct psi_line *l, double avg10, double avg60,
                       double avg300, uint64_t total) {
  assert_double_identical(l->avg10, avg10);
  assert_double_identical(l->avg60, avg60);
  assert_double_identical(l->avg300, avg300);
  assert_int_equal(l->total, total);
}

static void check_no_full(const struct psi_stats *st) {
  assert_false(st->has_full);
  check_line(&st->full, 0.0, 0.0, 0.0, 0);
}

static void test_proc_pressure(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse(proc_cpu, &st), 0);
  check_line(&st.some, 0.59, 0.21, 0.18, 2579710);
  assert_true(st.has_full);
  check_line(&st.full, 0.0, 0.0, 0.0, 0);
  assert_int_equal(parse(proc_io, &st), 0);
  check_line(&st.some, 0.0, 0.10, 0.24, 2602223);
  assert_true(st.has_full);
  check_line(&st.full, 0.0, 0.10, 0.23, 2508081);
}

static void test_cgroup_pressure(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse(cgroup_cpu, &st), 0);
  check_line(&st.some, 31.26, 7.54, 1.66, 5523801);
  assert_true(st.has_full);
  check_line(&st.full, 0.0, 0.0, 0.0, 29854);
}

static void test_cpu_without_full(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse(cgroup_cpu_old, &st), 0);
  check_line(&st.some, 0.32, 0.19, 0.17, 2591136);
  check_no_full(&st);
}

static void test_no_final_newline(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse_len(proc_io, strlen(proc_io) - 1, &st), 0);
  check_line(&st.full, 0.0, 0.10, 0.23, 2508081);
  assert_int_equal(parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4", &st),
                   0);
  check_line(&st.some, 1.0, 2.0, 3.0, 4);
  check_no_full(&st);
}

static void test_line_order_and_key_order(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse("full avg10=5.00 avg60=6.00 avg300=7.00 total=8\n"
                         "some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n",
                         &st),
                   0);
  check_line(&st.some, 1.0, 2.0, 3.0, 4);
  check_line(&st.full, 5.0, 6.0, 7.0, 8);
  assert_int_equal(
      parse("some total=4 avg300=3.00 avg10=1.00 avg60=2.00\n", &st), 0);
  check_line(&st.some, 1.0, 2.0, 3.0, 4);
}

/* Forward compatibility: new fields and new kinds of line are skipped. */
static void test_unknown_keys_and_lines(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(
      parse("some avg10=1.00 avg30=9.99 avg60=2.00 avg300=3.00 total=4 "
            "peak=12345\n"
            "partial avg10=abc\n"
            "somewhat avg10=1.00\n"
            "\n"
            "x\n",
            &st),
      0);
  check_line(&st.some, 1.0, 2.0, 3.0, 4);
  check_no_full(&st);
  /* An unknown key's value is not range-checked as a percentage. */
  assert_int_equal(parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4 "
                         "avg900=250.00 avg900=250\n",
                         &st),
                   0);
  check_line(&st.some, 1.0, 2.0, 3.0, 4);
}

static void test_missing(void **state) {
  (void)state;
  check_error("", -EBADMSG);
  check_error("\n", -EBADMSG);
  check_error(FULL_ZERO, -EBADMSG);
  check_error("some\n", -EBADMSG);
  check_error("some", -EBADMSG);
  check_error("some avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00\n", -EBADMSG);
  check_error(SOME_ZERO "full avg10=0.00 avg60=0.00 avg300=0.00\n", -EBADMSG);
  check_error(SOME_ZERO "full\n", -EBADMSG);
}

static void test_duplicates(void **state) {
  (void)state;
  check_error(SOME_ZERO SOME_ZERO, -EBADMSG);
  check_error(SOME_ZERO FULL_ZERO FULL_ZERO, -EBADMSG);
  check_error(SOME_ZERO FULL_ZERO SOME_ZERO, -EBADMSG);
  check_error("some avg10=0.00 avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
              -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 total=0\n",
              -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 avg300=0.00 "
              "total=0\n",
              -EBADMSG);
}

static void test_malformed_fields(void **state) {
  (void)state;
  check_error("some  avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00  avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 \n", -EBADMSG);
  check_error("some avg10=0.00\tavg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\r\n", -EBADMSG);
  check_error("some avg10 =0.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10= 0.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some =0.00 avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
              -EBADMSG);
  check_error("some avg10=0.00=1 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 junk\n",
              -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 peak=x\n",
              -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 peak=\n",
              -EBADMSG);
}

static void test_malformed_numbers(void **state) {
  (void)state;
  check_error("some avg10= avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=+1.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=.50 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=1. avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=1e2 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0,50 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=nan avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=1.5\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=-1\n", -EBADMSG);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 total=0x10\n", -EBADMSG);
}

static void test_ranges(void **state) {
  struct psi_stats st;

  (void)state;
  assert_int_equal(parse("some avg10=100.00 avg60=100 avg300=0.000000001 "
                         "total=18446744073709551615\n",
                         &st),
                   0);
  check_line(&st.some, 100.0, 100.0, 0.000000001, UINT64_MAX);
  check_error("some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n", -ERANGE);
  check_error("some avg10=0.00 avg60=101 avg300=0.00 total=0\n", -ERANGE);
  check_error("some avg10=0.00 avg60=0.00 avg300=100.000000001 total=0\n",
              -ERANGE);
  check_error("some avg10=0.00 avg60=0.00 avg300=0.00 "
              "total=18446744073709551616\n",
              -ERANGE);
  check_error(SOME_ZERO "full avg10=0.00 avg60=0.00 avg300=0.00 "
                        "total=99999999999999999999\n",
              -ERANGE);
  check_error("some avg10=18446744073709551616.00 avg60=0.00 avg300=0.00 "
              "total=0\n",
              -ERANGE);
}

/* The value a cut-off number reads as: its first `kept` digits. */
static uint64_t leading_digits(uint64_t v, size_t ndigits, size_t kept) {
  for (; kept < ndigits; kept++)
    v /= 10;
  return v;
}

/*
 * A short read cuts the file anywhere.  Each prefix either fails with
 * -EBADMSG or parses, and it parses exactly when the "some" line has reached
 * its total and the "full" line is either complete up to its total or too
 * short to be recognised as one ("ful" is an unknown line).
 */
static void test_every_prefix(void **state) {
  const char *s = cgroup_cpu;
  const char *full_line = strstr(s, "full ");
  size_t some_total = (size_t)(strstr(s, "total=") - s) + strlen("total=");
  size_t full_start = (size_t)(full_line - s);
  size_t full_total =
      (size_t)(strstr(full_line, "total=") - s) + strlen("total=");
  struct psi_stats st;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    int r = parse_len(s, len, &st);
    bool no_full = len > some_total && len < full_start + strlen("full");
    bool with_full = len > full_total;

    assert_int_equal(r, no_full || with_full ? 0 : -EBADMSG);
    if (r < 0)
      continue;
    check_line(&st.some, 31.26, 7.54, 1.66,
               leading_digits(5523801, 7, len - some_total));
    assert_int_equal(st.has_full, with_full);
    if (with_full)
      check_line(&st.full, 0.0, 0.0, 0.0,
                 leading_digits(29854, 5, len - full_total));
    else
      check_no_full(&st);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_proc_pressure),
      cmocka_unit_test(test_cgroup_pressure),
      cmocka_unit_test(test_cpu_without_full),
      cmocka_unit_test(test_no_final_newline),
      cmocka_unit_test(test_line_order_and_key_order),
      cmocka_unit_test(test_unknown_keys_and_lines),
      cmocka_unit_test(test_missing),
      cmocka_unit_test(test_duplicates),
      cmocka_unit_test(test_malformed_fields),
      cmocka_unit_test(test_malformed_numbers),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
