/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/store/rrd_cluster_map.c: pve_rrd's <Cluster> blocks and
 * StandaloneHosts.  Without either every host goes to the data directory
 * itself; listed hosts go to their cluster; unlisted hosts are refused, or
 * are clusters of their own with StandaloneHosts unless their name cannot
 * name a directory or is a configured cluster's; and what is refused at
 * start: bad cluster and host names, a cluster twice, a host in two
 * clusters or twice in one, a cluster without hosts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_cluster_map.h"

#include <errno.h>
#include <string.h>

#define ADD(map, cluster, ...)                                                 \
  add(map, cluster, (const char *const[]){__VA_ARGS__},                        \
      sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static char err[512];

static int add(struct rrd_cluster_map *map, const char *cluster,
               const char *const *hosts, size_t count) {
  return rrd_cluster_map_add(map, cluster, hosts, count, err, sizeof(err));
}

static void expect(const struct rrd_cluster_map *map, const char *host,
                   enum rrd_cluster_verdict verdict, const char *cluster) {
  const char *got = NULL;
  assert_int_equal(rrd_cluster_map_find(map, host, &got), verdict);
  assert_string_equal(got, cluster);
}

static void test_inactive(void **state) {
  (void)state;
  struct rrd_cluster_map *map = rrd_cluster_map_new();
  assert_false(rrd_cluster_map_active(map));
  expect(map, "pve1", RRD_CLUSTER_OF, "");
  expect(map, "pve-vm-9.0", RRD_CLUSTER_OF, "");
  rrd_cluster_map_free(map);
}

static void test_clusters(void **state) {
  (void)state;
  struct rrd_cluster_map *map = rrd_cluster_map_new();
  assert_int_equal(ADD(map, "prod", "pve3", "pve1", "pve2"), 0);
  assert_int_equal(ADD(map, "lab", "lab1"), 0);
  assert_true(rrd_cluster_map_active(map));
  expect(map, "pve1", RRD_CLUSTER_OF, "prod");
  expect(map, "pve2", RRD_CLUSTER_OF, "prod");
  expect(map, "pve3", RRD_CLUSTER_OF, "prod");
  expect(map, "lab1", RRD_CLUSTER_OF, "lab");
  expect(map, "solo", RRD_CLUSTER_UNLISTED, "");
  expect(map, "pve", RRD_CLUSTER_UNLISTED, "");
  char line[512];
  rrd_cluster_map_refusal(RRD_CLUSTER_UNLISTED, "solo", line, sizeof(line));
  assert_string_equal(line,
                      "the rows of host \"solo\" are dropped: it is in no "
                      "<Cluster> block. Add Host \"solo\" to its cluster's "
                      "block, or set StandaloneHosts true to give every "
                      "unlisted host a cluster of its own.");
  rrd_cluster_map_free(map);
}

static void test_standalone(void **state) {
  (void)state;
  struct rrd_cluster_map *map = rrd_cluster_map_new();
  rrd_cluster_map_set_standalone(map, true);
  assert_true(rrd_cluster_map_active(map));
  expect(map, "solo", RRD_CLUSTER_OF, "solo");
  assert_int_equal(ADD(map, "prod", "pve1"), 0);
  expect(map, "pve1", RRD_CLUSTER_OF, "prod");
  expect(map, "solo", RRD_CLUSTER_OF, "solo");
  expect(map, "prod", RRD_CLUSTER_NAME_TAKEN, "");
  expect(map, "pve-vm-9.0", RRD_CLUSTER_BAD_NAME, "");
  expect(map, ".hidden", RRD_CLUSTER_BAD_NAME, "");
  char line[512];
  rrd_cluster_map_refusal(RRD_CLUSTER_BAD_NAME, "pve-vm-9.0", line,
                          sizeof(line));
  assert_string_equal(line, "the rows of standalone host \"pve-vm-9.0\" are "
                            "dropped: its name cannot name its cluster's "
                            "directory (it is the name of a layout's "
                            "directory). Put it in a <Cluster> block.");
  rrd_cluster_map_refusal(RRD_CLUSTER_NAME_TAKEN, "prod", line, sizeof(line));
  assert_string_equal(line, "the rows of standalone host \"prod\" are "
                            "dropped: a <Cluster> block of that name is "
                            "configured, and they would be mixed with its "
                            "files. Add the host to that block, or rename "
                            "one.");
  rrd_cluster_map_free(map);
}

static void refused(struct rrd_cluster_map *map, int r, const char *why) {
  (void)map;
  assert_int_equal(r, -EINVAL);
  assert_string_equal(err, why);
}

static void test_refused(void **state) {
  (void)state;
  struct rrd_cluster_map *map = rrd_cluster_map_new();
  assert_int_equal(ADD(map, "prod", "pve1", "pve2"), 0);
  refused(map, ADD(map, "lab", "lab1", "pve2"),
          "the host \"pve2\" is in both cluster \"prod\" and cluster \"lab\"");
  refused(map, ADD(map, "prod", "pve9"),
          "the cluster \"prod\" is configured twice");
  refused(map, ADD(map, "pve2-node", "x"),
          "the cluster name \"pve2-node\" cannot be used: it is the name of "
          "a layout's directory");
  refused(map, ADD(map, "a/b", "x"),
          "the cluster name \"a/b\" cannot be used: not a valid directory "
          "name (empty, \".\" or \"..\", a '/', a '\\' or a control "
          "character, or longer than 64 bytes)");
  refused(map, ADD(map, "lab", "lab/1"),
          "the host name \"lab/1\" of cluster \"lab\" cannot name a node's "
          "file: the file name contains '/'");
  refused(map, ADD(map, "lab", "lab1", "lab1"),
          "the host \"lab1\" is given twice in cluster \"lab\"");
  refused(map, add(map, "lab", NULL, 0), "the cluster \"lab\" has no Host");
  /* nothing of a refused block was kept */
  expect(map, "lab1", RRD_CLUSTER_UNLISTED, "");
  expect(map, "pve2", RRD_CLUSTER_OF, "prod");
  assert_int_equal(ADD(map, "lab", "lab1"), 0);
  expect(map, "lab1", RRD_CLUSTER_OF, "lab");
  rrd_cluster_map_free(map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inactive),
      cmocka_unit_test(test_clusters),
      cmocka_unit_test(test_standalone),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
