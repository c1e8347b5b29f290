/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the ExtraStats figures (memory_detail.c, guest_extra.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/guest_extra.h"
#include "kernel_samples.h"

#include <errno.h>
#include <string.h>

static const char v1_stat[] =
    "cache 1\nrss 2\nshmem 3\nmapped_file 4\ndirty 5\nswap 6\n"
    "hierarchical_memory_limit 9223372036854771712\n"
    "total_cache 440217600\ntotal_rss 12804096\ntotal_rss_huge 0\n"
    "total_shmem 9580544\ntotal_mapped_file 18558976\ntotal_dirty 6025216\n"
    "total_swap 4096\n";

static void test_v1_mapping(void **state) {
  (void)state;
  struct memory_detail d;
  assert_int_equal(
      memory_detail_parse(CGROUP_MEMORY_V1, v1_stat, strlen(v1_stat), &d), 0);
  assert_int_equal(d.bytes[MEMORY_ANON], 12804096);
  assert_int_equal(d.bytes[MEMORY_FILE], 440217600);
  assert_int_equal(d.bytes[MEMORY_SHMEM], 9580544);
  assert_int_equal(d.bytes[MEMORY_FILE_MAPPED], 18558976);
  assert_int_equal(d.bytes[MEMORY_FILE_DIRTY], 6025216);
  assert_int_equal(d.bytes[MEMORY_SWAP], 4096);
  unsigned none =
      1u << MEMORY_KERNEL | 1u << MEMORY_SOCK | 1u << MEMORY_SEC_PAGETABLES;
  assert_int_equal(d.valid, ((1u << MEMORY_DETAIL_COUNT) - 1) & ~none);
}

static void test_v1_extra(void **state) {
  (void)state;
  static const char oom_control[] =
      "oom_kill_disable 0\nunder_oom 0\noom_kill 7\n";
  struct guest_extra_input in = {.version = CGROUP_MEMORY_V1,
                                 .usage = 500000000,
                                 .stat = v1_stat,
                                 .stat_len = strlen(v1_stat),
                                 .events = oom_control,
                                 .events_len = strlen(oom_control)};
  struct guest_sample out;
  memset(&out, 0, sizeof(out));
  int eerr = 1, werr = 1;
  assert_int_equal(guest_extra_fill(&in, &out, &eerr, &werr), 0);
  assert_int_equal(eerr, 0);
  assert_int_equal(werr, 0);
  assert_false(out.oom_valid); /* v1 has no such counter */
  assert_true(out.oom_kill_valid);
  assert_int_equal(out.oom_kill, 7);
  /* 500000000 - (440217600 - 9580544) */
  assert_int_equal(out.memory_with_shmem, 69362944);
}

static void test_v2_swap_and_errors(void **state) {
  (void)state;
  static const char stat[] = "anon 10\nfile 100\nshmem 300\n";
  struct guest_extra_input in = {.version = CGROUP_MEMORY_V2,
                                 .usage = 1000,
                                 .stat = stat,
                                 .stat_len = strlen(stat),
                                 .events = "oom 1\noom_kill x\n",
                                 .events_len = 17,
                                 .swap = "12 \n",
                                 .swap_len = 4};
  struct guest_sample out;
  memset(&out, 0, sizeof(out));
  int eerr = 0, werr = 0;
  assert_int_equal(guest_extra_fill(&in, &out, &eerr, &werr), 0);
  assert_int_equal(eerr, -EBADMSG);
  assert_int_equal(werr, -EINVAL);
  assert_false(out.oom_valid);
  assert_false(out.memory_detail.valid & (1u << MEMORY_SWAP));
  /* shmem > file (shared memory counted in file): nothing unshared. */
  assert_int_equal(out.memory_with_shmem, 1000);
  in.stat = "anon 1\nanon 2\n";
  in.stat_len = 14;
  memset(&out, 0, sizeof(out));
  assert_int_equal(guest_extra_fill(&in, &out, &eerr, &werr), -EBADMSG);
  assert_int_equal(out.memory_detail.valid, 0);
}

static void test_real_v2_sample(void **state) {
  (void)state;
  struct memory_detail d;
  assert_int_equal(memory_detail_parse(CGROUP_MEMORY_V2, memory_stat_v2,
                                       strlen(memory_stat_v2), &d),
                   0);
  assert_true(d.valid & (1u << MEMORY_ANON));
  assert_true(d.valid & (1u << MEMORY_SEC_PAGETABLES));
  assert_false(d.valid & (1u << MEMORY_SWAP)); /* its own file in v2 */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v1_mapping),
      cmocka_unit_test(test_v1_extra),
      cmocka_unit_test(test_v2_swap_and_errors),
      cmocka_unit_test(test_real_v2_sample),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
