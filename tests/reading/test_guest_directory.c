/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/reading/guest_directory.c on a /etc/pve-like tree in a
 * mkdtemp directory: the RRD files name a guest only by its VMID, so the
 * export and the server learn its type, node and name here.  The tree has
 * a QEMU guest on pve1 (also in the local node's links, with a stale name
 * there: the node's entry wins), a container on pve2 whose links
 * directory is a symbolic link to pve2's lxc/ (followed), a guest only in
 * the links (node ""), a configuration without a name, and what is no
 * guest: a file that is no .conf, "0100.conf" (no VMID), a VMID below 100,
 * a hidden node directory, a node "directory" that is a file.  Unknown
 * VMIDs are -ENOENT; no configuration directory is an empty directory.
 * Everything is freed: the unit tests also run under valgrind and ASan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/guest_directory.h"

#include "fixture_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char root[256];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-guest-directory");
  fixture_mkdir(root, "nodes/pve1/qemu-server");
  fixture_mkdir(root, "nodes/pve1/lxc");
  fixture_mkdir(root, "nodes/pve2/lxc");
  fixture_mkdir(root, "nodes/pve2/qemu-server");
  fixture_write(root, "nodes/pve1/qemu-server/100.conf",
                "# a comment\nboot: order=scsi0\nname: web\nmemory: 2048\n");
  fixture_write(root, "nodes/pve1/qemu-server/102.conf", "memory: 512\n");
  fixture_write(root, "nodes/pve1/qemu-server/0100.conf", "name: bad\n");
  fixture_write(root, "nodes/pve1/qemu-server/99.conf", "name: low\n");
  fixture_write(root, "nodes/pve1/qemu-server/103.conf.tmp", "name: tmp\n");
  fixture_write(root, "nodes/pve1/qemu-server/notes.txt", "name: notes\n");
  fixture_mkdir(root, "nodes/pve1/qemu-server/104.conf"); /* a directory */
  fixture_write(root, "nodes/pve2/lxc/101.conf",
                "arch: amd64\nhostname: ct1\ncores: 2\ntags: a;b\n"
                "template: 1\n");
  /* A hidden node and a file where a node would be are no nodes. */
  fixture_mkdir(root, "nodes/.hidden/qemu-server");
  fixture_write(root, "nodes/.hidden/qemu-server/200.conf", "name: hid\n");
  fixture_write(root, "nodes/file", "");
  /* The local node's links: a directory of its own here, so that 105 is
   * only there, and a symbolic link to pve2's containers. */
  fixture_mkdir(root, "qemu-server");
  fixture_write(root, "qemu-server/100.conf", "name: stale\n");
  fixture_write(root, "qemu-server/105.conf", "name: lonely\n");
  char target[PATH_MAX], link[PATH_MAX];
  snprintf(target, sizeof(target), "%s/nodes/pve2/lxc", root);
  snprintf(link, sizeof(link), "%s/lxc", root);
  assert_int_equal(symlink(target, link), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void check_found(const struct guest_directory *d, uint32_t vmid,
                        enum guest_type type, const char *node,
                        const char *name) {
  struct guest_identity who;
  memset(&who, 0x5a, sizeof(who));
  assert_int_equal(guest_directory_find(d, vmid, &who), 0);
  assert_int_equal(who.type, type);
  assert_string_equal(who.node, node);
  assert_string_equal(who.name, name);
}

static void check_missing(const struct guest_directory *d, uint32_t vmid) {
  struct guest_identity who;
  assert_int_equal(guest_directory_find(d, vmid, &who), -ENOENT);
}

static void test_find(void **state) {
  (void)state;
  struct guest_directory *d = guest_directory_load(root);
  assert_non_null(d);
  check_found(d, 100, GUEST_QEMU, "pve1", "web");
  check_found(d, 101, GUEST_LXC, "pve2", "ct1");
  check_found(d, 102, GUEST_QEMU, "pve1", "");
  check_found(d, 105, GUEST_QEMU, "", "lonely");
  check_missing(d, 99);  /* no VMID */
  check_missing(d, 103); /* 103.conf.tmp */
  check_missing(d, 104); /* a directory */
  check_missing(d, 106); /* nowhere */
  struct guest_identity who;
  assert_int_equal(guest_directory_find(d, 101, &who), 0);
  assert_true(who.template);
  assert_string_equal(who.tags, "a;b");
  assert_int_equal(guest_directory_find(d, 100, &who), 0);
  assert_false(who.template);
  assert_string_equal(who.tags, "");
  check_missing(d, 200); /* a hidden node's */
  check_missing(d, 0);
  check_missing(d, 1000);
  check_missing(d, UINT32_MAX);
  guest_directory_free(d);
}

/* The name is read at find time, not at load time. */
static void test_name_read_now(void **state) {
  (void)state;
  struct guest_directory *d = guest_directory_load(root);
  assert_non_null(d);
  fixture_write(root, "nodes/pve2/lxc/101.conf", "hostname: renamed\n");
  check_found(d, 101, GUEST_LXC, "pve2", "renamed");
  /* Gone since the load: still listed, without a name. */
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/nodes/pve1/qemu-server/102.conf", root);
  assert_int_equal(unlink(path), 0);
  check_found(d, 102, GUEST_QEMU, "pve1", "");
  guest_directory_free(d);
  /* The next load no longer has it. */
  d = guest_directory_load(root);
  assert_non_null(d);
  check_missing(d, 102);
  check_found(d, 100, GUEST_QEMU, "pve1", "web");
  guest_directory_free(d);
  fixture_write(root, "nodes/pve2/lxc/101.conf", "hostname: ct1\n");
  fixture_write(root, "nodes/pve1/qemu-server/102.conf", "memory: 512\n");
}

/* A directory that keeps identities reads each configuration at its
 * first find only: a rename shows after the next load. */
static void test_kept(void **state) {
  (void)state;
  fixture_write(root, "nodes/pve2/lxc/101.conf",
                "hostname: ct1\ntemplate: 1\n");
  struct guest_directory *d = guest_directory_load(root);
  assert_non_null(d);
  assert_int_equal(guest_directory_keep(d), 0);
  check_found(d, 101, GUEST_LXC, "pve2", "ct1");
  fixture_write(root, "nodes/pve2/lxc/101.conf", "hostname: renamed\n");
  check_found(d, 101, GUEST_LXC, "pve2", "ct1");
  struct guest_identity who;
  assert_int_equal(guest_directory_find(d, 101, &who), 0);
  assert_true(who.template); /* as read first: the file no longer says so */
  check_found(d, 100, GUEST_QEMU, "pve1", "web"); /* first read: now */
  check_missing(d, 106);
  guest_directory_free(d);
  d = guest_directory_load(root);
  assert_non_null(d);
  assert_int_equal(guest_directory_keep(d), 0);
  check_found(d, 101, GUEST_LXC, "pve2", "renamed");
  guest_directory_free(d);
  fixture_write(root, "nodes/pve2/lxc/101.conf",
                "arch: amd64\nhostname: ct1\ncores: 2\ntags: a;b\n"
                "template: 1\n");
}

/* No configuration directory: an empty directory, not an error. */
static void test_empty(void **state) {
  (void)state;
  const char *dirs[] = {NULL, "", "/nonexistent/pvecg-test"};
  for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
    struct guest_directory *d = guest_directory_load(dirs[i]);
    assert_non_null(d);
    check_missing(d, 100);
    guest_directory_free(d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_name_read_now),
      cmocka_unit_test(test_kept),
      cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
