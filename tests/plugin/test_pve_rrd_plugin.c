/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the pve_rrd plugin's collectd glue against the collectd
 * stand-in: configuration, which value lists become which files, and what
 * is refused (bad VMIDs and host names from the network, rows whose type
 * does not match the layout, read-only legacy layouts), and a VMID that two
 * hosts report (the host and interval of each list reach the sink).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "collectd_stub.h"
#include "collectd/core/utils/common/common.h"
#include "fixture_tree.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_last.h"
#include "pvecg/rrd_layout.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void module_register(void);

static char root[256]; /* short: paths below it fit PATH_MAX */

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-rrd-plugin");
  stub_reset_records();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  stub.shutdown();
  fixture_remove(root);
  return 0;
}

static void init_with_data_dir(void) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/data", root);
  oconfig_item_t *c = stub_config_new();
  stub_config_add_strings(c, "DataDir", 1, dir);
  assert_int_equal(stub.config(c), 0);
  stub_config_free(c);
  assert_int_equal(stub.init(), 0);
}

/* Writes one row of type with every value set to base + column, from a
 * host whose rows come every interval (0: none logged). */
static void write_row_every(const char *type, const char *host,
                            const char *instance, time_t t, double base,
                            double interval) {
  const data_set_t *ds = stub_data_set(type);
  value_t values[32];
  value_list_t vl = VALUE_LIST_INIT;
  for (size_t i = 0; ds && i < ds->ds_num; i++)
    values[i].gauge = base + (double)i;
  vl.values = values;
  vl.values_len = ds ? ds->ds_num : 1;
  vl.time = TIME_T_TO_CDTIME_T(t);
  vl.interval = DOUBLE_TO_CDTIME_T(interval);
  sstrncpy(vl.host, host, sizeof(vl.host));
  sstrncpy(vl.plugin, "pve_cgroup", sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, instance, sizeof(vl.plugin_instance));
  sstrncpy(vl.type, type, sizeof(vl.type));
  data_set_t fallback = {.type = "other", .ds_num = 1, .ds = NULL};
  assert_int_equal(stub.write(ds ? ds : &fallback, &vl, NULL), 0);
}

static void write_row(const char *type, const char *host, const char *instance,
                      time_t t, double base) {
  write_row_every(type, host, instance, t, base, 0);
}

/* Guest 196's row from host, which sends every 0.2 s: a window of 1 s. */
#define GUEST_INTERVAL 0.2
static void guest_196(const char *host, time_t t, double base) {
  write_row_every("pve_vm_9_0", host, "196", t, base, GUEST_INTERVAL);
}

static bool exists(const char *rel) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/data/%s", root, rel);
  return access(path, F_OK) == 0;
}

static time_t last_update(const char *rel) {
  char path[PATH_MAX], err[256];
  time_t t = 0;
  snprintf(path, sizeof(path), "%s/data/%s", root, rel);
  assert_int_equal(rrd_file_last_update(path, &t, err, sizeof(err)), 0);
  return t;
}

static void test_config_errors(void **state) {
  (void)state;
  oconfig_item_t *c = stub_config_new();
  stub_config_add_strings(c, "DataDirectory", 1, "/x");
  assert_int_not_equal(stub.config(c), 0);
  stub_config_free(c);
  assert_non_null(stub_log_find("unknown config option \"DataDirectory\""));
  c = stub_config_new();
  stub_config_add_strings(c, "DataDir", 1, "");
  assert_int_not_equal(stub.config(c), 0);
  stub_config_free(c);
  assert_non_null(stub_log_find("\"DataDir\" must not be empty"));
  c = stub_config_new();
  stub_config_add_strings(c, "RecheckInterval", 1, "soon");
  assert_int_not_equal(stub.config(c), 0);
  stub_config_free(c);
}

static void test_guest_and_node_rows(void **state) {
  (void)state;
  init_with_data_dir();
  time_t t = time(NULL) - 10;
  write_row("pve_vm_9_0", "node1", "100", t, 1000);
  write_row("pve_vm_9_0", "node1", "100", t + 1, 2000);
  write_row("pve_node_9_0", "node1", "", t, 5);
  assert_true(exists("pve-vm-9.0/100"));
  assert_int_equal(last_update("pve-vm-9.0/100"), t + 1);
  assert_true(exists("pve-node-9.0/node1"));
  assert_int_equal(last_update("pve-node-9.0/node1"), t);
  char path[PATH_MAX], why[512];
  snprintf(path, sizeof(path), "%s/data/pve-node-9.0/node1", root);
  assert_int_equal(rrd_file_check(&layout_pve_node_9_0, path, why, sizeof(why)),
                   0);
  /* A row that is not newer is dropped and logged so. */
  write_row("pve_vm_9_0", "node1", "100", t, 3000);
  assert_int_equal(last_update("pve-vm-9.0/100"), t + 1);
}

static void test_refused_rows(void **state) {
  (void)state;
  init_with_data_dir();
  time_t t = time(NULL) - 10;
  const char *bad_vmids[] = {"", "0100", "99", "../100", "100/x", "abc"};
  for (size_t i = 0; i < sizeof(bad_vmids) / sizeof(*bad_vmids); i++)
    write_row("pve_vm_9_0", "node1", bad_vmids[i], t, 1);
  assert_non_null(stub_log_find("ignoring a pve_vm_9_0 row from host"));
  write_row("pve_node_9_0", "../etc", "", t, 1);
  write_row("pve_node_9_0", "a\nb", "", t, 1);
  write_row("pve2_vm", "node1", "100", t, 1); /* legacy: read-only */
  write_row("memory", "node1", "100", t, 1);  /* not a row type */
  assert_false(exists("pve-vm-9.0"));
  assert_false(exists("pve2-vm"));
  assert_false(exists("pve-node-9.0/../etc"));
  assert_false(exists("etc"));
}

static void test_foreign_type_definition(void **state) {
  (void)state;
  init_with_data_dir();
  /* A receiver whose types.db has the type with other columns. */
  data_source_t sources[2] = {{"memhost", DS_TYPE_GAUGE, 0, NAN},
                              {"mem", DS_TYPE_GAUGE, 0, NAN}};
  data_set_t ds = {.type = "pve_vm_9_0", .ds_num = 2, .ds = sources};
  value_t values[2] = {{.gauge = 1}, {.gauge = 2}};
  value_list_t vl = VALUE_LIST_INIT;
  vl.values = values;
  vl.values_len = 2;
  vl.time = TIME_T_TO_CDTIME_T(time(NULL));
  sstrncpy(vl.plugin_instance, "100", sizeof(vl.plugin_instance));
  sstrncpy(vl.type, "pve_vm_9_0", sizeof(vl.type));
  assert_int_equal(stub.write(&ds, &vl, NULL), 0);
  assert_false(exists("pve-vm-9.0/100"));
  assert_non_null(stub_log_find("columns differ from the pve-vm-9.0 layout"));
}

/* ---- a VMID that two hosts report ------------------------------------ */

static int lines_with(const char *text, int level) {
  int n = 0;
  for (int i = 0; i < stub.log_count; i++)
    n += strstr(stub.log[i], text) != NULL && stub.log_level[i] == level;
  return n;
}

/* memhost of the file's newest row (its 11th column: base + 10). */
static double last_memhost(const char *rel) {
  char path[PATH_MAX], err[256];
  snprintf(path, sizeof(path), "%s/data/%s", root, rel);
  struct rrd_last_reader *reader;
  struct rrd_last_row row;
  assert_int_equal(rrd_last_reader_new(NULL, &reader), 0);
  assert_int_equal(rrd_last_read(reader, path, &row, err, sizeof(err)), 0);
  rrd_last_reader_free(reader);
  return rrd_last_value(&row, "memhost");
}

/* The collision line of guest 196's file, nodea and other, with the
 * time it began. */
static void collision_line(char *buf, size_t size, const char *other,
                           time_t since) {
  char file[512], when[32];
  struct tm tm;
  snprintf(file, sizeof(file), "%s/data/pve-vm-9.0/196", root);
  strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&since, &tm));
  snprintf(buf, size,
           "pve_rrd plugin: guest 196 is reported by both nodea and %s "
           "(since %s): its file %s stays with nodea, and the rows from %s "
           "are dropped, also once nodea stops reporting it (logged again "
           "hourly while they come). If nodea and %s are in different "
           "clusters or are standalone hosts that share VMIDs, put each "
           "cluster's hosts in a <Cluster> block of pve_rrd's configuration "
           "(Host \"nodea\" in one, Host \"%s\" in another, or "
           "StandaloneHosts true for hosts of their own; see \"Cluster\" in "
           "collectd-pve_rrd(5)). "
           "\"pvecg check --owners --data-dir %s/data --give pve-vm-9.0/196 "
           "%s\" hands the file to %s, \"pvecg check --owners --data-dir "
           "%s/data --forget pve-vm-9.0/196\" forgets the collision.",
           other, when, file, other, other, other, root, other, other, root);
}

/* The time a collision line says it began, or -1. */
static time_t line_since(const char *line) {
  const char *p = line != NULL ? strstr(line, "(since ") : NULL;
  struct tm tm = {0};
  if (p == NULL || strptime(p + 7, "%Y-%m-%d %H:%M:%S UTC", &tm) == NULL)
    return -1;
  return timegm(&tm);
}

/* Both report it for 1.5 s (rows 0.1 s apart, at the same seconds): the
 * file keeps nodea's rows only, one error says why, once, with the time
 * nodeb began; a third host later gets its own line, once. */
static void test_vmid_of_two_hosts(void **state) {
  (void)state;
  init_with_data_dir();
  time_t t = time(NULL) - 100;
  guest_196("nodea", t, 1000); /* makes the file */
  time_t began = time(NULL);
  for (int i = 1; i <= 15; i++) {
    guest_196("nodea", t + i, 1000);
    guest_196("nodeb", t + i, 5000);
    usleep(100000);
  }
  char line[4096];
  time_t since = line_since(stub_log_find("guest 196"));
  assert_true(since >= began - 1 && since <= began + 1);
  collision_line(line, sizeof(line), "nodeb", since);
  assert_int_equal(lines_with("guest 196", LOG_ERR), 1);
  assert_non_null(stub_log_find(line));
  assert_string_equal(stub_log_find("guest 196"), line);
  assert_int_equal(last_update("pve-vm-9.0/196"), t + 15);
  assert_true(last_memhost("pve-vm-9.0/196") == 1010);
  for (int i = 16; i <= 30; i++) {
    guest_196("nodea", t + i, 1000);
    guest_196("nodeb", t + i, 5000);
    guest_196("nodec", t + i, 9000);
    usleep(100000);
  }
  assert_int_equal(lines_with("guest 196 is reported by both", LOG_ERR), 2);
  assert_int_equal(lines_with("both nodea and nodec (since ", LOG_ERR), 1);
  assert_int_equal(lines_with("guest 196", LOG_INFO), 0);
  assert_int_equal(last_update("pve-vm-9.0/196"), t + 30);
  assert_true(last_memhost("pve-vm-9.0/196") == 1010);
  /* no "not newer" lines: the other hosts' rows never reached the file */
  assert_null(stub_log_find("Dropped"));
  /* node files are named by their hosts and need no guard */
  write_row("pve_node_9_0", "nodea", "", t, 5);
  write_row("pve_node_9_0", "nodeb", "", t, 6);
  assert_true(exists("pve-node-9.0/nodea"));
  assert_true(exists("pve-node-9.0/nodeb"));
}

/* nodea stops; nodeb reports the guest more than the window later: one
 * info line, and the file goes on with nodeb's rows. */
static void test_vmid_migrates(void **state) {
  (void)state;
  init_with_data_dir();
  time_t t = time(NULL) - 100;
  for (int i = 0; i < 3; i++)
    guest_196("nodea", t + i, 1000);
  usleep(1200000); /* the window is 5 intervals of 0.2 s */
  guest_196("nodeb", t + 3, 5000);
  guest_196("nodeb", t + 4, 5000);
  assert_int_equal(stub.log_count, 2); /* "writing below", and this: */
  assert_string_equal(stub.log[1], "pve_rrd plugin: guest 196 now reported "
                                   "by nodeb, was nodea.");
  assert_int_equal(stub.log_level[1], LOG_INFO);
  assert_int_equal(last_update("pve-vm-9.0/196"), t + 4);
  assert_true(last_memhost("pve-vm-9.0/196") == 5010);
}

/* ---- clusters ------------------------------------------------------ */

/* DataDir, <Cluster "prod"> pve1 pve2, <Cluster "lab"> lab1, and
 * StandaloneHosts as given. */
static int config_clusters(bool standalone) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/data", root);
  oconfig_item_t *c = stub_config_new();
  stub_config_add_strings(c, "DataDir", 1, dir);
  oconfig_item_t *b = stub_config_add_block(c, "Cluster", "prod");
  stub_config_add_strings(b, "Host", 2, "pve1", "pve2");
  b = stub_config_add_block(c, "Cluster", "lab");
  stub_config_add_strings(b, "Host", 1, "lab1");
  stub_config_add_boolean(c, "StandaloneHosts", standalone);
  int r = stub.config(c);
  stub_config_free(c);
  return r;
}

/* Guest 196 of four hosts in three clusters and a standalone host: four
 * files, each with its own host's values; a node file in its cluster. */
static void test_clusters_apart(void **state) {
  (void)state;
  assert_int_equal(config_clusters(true), 0);
  assert_int_equal(stub.init(), 0);
  assert_non_null(stub_log_find("each cluster in a directory of its own"));
  time_t t = time(NULL) - 100;
  for (int i = 0; i < 3; i++) {
    guest_196("pve1", t + i, 1000);
    guest_196("lab1", t + i, 2000);
    guest_196("solo", t + i, 3000);
  }
  write_row("pve_node_9_0", "pve2", "", t, 5);
  write_row("pve_node_9_0", "solo", "", t, 6);
  assert_true(last_memhost("prod/pve-vm-9.0/196") == 1010);
  assert_true(last_memhost("lab/pve-vm-9.0/196") == 2010);
  assert_true(last_memhost("solo/pve-vm-9.0/196") == 3010);
  assert_int_equal(last_update("prod/pve-node-9.0/pve2"), t);
  assert_int_equal(last_update("solo/pve-node-9.0/solo"), t);
  assert_false(exists("pve-vm-9.0"));
  assert_false(exists("pve-node-9.0"));
  assert_int_equal(lines_with("guest 196", LOG_ERR), 0);
  /* a guest that migrates inside prod stays one file */
  usleep(1200000);
  guest_196("pve2", t + 3, 4000);
  assert_non_null(stub_log_find("pve_rrd plugin: guest 196 of cluster prod "
                                "now reported by pve2, was pve1."));
  assert_true(last_memhost("prod/pve-vm-9.0/196") == 4010);
}

/* Without StandaloneHosts an unlisted host's rows are dropped, logged once;
 * with it, a host named like a cluster or a layout's directory is. */
static void test_clusters_refuse(void **state) {
  (void)state;
  assert_int_equal(config_clusters(false), 0);
  assert_int_equal(stub.init(), 0);
  time_t t = time(NULL) - 100;
  for (int i = 0; i < 3; i++) {
    guest_196("solo", t + i, 3000);
    write_row("pve_node_9_0", "solo", "", t + i, 6);
  }
  assert_int_equal(lines_with("\"solo\"", LOG_ERR), 1);
  assert_non_null(stub_log_find(
      "pve_rrd plugin: the rows of host \"solo\" are dropped: it is in no "
      "<Cluster> block. Add Host \"solo\" to its cluster's block, or set "
      "StandaloneHosts true to give every unlisted host a cluster of its "
      "own."));
  assert_false(exists("solo"));
  assert_false(exists("pve-vm-9.0"));
  assert_false(exists("pve-node-9.0"));
}

static void test_clusters_refuse_standalone(void **state) {
  (void)state;
  assert_int_equal(config_clusters(true), 0);
  assert_int_equal(stub.init(), 0);
  time_t t = time(NULL) - 100;
  guest_196("prod", t, 1000);
  guest_196("pve-node-9.0", t, 1000);
  write_row("pve_node_9_0", ".hidden", "", t, 6);
  assert_int_equal(lines_with("are dropped", LOG_ERR), 3);
  assert_non_null(stub_log_find("standalone host \"prod\" are dropped: a "
                                "<Cluster> block of that name"));
  assert_false(exists("prod"));
  assert_false(exists("pve-node-9.0"));
  assert_false(exists(".hidden"));
}

/* A configuration that names no place for sure is refused as a whole. */
static void refused_config(const char *cluster, const char *host1,
                           const char *host2, const char *line) {
  oconfig_item_t *c = stub_config_new();
  oconfig_item_t *b = stub_config_add_block(c, "Cluster", "prod");
  stub_config_add_strings(b, "Host", 1, "pve1");
  b = stub_config_add_block(c, "Cluster", cluster);
  stub_config_add_strings(b, "Host", 2, host1, host2);
  assert_int_not_equal(stub.config(c), 0);
  stub_config_free(c);
  assert_non_null(stub_log_find(line));
  stub.shutdown(); /* forgets the clusters, as a new collectd would */
}

static void test_clusters_config_errors(void **state) {
  (void)state;
  refused_config("lab", "lab1", "pve1",
                 "pve_rrd plugin: the host \"pve1\" is in both cluster "
                 "\"prod\" and cluster \"lab\"; the configuration is "
                 "refused.");
  refused_config("lab", "lab1", "lab/2",
                 "the host name \"lab/2\" of cluster \"lab\" cannot name a "
                 "node's file: the file name contains '/'");
  refused_config("pve-vm-9.0", "a", "b",
                 "the cluster name \"pve-vm-9.0\" cannot be used: it is the "
                 "name of a layout's directory; the configuration is "
                 "refused.");
  refused_config("prod", "a", "b", "the cluster \"prod\" is configured twice");
}

int main(void) {
  module_register();
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_config_errors),
      T(test_guest_and_node_rows),
      T(test_refused_rows),
      T(test_foreign_type_definition),
      T(test_vmid_of_two_hosts),
      T(test_vmid_migrates),
      T(test_clusters_apart),
      T(test_clusters_refuse),
      T(test_clusters_refuse_standalone),
      T(test_clusters_config_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
