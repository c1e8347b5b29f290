/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the owners file's text (rrd/rrd_owner_file.c) and of the file
 * on disk (rrd/rrd_owner_disk.c): records written and read back exactly,
 * host names with spaces and '%' escaped; a file of another version read
 * as nothing; one cut short keeps the records before the cut and says so;
 * an end line that counts other records ends it as cut short; a line that
 * is not exactly a record is skipped and counted; read sorted by file;
 * saving leaves no temporary file; the lock is exclusive between open
 * files; the operator's word on a file (give, forget) changes only it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"

#include "pvecg/rrd_owner_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The records of text, parsed; freed by the next call. */
static struct rrd_owner_records c;

static struct rrd_owner_record rec(enum rrd_owner_record_kind kind,
                                   const char *cluster, const char *name,
                                   const char *host) {
  struct rrd_owner_record r = {.kind = kind, .layout = &layout_pve_vm_9_0};
  snprintf(r.cluster, sizeof(r.cluster), "%s", cluster);
  snprintf(r.name, sizeof(r.name), "%s", name);
  snprintf(r.host, sizeof(r.host), "%s", host);
  return r;
}

static int parse(const char *text) {
  free(c.r);
  memset(&c, 0, sizeof(c));
  return rrd_owner_file_parse(text, strlen(text), &c);
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
  assert_int_equal(parse(good), 0);
  assert_int_equal(c.count, 4);
  assert_false(c.cut);
  assert_int_equal(c.bad_lines, 0);
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

static void test_other_version(void **state) {
  (void)state;
  assert_int_equal(parse("pvecg-owners 2\nowner pve-vm-9.0 . 1 a 1\nend 1\n"),
                   -EPROTO);
  assert_int_equal(c.count, 0);
  assert_int_equal(parse(""), -EPROTO);
  assert_int_equal(parse("pvecg-owners 1"), -EPROTO);
}

static void test_cut_short(void **state) {
  (void)state;
  /* cut in the middle of the third record */
  char text[sizeof(good)];
  memcpy(text, good, sizeof(good));
  text[strstr(good, "owner pve-vm-9.0 prod") - good + 20] = '\0';
  assert_int_equal(parse(text), 0);
  assert_int_equal(c.count, 2);
  assert_true(c.cut);
  assert_int_equal(c.bad_lines, 0);
  /* an end line that counts other records */
  assert_int_equal(parse("pvecg-owners 1\nowner pve-vm-9.0 . 1 a 1\nend 2\n"),
                   0);
  assert_int_equal(c.count, 1);
  assert_true(c.cut);
  /* it ends the file all the same: what follows is no record */
  assert_int_equal(parse("pvecg-owners 1\nend 1\nowner pve-vm-9.0 . 1 a 1\n"
                         "end 1\n"),
                   0);
  assert_int_equal(c.count, 0);
  assert_true(c.cut);
  assert_int_equal(c.bad_lines, 2);
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
      "give pve-vm-9.0 . 196 nodeb",             /* no such kind */
      "owns pve-vm-9.0 . 196 nodea 1",           /* no such kind */
      "owner pve-vm-9.0 . 196 nodea 1 2",        /* a field too many */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    char text[512];
    snprintf(text, sizeof(text),
             "pvecg-owners 1\nowner pve-vm-9.0 . 7 a 1\n%s\nend 1\n", bad[i]);
    assert_int_equal(parse(text), 0);
    if (c.count != 1 || c.bad_lines != 1)
      fail_msg("taken as a record: %s", bad[i]);
    assert_false(c.cut);
  }
}

/* ---- on disk ----------------------------------------------------------- */

static void test_saved_and_read(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-file");
  struct rrd_owner_record r[2] = {
      rec(RRD_OWNER_RECORD_OWNER, "", "7", "nodeb"),
      rec(RRD_OWNER_RECORD_OWNER, "", "196", "nodea"),
  };
  r[0].interval = r[1].interval = 1;
  char path[PATH_MAX];
  struct stat last = {0};
  assert_int_equal(rrd_owner_file_save(dir, r, 2), 0);
  assert_true(rrd_owner_file_changed(dir, &last));
  assert_false(rrd_owner_file_changed(dir, &last));
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  static const char want[] = "pvecg-owners 1\nowner pve-vm-9.0 . 196 nodea 1\n"
                             "owner pve-vm-9.0 . 7 nodeb 1\nend 2\n";
  assert_true(fixture_same(path, want, strlen(want)));
  snprintf(path, sizeof(path), "%s/.pvecg-owners.tmp", dir);
  assert_int_not_equal(access(path, F_OK), 0);
  struct rrd_owner_records t = {0};
  assert_int_equal(rrd_owner_file_read(dir, &t), 0);
  assert_int_equal(t.count, 2);
  free(t.r);
  /* not a regular file */
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  unlink(path);
  assert_true(rrd_owner_file_changed(dir, &last));
  assert_int_equal(rrd_owner_file_read(dir, &t), -ENOENT);
  mkdir(path, 0700);
  assert_int_equal(rrd_owner_file_read(dir, &t), -EPROTO);
  assert_int_equal(rrd_owner_file_save(dir, r, 1), -EISDIR);
  fixture_remove(dir);
  free(dir);
}

static void test_lock_exclusive(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-lock"), path[PATH_MAX];
  int a = rrd_owner_file_lock(dir);
  assert_true(a >= 0);
  snprintf(path, sizeof(path), "%s/pvecg-owners.lock", dir);
  int b = open(path, O_RDWR);
  assert_int_equal(flock(b, LOCK_EX | LOCK_NB), -1);
  close(a);
  assert_int_equal(flock(b, LOCK_EX | LOCK_NB), 0);
  close(b);
  snprintf(path, sizeof(path), "%s/none", dir);
  assert_int_equal(rrd_owner_file_lock(path), -ENOENT);
  fixture_remove(dir);
  free(dir);
}

/* give and forget change the file named, nothing else */
static void test_settle(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-settle"), path[PATH_MAX];
  struct rrd_owner_record q = rec(RRD_OWNER_RECORD_OWNER, "", "196", "");
  assert_int_equal(rrd_owner_file_settle(dir, &q, NULL), -ENOENT);
  assert_int_equal(rrd_owner_file_settle(dir, &q, "nodec"), 0);
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  fixture_write(path, good, strlen(good));
  assert_int_equal(rrd_owner_file_settle(dir, &q, "nodeb"), 0);
  static const char given[] = "pvecg-owners 1\n"
                              "owner pve-vm-9.0 . 196 nodeb 10\n"
                              "owner pve-vm-9.0 prod 100 node%201 0.5\n"
                              "collision pve-vm-9.0 prod 100 x%25y 0\n"
                              "end 3\n";
  assert_true(fixture_same(path, given, strlen(given)));
  snprintf(q.cluster, sizeof(q.cluster), "prod");
  snprintf(q.name, sizeof(q.name), "100");
  assert_int_equal(rrd_owner_file_settle(dir, &q, NULL), 0);
  assert_int_equal(rrd_owner_file_settle(dir, &q, NULL), -ENOENT);
  static const char forgot[] = "pvecg-owners 1\n"
                               "owner pve-vm-9.0 . 196 nodeb 10\n"
                               "owner pve-vm-9.0 prod 100 node%201 0.5\n"
                               "end 2\n";
  assert_true(fixture_same(path, forgot, strlen(forgot)));
  fixture_write(path, "pvecg-owners 2\n", 15);
  assert_int_equal(rrd_owner_file_settle(dir, &q, "x"), -EPROTO);
  assert_true(fixture_same(path, "pvecg-owners 2\n", 15));
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_written_exactly),
      cmocka_unit_test(test_read_exactly),
      cmocka_unit_test(test_other_version),
      cmocka_unit_test(test_cut_short),
      cmocka_unit_test(test_bad_lines),
      cmocka_unit_test(test_saved_and_read),
      cmocka_unit_test(test_lock_exclusive),
      cmocka_unit_test(test_settle),
  };
  int r = cmocka_run_group_tests(tests, NULL, NULL);
  free(c.r);
  return r;
}
