/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the /proc/net/dev parser and the per-guest net table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fixture_tree.h"
#include "guest_net.h"
#include "pvecg/net_dev.h"
#include "net_dev_sample.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
  int n;
  struct net_dev_counters dev[16];
};

static int collect(const struct net_dev_counters *dev, void *ctx) {
  struct seen *s = ctx;
  s->dev[s->n++] = *dev;
  return s->n == 16;
}

static int parse_copy(const char *text, struct seen *s) {
  size_t len = strlen(text);
  char *buf = calloc(1, len ? len : 1);
  memcpy(buf, text, len);
  memset(s, 0, sizeof(*s));
  int r = net_dev_parse(buf, len, collect, s);
  free(buf);
  return r;
}

static void test_parse_sample(void **state) {
  (void)state;
  struct seen s;
  assert_int_equal(parse_copy(net_dev_sample, &s), 0);
  assert_int_equal(s.n, 8);
  assert_string_equal(s.dev[1].name, "eth0");
  assert_int_equal(s.dev[1].rx_bytes, 123456789012u); /* glued to ':' */
  assert_int_equal(s.dev[1].tx_bytes, 98765432);
  assert_string_equal(s.dev[3].name, "tap100i0");
  assert_int_equal(s.dev[3].rx_bytes, 1000);
  assert_int_equal(s.dev[3].tx_bytes, 3000);
}

static void test_malformed(void **state) {
  (void)state;
  struct seen s;
  const char *header = "Inter-|x\n face |y\n";
  const char *lines[] = {
      "eth0: 1 2 3\n",                                     /* too few */
      "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", /* too many */
      "eth0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",     /* no colon */
      ": 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",        /* no name */
      "eth0: 1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16\n",
      "averyveryverylongname: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
      "et\th0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", /* control char */
      "a/b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
  };
  char text[512];
  for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
    snprintf(text, sizeof(text), "%s%s", header, lines[i]);
    assert_int_equal(parse_copy(text, &s), -EBADMSG);
  }
  snprintf(text, sizeof(text),
           "%seth0: 18446744073709551616 2 3 4 5 6 7 8 9 10 11 12 13 14 15 "
           "16\n",
           header);
  assert_int_equal(parse_copy(text, &s), -ERANGE);
  assert_int_equal(parse_copy("no header\n", &s), -EBADMSG);
  assert_int_equal(parse_copy("", &s), 0);
  /* Every prefix: a clean result, never a crash. */
  size_t len = strlen(net_dev_sample);
  for (size_t n = 0; n < len; n++) {
    char *buf = calloc(1, n ? n : 1);
    memcpy(buf, net_dev_sample, n);
    struct seen t = {0};
    int r = net_dev_parse(buf, n, collect, &t);
    free(buf);
    assert_true(r == 0 || r == -EBADMSG);
  }
}

static void test_names(void **state) {
  (void)state;
  enum guest_type type;
  uint32_t vmid;
  assert_int_equal(guest_net_parse_name("tap100i0", &type, &vmid), 0);
  assert_int_equal(type, GUEST_QEMU);
  assert_int_equal(vmid, 100);
  assert_int_equal(guest_net_parse_name("veth999999999i31", &type, &vmid), 0);
  assert_int_equal(type, GUEST_LXC);
  assert_int_equal(vmid, 999999999);
  const char *bad[] = {"tap100",   "tap100i",   "tap99i0",      "tap0100i0",
                       "tap100ix", "fwln100i0", "veth100i1000", "vethi0",
                       "eth0",     "tap100i0.5"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_int_equal(guest_net_parse_name(bad[i], &type, &vmid), -EINVAL);
}

static void test_guest_table(void **state) {
  (void)state;
  char root[256];
  fixture_create(root, sizeof(root), "pvecg-net");
  fixture_mkdir(root, "proc/net");
  fixture_write(root, "proc/net/dev", net_dev_sample);
  char proc[PATH_MAX];
  snprintf(proc, sizeof(proc), "%s/proc", root);
  struct guest_net net;
  guest_net_init(&net, proc);
  assert_int_equal(guest_net_refresh(&net), 0);
  uint64_t in, out;
  assert_int_equal(
      guest_net_lookup(&net, guest_key(GUEST_QEMU, 100), &in, &out), 0);
  assert_int_equal(in, 43000);
  assert_int_equal(out, 21000);
  assert_int_equal(guest_net_lookup(&net, guest_key(GUEST_LXC, 200), &in, &out),
                   0);
  assert_int_equal(in, 600);
  assert_int_equal(out, 500);
  /* A guest without interfaces has sent and received nothing. */
  assert_int_equal(guest_net_lookup(&net, guest_key(GUEST_LXC, 100), &in, &out),
                   0);
  assert_int_equal(in, 0);
  /* A malformed file makes every guest's counters unknown. */
  fixture_write(root, "proc/net/dev", "Inter-|\n face |\nbroken\n");
  assert_int_equal(guest_net_refresh(&net), -EBADMSG);
  assert_int_equal(
      guest_net_lookup(&net, guest_key(GUEST_QEMU, 100), &in, &out), -EBADMSG);
  guest_net_free(&net);
  guest_net_init(&net, "");
  assert_int_equal(guest_net_refresh(&net), -ENOENT);
  guest_net_free(&net);
  fixture_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_sample),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_guest_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
