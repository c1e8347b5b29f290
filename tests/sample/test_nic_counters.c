/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sample/nic_counters.c on fixture sysfs trees: which interfaces
 * count (each fixture NIC's rx_bytes is a distinct power of two, so the sum
 * says exactly which ones were added), kept descriptors between listings,
 * NICs that appear, go, are re-created or whose counters go backwards, and
 * a failing read that makes the interfaces be listed again at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "nic_counters.h"

#include "node_fixture.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI "pci0000:00/0000:00:03.0"
#define PCI2 "pci0000:00/0000:00:1c.0/0000:02:00.0"
#define USB "pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0"
#define TX(rx) ((rx)*1000)

static char root[256];
static char sys_root[PATH_MAX];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-nic");
  fixture_mkdir(root, "sys/class/net");
  snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void nic(const char *name, const char *parent, int type, uint64_t rx) {
  node_fixture_nic(root, name, parent, type, rx, TX(rx));
}

/* What a PVE host has: NICs, and the software devices stacked on them. */
static void make_host(void) {
  nic("eno1", PCI, NIC_ETHER, 1);
  nic("enp2s0", PCI2, NIC_ETHER, 2);
  nic("wlan0", USB, NIC_ETHER, 4);             /* Wi-Fi and USB are ether too */
  nic("ib0", PCI2, NIC_INFINIBAND, 8);         /* not Ethernet */
  nic("vmbr0", NIC_VIRTUAL, NIC_ETHER, 16);    /* bridge */
  nic("bond0", NIC_VIRTUAL, NIC_ETHER, 32);    /* bond of eno1 + enp2s0 */
  nic("eno1.100", NIC_VIRTUAL, NIC_ETHER, 64); /* VLAN */
  nic("tap100i0", NIC_VIRTUAL, NIC_ETHER, 128);
  nic("veth101i0", NIC_VIRTUAL, NIC_ETHER, 256);
  nic("fwbr100i0", NIC_VIRTUAL, NIC_ETHER, 512);
  nic("lo", NIC_VIRTUAL, NIC_LOOPBACK, 1024);
  nic("idontfitifnamsz", PCI, NIC_ETHER, 2048);   /* 15 chars: fits */
  nic("ethernet-too-long", PCI, NIC_ETHER, 4096); /* not a kernel name */
  /* A file, as the bonding driver puts there. */
  fixture_write(root, "sys/class/net/bonding_masters", "bond0\n");
}

#define HOST_RX (1 + 2 + 4 + 2048)
#define HOST_NICS 4

static struct nic_counters *make(unsigned rescan_runs) {
  struct nic_counters *n;

  assert_int_equal(nic_counters_new(sys_root, rescan_runs, &n), 0);
  return n;
}

static struct nic_totals sample(struct nic_counters *n) {
  struct nic_totals t;

  memset(&t, 0xa5, sizeof(t));
  assert_int_equal(nic_counters_sample(n, &t), 0);
  return t;
}

static void check(const struct nic_totals *t, uint64_t rx, size_t nics,
                  bool continuous) {
  assert_int_equal(t->rx_bytes, rx);
  assert_int_equal(t->tx_bytes, TX(rx));
  assert_int_equal(t->nics, nics);
  assert_int_equal(t->continuous, continuous);
}

static void test_counting_rule(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(30);
  t = sample(n);
  check(&t, HOST_RX, HOST_NICS, true);
  assert_int_equal(nic_counters_fd_count(n), 2 * HOST_NICS);
  assert_int_equal(nic_counters_listings(n), 1);
  nic_counters_free(n);
}

/* A hardware NIC whose sysfs directory is a plain directory (as in a
 * container's view of sysfs), and one without counters (left out). */
static void test_directory_forms(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  fixture_mkdir(root, "sys/class/net/eth7/statistics");
  fixture_mkdir(root, "sys/class/net/eth7/device");
  fixture_write(root, "sys/class/net/eth7/type", "1\n");
  node_fixture_counters(root, "eth7", 5, TX(5));
  fixture_mkdir(root, "sys/class/net/eth9/device");
  fixture_write(root, "sys/class/net/eth9/type", "1\n");
  n = make(30);
  t = sample(n);
  check(&t, 5, 1, true);
  assert_int_equal(nic_counters_fd_count(n), 2);
  nic_counters_free(n);
}

/* Between listings only the kept counter files are read. */
static void test_kept_between_listings(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(3);
  t = sample(n); /* listing 1 */
  node_fixture_counters(root, "eno1", 101, TX(101));
  nic("eth5", PCI2, NIC_ETHER, 8192); /* hot-plugged */
  t = sample(n);
  check(&t, HOST_RX + 100, HOST_NICS, true);
  t = sample(n);
  check(&t, HOST_RX + 100, HOST_NICS, true);
  assert_int_equal(nic_counters_listings(n), 1);
  t = sample(n); /* listing 2 finds eth5: the sum jumps, not a rate */
  check(&t, HOST_RX + 100 + 8192, HOST_NICS + 1, false);
  assert_int_equal(nic_counters_listings(n), 2);
  t = sample(n);
  check(&t, HOST_RX + 100 + 8192, HOST_NICS + 1, true);
  nic_counters_free(n);
}

static void test_nic_goes_away(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(2);
  t = sample(n);
  node_fixture_remove_nic(root, "enp2s0");
  t = sample(n); /* a regular file stays readable through its descriptor */
  check(&t, HOST_RX, HOST_NICS, true);
  t = sample(n);
  check(&t, HOST_RX - 2, HOST_NICS - 1, false);
  assert_int_equal(nic_counters_fd_count(n), 2 * (HOST_NICS - 1));
  t = sample(n);
  check(&t, HOST_RX - 2, HOST_NICS - 1, true);
  nic_counters_free(n);
}

/* Same name, new device (a driver reload): its counters start afresh. */
static void test_recreated_under_same_name(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(0); /* list on every sample */
  t = sample(n);
  node_fixture_remove_nic(root, "eno1");
  nic("eno1", PCI, NIC_ETHER, 1);
  t = sample(n);
  check(&t, HOST_RX, HOST_NICS, false);
  t = sample(n);
  check(&t, HOST_RX, HOST_NICS, true);
  assert_int_equal(nic_counters_listings(n), 3);
  nic_counters_free(n);
}

/* A counter that cannot be read makes the interfaces be listed at once:
 * here the NIC was re-created, and its new files are found. */
static void test_failed_read_lists_again(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(1000);
  t = sample(n);
  /* The old file, still open, now fails to parse. */
  fixture_write(root, "sys/class/net/eno1/statistics/rx_bytes", "garbage\n");
  node_fixture_remove_nic(root, "eno1");
  nic("eno1", PCI, NIC_ETHER, 1);
  t = sample(n);
  check(&t, HOST_RX, HOST_NICS, false);
  assert_int_equal(nic_counters_listings(n), 2);
  nic_counters_free(n);
}

/* The same NIC still unreadable after listing again: an error, and the
 * totals are not written. */
static void test_unreadable_counter(void **state) {
  struct nic_counters *n;
  struct nic_totals t, untouched;

  (void)state;
  make_host();
  n = make(1000);
  t = sample(n);
  fixture_write(root, "sys/class/net/wlan0/statistics/tx_bytes", "-1\n");
  memset(&t, 0xa5, sizeof(t));
  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(nic_counters_sample(n, &t), -EBADMSG);
  assert_memory_equal(&t, &untouched, sizeof(t));
  assert_int_equal(nic_counters_listings(n), 2);
  node_fixture_counters(root, "wlan0", 4, TX(4));
  t = sample(n);
  check(&t, HOST_RX, HOST_NICS, true);
  nic_counters_free(n);
}

static void test_counter_backwards(void **state) {
  struct nic_counters *n;
  struct nic_totals t;

  (void)state;
  make_host();
  n = make(30);
  t = sample(n);
  /* eno1 loses 1, enp2s0 gains 1000: the sum grows, but is not a rate. */
  node_fixture_counters(root, "eno1", 0, TX(0));
  node_fixture_counters(root, "enp2s0", 1002, TX(1002));
  t = sample(n);
  check(&t, HOST_RX + 999, HOST_NICS, false);
  t = sample(n);
  check(&t, HOST_RX + 999, HOST_NICS, true);
  /* Only a transmit counter going back is enough. */
  node_fixture_counter(root, "wlan0", "tx_bytes", 3999);
  memset(&t, 0, sizeof(t));
  assert_int_equal(nic_counters_sample(n, &t), 0);
  assert_false(t.continuous);
  nic_counters_free(n);
}

static void test_no_interfaces(void **state) {
  struct nic_counters *n;
  struct nic_totals t;
  char class_dir[PATH_MAX];

  (void)state;
  n = make(30);
  t = sample(n);
  check(&t, 0, 0, true); /* PVE sums nothing to 0 too */
  nic_counters_free(n);
  node_fixture_path(class_dir, "%s/sys/class", root);
  fixture_remove(class_dir);
  n = make(30);
  assert_int_equal(nic_counters_sample(n, &t), -ENOENT);
  nic_counters_free(n);
}

static void test_new_rejects_bad_roots(void **state) {
  struct nic_counters *n = NULL;
  char long_root[PATH_MAX];

  (void)state;
  assert_int_equal(nic_counters_new("sys", 30, &n), -EINVAL);
  memset(long_root, 'a', sizeof(long_root) - 1);
  long_root[0] = '/';
  long_root[sizeof(long_root) - 1] = '\0';
  assert_int_equal(nic_counters_new(long_root, 30, &n), -EINVAL);
  assert_null(n);
  nic_counters_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_counting_rule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_directory_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kept_between_listings, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_nic_goes_away, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recreated_under_same_name, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_failed_read_lists_again, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unreadable_counter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_counter_backwards, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_interfaces, setup, teardown),
      cmocka_unit_test(test_new_rejects_bad_roots),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
