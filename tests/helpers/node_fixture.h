/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture trees for the node tests: network interfaces laid out as sysfs
 * lays them out (the device directory below devices/, a class/net symlink
 * to it, a `device` link for hardware-backed ones), and host-wide proc
 * files.  Built on fixture_tree.h; every helper aborts on a file-system
 * error.  cmocka.h must be included before this header.
 */
#ifndef PVECG_TEST_NODE_FIXTURE_H
#define PVECG_TEST_NODE_FIXTURE_H

#include "fixture_tree.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NIC_VIRTUAL NULL

/* ARPHRD_* values as sysfs prints them in `type`. */
#define NIC_ETHER 1
#define NIC_INFINIBAND 32
#define NIC_LOOPBACK 772

/* snprintf into a PATH_MAX buffer; a path that does not fit is a broken
 * test. */
__attribute__((format(printf, 2, 3))) static inline void
node_fixture_path(char *buf, const char *fmt, ...) {
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(buf, PATH_MAX, fmt, ap);
  va_end(ap);
  assert_true(n >= 0 && n < PATH_MAX);
}

static inline void node_fixture_counter(const char *root, const char *name,
                                        const char *file, uint64_t value) {
  char rel[PATH_MAX], text[32];

  node_fixture_path(rel, "sys/class/net/%s/statistics/%s", name, file);
  snprintf(text, sizeof(text), "%" PRIu64 "\n", value);
  fixture_write(root, rel, text);
}

/* Rewrites a NIC's counters in place (kept descriptors see them). */
static inline void node_fixture_counters(const char *root, const char *name,
                                         uint64_t rx, uint64_t tx) {
  node_fixture_counter(root, name, "rx_bytes", rx);
  node_fixture_counter(root, name, "tx_bytes", tx);
}

/*
 * The interface `name`: sys/devices/<parent>/net/<name> with `type` and
 * statistics/{rx,tx}_bytes, and sys/class/net/<name> linking to it.
 * parent NIC_VIRTUAL puts it below devices/virtual without a `device`
 * link (a bridge, bond, tap...); any other parent gets a `device` link to
 * sys/devices/<parent>, as a PCI or USB NIC has.
 */
static inline void node_fixture_nic(const char *root, const char *name,
                                    const char *parent, int type, uint64_t rx,
                                    uint64_t tx) {
  char dev[PATH_MAX], path[PATH_MAX], target[PATH_MAX], text[32];

  node_fixture_path(dev, "sys/devices/%s/net/%s", parent ? parent : "virtual",
                    name);
  node_fixture_path(path, "%s/statistics", dev);
  fixture_mkdir(root, path);
  fixture_mkdir(root, "sys/class/net");
  node_fixture_path(path, "%s/type", dev);
  snprintf(text, sizeof(text), "%d\n", type);
  fixture_write(root, path, text);
  node_fixture_path(path, "%s/sys/class/net/%s", root, name);
  node_fixture_path(target, "../../%s", dev + strlen("sys/"));
  assert_int_equal(symlink(target, path), 0);
  if (parent) {
    node_fixture_path(path, "%s/%s/device", root, dev);
    assert_int_equal(symlink("../..", path), 0);
  }
  node_fixture_counters(root, name, rx, tx);
}

/* Removes an interface (its device directory and class/net link). */
static inline void node_fixture_remove_nic(const char *root, const char *name) {
  char cmd[PATH_MAX];

  node_fixture_path(cmd,
                    "cd '%s/sys/class/net' && rm -rf \"$(readlink -f '%s')\" "
                    "'%s'",
                    root, name, name);
  assert_int_equal(system(cmd), 0);
}

/* /proc/stat with two CPUs and the given aggregate fields. */
static inline void node_fixture_stat(const char *root, const char *fields) {
  char text[512];

  snprintf(text, sizeof(text),
           "cpu  %s\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\n"
           "intr 100 0 0\nctxt 1000\nbtime 1796226696\n",
           fields);
  fixture_write(root, "proc/stat", text);
}

#endif
