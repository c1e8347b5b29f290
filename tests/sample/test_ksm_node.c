/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sample/ksm_node.c on a /sys-like tree in a mkdtemp
 * directory: every value of /sys/kernel/mm/ksm/, a negative
 * general_profit, new contents read through the kept descriptors, an
 * older kernel without ksm_zero_pages and general_profit (unknown, not 0),
 * a malformed file (only its value lost), and a kernel without KSM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/ksm_node.h"

#include "fixture_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static char root[256];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-ksm-node");
  fixture_mkdir(root, "sys/kernel/mm/ksm");
  fixture_write(root, "sys/kernel/mm/ksm/run", "1\n");
  fixture_write(root, "sys/kernel/mm/ksm/pages_shared", "1000\n");
  fixture_write(root, "sys/kernel/mm/ksm/pages_sharing", "4000\n");
  fixture_write(root, "sys/kernel/mm/ksm/ksm_zero_pages", "96\n");
  fixture_write(root, "sys/kernel/mm/ksm/general_profit", "-8192\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static struct ksm_node_reader *reader(const char *sys) {
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/%s", root, sys);
  struct ksm_node_reader *r;
  assert_int_equal(ksm_node_reader_new(dir, &r), 0);
  return r;
}

static void test_values(void **state) {
  (void)state;
  struct ksm_node_reader *r = reader("sys");
  struct ksm_node_sample s;
  ksm_node_read(r, &s);
  assert_int_equal(s.valid, (1u << KSM_NODE_VALUE_COUNT) - 1);
  assert_true(s.value[KSM_NODE_RUN] == 1);
  assert_true(s.value[KSM_NODE_PAGES_SHARED] == 1000);
  assert_true(s.value[KSM_NODE_PAGES_SHARING] == 4000);
  assert_true(s.value[KSM_NODE_ZERO_PAGES] == 96);
  assert_true(s.value[KSM_NODE_GENERAL_PROFIT] == -8192);
  /* rewritten in place: the kept descriptor reads the new contents */
  fixture_write(root, "sys/kernel/mm/ksm/pages_sharing", "4500\n");
  ksm_node_read(r, &s);
  assert_true(s.value[KSM_NODE_PAGES_SHARING] == 4500);
  ksm_node_reader_free(r);
}

static void test_older_kernel_and_bad_files(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof(path), "%s/sys/kernel/mm/ksm/ksm_zero_pages", root);
  remove(path);
  snprintf(path, sizeof(path), "%s/sys/kernel/mm/ksm/general_profit", root);
  remove(path);
  fixture_write(root, "sys/kernel/mm/ksm/pages_shared", "many\n");
  struct ksm_node_reader *r = reader("sys");
  struct ksm_node_sample s;
  ksm_node_read(r, &s);
  assert_false(ksm_node_has(&s, KSM_NODE_ZERO_PAGES));
  assert_false(ksm_node_has(&s, KSM_NODE_GENERAL_PROFIT));
  assert_false(ksm_node_has(&s, KSM_NODE_PAGES_SHARED));
  assert_int_equal(s.error[KSM_NODE_ZERO_PAGES], -ENOENT);
  assert_int_equal(s.error[KSM_NODE_PAGES_SHARED], -EBADMSG);
  assert_true(ksm_node_has(&s, KSM_NODE_RUN));
  assert_true(s.value[KSM_NODE_PAGES_SHARING] == 4000);
  ksm_node_reader_free(r);
  r = reader("nosys");
  ksm_node_read(r, &s);
  assert_int_equal(s.valid, 0);
  assert_int_equal(s.error[KSM_NODE_RUN], -ENOENT);
  assert_string_equal(ksm_node_file(KSM_NODE_GENERAL_PROFIT), "general_profit");
  ksm_node_reader_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_older_kernel_and_bad_files, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
