/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_files.c and guest_directories.c on a data
 * directory with clusters in a mkdtemp directory: every cluster's files
 * listed in turn ("" first, then by name), each naming its cluster, guests
 * before nodes, a legacy file counted once with its 9.0 one (and reported
 * found on its entry, as no legacy file is on the others), a guest's or
 * node's pvecg files (KSM, then stall time) right after its pve file, for
 * --all and for --vmid/--node alike (a stall file without a KSM file too,
 * and one whose pve file is not there, at its place); which cluster
 * a --vmid/--node means without --cluster ("" when it has the file, else
 * the one cluster that has it, a legacy file too, else refused naming the
 * clusters); names refused as clusters; each cluster's guests read from
 * its own copy of /etc/pve.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/export_files.h"
#include "pvecg/guest_directories.h"

#include "fixture_tree.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char root[256], data[512], config[512];

/* A file, with the directories it needs. */
static void put(const char *rel, const char *text) {
  char dir[256];
  snprintf(dir, sizeof(dir), "%s", rel);
  *strrchr(dir, '/') = '\0';
  fixture_mkdir(root, dir);
  fixture_write(root, rel, text);
}

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-export-files");
  put("data/pve-vm-9.0/196", "");
  put("data/pve-node-9.0/host0", "");
  put("data/prod/pve-vm-9.0/196", "");
  put("data/prod/pve-vm-9.0/100", "");
  put("data/prod/pve2-vm/100", "");
  put("data/prod/pve-node-9.0/pve1", "");
  put("data/lab/pve-node-9.0/pve1", "");
  put("data/lab/pve2-vm/300.old", "");
  put("data/solo/pve-vm-9.0/196", "");
  put("data/prod/pvecg-ksm-vm-1.0/196", "");
  put("data/prod/pvecg-ksm-node-1.0/pve1", "");
  put("data/prod/pvecg-pressure-vm-1.0/196", "");
  put("data/prod/pvecg-pressure-vm-1.0/100", "");
  put("data/prod/pvecg-pressure-vm-1.0/101", ""); /* no pve file */
  put("data/prod/pvecg-pressure-node-1.0/pve1", "");
  put("data/pvecg-pressure-node-1.0/host0", "");
  put("pve/nodes/host0/qemu-server/196.conf", "name: own\n");
  put("pve/prod/nodes/pve1/lxc/196.conf", "hostname: ct\n");
  snprintf(data, sizeof(data), "%s/data", root);
  snprintf(config, sizeof(config), "%s/pve", root);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void scan_all(struct export_files *f) {
  struct data_clusters c;
  assert_int_equal(data_clusters_scan(data, &c), 0);
  assert_int_equal(export_files_scan_all(f, data, &c), 0);
  data_clusters_free(&c);
}

static void test_scan_all(void **state) {
  (void)state;
  struct export_files f = {0};
  scan_all(&f);
  static const char *const want[][4] = {
      {"", "pve-vm-9.0", "196", ""},
      {"", "pve-node-9.0", "host0", ""},
      {"", "pvecg-pressure-node-1.0", "host0", ""},
      {"lab", "pve-vm-9.0", "300", "legacy"}, /* only a legacy file */
      {"lab", "pve-node-9.0", "pve1", ""},
      {"prod", "pve-vm-9.0", "100", "legacy"}, /* both */
      {"prod", "pvecg-pressure-vm-1.0", "100", ""},
      {"prod", "pvecg-pressure-vm-1.0", "101", ""},
      {"prod", "pve-vm-9.0", "196", ""},
      {"prod", "pvecg-ksm-vm-1.0", "196", ""},
      {"prod", "pvecg-pressure-vm-1.0", "196", ""},
      {"prod", "pve-node-9.0", "pve1", ""},
      {"prod", "pvecg-ksm-node-1.0", "pve1", ""},
      {"prod", "pvecg-pressure-node-1.0", "pve1", ""},
      {"solo", "pve-vm-9.0", "196", ""},
  };
  assert_int_equal(f.count, sizeof(want) / sizeof(want[0]));
  for (size_t i = 0; i < f.count; i++) {
    assert_string_equal(f.file[i].cluster, want[i][0]);
    assert_string_equal(f.file[i].layout->name, want[i][1]);
    assert_string_equal(f.file[i].name, want[i][2]);
    assert_true(f.file[i].legacy_known);
    assert_int_equal(f.file[i].legacy_found, want[i][3][0] != '\0');
    /* the stat of the 9.0 file the shipper's identity check takes */
    assert_int_equal(f.file[i].stat_known, i != 3);
  }
  export_files_free(&f);
  /* One cluster alone; the data directory's own as before clusters. */
  assert_int_equal(export_files_scan_cluster(&f, data, "prod"), 0);
  assert_int_equal(f.count, 9);
  assert_string_equal(f.file[0].cluster, "prod");
  export_files_free(&f);
  assert_int_equal(export_files_scan(&f, data), 0);
  assert_int_equal(f.count, 3);
  assert_string_equal(f.file[0].cluster, "");
  export_files_free(&f);
  assert_int_equal(export_files_scan_cluster(&f, data, "pve-vm-9.0"), -EINVAL);
  /* a file named, not found by a scan: export_run.c looks for its legacy */
  assert_int_equal(export_files_add(&f, EXPORT_VM, "100"), 0);
  assert_false(f.file[0].legacy_known);
  export_files_free(&f);
  assert_int_equal(export_files_add_in(&f, ".x", EXPORT_VM, "100"), -EINVAL);
  assert_int_equal(export_files_add_in(&f, "a/b", EXPORT_VM, "100"), -EINVAL);
  assert_int_equal(f.count, 0);
  export_files_free(&f);
}

/* The cluster picked for a --vmid/--node, or the error's text. */
static void pick(enum export_kind kind, const char *name, int ret,
                 const char *expected) {
  struct data_clusters c;
  struct export_files f = {0};
  char err[256] = "";
  assert_int_equal(data_clusters_scan(data, &c), 0);
  assert_int_equal(export_files_add(&f, kind, name), 0);
  assert_int_equal(
      export_files_pick_cluster(&f.file[0], data, &c, err, sizeof(err)), ret);
  assert_string_equal(ret == 0 ? f.file[0].cluster : err, expected);
  export_files_free(&f);
  data_clusters_free(&c);
}

static void test_pick(void **state) {
  (void)state;
  pick(EXPORT_VM, "196", 0, ""); /* the data directory's own first */
  pick(EXPORT_NODE, "host0", 0, "");
  pick(EXPORT_VM, "100", 0, "prod"); /* one cluster has it */
  pick(EXPORT_VM, "300", 0, "lab");  /* a legacy file only */
  pick(EXPORT_VM, "999", 0, "");     /* nobody: "no such file" later */
  pick(EXPORT_NODE, "pve1", -EEXIST,
       "node pve1 is in the clusters lab, prod: say which with --cluster");
}

/* --vmid/--node: a guest's or node's pvecg files go with its pve file,
 * right after it, in --all's order. */
static void test_add_extras(void **state) {
  (void)state;
  struct export_files f = {0};
  assert_int_equal(export_files_add_in(&f, "prod", EXPORT_NODE, "pve1"), 0);
  assert_int_equal(export_files_add_in(&f, "prod", EXPORT_VM, "196"), 0);
  assert_int_equal(export_files_add_in(&f, "solo", EXPORT_VM, "196"), 0);
  assert_int_equal(export_files_add_in(&f, "prod", EXPORT_VM, "100"), 0);
  assert_int_equal(export_files_add(&f, EXPORT_NODE, "host0"), 0);
  assert_int_equal(export_files_add_extras(&f, data), 0);
  static const char *const want[][3] = {
      {"prod", "pve-node-9.0", "pve1"},
      {"prod", "pvecg-ksm-node-1.0", "pve1"},
      {"prod", "pvecg-pressure-node-1.0", "pve1"},
      {"prod", "pve-vm-9.0", "196"},
      {"prod", "pvecg-ksm-vm-1.0", "196"},
      {"prod", "pvecg-pressure-vm-1.0", "196"},
      {"solo", "pve-vm-9.0", "196"},
      {"prod", "pve-vm-9.0", "100"},
      {"prod", "pvecg-pressure-vm-1.0", "100"},
      {"", "pve-node-9.0", "host0"},
      {"", "pvecg-pressure-node-1.0", "host0"},
  };
  assert_int_equal(f.count, sizeof(want) / sizeof(want[0]));
  for (size_t i = 0; i < f.count; i++) {
    assert_string_equal(f.file[i].cluster, want[i][0]);
    assert_string_equal(f.file[i].layout->name, want[i][1]);
    assert_string_equal(f.file[i].name, want[i][2]);
  }
  export_files_free(&f);
}

static void test_guests(void **state) {
  (void)state;
  struct guest_directories *d = guest_directories_new(config);
  assert_non_null(d);
  struct guest_identity who;
  assert_int_equal(
      guest_directory_find(guest_directories_get(d, ""), 196, &who), 0);
  assert_int_equal(who.type, GUEST_QEMU);
  assert_string_equal(who.name, "own");
  assert_string_equal(who.node, "host0");
  assert_int_equal(
      guest_directory_find(guest_directories_get(d, "prod"), 196, &who), 0);
  assert_int_equal(who.type, GUEST_LXC);
  assert_string_equal(who.name, "ct");
  assert_string_equal(who.node, "pve1");
  /* A cluster without a copy of its /etc/pve knows nobody. */
  assert_int_equal(
      guest_directory_find(guest_directories_get(d, "solo"), 196, &who),
      -ENOENT);
  assert_null(guest_directories_get(d, "../pve"));
  /* Read again after forget: a configuration written since is seen. */
  put("pve/solo/nodes/solo/qemu-server/196.conf", "name: s\n");
  assert_int_equal(
      guest_directory_find(guest_directories_get(d, "solo"), 196, &who),
      -ENOENT);
  guest_directories_forget(d);
  assert_int_equal(
      guest_directory_find(guest_directories_get(d, "solo"), 196, &who), 0);
  assert_string_equal(who.name, "s");
  guest_directories_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_all),
      cmocka_unit_test(test_pick),
      cmocka_unit_test(test_add_extras),
      cmocka_unit_test(test_guests),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
