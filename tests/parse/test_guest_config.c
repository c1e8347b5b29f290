/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the PVE guest config parser (src/parse/guest_config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/guest_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)

static int parse(enum guest_type type, const char *text,
                 struct guest_config *c) {
  /* An exact-size heap copy, so a read past the end is caught. */
  size_t len = strlen(text);
  char *buf = calloc(1, len ? len : 1);
  memcpy(buf, text, len);
  int r = guest_config_parse(type, buf, len, c);
  free(buf);
  return r;
}

static const char qemu_conf[] =
    "#Web server\n"
    "#  second comment line\n"
    "agent: 1\n"
    "boot: order=scsi0;net0\n"
    "cores: 4\n"
    "cpu: x86-64-v2-AES\n"
    "memory: 8192\n"
    "name: web01\n"
    "net0: virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1\n"
    "numa: 0\n"
    "ostype: l26\n"
    "scsi0: local-lvm:vm-100-disk-0,iothread=1,size=32G\n"
    "sockets: 2\n"
    "\n"
    "[before-upgrade]\n"
    "cores: 1\n"
    "memory: 1024\n"
    "name: old\n";

static void test_qemu(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU, qemu_conf, &c), 0);
  assert_true(c.has_cpus);
  assert_int_equal(c.cpus, 8); /* sockets x cores, snapshot ignored */
  assert_int_equal(c.memory, 8192 * MIB);
  assert_string_equal(c.name, "web01");
}

static void test_qemu_vcpus_and_memory_property(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU,
                         "sockets: 2\ncores: 8\nvcpus: 3\n"
                         "memory: current=2048,foo=bar\r\n",
                         &c),
                   0);
  assert_int_equal(c.cpus, 3);
  assert_int_equal(c.memory, 2048 * MIB);
}

static void test_defaults(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU, "", &c), 0);
  assert_true(c.has_cpus);
  assert_int_equal(c.cpus, 1);
  assert_int_equal(c.memory, 512 * MIB);
  assert_string_equal(c.name, "");
  assert_int_equal(parse(GUEST_LXC, "arch: amd64\nhostname: ct1\n", &c), 0);
  assert_false(c.has_cpus); /* all host CPUs */
  assert_int_equal(c.memory, 512 * MIB);
  assert_string_equal(c.name, "ct1");
}

static void test_lxc(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_LXC,
                         "arch: amd64\ncores: 2\nhostname: db\nmemory: 1024\n"
                         "name: not-the-lxc-key\nsockets: 9\nswap: 512\n",
                         &c),
                   0);
  assert_true(c.has_cpus);
  assert_int_equal(c.cpus, 2);
  assert_int_equal(c.memory, 1024 * MIB);
  assert_string_equal(c.name, "db");
}

static void test_malformed(void **state) {
  (void)state;
  struct guest_config c = {.cpus = 77};
  const char *bad[] = {"cores: abc\n",   "cores: 0\n",        "sockets: -1\n",
                       "memory: 1e3\n",  "memory: 12 MiB\n",  "vcpus:\n",
                       "cores: 99999\n", "memory: current=\n"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_int_equal(parse(GUEST_QEMU, bad[i], &c), -EBADMSG);
  assert_int_equal(c.cpus, 77); /* untouched on error */
  /* Malformed values of keys that are not used are not errors; nor is a
   * malformed balloon, whose minimum is then unknown. */
  assert_int_equal(
      parse(GUEST_QEMU, "cores: 3\nballoon: lots\nonboot: yes\n", &c), 0);
  assert_int_equal(c.cpus, 3);
  assert_false(c.has_balloon_min);
}

/* A VM's balloon minimum: as written in MiB, 0 (ballooning off) kept,
 * absent the whole memory (wherever `memory` stands); none for LXC. */
static void test_balloon(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU, "balloon: 2048\nmemory: 8192\n", &c), 0);
  assert_true(c.has_balloon_min);
  assert_int_equal(c.balloon_min, 2048 * MIB);
  assert_int_equal(parse(GUEST_QEMU, "memory: 4096\nballoon: 0\n", &c), 0);
  assert_true(c.has_balloon_min);
  assert_int_equal(c.balloon_min, 0);
  assert_int_equal(parse(GUEST_QEMU, qemu_conf, &c), 0);
  assert_true(c.has_balloon_min);
  assert_int_equal(c.balloon_min, 8192 * MIB);
  assert_int_equal(parse(GUEST_QEMU, "", &c), 0);
  assert_int_equal(c.balloon_min, 512 * MIB); /* PVE's default memory */
  const char *bad[] = {"balloon: -1\n", "balloon: 1e3\n", "balloon:\n",
                       "balloon: 2048 MiB\n", "balloon: 4294967297\n"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    assert_int_equal(parse(GUEST_QEMU, bad[i], &c), 0);
    assert_false(c.has_balloon_min);
  }
  assert_int_equal(parse(GUEST_QEMU, "balloon: 4294967296\n", &c), 0);
  assert_int_equal(c.balloon_min, UINT64_C(4294967296) * MIB); /* the limit */
  assert_int_equal(parse(GUEST_LXC, "balloon: 2048\nmemory: 4096\n", &c), 0);
  assert_false(c.has_balloon_min);
  assert_int_equal(parse(GUEST_QEMU, "balloon: 1024\n[snap]\nballoon: 9\n", &c),
                   0);
  assert_int_equal(c.balloon_min, 1024 * MIB); /* snapshots do not count */
}

static void test_names(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU, "name: a\tb\n", &c), 0);
  assert_string_equal(c.name, ""); /* control character: dropped */
  char long_name[200] = "name: ";
  memset(long_name + 6, 'x', 100);
  assert_int_equal(parse(GUEST_QEMU, long_name, &c), 0);
  assert_string_equal(c.name, "");
  assert_int_equal(parse(GUEST_QEMU, "name:   spaced  \n", &c), 0);
  assert_string_equal(c.name, "spaced");
}

/* What pve_guest_info labels: tags as written, template only for "1",
 * both only in the first section. */
static void test_template_and_tags(void **state) {
  (void)state;
  struct guest_config c;
  assert_int_equal(parse(GUEST_QEMU,
                         "memory: 1024\ntags: db;prod\n"
                         "template: 1\n[snap]\ntags: old\n",
                         &c),
                   0);
  assert_true(c.template);
  assert_string_equal(c.tags, "db;prod");
  assert_int_equal(c.memory, UINT64_C(1024) << 20);
  assert_int_equal(parse(GUEST_LXC, "template: yes\ntags: a\tb\n", &c), 0);
  assert_false(c.template);        /* not PVE's "1": no template, no error */
  assert_string_equal(c.tags, ""); /* control character: dropped */
  assert_int_equal(parse(GUEST_QEMU, "template: 0\n", &c), 0);
  assert_false(c.template);
  assert_string_equal(c.tags, "");
}

static void test_every_prefix(void **state) {
  (void)state;
  size_t len = strlen(qemu_conf);
  for (size_t n = 0; n <= len; n++) {
    struct guest_config c;
    char *buf = calloc(1, n ? n : 1);
    memcpy(buf, qemu_conf, n);
    int r = guest_config_parse(GUEST_QEMU, buf, n, &c);
    free(buf);
    /* A cut inside a value ("cores: ") is malformed; otherwise a prefix is
     * a valid, shorter config. */
    assert_true(r == 0 || r == -EBADMSG);
    if (r == 0)
      assert_true(c.cpus >= 1 && c.cpus <= 8);
    if (n == len)
      assert_int_equal(r, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qemu),
      cmocka_unit_test(test_qemu_vcpus_and_memory_property),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_lxc),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_template_and_tags),
      cmocka_unit_test(test_balloon),
      cmocka_unit_test(test_every_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
