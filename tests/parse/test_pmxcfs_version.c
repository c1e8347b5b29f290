/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/pmxcfs_version.c: the "vmlist" counter of a .version
 * as pmxcfs writes it (status.c, cfs_create_version_msg), of every prefix
 * of it, and the forms the parser must refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/pmxcfs_version.h"

static const char version[] = "{\n"
                              "\"starttime\": 1764934800,\n"
                              "\"clinfo\": 5,\n"
                              "\"vmlist\": 12,\n"
                              "\"corosync.conf\": 3,\n"
                              "\"kvstore\": {\n"
                              "}\n"
                              "}\n";

#define UNTOUCHED 0xa5a5a5a5a5a5a5a5u

static int parse_len(const char *s, size_t len, uint64_t *out) {
  char *buf = exact_copy(s, len);
  *out = UNTOUCHED;
  int r = pmxcfs_version_vmlist(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, uint64_t *out) {
  return parse_len(s, strlen(s), out);
}

static void test_pmxcfs_text(void **state) {
  (void)state;
  uint64_t v;
  assert_int_equal(parse(version, &v), 0);
  assert_int_equal(v, 12);
}

/* A read of the file's first bytes: whole once the line is. */
static void test_every_prefix(void **state) {
  (void)state;
  size_t whole = (size_t)(strstr(version, "12,") - version) + 3;
  for (size_t len = 0; len <= strlen(version); len++) {
    uint64_t v;
    int r = parse_len(version, len, &v);
    if (len >= whole) {
      assert_int_equal(r, 0);
      assert_int_equal(v, 12);
    } else {
      assert_int_equal(r, -ENOENT);
      assert_int_equal(v, UNTOUCHED);
    }
  }
}

static void test_last_line_and_spaces(void **state) {
  (void)state;
  uint64_t v;
  assert_int_equal(parse("\"vmlist\":7\n", &v), 0);
  assert_int_equal(v, 7);
  assert_int_equal(parse("{\n\"vmlist\":   18446744073709551615,\n", &v), 0);
  assert_int_equal(v, UINT64_MAX);
}

static void test_refused(void **state) {
  (void)state;
  uint64_t v;
  assert_int_equal(parse("{\n\"clinfo\": 5,\n}\n", &v), -ENOENT);
  assert_int_equal(parse("{\n \"vmlist\": 5,\n", &v), -ENOENT);
  assert_int_equal(parse("\"vmlist\": x,\n", &v), -EBADMSG);
  assert_int_equal(parse("\"vmlist\": -1,\n", &v), -EBADMSG);
  assert_int_equal(parse("\"vmlist\": 5 ,\n", &v), -EBADMSG);
  assert_int_equal(parse("\"vmlist\": 5x\n", &v), -EBADMSG);
  assert_int_equal(parse("\"vmlist\": ,\n", &v), -EBADMSG);
  assert_int_equal(parse("\"vmlist\": 18446744073709551616,\n", &v), -ERANGE);
  assert_int_equal(v, UNTOUCHED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pmxcfs_text),
      cmocka_unit_test(test_every_prefix),
      cmocka_unit_test(test_last_line_and_spaces),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
