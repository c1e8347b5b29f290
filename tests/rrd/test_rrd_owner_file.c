/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the owners file's text (rrd/rrd_owner_file.c) and of the file
 * on disk (rrd/rrd_owner_disk.c): records written and read back exactly,
 * host names with spaces and '%' escaped; a file of another version read
 * as nothing; one cut short keeps the records before the cut and says so;
 * an end line that counts other records ends it as cut short; a line that
 * is not exactly a record is skipped and counted; labels to
 * and from files; saving leaves no temporary file; the lock is exclusive
 * between processes' open files; requests are taken in name order and
 * removed, a bad one too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"

#include "pvecg/rrd_owner_disk.h"
#include "pvecg/rrd_owner_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORDS_MAX 16

struct collected {
  struct rrd_owner_record r[RECORDS_MAX];
  size_t n;
};

static int collect(const struct rrd_owner_record *r, void *ctx) {
  struct collected *c = ctx;
  if (c->n < RECORDS_MAX)
    c->r[c->n] = *r;
  c->n++;
  return 0;
}

static struct rrd_owner_record rec(enum rrd_owner_record_kind kind,
                                   const char *cluster, const char *name,
                                   const char *host) {
  struct rrd_owner_record r = {.kind = kind, .layout = &layout_pve_vm_9_0};
  snprintf(r.cluster, sizeof(r.cluster), "%s", cluster);
  snprintf(r.name, sizeof(r.name), "%s", name);
  snprintf(r.host, sizeof(r.host), "%s", host);
  return r;
}

static int parse(const char *text, struct collected *c,
                 struct rrd_owner_file_problems *p) {
  memset(c, 0, sizeof(*c));
  return rrd_owner_file_parse(text, strlen(text), collect, c, p);
}

static const char good[] = "pvecg-owners 1\n"
                           "owner pve-vm-9.0 . 196 nodea 10\n"
                           "collision pve-vm-9.0 . 196 nodeb 1764934800\n"
                           "owner pve-vm-9.0 prod 100 node%201 0.5\n"
                           "collision pve-vm-9.0 prod 100 x%25y 0\n"
                           "end 4\n";

static void test_written_exactly(void **state) {
  (void)state;
  struct rrd_owner_record r[4] = {
      rec(RRD_OWNER_RECORD_OWNER, "", "196", "nodea"),
      rec(RRD_OWNER_RECORD_COLLISION, "", "196", "nodeb"),
      rec(RRD_OWNER_RECORD_OWNER, "prod", "100", "node 1"),
      rec(RRD_OWNER_RECORD_COLLISION, "prod", "100", "x%y"),
  };
  r[0].interval = 10;
  r[1].since = 1764934800;
  r[2].interval = 0.5;
  char buf[1024] = "";
  FILE *f = fmemopen(buf, sizeof(buf), "w");
  assert_int_equal(rrd_owner_file_write(f, r, 4), 0);
  fclose(f);
  assert_string_equal(buf, good);
}

static void test_read_exactly(void **state) {
  (void)state;
  struct collected c;
  struct rrd_owner_file_problems p;
  assert_int_equal(parse(good, &c, &p), 0);
  assert_int_equal(c.n, 4);
  assert_false(p.truncated);
  assert_int_equal(p.bad_lines, 0);
  assert_string_equal(p.first, "");
  assert_int_equal(c.r[0].kind, RRD_OWNER_RECORD_OWNER);
  assert_ptr_equal(c.r[0].layout, &layout_pve_vm_9_0);
  assert_string_equal(c.r[0].cluster, "");
  assert_string_equal(c.r[0].name, "196");
  assert_string_equal(c.r[0].host, "nodea");
  assert_true(c.r[0].interval == 10.0);
  assert_int_equal(c.r[1].kind, RRD_OWNER_RECORD_COLLISION);
  assert_string_equal(c.r[1].host, "nodeb");
  assert_int_equal(c.r[1].since, 1764934800);
  assert_string_equal(c.r[2].cluster, "prod");
  assert_string_equal(c.r[2].host, "node 1");
  assert_true(c.r[2].interval == 0.5);
  assert_string_equal(c.r[3].host, "x%y");
  assert_int_equal(c.r[3].since, 0);
}

static void test_requests(void **state) {
  (void)state;
  struct collected c;
  struct rrd_owner_file_problems p;
  assert_int_equal(parse("pvecg-owners 1\ngive pve-vm-9.0 . 196 nodeb\n"
                         "forget pvecg-ksm-vm-1.0 lab 7\nend 2\n",
                         &c, &p),
                   0);
  assert_int_equal(c.n, 2);
  assert_int_equal(c.r[0].kind, RRD_OWNER_RECORD_GIVE);
  assert_string_equal(c.r[0].host, "nodeb");
  assert_int_equal(c.r[1].kind, RRD_OWNER_RECORD_FORGET);
  assert_ptr_equal(c.r[1].layout, &layout_pvecg_ksm_vm_1_0);
  assert_string_equal(c.r[1].cluster, "lab");
  assert_string_equal(c.r[1].host, "");
}

static void test_other_version(void **state) {
  (void)state;
  struct collected c;
  struct rrd_owner_file_problems p;
  assert_int_equal(
      parse("pvecg-owners 2\nowner pve-vm-9.0 . 1 a 1\nend 1\n", &c, &p),
      -EPROTO);
  assert_int_equal(c.n, 0);
  assert_string_equal(p.first, "not a version 1 owners file (its first line "
                               "is not \"pvecg-owners 1\")");
  assert_int_equal(parse("", &c, &p), -EPROTO);
  assert_int_equal(parse("pvecg-owners 1", &c, &p), -EPROTO);
}

static void test_cut_short(void **state) {
  (void)state;
  struct collected c;
  struct rrd_owner_file_problems p;
  /* cut in the middle of the third record */
  char text[sizeof(good)];
  memcpy(text, good, sizeof(good));
  text[strstr(good, "owner pve-vm-9.0 prod") - good + 20] = '\0';
  assert_int_equal(parse(text, &c, &p), 0);
  assert_int_equal(c.n, 2);
  assert_true(p.truncated);
  assert_int_equal(p.bad_lines, 0);
  assert_string_equal(p.first,
                      "cut short (no end line counting its 2 records)");
  /* an end line that counts other records */
  assert_int_equal(
      parse("pvecg-owners 1\nowner pve-vm-9.0 . 1 a 1\nend 2\n", &c, &p), 0);
  assert_int_equal(c.n, 1);
  assert_true(p.truncated);
  assert_string_equal(p.first, "line 3: the end line counts other records");
  /* it ends the file all the same: what follows is no record */
  assert_int_equal(parse("pvecg-owners 1\nend 1\nowner pve-vm-9.0 . 1 a 1\n"
                         "end 1\n",
                         &c, &p),
                   0);
  assert_int_equal(c.n, 0);
  assert_true(p.truncated);
  assert_int_equal(p.bad_lines, 2);
}

static void test_bad_lines(void **state) {
  (void)state;
  static const char *const bad[] = {
      "owner pve-vm-9.0 . 196 nodea",            /* no interval */
      "owner pve-vm-9.0 . 196 nodea 0",          /* interval 0 */
      "owner pve-vm-9.0 . 196 nodea 1e9",        /* too long */
      "owner pve-node-9.0 . n1 nodea 1",         /* not a guest's layout */
      "owner pve-vm-9.0 . 19/6 nodea 1",         /* not a file name */
      "owner pve-vm-9.0 pve-vm-9.0 196 nodea 1", /* not a cluster name */
      "owner pve-vm-9.0 . 196 node%41 1",        /* a needless escape */
      "owner pve-vm-9.0 . 196 node%2 1",         /* half an escape */
      "owner pve-vm-9.0 . 196 node%00 1",        /* a NUL */
      "owner pve-vm-9.0 . 196  nodea 1",         /* an empty field */
      "collision pve-vm-9.0 . 196 nodeb -1",     /* before the epoch */
      "collision pve-vm-9.0 . 196 nodeb 1.5",    /* not whole */
      "forget pve-vm-9.0 . 196 nodeb",           /* a host too many */
      "owns pve-vm-9.0 . 196 nodea 1",           /* no such kind */
      "owner pve-vm-9.0 . 196 nodea 1 2",        /* a field too many */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    char text[512];
    snprintf(text, sizeof(text),
             "pvecg-owners 1\nowner pve-vm-9.0 . 7 a 1\n%s\nend 1\n", bad[i]);
    struct collected c;
    struct rrd_owner_file_problems p;
    assert_int_equal(parse(text, &c, &p), 0);
    if (c.n != 1 || p.bad_lines != 1)
      fail_msg("taken as a record: %s", bad[i]);
    assert_false(p.truncated);
    assert_string_equal(p.first, "line 3: not a record");
  }
}

static void test_labels(void **state) {
  (void)state;
  struct rrd_owner_record r = rec(RRD_OWNER_RECORD_OWNER, "prod", "196", "a");
  char label[256];
  assert_int_equal(rrd_owner_file_label(&r, label, sizeof(label)), 0);
  assert_string_equal(label, "prod/pve-vm-9.0/196");
  struct rrd_owner_record back;
  assert_int_equal(rrd_owner_file_unlabel("/d", "prod/pve-vm-9.0/196", &back),
                   0);
  assert_string_equal(back.cluster, "prod");
  assert_string_equal(back.name, "196");
  assert_ptr_equal(back.layout, &layout_pve_vm_9_0);
  assert_int_equal(rrd_owner_file_unlabel("/d/", "/d//pve-vm-9.0/7", &back), 0);
  assert_string_equal(back.cluster, "");
  assert_string_equal(back.name, "7");
  assert_int_equal(rrd_owner_file_unlabel("/d", "/e/pve-vm-9.0/7", &back),
                   -EINVAL);
  assert_int_equal(rrd_owner_file_unlabel("/d", "pve-node-9.0/n", &back),
                   -EINVAL);
  assert_int_equal(rrd_owner_file_unlabel("/d", "196", &back), -EINVAL);
  assert_int_equal(rrd_owner_file_unlabel("/d", "a/b/pve-vm-9.0/1", &back),
                   -EINVAL);
}

/* ---- on disk ----------------------------------------------------------- */

static void test_saved_and_read(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-file");
  struct rrd_owner_record r = rec(RRD_OWNER_RECORD_OWNER, "", "196", "nodea");
  r.interval = 1;
  char err[512] = "", path[PATH_MAX];
  assert_int_equal(rrd_owner_disk_save(dir, &r, 1, err, sizeof(err)), 0);
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  static const char want[] =
      "pvecg-owners 1\nowner pve-vm-9.0 . 196 nodea 1\nend 1\n";
  assert_true(fixture_same(path, want, strlen(want)));
  snprintf(path, sizeof(path), "%s/.pvecg-owners.tmp", dir);
  assert_int_not_equal(access(path, F_OK), 0);
  struct collected c = {0};
  struct rrd_owner_file_problems p;
  assert_int_equal(rrd_owner_disk_read(dir, collect, &c, &p), 0);
  assert_int_equal(c.n, 1);
  /* not a regular file */
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  unlink(path);
  assert_int_equal(rrd_owner_disk_read(dir, collect, &c, &p), -ENOENT);
  mkdir(path, 0700);
  assert_int_equal(rrd_owner_disk_read(dir, collect, &c, &p), -EPROTO);
  assert_int_equal(rrd_owner_disk_save(dir, &r, 1, err, sizeof(err)), -EISDIR);
  fixture_remove(dir);
  free(dir);
}

static void test_lock_exclusive(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-lock");
  int a = rrd_owner_disk_lock(dir);
  assert_true(a >= 0);
  assert_int_equal(rrd_owner_disk_lock(dir), -EWOULDBLOCK);
  close(a);
  int b = rrd_owner_disk_lock(dir);
  assert_true(b >= 0);
  close(b);
  char missing[PATH_MAX];
  snprintf(missing, sizeof(missing), "%s/none", dir);
  assert_int_equal(rrd_owner_disk_lock(missing), -ENOENT);
  fixture_remove(dir);
  free(dir);
}

static void test_requests_taken(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-requests");
  struct rrd_owner_record give = rec(RRD_OWNER_RECORD_GIVE, "", "196", "b");
  char path[PATH_MAX], bad[PATH_MAX];
  assert_int_equal(rrd_owner_disk_request(dir, &give, 1, path, sizeof(path)),
                   0);
  char want[64];
  snprintf(want, sizeof(want), "/pvecg-owners.request.%ld", (long)getpid());
  assert_non_null(strstr(path, want));
  snprintf(bad, sizeof(bad), "%s/pvecg-owners.request.0", dir);
  fixture_write(bad, "nonsense\n", 9);
  struct collected c = {0};
  struct rrd_owner_file_problems p;
  assert_int_equal(rrd_owner_disk_take_requests(dir, collect, &c, &p), 2);
  assert_int_equal(c.n, 1);
  assert_int_equal(c.r[0].kind, RRD_OWNER_RECORD_GIVE);
  assert_string_equal(c.r[0].host, "b");
  assert_non_null(strstr(p.first, "not a version 1 owners file"));
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_not_equal(access(bad, F_OK), 0);
  assert_int_equal(rrd_owner_disk_take_requests(dir, collect, &c, &p), 0);
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_written_exactly),
      cmocka_unit_test(test_read_exactly),
      cmocka_unit_test(test_requests),
      cmocka_unit_test(test_other_version),
      cmocka_unit_test(test_cut_short),
      cmocka_unit_test(test_bad_lines),
      cmocka_unit_test(test_labels),
      cmocka_unit_test(test_saved_and_read),
      cmocka_unit_test(test_lock_exclusive),
      cmocka_unit_test(test_requests_taken),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
