/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/layout/rrd_file_name.c: the one rule for the names of RRD files
 * (VMIDs and node names, from directories, the network plugin, pve_cgroup's
 * NodeName and the command line), refused before they become paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <string.h>

static void test_names_accepted(void **state) {
  (void)state;
  char longest[RRD_FILE_NAME_MAX + 1];
  memset(longest, 'n', RRD_FILE_NAME_MAX);
  longest[RRD_FILE_NAME_MAX] = '\0';
  assert_null(rrd_file_name_problem("100"));
  assert_null(rrd_file_name_problem("pve1"));
  assert_null(rrd_file_name_problem("pve1.example"));
  assert_null(rrd_file_name_problem("node 2"));
  assert_null(rrd_file_name_problem(".hidden"));
  assert_null(rrd_file_name_problem("..."));
  assert_null(rrd_file_name_problem("n\xc3\xa4me"));
  assert_null(rrd_file_name_problem(longest));
}

static void expect_problem(const char *name, const char *problem) {
  const char *got = rrd_file_name_problem(name);
  assert_non_null(got);
  assert_string_equal(got, problem);
}

static void test_names_refused(void **state) {
  (void)state;
  char longer[RRD_FILE_NAME_MAX + 2];
  memset(longer, 'n', RRD_FILE_NAME_MAX + 1);
  longer[RRD_FILE_NAME_MAX + 1] = '\0';
  expect_problem(longer, "the file name is longer than 64 bytes");
  expect_problem("", "the file name is empty");
  expect_problem(NULL, "the file name is empty");
  expect_problem("..", "the file name is \".\" or \"..\"");
  expect_problem(".", "the file name is \".\" or \"..\"");
  expect_problem("../etc", "the file name contains '/'");
  expect_problem("/", "the file name contains '/'");
  expect_problem("node\\1", "the file name contains '\\'");
  expect_problem("\\", "the file name contains '\\'");
  expect_problem("..\\etc", "the file name contains '\\'");
  expect_problem("a\nb", "the file name contains a control character");
  expect_problem("a\tb", "the file name contains a control character");
  expect_problem("a\x7f", "the file name contains a control character");
}

static void test_name_paths(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(rrd_file_name_path("/var/lib/pvecg", &layout_pve_vm_9_0,
                                      "100", buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "/var/lib/pvecg/pve-vm-9.0/100");
  assert_int_equal(
      rrd_file_name_path(NULL, &layout_pve_node_9_0, "n1", buf, sizeof(buf)),
      0);
  assert_string_equal(buf, "pve-node-9.0/n1");
  assert_int_equal(
      rrd_file_name_path("", &layout_pve2_vm, "100", buf, sizeof(buf)), 0);
  assert_string_equal(buf, "/pve2-vm/100");
  assert_int_equal(
      rrd_file_name_path("/d", &layout_pve_vm_9_0, "..", buf, sizeof(buf)),
      -EINVAL);
  assert_int_equal(
      rrd_file_name_path("/d", &layout_pve_node_9_0, "a\\b", buf, sizeof(buf)),
      -EINVAL);
  assert_int_equal(rrd_file_name_path("/a/very/long/data/directory",
                                      &layout_pve_vm_9_0, "100", buf, 20),
                   -ENAMETOOLONG);
}

static void test_cluster_names(void **state) {
  (void)state;
  assert_null(rrd_cluster_name_problem("prod"));
  assert_null(rrd_cluster_name_problem("pve-1"));
  assert_null(rrd_cluster_name_problem("pve-vm-9.1"));
  assert_string_equal(rrd_cluster_name_problem(".ship"), "it begins with '.'");
  assert_string_equal(rrd_cluster_name_problem("my cluster"),
                      "it contains a space");
  static const char *const layout_dirs[] = {
      "pve-vm-9.0",       "pve-node-9.0",      "pve2-vm",
      "pve2-node",        "pve2-storage",      "pve-storage-9.0",
      "pvecg-ksm-vm-1.0", "pvecg-ksm-node-1.0"};
  for (size_t i = 0; i < sizeof(layout_dirs) / sizeof(*layout_dirs); i++)
    assert_string_equal(rrd_cluster_name_problem(layout_dirs[i]),
                        "it is the name of a layout's directory");
  static const char *const bad[] = {"", "..", "a/b", "a\\b", "a\nb"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_non_null(
        strstr(rrd_cluster_name_problem(bad[i]), "not a valid directory name"));
}

static void test_cluster_paths(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(rrd_cluster_file_path("/d", "prod", &layout_pve_vm_9_0,
                                         "196", buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "/d/prod/pve-vm-9.0/196");
  assert_int_equal(rrd_cluster_file_path(NULL, "lab", &layout_pve_node_9_0,
                                         "n1", buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "lab/pve-node-9.0/n1");
  assert_int_equal(rrd_cluster_file_path("/d", "", &layout_pve_vm_9_0, "196",
                                         buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "/d/pve-vm-9.0/196");
  assert_int_equal(rrd_cluster_file_path("/d", NULL, &layout_pve_vm_9_0, "196",
                                         buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "/d/pve-vm-9.0/196");
  assert_int_equal(rrd_cluster_file_path("/d", "..", &layout_pve_vm_9_0, "196",
                                         buf, sizeof(buf)),
                   -EINVAL);
  assert_int_equal(rrd_cluster_file_path("/d", "pve-vm-9.0", &layout_pve_vm_9_0,
                                         "196", buf, sizeof(buf)),
                   -EINVAL);
  assert_int_equal(
      rrd_cluster_file_path("/d", "prod", &layout_pve_vm_9_0, "196", buf, 22),
      -ENAMETOOLONG);
  assert_string_equal(buf, ""); /* never a part of the path */
  assert_int_equal(
      rrd_cluster_file_path("/d", "prod", &layout_pve_vm_9_0, "196", buf, 23),
      0);
  assert_string_equal(buf, "/d/prod/pve-vm-9.0/196");
  assert_int_equal(rrd_cluster_file_path(NULL, "", &layout_pvecg_ksm_vm_1_0,
                                         "100", buf, sizeof(buf)),
                   0);
  assert_string_equal(buf, "pvecg-ksm-vm-1.0/100");
  assert_int_equal(
      rrd_cluster_file_path(NULL, NULL, &layout_pve_vm_9_0, "100", buf, 0),
      -ENAMETOOLONG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_accepted),
      cmocka_unit_test(test_names_refused),
      cmocka_unit_test(test_name_paths),
      cmocka_unit_test(test_cluster_names),
      cmocka_unit_test(test_cluster_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
