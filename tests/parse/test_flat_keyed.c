/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/flat_keyed.c: exact key matching on real memory.stat
 * files, strict values for wanted keys only, duplicates, overflow, truncation,
 * and that an error leaves the caller's values and mask alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/flat_keyed.h"
#include "kernel_samples.h"

#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)
#define NKEYS_TEST 4

struct lookup {
  int r;
  uint64_t values[FLAT_KEYED_MAX_KEYS];
  uint64_t found;
};

static struct lookup lookup_len(const char *s, size_t len,
                                const char *const *keys, size_t nkeys) {
  char *buf = exact_copy(s, len);
  struct lookup l;

  for (size_t i = 0; i < FLAT_KEYED_MAX_KEYS; i++)
    l.values[i] = SENTINEL;
  l.found = SENTINEL;
  l.r = flat_keyed_parse(buf, len, keys, nkeys, l.values, &l.found);
  free(buf);
  return l;
}

static struct lookup lookup(const char *s, const char *const *keys,
                            size_t nkeys) {
  return lookup_len(s, strlen(s), keys, nkeys);
}

static void check_untouched(const struct lookup *l) {
  assert_int_equal(l->found, SENTINEL);
  for (size_t i = 0; i < FLAT_KEYED_MAX_KEYS; i++)
    assert_int_equal(l->values[i], SENTINEL);
}

static void check_error(const char *s, const char *key, int want_r) {
  struct lookup l = lookup(s, &key, 1);

  assert_int_equal(l.r, want_r);
  check_untouched(&l);
}

static void check_one(const char *s, const char *key, uint64_t want) {
  struct lookup l = lookup(s, &key, 1);

  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 1);
  assert_int_equal(l.values[0], want);
}

static void test_v1_real_file(void **state) {
  static const char *const keys[] = {
      "total_cache", "cache", "hierarchical_memory_limit", "total_unevictable"};
  struct lookup l = lookup(memory_stat_v1_root, keys, 4);

  (void)state;
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0xf);
  assert_int_equal(l.values[0], MEMORY_STAT_V1_ROOT_TOTAL_CACHE);
  assert_int_equal(l.values[1], MEMORY_STAT_V1_ROOT_CACHE);
  assert_int_equal(l.values[2], MEMORY_STAT_V1_ROOT_LIMIT);
  assert_int_equal(l.values[3], 11862016);
  assert_int_equal(l.values[4], SENTINEL);
}

/* "file" is a prefix of "file_mapped" and "file_dirty", both present. */
static void test_v2_file_is_not_a_prefix_match(void **state) {
  static const char *const keys[] = {"file", "file_mapped", "anon",
                                     "thp_collapse_alloc"};
  struct lookup l = lookup(memory_stat_v2, keys, 4);

  (void)state;
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0xf);
  assert_int_equal(l.values[0], MEMORY_STAT_V2_FILE);
  assert_int_equal(l.values[1], MEMORY_STAT_V2_FILE_MAPPED);
  assert_int_equal(l.values[2], 1052672);
  assert_int_equal(l.values[3], 0);
  check_one(memory_stat_v2, "file", MEMORY_STAT_V2_FILE);
  check_one("file_mapped 1\nfile_dirty 2\nfile 3\nfiles 4\n", "file", 3);
  check_one("fil 1\nfile 3\n", "file", 3);
}

static void test_missing_keys(void **state) {
  static const char *const keys[] = {"anon", "nope", "file", "fil"};
  struct lookup l = lookup(memory_stat_v2, keys, 4);

  (void)state;
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0x5);
  assert_int_equal(l.values[0], 1052672);
  assert_int_equal(l.values[1], SENTINEL);
  assert_int_equal(l.values[2], MEMORY_STAT_V2_FILE);
  assert_int_equal(l.values[3], SENTINEL);
  l = lookup("", keys, 4);
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0);
  assert_int_equal(l.values[0], SENTINEL);
  l = lookup("x 1\n", keys, 0);
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0);
}

/* Only wanted keys' values are looked at. */
static void test_unwanted_lines_skipped(void **state) {
  (void)state;
  check_one(
      "junk\nother -1\nx 1 2 3\n\n weird\nfile 7\nz 99999999999999999999\n",
      "file", 7);
  check_one("file 7\nfile_mapped x\nfile_mapped y\n", "file", 7);
  check_one("file 7", "file", 7);
  check_one("file 0\n", "file", 0);
  check_one("file 007\n", "file", 7);
}

/* The key ends at the first space: "file\t1" is a different key. */
static void test_key_ends_at_space(void **state) {
  const char *key = "file";
  struct lookup l = lookup("file\t1\nfile:2\nFILE 3\n", &key, 1);

  (void)state;
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, 0);
  assert_int_equal(l.values[0], SENTINEL);
  check_one("file\t1\nfile 4\n", "file", 4);
}

static void test_duplicate_wanted_key(void **state) {
  (void)state;
  check_error("file 1\nanon 2\nfile 1\n", "file", -EBADMSG);
  check_error("file 1\nfile 1", "file", -EBADMSG);
}

static void test_malformed_wanted_value(void **state) {
  (void)state;
  check_error("file\n", "file", -EBADMSG);
  check_error("file", "file", -EBADMSG);
  check_error("file \n", "file", -EBADMSG);
  check_error("file ", "file", -EBADMSG);
  check_error("file  1\n", "file", -EBADMSG);
  check_error("file -1\n", "file", -EBADMSG);
  check_error("file +1\n", "file", -EBADMSG);
  check_error("file 1x\n", "file", -EBADMSG);
  check_error("file 1 \n", "file", -EBADMSG);
  check_error("file 1 2\n", "file", -EBADMSG);
  check_error("file 1.5\n", "file", -EBADMSG);
  check_error("file 1\r\n", "file", -EBADMSG);
  check_error("file 0x10\n", "file", -EBADMSG);
  check_error("anon 1\nfile max\n", "file", -EBADMSG);
}

static void test_huge_values(void **state) {
  (void)state;
  check_one("file 18446744073709551615\n", "file", UINT64_MAX);
  check_one("file 18446744073709551615", "file", UINT64_MAX);
  check_error("file 18446744073709551616\n", "file", -ERANGE);
  check_error("file 99999999999999999999999\n", "file", -ERANGE);
  /* An unwanted key may hold anything. */
  check_one("anon 18446744073709551616\nfile 1\n", "file", 1);
}

static void test_key_count_limit(void **state) {
  static char names[FLAT_KEYED_MAX_KEYS + 1][8];
  const char *keys[FLAT_KEYED_MAX_KEYS + 1];
  struct lookup l;

  (void)state;
  for (size_t i = 0; i <= FLAT_KEYED_MAX_KEYS; i++) {
    snprintf(names[i], sizeof(names[i]), "k%zu", i);
    keys[i] = names[i];
  }
  l = lookup("k0 10\nk63 20\nk64 30\n", keys, FLAT_KEYED_MAX_KEYS);
  assert_int_equal(l.r, 0);
  assert_int_equal(l.found, UINT64_C(1) | UINT64_C(1) << 63);
  assert_int_equal(l.values[0], 10);
  assert_int_equal(l.values[63], 20);
  assert_int_equal(l.values[1], SENTINEL);
  l = lookup("k0 10\n", keys, FLAT_KEYED_MAX_KEYS + 1);
  assert_int_equal(l.r, -EINVAL);
  check_untouched(&l);
}

/* An error late in the file must not leave values from earlier lines. */
static void test_error_leaves_outputs_alone(void **state) {
  static const char *const keys[] = {"anon", "file"};
  struct lookup l = lookup("anon 5\nfile 6\nanon 7\n", keys, 2);

  (void)state;
  assert_int_equal(l.r, -EBADMSG);
  check_untouched(&l);
  l = lookup("anon 5\nfile 18446744073709551616\n", keys, 2);
  assert_int_equal(l.r, -ERANGE);
  check_untouched(&l);
}

/*
 * Every prefix of a real file: the last key is cut off.  Only the two
 * prefixes that end in the wanted key itself or its separator are errors;
 * a prefix that ends inside the value reads its leading digits.
 */
static void test_every_prefix(void **state) {
  static const char *const keys[] = {"total_cache", "cache"};
  const char *s = memory_stat_v1_root;
  size_t key_end = (size_t)(strstr(s, "\ntotal_cache ") - s) + 12;
  size_t value_start = key_end + 1;
  size_t cache_value_start = strlen("cache ");

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    struct lookup l = lookup_len(s, len, keys, 2);
    uint64_t want_total = MEMORY_STAT_V1_ROOT_TOTAL_CACHE;
    uint64_t want_cache = MEMORY_STAT_V1_ROOT_CACHE;

    if (len == key_end || len == value_start || len == cache_value_start - 1 ||
        len == cache_value_start) {
      assert_int_equal(l.r, -EBADMSG);
      check_untouched(&l);
      continue;
    }
    assert_int_equal(l.r, 0);
    for (size_t d = len; d < value_start + 9; d++)
      want_total /= 10;
    for (size_t d = len; d < cache_value_start + 7; d++)
      want_cache /= 10;
    assert_int_equal(l.found,
                     (len > value_start) << 0 | (len > cache_value_start) << 1);
    assert_int_equal(l.values[0], len > value_start ? want_total : SENTINEL);
    assert_int_equal(l.values[1],
                     len > cache_value_start ? want_cache : SENTINEL);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v1_real_file),
      cmocka_unit_test(test_v2_file_is_not_a_prefix_match),
      cmocka_unit_test(test_missing_keys),
      cmocka_unit_test(test_unwanted_lines_skipped),
      cmocka_unit_test(test_key_ends_at_space),
      cmocka_unit_test(test_duplicate_wanted_key),
      cmocka_unit_test(test_malformed_wanted_value),
      cmocka_unit_test(test_huge_values),
      cmocka_unit_test(test_key_count_limit),
      cmocka_unit_test(test_error_leaves_outputs_alone),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
