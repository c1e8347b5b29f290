/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/reading/json_writer.c: commas and nesting come out right
 * whatever the mix of values, strings are escaped exactly as JSON requires (and
 * UTF-8 is left alone), numbers print as Perl prints them, and what JSON
 * cannot hold becomes null.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct capture {
  char *text;
  size_t size;
  FILE *out;
  struct json_writer w;
};

static void capture_open(struct capture *c) {
  c->text = NULL;
  c->size = 0;
  c->out = open_memstream(&c->text, &c->size);
  assert_non_null(c->out);
  json_writer_init(&c->w, c->out);
}

/* Closes the stream, compares, frees. */
static void capture_check(struct capture *c, const char *expected) {
  assert_int_equal(fclose(c->out), 0);
  assert_string_equal(c->text, expected);
  free(c->text);
}

static void test_escaping(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_string(&c.w, "a\"b\\c/d");
  capture_check(&c, "\"a\\\"b\\\\c/d\"");

  capture_open(&c);
  json_string(&c.w, "\n\t\r\b\f\x01\x1f\x7f");
  capture_check(&c, "\"\\n\\t\\r\\u0008\\u000c\\u0001\\u001f\\u007f\"");

  /* UTF-8 bytes pass through untouched: "grüß €" */
  capture_open(&c);
  json_string(&c.w, "gr\xc3\xbc\xc3\x9f \xe2\x82\xac");
  capture_check(&c, "\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac\"");

  capture_open(&c);
  json_string(&c.w, "");
  capture_check(&c, "\"\"");
}

static void test_keys_are_escaped(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_begin_object(&c.w);
  json_key(&c.w, "a\"k");
  json_int(&c.w, 1);
  json_end_object(&c.w);
  capture_check(&c, "{\"a\\\"k\":1}");
}

static void test_numbers(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_begin_array(&c.w);
  json_number(&c.w, 0.0);
  json_number(&c.w, 1.5);
  json_number(&c.w, 0.1);
  json_number(&c.w, 1.0 / 3.0);
  json_number(&c.w, 4294967296.0);
  json_number(&c.w, 1e300);
  json_number(&c.w, 123456789012345678.0);
  json_number(&c.w, -2.5e-7);
  json_number(&c.w, NAN);
  json_number(&c.w, INFINITY);
  json_number(&c.w, -INFINITY);
  json_end_array(&c.w);
  capture_check(&c, "[0,1.5,0.1,0.333333333333333,4294967296,1e+300,"
                    "1.23456789012346e+17,-2.5e-07,null,null,null]");
}

/* json_number(value) prints what Perl's (printf's) "%.15g" prints. */
static void check_as_printf(double value) {
  struct capture c;
  char want[64];
  snprintf(want, sizeof(want), "%.15g", value);
  capture_open(&c);
  json_number(&c.w, value);
  capture_check(&c, want);
}

/* Integral values take a path of their own below 10^15: exactly printf's
 * digits on both sides of the limit, for -0, and for values of every
 * magnitude. */
static void test_integral_numbers(void **state) {
  static const double values[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  7.0,
                                  -7.0,
                                  10.0,
                                  4294967296.0,
                                  943718400.0,
                                  34359738368.0,
                                  1e14,
                                  123456789012345.0,
                                  999999999999999.0,
                                  -999999999999999.0,
                                  1e15,
                                  -1e15,
                                  1000000000000001.0,
                                  9007199254740992.0,
                                  1e16,
                                  1e21,
                                  0.5,
                                  -0.5,
                                  1e-300,
                                  2.5,
                                  999999999999999.5};
  (void)state;
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
    check_as_printf(values[i]);
  uint64_t x = 88172645463325252u; /* xorshift: integers of all sizes */
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double v = (double)(x >> (x % 60));
    check_as_printf(i % 2 ? -v : v);
  }
}

static void test_big_integers(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_begin_array(&c.w);
  json_uint(&c.w, UINT64_MAX);
  json_int(&c.w, INT64_MIN);
  json_int(&c.w, INT64_MAX);
  json_uint(&c.w, 0);
  json_raw(&c.w, "12.50");
  json_end_array(&c.w);
  capture_check(&c, "[18446744073709551615,-9223372036854775808,"
                    "9223372036854775807,0,12.50]");
}

static void test_nesting_and_commas(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_begin_object(&c.w);
  json_key(&c.w, "data");
  json_begin_array(&c.w);
  json_begin_object(&c.w);
  json_key(&c.w, "time");
  json_int(&c.w, 60);
  json_key(&c.w, "on");
  json_bool(&c.w, true);
  json_end_object(&c.w);
  json_begin_object(&c.w);
  json_end_object(&c.w);
  json_begin_array(&c.w);
  json_end_array(&c.w);
  json_begin_array(&c.w);
  json_null(&c.w);
  json_bool(&c.w, false);
  json_string(&c.w, "x");
  json_end_array(&c.w);
  json_end_array(&c.w);
  json_key(&c.w, "n");
  json_begin_object(&c.w);
  json_key(&c.w, "deep");
  json_begin_array(&c.w);
  json_int(&c.w, -1);
  json_end_array(&c.w);
  json_end_object(&c.w);
  json_end_object(&c.w);
  capture_check(&c, "{\"data\":[{\"time\":60,\"on\":true},{},[],"
                    "[null,false,\"x\"]],\"n\":{\"deep\":[-1]}}");
}

/* Values at the top level are separated like array members. */
static void test_top_level_sequence(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  json_begin_object(&c.w);
  json_end_object(&c.w);
  json_begin_object(&c.w);
  json_end_object(&c.w);
  capture_check(&c, "{},{}");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_escaping),
      cmocka_unit_test(test_keys_are_escaped),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_integral_numbers),
      cmocka_unit_test(test_big_integers),
      cmocka_unit_test(test_nesting_and_commas),
      cmocka_unit_test(test_top_level_sequence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
