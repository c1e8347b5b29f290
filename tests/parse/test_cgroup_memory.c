/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/cgroup_memory.c: memhost from real v1 files and a v2
 * file, the right cache key per hierarchy, the clamp at zero, and which file's
 * error is reported.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/cgroup_memory.h"
#include "exact_buffer.h"
#include "kernel_samples.h"

#define SENTINEL UINT64_C(0xfeedfacefeedface)

static int parse_len(enum cgroup_memory_version version, const char *usage,
                     const char *stat, size_t stat_len, uint64_t *out) {
  size_t usage_len = strlen(usage);
  char *ubuf = exact_copy(usage, usage_len);
  char *sbuf = exact_copy(stat, stat_len);
  int r;

  *out = SENTINEL;
  r = cgroup_memory_parse(version, ubuf, usage_len, sbuf, stat_len, out);
  free(ubuf);
  free(sbuf);
  return r;
}

static void check(enum cgroup_memory_version version, const char *usage,
                  const char *stat, int want_r, uint64_t want) {
  uint64_t v;

  assert_int_equal(parse_len(version, usage, stat, strlen(stat), &v), want_r);
  assert_int_equal(v, want_r == 0 ? want : SENTINEL);
}

static void test_used_clamps(void **state) {
  (void)state;
  assert_int_equal(cgroup_memory_used(10, 3), 7);
  assert_int_equal(cgroup_memory_used(5, 5), 0);
  assert_int_equal(cgroup_memory_used(3, 10), 0);
  assert_int_equal(cgroup_memory_used(0, UINT64_MAX), 0);
  assert_int_equal(cgroup_memory_used(UINT64_MAX, 0), UINT64_MAX);
  assert_int_equal(cgroup_memory_used(UINT64_MAX, UINT64_MAX - 1), 1);
}

static void test_v1_real_files(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V1, MEMORY_USAGE_V1_ROOT, memory_stat_v1_root, 0,
        251666432 - MEMORY_STAT_V1_ROOT_TOTAL_CACHE);
  check(CGROUP_MEMORY_V1, MEMORY_USAGE_V1_CHILD, memory_stat_v1_child, 0,
        9256960 - MEMORY_STAT_V1_CHILD_TOTAL_CACHE);
}

static void test_v2(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V2, MEMORY_CURRENT_V2, memory_stat_v2, 0,
        7000064 - MEMORY_STAT_V2_FILE);
  check(CGROUP_MEMORY_V2, "7000064", memory_stat_v2, 0,
        7000064 - MEMORY_STAT_V2_FILE);
  check(CGROUP_MEMORY_V2, "100\n", "file_mapped 1\nfile 30\nfile_dirty 2\n", 0,
        70);
}

/* Each hierarchy has its own key: v1's "cache" is this cgroup only, and
 * v2 has no total_cache. */
static void test_key_per_version(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V2, "100\n", "total_cache 10\n", -ENOMSG, 0);
  check(CGROUP_MEMORY_V2, "100\n", "file_mapped 10\nfile_dirty 1\n", -ENOMSG,
        0);
  check(CGROUP_MEMORY_V1, "100\n", "cache 10\n", -ENOMSG, 0);
  check(CGROUP_MEMORY_V1, "100\n", "file 10\n", -ENOMSG, 0);
  check(CGROUP_MEMORY_V1, "100\n", memory_stat_v2, -ENOMSG, 0);
  check(CGROUP_MEMORY_V2, MEMORY_USAGE_V1_ROOT, memory_stat_v1_root, -ENOMSG,
        0);
  check(CGROUP_MEMORY_V1, "", "", -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "1\n", "", -ENOMSG, 0);
  check((enum cgroup_memory_version)7, "100\n", "file 10\n", -EINVAL, 0);
}

/* The two files are read a moment apart: the cache may have grown past
 * the usage read before it. */
static void test_negative_clamped(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V2, "4096\n", "file 8192\n", 0, 0);
  check(CGROUP_MEMORY_V1, "4096\n", "total_cache 4096\n", 0, 0);
  check(CGROUP_MEMORY_V2, "0\n", "file 18446744073709551615\n", 0, 0);
  check(CGROUP_MEMORY_V2, "18446744073709551615\n", "file 0\n", 0, UINT64_MAX);
}

static void test_usage_errors(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V2, "", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "\n", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "max\n", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "-1\n", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, " 1\n", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "1 2\n", memory_stat_v2, -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "18446744073709551616\n", memory_stat_v2, -ERANGE, 0);
  /* The usage file is checked first. */
  check(CGROUP_MEMORY_V2, "x\n", "file x\n", -EINVAL, 0);
  check(CGROUP_MEMORY_V2, "18446744073709551616\n", "", -ERANGE, 0);
}

static void test_stat_errors(void **state) {
  (void)state;
  check(CGROUP_MEMORY_V2, "100\n", "file x\n", -EBADMSG, 0);
  check(CGROUP_MEMORY_V2, "100\n", "file 1\nfile 1\n", -EBADMSG, 0);
  check(CGROUP_MEMORY_V2, "100\n", "file\n", -EBADMSG, 0);
  check(CGROUP_MEMORY_V2, "100\n", "file 18446744073709551616\n", -ERANGE, 0);
  check(CGROUP_MEMORY_V1, "100\n", "total_cache -5\n", -EBADMSG, 0);
  check(CGROUP_MEMORY_V1, "100\n", "total_cache 99999999999999999999\n",
        -ERANGE, 0);
}

/* Cut memory.stat anywhere: memhost from the cut value, or -ENOMSG before
 * the key, or -EBADMSG right at the key. */
static void test_every_stat_prefix(void **state) {
  const char *s = memory_stat_v1_child;
  size_t key_end = (size_t)(strstr(s, "\ntotal_cache ") - s) + 12;
  size_t value_start = key_end + 1;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    uint64_t v, cache = MEMORY_STAT_V1_CHILD_TOTAL_CACHE;
    int r = parse_len(CGROUP_MEMORY_V1, MEMORY_USAGE_V1_CHILD, s, len, &v);

    for (size_t d = len; d < value_start + 7; d++)
      cache /= 10;
    if (len < key_end) {
      assert_int_equal(r, -ENOMSG);
    } else if (len <= value_start) {
      assert_int_equal(r, -EBADMSG);
    } else {
      assert_int_equal(r, 0);
      assert_int_equal(v, 9256960 - cache);
      continue;
    }
    assert_int_equal(v, SENTINEL);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_used_clamps),
      cmocka_unit_test(test_v1_real_files),
      cmocka_unit_test(test_v2),
      cmocka_unit_test(test_key_per_version),
      cmocka_unit_test(test_negative_clamped),
      cmocka_unit_test(test_usage_errors),
      cmocka_unit_test(test_stat_errors),
      cmocka_unit_test(test_every_stat_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
