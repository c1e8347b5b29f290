/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_cluster.c and the answers over a data directory
 * that keeps clusters apart, without HTTP: which clusters a request
 * covers (all, one, none), each one's listing and configuration
 * directory, which cluster a request without the parameter means (the
 * data directory's own file, else the one cluster's, else every cluster
 * that has it), and the listings and rrddata's 400 made from them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture_tree.h"
#include "serve_answer.h"
#include "serve_cluster.h"
#include "serve_scope.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char root[256], data_dir[300], config_dir[300];
static struct serve_config config;

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-serve-cluster");
  snprintf(data_dir, sizeof(data_dir), "%s/data", root);
  snprintf(config_dir, sizeof(config_dir), "%s/pve", root);
  /* "": guest 196, node pve0; prod: 196, pve1; lab: 196, 300, pve1 */
  fixture_mkdir(root, "data/pve-vm-9.0");
  fixture_mkdir(root, "data/pve-node-9.0");
  fixture_mkdir(root, "data/prod/pve-vm-9.0");
  fixture_mkdir(root, "data/prod/pve-node-9.0");
  fixture_mkdir(root, "data/lab/pve-vm-9.0");
  fixture_mkdir(root, "data/lab/pve-node-9.0");
  fixture_mkdir(root, "data/empty"); /* no layout's directory: no cluster */
  fixture_write(root, "data/pve-vm-9.0/196", "");
  fixture_write(root, "data/pve-node-9.0/pve0", "");
  fixture_write(root, "data/prod/pve-vm-9.0/196", "");
  fixture_write(root, "data/prod/pve-node-9.0/pve1", "");
  fixture_write(root, "data/lab/pve-vm-9.0/196", "");
  fixture_write(root, "data/lab/pve-vm-9.0/300", "");
  fixture_write(root, "data/lab/pve-node-9.0/pve1", "");
  fixture_mkdir(root, "pve/nodes/pve0/qemu-server");
  fixture_mkdir(root, "pve/prod/nodes/pve1/qemu-server");
  fixture_mkdir(root, "pve/lab/nodes/pve1/lxc");
  fixture_write(root, "pve/nodes/pve0/qemu-server/196.conf", "name: plain\n");
  fixture_write(root, "pve/prod/nodes/pve1/qemu-server/196.conf",
                "name: web\n");
  fixture_write(root, "pve/lab/nodes/pve1/lxc/196.conf", "hostname: ct\n");
  config = (struct serve_config){.data_dir = data_dir,
                                 .list_dir = data_dir,
                                 .config_dir = config_dir,
                                 .now = 1700000000};
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void test_clusters_of(void **state) {
  struct data_clusters c;
  struct serve_request all = {.has_cluster = false};
  struct serve_request lab = {.has_cluster = true, .cluster = "lab"};
  struct serve_request own = {.has_cluster = true, .cluster = ""};
  struct serve_request gone = {.has_cluster = true, .cluster = "gone"};
  (void)state;
  assert_int_equal(serve_clusters_of(&config, &all, &c), 0);
  assert_int_equal(c.count, 3);
  assert_string_equal(c.cluster[0].name, "");
  assert_string_equal(c.cluster[1].name, "lab");
  assert_string_equal(c.cluster[2].name, "prod");
  data_clusters_free(&c);
  assert_int_equal(serve_clusters_of(&config, &lab, &c), 0);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "lab");
  data_clusters_free(&c);
  assert_int_equal(serve_clusters_of(&config, &own, &c), 0);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "");
  data_clusters_free(&c);
  assert_int_equal(serve_clusters_of(&config, &gone, &c), 0);
  assert_int_equal(c.count, 0);
  data_clusters_free(&c);
  /* a list directory that is a file: the directory itself, as before */
  struct serve_config file = config;
  char path[400];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/196", data_dir);
  file.list_dir = path;
  assert_int_equal(serve_clusters_of(&file, &all, &c), 0);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.cluster[0].name, "");
  data_clusters_free(&c);
}

static void test_dirs(void **state) {
  struct serve_cluster_dirs d;
  char want[400];
  (void)state;
  assert_int_equal(serve_cluster_dirs(&config, "", &d), 0);
  assert_string_equal(d.list, data_dir);
  assert_string_equal(d.config, config_dir);
  assert_int_equal(serve_cluster_dirs(&config, "prod", &d), 0);
  snprintf(want, sizeof(want), "%s/prod", data_dir);
  assert_string_equal(d.list, want);
  snprintf(want, sizeof(want), "%s/prod", config_dir);
  assert_string_equal(d.config, want);
  /* no configuration stays none for every cluster */
  struct serve_config none = config;
  none.config_dir = "";
  assert_int_equal(serve_cluster_dirs(&none, "prod", &d), 0);
  assert_string_equal(d.config, "");
  assert_int_equal(serve_cluster_dirs(&config, "pve-vm-9.0", &d), -EINVAL);
}

static void test_pick(void **state) {
  char name[256];
  (void)state;
  /* the data directory's own file comes first */
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "196", NULL, name, 256),
      0);
  assert_string_equal(name, "");
  /* else the one cluster that has it */
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "300", NULL, name, 256),
      0);
  assert_string_equal(name, "lab");
  /* else every cluster that has it */
  assert_int_equal(serve_cluster_pick(&config, &layout_pve_node_9_0, "pve1",
                                      NULL, name, 256),
                   -EEXIST);
  assert_string_equal(name, "lab, prod");
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "999", NULL, name, 256),
      -ENOENT);
  /* a short buffer holds what fits */
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_node_9_0, "pve1", NULL, name, 6),
      -EEXIST);
  assert_string_equal(name, "lab, ");
}

/* Under a scope only the clusters whose file it sees count. */
static void test_pick_scoped(void **state) {
  char name[256], why[160];
  struct serve_scope *scope;
  (void)state;
  assert_int_equal(serve_scope_parse("vmids=196@lab,196@prod,300@prod", 31,
                                     &scope, why, sizeof(why)),
                   0);
  /* the data directory's own 196 is not seen: lab's and prod's are */
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "196", scope, name, 256),
      -EEXIST);
  assert_string_equal(name, "lab, prod");
  /* lab has 300, the scope names prod's: as if no cluster had it */
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "300", scope, name, 256),
      -ENOENT);
  /* no node is seen */
  assert_int_equal(serve_cluster_pick(&config, &layout_pve_node_9_0, "pve1",
                                      scope, name, 256),
                   -ENOENT);
  serve_scope_free(scope);
  assert_int_equal(
      serve_scope_parse("vmids=196@prod", 14, &scope, why, sizeof(why)), 0);
  assert_int_equal(
      serve_cluster_pick(&config, &layout_pve_vm_9_0, "196", scope, name, 256),
      0);
  assert_string_equal(name, "prod");
  serve_scope_free(scope);
}

static void answer(const char *path, const struct serve_param *params,
                   size_t count, struct serve_reply *r) {
  serve_answer(&config, "GET", path, params, count, &(struct serve_headers){0},
               r);
}

static void check_body(const struct serve_reply *r, int status,
                       const char *body) {
  assert_int_equal(r->status, status);
  assert_non_null(r->body);
  assert_int_equal(r->size, strlen(body));
  assert_memory_equal(r->body, body, r->size);
}

static void test_listings(void **state) {
  struct serve_reply r;
  struct serve_param prod = {"cluster", "prod"}, own = {"cluster", ""};
  (void)state;
  answer("/api2/json/cluster/resources", NULL, 0, &r);
  check_body(&r, 200,
             "{\"data\":["
             "{\"id\":\"node/pve0\",\"type\":\"node\",\"node\":\"pve0\"},"
             "{\"id\":\"node/pve1\",\"type\":\"node\",\"node\":\"pve1\","
             "\"cluster\":\"lab\"},"
             "{\"id\":\"node/pve1\",\"type\":\"node\",\"node\":\"pve1\","
             "\"cluster\":\"prod\"},"
             "{\"id\":\"qemu/196\",\"type\":\"qemu\",\"vmid\":196,"
             "\"name\":\"plain\",\"node\":\"pve0\"},"
             "{\"id\":\"lxc/196\",\"type\":\"lxc\",\"vmid\":196,"
             "\"name\":\"ct\",\"node\":\"pve1\",\"cluster\":\"lab\"},"
             "{\"id\":\"guest/300\",\"type\":\"guest\",\"vmid\":300,"
             "\"cluster\":\"lab\"},"
             "{\"id\":\"qemu/196\",\"type\":\"qemu\",\"vmid\":196,"
             "\"name\":\"web\",\"node\":\"pve1\",\"cluster\":\"prod\"}]}");
  serve_reply_free(&r);
  answer("/api2/json/nodes", &prod, 1, &r);
  check_body(&r, 200,
             "{\"data\":[{\"id\":\"node/pve1\",\"type\":\"node\","
             "\"node\":\"pve1\",\"cluster\":\"prod\"}]}");
  serve_reply_free(&r);
  answer("/api2/json/nodes", &own, 1, &r);
  check_body(&r, 200,
             "{\"data\":[{\"id\":\"node/pve0\",\"type\":\"node\","
             "\"node\":\"pve0\"}]}");
  serve_reply_free(&r);
}

static void test_rrddata_cluster(void **state) {
  struct serve_reply r;
  struct serve_param p[] = {{"timeframe", "hour"}, {"cluster", "prod"}};
  (void)state;
  answer("/api2/json/nodes/pve1/rrddata", p, 1, &r);
  check_body(&r, 400,
             "{\"data\":null,\"message\":\"node pve1 has files in several "
             "clusters (lab, prod): name one with the parameter cluster\"}");
  assert_string_equal(r.message, "node pve1 has files in several clusters "
                                 "(lab, prod): name one with the parameter "
                                 "cluster");
  serve_reply_free(&r);
  /* a cluster without the file: the 404 of a missing file */
  answer("/api2/json/nodes/pve1/qemu/300/rrddata", p, 2, &r);
  check_body(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this "
             "guest\"}");
  serve_reply_free(&r);
  /* in no cluster at all: the same 404 as before clusters */
  answer("/api2/json/nodes/pve1/qemu/999/rrddata", p, 1, &r);
  check_body(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this "
             "guest\"}");
  serve_reply_free(&r);
  /* the file of the cluster named is read (here: not an RRD) */
  answer("/api2/json/nodes/pve1/rrddata", p, 2, &r);
  assert_int_equal(r.status, 500);
  assert_non_null(strstr(r.message, "prod/pve-node-9.0/pve1"));
  serve_reply_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clusters_of),
      cmocka_unit_test(test_dirs),
      cmocka_unit_test(test_pick),
      cmocka_unit_test(test_pick_scoped),
      cmocka_unit_test(test_listings),
      cmocka_unit_test(test_rrddata_cluster),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
