/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/remote_write.c: the WriteRequest's protobuf
 * compared byte for byte with requests worked out by hand from the
 * encoding rules (tags, varint lengths, a double's 8 bytes little-endian,
 * an int64 time as a varint), lengths of two bytes past 127, a zero time
 * and value still written, the size computed before equal to the bytes
 * written, and snappy's block format (a varint length, then a literal)
 * of a short body, which libsnappy reads back whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "remote_write.h"

static void check_bytes(const struct remote_write_series *ts, size_t n,
                        const unsigned char *want, size_t want_len) {
  size_t size = remote_write_size(ts, n);
  assert_int_equal(size, want_len);
  unsigned char *out = malloc(size + 1);
  assert_non_null(out);
  out[size] = 0xee; /* not written past the size */
  assert_int_equal(remote_write_encode(ts, n, out), want_len);
  assert_memory_equal(out, want, want_len);
  assert_int_equal(out[size], 0xee);
  free(out);
}

static const struct remote_write_label up_labels[] = {{"__name__", "up"},
                                                      {"id", "a"}};
static const struct remote_write_sample up_samples[] = {{1.0, 1000}};

/* up{id="a"} 1 at 1 s. */
static const unsigned char up_bytes[] = {
    0x0a, 0x27, /* timeseries, 39 */
    0x0a, 0x0e, /* label, 14 */
    0x0a, 0x08, '_',  '_', 'n',  'a',  'm', 'e',  '_',  '_', /* name */
    0x12, 0x02, 'u',  'p',                                   /* value */
    0x0a, 0x07,                                              /* label, 7 */
    0x0a, 0x02, 'i',  'd', 0x12, 0x01, 'a',                  /* */
    0x12, 0x0c,                                              /* sample, 12 */
    0x09, 0,    0,    0,   0,    0,    0,   0xf0, 0x3f,      /* 1.0 */
    0x10, 0xe8, 0x07,                                        /* 1000 ms */
};

static void test_one_series(void **state) {
  (void)state;
  struct remote_write_series ts = {up_labels, 2, up_samples, 1};
  check_bytes(&ts, 1, up_bytes, sizeof(up_bytes));
  assert_int_equal(remote_write_series_size(&ts), sizeof(up_bytes));
}

/* A second series after it: a negative value at a time of our decade (a
 * six-byte varint) and 0.25 at time 0, both written. */
static void test_two_series(void **state) {
  (void)state;
  static const struct remote_write_label b_labels[] = {{"__name__", "b"}};
  static const struct remote_write_sample b_samples[] = {{-2.5, 1700000000000},
                                                         {0.25, 0}};
  static const unsigned char b_bytes[] = {
      0x0a, 0x2e,                                                /* 46 */
      0x0a, 0x0d,                                                /* label, 13 */
      0x0a, 0x08, '_',  '_',  'n',  'a',  'm',  'e',  '_',  '_', /* */
      0x12, 0x01, 'b',                                           /* */
      0x12, 0x10,                                           /* sample, 16 */
      0x09, 0,    0,    0,    0,    0,    0,    0x04, 0xc0, /* -2.5 */
      0x10, 0x80, 0xd0, 0x95, 0xff, 0xbc, 0x31,             /* 1.7e12 ms */
      0x12, 0x0b,                                           /* sample, 11 */
      0x09, 0,    0,    0,    0,    0,    0,    0xd0, 0x3f, /* 0.25 */
      0x10, 0x00,                                           /* 0 ms */
  };
  struct remote_write_series ts[] = {{up_labels, 2, up_samples, 1},
                                     {b_labels, 1, b_samples, 2}};
  unsigned char want[sizeof(up_bytes) + sizeof(b_bytes)];
  memcpy(want, up_bytes, sizeof(up_bytes));
  memcpy(want + sizeof(up_bytes), b_bytes, sizeof(b_bytes));
  check_bytes(ts, 2, want, sizeof(want));
}

/* Lengths past 127 take two bytes: a 200-byte value (c8 01) in a label of
 * 213 (d5 01) in a series of 216 (d8 01). */
static void test_long_value(void **state) {
  (void)state;
  char value[201];
  memset(value, 'x', 200);
  value[200] = '\0';
  struct remote_write_label l = {"__name__", value};
  struct remote_write_series ts = {&l, 1, NULL, 0};
  unsigned char want[219] = {0x0a, 0xd8, 0x01, 0x0a, 0xd5, 0x01, 0x0a,
                             0x08, '_',  '_',  'n',  'a',  'm',  'e',
                             '_',  '_',  0x12, 0xc8, 0x01};
  memset(want + 19, 'x', 200);
  check_bytes(&ts, 1, want, sizeof(want));
}

static void test_empty(void **state) {
  (void)state;
  assert_int_equal(remote_write_size(NULL, 0), 0);
}

/* Snappy's block format: the length as a varint (3), a literal's tag
 * ((3 - 1) << 2), the bytes; no stream identifier, no frames. */
static void test_snappy_block(void **state) {
  (void)state;
  char *out;
  size_t len;
  assert_int_equal(
      remote_write_compress((const unsigned char *)"abc", 3, &out, &len), 0);
  static const unsigned char want[] = {0x03, 0x08, 'a', 'b', 'c'};
  assert_int_equal(len, sizeof(want));
  assert_memory_equal(out, want, sizeof(want));
  free(out);

  assert_int_equal(
      remote_write_compress(up_bytes, sizeof(up_bytes), &out, &len), 0);
  char back[sizeof(up_bytes)];
  size_t back_len = sizeof(back);
  assert_int_equal(snappy_uncompress(out, len, back, &back_len), SNAPPY_OK);
  assert_int_equal(back_len, sizeof(up_bytes));
  assert_memory_equal(back, up_bytes, sizeof(up_bytes));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_series),   cmocka_unit_test(test_two_series),
      cmocka_unit_test(test_long_value),   cmocka_unit_test(test_empty),
      cmocka_unit_test(test_snappy_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
