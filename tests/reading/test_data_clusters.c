/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/reading/data_clusters.c on data directories in mkdtemp
 * directories: one written without clusters (the layouts' directories in
 * it: the one cluster ""), one with clusters beside files written before
 * them, and what is no cluster: a hidden directory, a directory named like
 * a layout's (it is one), a subdirectory without a layout's directory, a
 * file, a cluster name with a backslash.  A missing data directory and an
 * empty one are the cluster "" with no files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/data_clusters.h"

#include "fixture_tree.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char root[256];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-data-clusters");
  fixture_mkdir(root, "plain/pve-vm-9.0");
  fixture_mkdir(root, "mixed/pve-node-9.0");
  fixture_mkdir(root, "mixed/prod/pve-vm-9.0");
  fixture_mkdir(root, "mixed/lab/pve2-node");
  fixture_mkdir(root, "mixed/pve1/pve-node-9.0");
  fixture_mkdir(root, "mixed/.ship/pve-vm-9.0");
  fixture_mkdir(root, "mixed/empty");
  fixture_mkdir(root, "mixed/a\\b/pve-vm-9.0");
  fixture_write(root, "mixed/file", "");
  fixture_mkdir(root, "only/b/pve-vm-9.0");
  fixture_mkdir(root, "only/a/pve-node-9.0");
  fixture_mkdir(root, "none");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void scan(const char *sub, struct data_clusters *c) {
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/%s", root, sub);
  assert_int_equal(data_clusters_scan(dir, c), 0);
}

static void test_plain(void **state) {
  (void)state;
  struct data_clusters c;
  scan("plain", &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "");
  assert_false(data_clusters_named(&c));
  data_clusters_free(&c);
}

static void test_mixed(void **state) {
  (void)state;
  struct data_clusters c;
  scan("mixed", &c);
  assert_int_equal(c.count, 4);
  assert_string_equal(c.cluster[0].name, "");
  assert_string_equal(c.cluster[1].name, "lab");
  assert_string_equal(c.cluster[2].name, "prod");
  assert_string_equal(c.cluster[3].name, "pve1");
  assert_true(data_clusters_named(&c));
  assert_non_null(data_clusters_find(&c, "prod"));
  assert_ptr_equal(data_clusters_find(&c, NULL), &c.cluster[0]);
  assert_null(data_clusters_find(&c, ".ship"));
  assert_null(data_clusters_find(&c, "empty"));
  data_clusters_free(&c);
}

static void test_only_named(void **state) {
  (void)state;
  struct data_clusters c;
  scan("only", &c);
  assert_int_equal(c.count, 2);
  assert_string_equal(c.cluster[0].name, "a");
  assert_string_equal(c.cluster[1].name, "b");
  assert_true(data_clusters_named(&c));
  data_clusters_free(&c);
}

static void test_no_files(void **state) {
  (void)state;
  struct data_clusters c;
  scan("none", &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "");
  data_clusters_free(&c);
  scan("missing", &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "");
  assert_false(data_clusters_named(&c));
  data_clusters_free(&c);
}

static void test_dirs(void **state) {
  (void)state;
  char buf[32];
  assert_int_equal(data_cluster_dir("/etc/pve", "", buf, sizeof(buf)), 0);
  assert_string_equal(buf, "/etc/pve");
  assert_int_equal(data_cluster_dir("/etc/pve", NULL, buf, sizeof(buf)), 0);
  assert_string_equal(buf, "/etc/pve");
  assert_int_equal(data_cluster_dir("/srv/pve", "prod", buf, sizeof(buf)), 0);
  assert_string_equal(buf, "/srv/pve/prod");
  assert_int_equal(data_cluster_dir("/srv", "..", buf, sizeof(buf)), -EINVAL);
  assert_int_equal(data_cluster_dir("/srv", "pve2-vm", buf, sizeof(buf)),
                   -EINVAL);
  assert_int_equal(data_cluster_dir("/srv/pve", "prod", buf, 13),
                   -ENAMETOOLONG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain),      cmocka_unit_test(test_mixed),
      cmocka_unit_test(test_only_named), cmocka_unit_test(test_no_files),
      cmocka_unit_test(test_dirs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
