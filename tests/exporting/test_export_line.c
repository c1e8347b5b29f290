/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_line.c: a line gathered in memory comes
 * out with the bytes fprintf wrote before, integers as "%" PRId64 writes
 * them (0, negative, both ends of int64_t), escapes before each special,
 * and text longer than the buffer whole and in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "export_line.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
  char *text;
  size_t len;
  FILE *out;
};

static void sink_open(struct sink *s) {
  s->out = open_memstream(&s->text, &s->len);
  assert_non_null(s->out);
}

static void sink_close(struct sink *s) { assert_int_equal(fclose(s->out), 0); }

static void test_int(void **state) {
  (void)state;
  const int64_t v[] = {0,         7,        -7, 1764950400, 1764950400000000000,
                       INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    struct sink s;
    char want[32];
    sink_open(&s);
    struct export_line l = {.out = s.out};
    export_line_int(&l, v[i]);
    export_line_flush(&l);
    sink_close(&s);
    snprintf(want, sizeof(want), "%" PRId64, v[i]);
    assert_string_equal(s.text, want);
    free(s.text);
  }
}

static void test_line(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  struct export_line l = {.out = s.out};
  export_line_puts(&l, "system");
  export_line_putc(&l, ',');
  export_line_puts(&l, "host=");
  export_line_escaped(&l, "a b,c=d\\e", ", =");
  export_line_put(&l, " cpu=0.5xx", 8);
  export_line_putc(&l, ' ');
  export_line_int(&l, -60);
  export_line_putc(&l, '\n');
  export_line_flush(&l);
  export_line_flush(&l); /* nothing held: nothing written */
  sink_close(&s);
  assert_string_equal(s.text, "system,host=a\\ b\\,c\\=d\\e cpu=0.5 -60\n");
  free(s.text);
}

/* 3,000 bytes in pieces of 1, 700 and 2,000: the same bytes in order. */
static void test_longer_than_buffer(void **state) {
  (void)state;
  static char big[2001], mid[701], want[3002];
  memset(big, 'b', 2000);
  memset(mid, 'm', 700);
  snprintf(want, sizeof(want), "x%s%s", mid, big);
  struct sink s;
  sink_open(&s);
  struct export_line l = {.out = s.out};
  export_line_putc(&l, 'x');
  export_line_puts(&l, mid);
  export_line_puts(&l, big);
  export_line_flush(&l);
  sink_close(&s);
  assert_int_equal(s.len, 2701);
  assert_string_equal(s.text, want);
  free(s.text);
}

/* Escapes that cross the buffer's end. */
static void test_escapes_across_buffer(void **state) {
  (void)state;
  static char in[1501], want[3002];
  for (size_t i = 0; i < 1500; i++) {
    in[i] = ' ';
    want[2 * i] = '\\';
    want[2 * i + 1] = ' ';
  }
  struct sink s;
  sink_open(&s);
  struct export_line l = {.out = s.out};
  export_line_escaped(&l, in, ", =");
  export_line_flush(&l);
  sink_close(&s);
  assert_int_equal(s.len, 3000);
  assert_string_equal(s.text, want);
  free(s.text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int),
      cmocka_unit_test(test_line),
      cmocka_unit_test(test_longer_than_buffer),
      cmocka_unit_test(test_escapes_across_buffer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
