/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/layout/rrd_row.c: the exact text of values and rows, since
 * rrdcached takes the text as it is and a bad value only shows up later in
 * the daemon's log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_row.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_gauge(double value, const char *want) {
  char buf[64];
  int len = rrd_row_format_gauge(value, buf, sizeof(buf));
  assert_int_equal(len, strlen(want));
  assert_string_equal(buf, want);
}

static void test_gauge_shortest(void **state) {
  (void)state;
  assert_gauge(1.23, "1.23");
  assert_gauge(1234567, "1234567");
  assert_gauge(0, "0");
  assert_gauge(0.1, "0.1");
  assert_gauge(-2.5, "-2.5");
  assert_gauge(100, "100");
  assert_gauge(1e21, "1e+21");
  assert_gauge(1e-300, "1e-300");
  assert_gauge(17179869184.0, "17179869184");     /* 16 GiB */
  assert_gauge(1.0 / 3, "0.3333333333333333");    /* needs 16 digits */
  assert_gauge(0.1 + 0.2, "0.30000000000000004"); /* needs 17 digits */
  assert_gauge(DBL_MAX, "1.7976931348623157e+308");
  assert_gauge(-DBL_MIN, "-2.2250738585072014e-308");
  assert_gauge(5e-324, "4.94065645841247e-324");
}

/* Whole numbers take a path of their own: the same text as %.15g, on
 * both sides of where %.15g turns to exponents. */
static void test_gauge_whole_numbers(void **state) {
  (void)state;
  assert_gauge(-0.0, "-0");
  assert_gauge(999999999999999.0, "999999999999999");
  assert_gauge(1e15, "1e+15");
  assert_gauge(-123456789012345.0, "-123456789012345");
  srand(7);
  for (int i = 0; i < 100000; i++) {
    double v = trunc((double)rand() * rand() / (rand() % 1000 + 1)) *
               (rand() % 2 ? 1 : -1) * pow(10, rand() % 8);
    char want[64];
    snprintf(want, sizeof(want), "%.15g", v);
    if (strtod(want, NULL) != v)
      continue; /* >15 digits: the round-trip path, tested below */
    assert_gauge(v, want);
  }
}

/* Every value, whatever its digits, reads back as the same double. */
static void test_gauge_round_trips(void **state) {
  (void)state;
  srand(42);
  for (int i = 0; i < 10000; i++) {
    double v = (double)rand() / RAND_MAX * pow(10, rand() % 40 - 20);
    char buf[64];
    assert_true(rrd_row_format_gauge(v, buf, sizeof(buf)) > 0);
    assert_true(strtod(buf, NULL) == v);
  }
}

static void test_gauge_unknown(void **state) {
  (void)state;
  assert_gauge(NAN, "U");
  assert_gauge(INFINITY, "U");
  assert_gauge(-INFINITY, "U");
}

static void test_gauge_no_space(void **state) {
  (void)state;
  char buf[8] = "xxxxxxx";
  assert_int_equal(rrd_row_format_gauge(1.23, buf, 4), -ENOSPC);
  assert_string_equal(buf, "xxxxxxx"); /* untouched on failure */
  assert_int_equal(rrd_row_format_gauge(1.23, buf, 5), 4);
  assert_string_equal(buf, "1.23");
  assert_int_equal(rrd_row_format_gauge(NAN, buf, 1), -ENOSPC);
  assert_int_equal(rrd_row_format_gauge(NAN, NULL, 0), -ENOSPC);
}

static void assert_row(time_t t, const double *values, const char *want) {
  char buf[RRD_ROW_SIZE];
  int len = rrd_row_format(&layout_pve2_vm, t, values, layout_pve2_vm.ds_count,
                           buf, sizeof(buf));
  assert_int_equal(len, strlen(want));
  assert_string_equal(buf, want);
}

/* pve2-vm: 6 GAUGE (maxcpu..disk), then 4 DERIVE (netin..diskwrite). */
static void test_row(void **state) {
  (void)state;
  const double v[] = {
      4, 0.0123, 4294967296.0,         1.23, 34359738368.0, 0, 123456789,
      0, 1e15,   9223372036854774784.0};
  assert_row(1700000000, v,
             "1700000000:4:0.0123:4294967296:1.23:34359738368:0:"
             "123456789:0:1000000000000000:9223372036854774784");
}

static void test_row_derive_unknown(void **state) {
  (void)state;
  const double v[] = {
      NAN, INFINITY, -1, 2, 3, 4, 1.5, -1, 9223372036854775808.0, NAN};
  assert_row(60, v, "60:U:U:-1:2:3:4:U:U:U:U");
  const double w[] = {1, 1, 1, 1, 1, 1, INFINITY, -INFINITY, 1e300, -0.5};
  assert_row(60, w, "60:1:1:1:1:1:1:U:U:U:U");
}

/* A time is its digits, whether written without printf (below 10^15) or
 * with it. */
static void test_row_times(void **state) {
  (void)state;
  const double v[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  assert_row(0, v, "0:0:0:0:0:0:0:0:0:0:0");
  assert_row(999999999999999, v, "999999999999999:0:0:0:0:0:0:0:0:0:0");
  assert_row(1000000000000000, v, "1000000000000000:0:0:0:0:0:0:0:0:0:0");
  assert_row(9007199254740993, v, "9007199254740993:0:0:0:0:0:0:0:0:0:0");
  assert_row((time_t)LLONG_MAX, v, "9223372036854775807:0:0:0:0:0:0:0:0:0:0");
}

/* A stopped guest's row as pvestatd writes it: maxcpu, maxmem, maxdisk, disk */
static void test_row_stopped_guest(void **state) {
  (void)state;
  double v[17];
  for (size_t i = 0; i < 17; i++)
    v[i] = NAN;
  v[0] = 2;
  v[2] = 2147483648.0;
  v[4] = 34359738368.0;
  v[5] = 0;
  char buf[RRD_ROW_SIZE];
  const char *want = "1700000010:2:U:2147483648:U:34359738368:0:"
                     "U:U:U:U:U:U:U:U:U:U:U";
  assert_int_equal(
      rrd_row_format(&layout_pve_vm_9_0, 1700000010, v, 17, buf, sizeof(buf)),
      strlen(want));
  assert_string_equal(buf, want);
}

static void test_row_invalid(void **state) {
  (void)state;
  double v[17] = {0};
  char buf[RRD_ROW_SIZE] = "untouched";
  assert_int_equal(
      rrd_row_format(&layout_pve_vm_9_0, 1, v, 16, buf, sizeof(buf)), -EINVAL);
  assert_int_equal(
      rrd_row_format(&layout_pve_vm_9_0, 1, v, 18, buf, sizeof(buf)), -EINVAL);
  assert_int_equal(
      rrd_row_format(&layout_pve_vm_9_0, -1, v, 17, buf, sizeof(buf)), -EINVAL);
  assert_int_equal(rrd_row_format(NULL, 1, v, 17, buf, sizeof(buf)), -EINVAL);
  assert_int_equal(
      rrd_row_format(&layout_pve_vm_9_0, 1, NULL, 17, buf, sizeof(buf)),
      -EINVAL);
  assert_string_equal(buf, "untouched");
}

static void test_row_no_space(void **state) {
  (void)state;
  double v[10] = {0};
  /* "1:0:0:0:0:0:0:0:0:0:0" is 21 characters */
  char buf[32] = "untouched";
  assert_int_equal(rrd_row_format(&layout_pve2_vm, 1, v, 10, buf, 21), -ENOSPC);
  assert_string_equal(buf, "untouched");
  assert_int_equal(rrd_row_format(&layout_pve2_vm, 1, v, 10, buf, 22), 21);
  assert_string_equal(buf, "1:0:0:0:0:0:0:0:0:0:0");
}

/* RRD_ROW_SIZE holds the widest layout with every value at its longest. */
static void test_row_size_is_enough(void **state) {
  (void)state;
  for (size_t l = 0; l < rrd_layouts_count; l++) {
    const struct rrd_layout *layout = rrd_layouts[l];
    double v[RRD_LAYOUT_DS_MAX];
    for (size_t i = 0; i < layout->ds_count; i++)
      v[i] = layout->ds[i].type == RRD_DS_DERIVE ? 9223372036854774784.0
                                                 : -DBL_MIN;
    char buf[RRD_ROW_SIZE];
    int len = rrd_row_format(layout, (time_t)LLONG_MAX, v, layout->ds_count,
                             buf, sizeof(buf));
    assert_true(len > 0);
    /* 32 columns of 24 characters plus colons and the time still fit */
    assert_true(20 + RRD_LAYOUT_DS_MAX * 25 < RRD_ROW_SIZE);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gauge_shortest),
      cmocka_unit_test(test_gauge_whole_numbers),
      cmocka_unit_test(test_gauge_round_trips),
      cmocka_unit_test(test_gauge_unknown),
      cmocka_unit_test(test_gauge_no_space),
      cmocka_unit_test(test_row),
      cmocka_unit_test(test_row_derive_unknown),
      cmocka_unit_test(test_row_times),
      cmocka_unit_test(test_row_stopped_guest),
      cmocka_unit_test(test_row_invalid),
      cmocka_unit_test(test_row_no_space),
      cmocka_unit_test(test_row_size_is_enough),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
