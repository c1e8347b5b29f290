/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/arcstats.c: an arcstats file in SPL's exact layout, names
 * that end in "size", signed statistics, every prefix, a file of 100,000
 * statistics, and the malformed forms.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "pvecg/arcstats.h"
#include "exact_buffer.h"
#include "node_samples.h"

#define HEAD                                                                   \
  "13 1 0x01 3 240 4190427389 1282263476577412\n"                              \
  "name                            type data\n"
#define SIZE_LINE "size                            4    4096\n"

static int parse_len(const char *s, size_t len, struct arcstats *out) {
  char *buf = exact_copy(s, len);
  int r;

  memset(out, 0xa5, sizeof(*out));
  r = arcstats_parse(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, struct arcstats *out) {
  return parse_len(s, strlen(s), out);
}

static void check_error(const char *s, int want_r) {
  struct arcstats arc, untouched;

  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(parse(s, &arc), want_r);
  assert_memory_equal(&arc, &untouched, sizeof(arc));
}

static void test_sample(void **state) {
  struct arcstats arc;

  (void)state;
  assert_int_equal(parse(arcstats_sample, &arc), 0);
  assert_int_equal(arc.size, 4208166912);
}

static void test_spacing_and_other_statistics(void **state) {
  struct arcstats arc;

  (void)state;
  /* Runs of any length; a name too long for its column. */
  assert_int_equal(parse("1 1 0x01 1 80 1 2\nname type data\n"
                         "a_statistic_name_longer_than_31_chars 4 1\n"
                         "size 4 123\n",
                         &arc),
                   0);
  assert_int_equal(arc.size, 123);
  /* Names ending in "size", negative signed values, text values. */
  assert_int_equal(parse(HEAD "l2_size                         4    77\n"
                              "compressed_size                 4    78\n"
                              "memory_available_bytes          3    -5\n"
                              "sizes                           4    79\n"
                              "x                               7    hello\n"
                              "\n" SIZE_LINE,
                         &arc),
                   0);
  assert_int_equal(arc.size, 4096);
  /* "size4" is another statistic. */
  assert_int_equal(parse(HEAD "size4 4 1\n" SIZE_LINE "size4 x\n", &arc), 0);
  assert_int_equal(arc.size, 4096);
  /* No final newline. */
  assert_int_equal(parse(HEAD "size 4 9", &arc), 0);
  assert_int_equal(arc.size, 9);
}

static void test_structure(void **state) {
  (void)state;
  check_error("", -EBADMSG);
  check_error("\n", -EBADMSG);
  check_error(HEAD, -EBADMSG);
  check_error(SIZE_LINE, -EBADMSG);
  check_error("name                            type data\n" SIZE_LINE,
              -EBADMSG);
  check_error("\nname type data\n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 4190427389 1282263476577412", -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\nname type\n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\nname type data x\n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\nnametype data\n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\n name type data\n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\nname type data \n" SIZE_LINE, -EBADMSG);
  check_error("13 1 0x01 3 240 1 2\nname\ttype data\n" SIZE_LINE, -EBADMSG);
  check_error(HEAD "hits 4 1\n", -EBADMSG);
  check_error(HEAD SIZE_LINE SIZE_LINE, -EBADMSG);
}

static void test_malformed_size(void **state) {
  (void)state;
  check_error(HEAD "size\n", -EBADMSG);
  check_error(HEAD "size 4\n", -EBADMSG);
  check_error(HEAD "size 4 \n", -EBADMSG);
  check_error(HEAD "size 3 4096\n", -EBADMSG);
  check_error(HEAD "size 44 4096\n", -EBADMSG);
  check_error(HEAD "size 4 -4096\n", -EBADMSG);
  check_error(HEAD "size 4 +4096\n", -EBADMSG);
  check_error(HEAD "size 4 0x1000\n", -EBADMSG);
  check_error(HEAD "size 4 4096 \n", -EBADMSG);
  check_error(HEAD "size 4 4096\r\n", -EBADMSG);
  check_error(HEAD "size\t4 4096\n", -EBADMSG);
  check_error(HEAD "size 4\t4096\n", -EBADMSG);
  check_error(HEAD "size 4 40.96\n", -EBADMSG);
}

static void test_ranges(void **state) {
  struct arcstats arc;

  (void)state;
  assert_int_equal(parse(HEAD "size 4 18446744073709551615\n", &arc), 0);
  assert_int_equal(arc.size, UINT64_MAX);
  check_error(HEAD "size 4 18446744073709551616\n", -ERANGE);
  check_error(HEAD "size 4 99999999999999999999999999\n", -ERANGE);
}

static void test_huge_file(void **state) {
  size_t size = 100000 * 48 + 256, len = 0;
  char *text = malloc(size);
  struct arcstats arc;

  (void)state;
  assert_non_null(text);
  len += (size_t)sprintf(text, "%s", HEAD);
  for (int i = 0; i < 100000; i++)
    len += (size_t)sprintf(text + len, "%-31s %-4d %d\n", "stat", 4, i);
  len += (size_t)sprintf(text + len, "%s", SIZE_LINE);
  assert_true(len < size);
  assert_int_equal(parse_len(text, len, &arc), 0);
  assert_int_equal(arc.size, 4096);
  free(text);
}

/* The value a cut-off number reads as: its first `kept` digits. */
static uint64_t leading_digits(uint64_t v, size_t ndigits, size_t kept) {
  for (; kept < ndigits; kept++)
    v /= 10;
  return v;
}

/* A prefix parses once it reaches the first digit of size's value (which
 * is then cut short, as in the other parsers: the reader hands over whole
 * files, see kept_file.h). */
static void test_every_prefix(void **state) {
  const char *s = arcstats_sample;
  const char *line = strstr(s, "\nsize ") + 1;
  size_t digits = (size_t)(strchr(line, '\n') - s) - 10;
  struct arcstats arc;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    int r = parse_len(s, len, &arc);

    assert_int_equal(r, len > digits ? 0 : -EBADMSG);
    if (r == 0)
      assert_int_equal(arc.size, leading_digits(4208166912, 10, len - digits));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sample),
      cmocka_unit_test(test_spacing_and_other_statistics),
      cmocka_unit_test(test_structure),
      cmocka_unit_test(test_malformed_size),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_huge_file),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
