/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the owners file's text (rrd/owner/rrd_owner_file.c) and of the file
 * on disk: records written and read back exactly, host names with spaces
 * and '%' as they are, a record whose names cannot be one line left out
 * (and not counted); a host seen colliding is never the owner; a file of
 * another version read as nothing; one cut short keeps the records before
 * the cut and says so; an end line that counts other records ends it as
 * cut short; a line that is not exactly a record is skipped and counted;
 * an owner the configuration sends elsewhere left out; written sorted by
 * file; saving leaves no temporary file; the lock is exclusive between
 * open files; the operator's word on a file (give, forget) changes only
 * it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"

#include "pvecg/rrd_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The owners of a text parsed, and what the parse found. */
static struct rrd_owner *o;
static struct rrd_owner_read c;

struct seen_record {
  bool collision;
  const struct rrd_layout *layout;
  char cluster[64], name[64], host[RRD_OWNER_HOST_SIZE];
  double interval;
  long long since;
};
static struct seen_record seen[8];
static size_t seen_count;

static int copy(const struct rrd_owner_record *r, void *ctx) {
  (void)ctx;
  struct seen_record *s = &seen[seen_count++];
  *s = (struct seen_record){r->collision, r->layout,   "",      "",
                            "",           r->interval, r->since};
  snprintf(s->cluster, sizeof(s->cluster), "%s", r->cluster);
  snprintf(s->name, sizeof(s->name), "%s", r->name);
  snprintf(s->host, sizeof(s->host), "%s", r->host);
  return seen_count == 8;
}

static void fresh(void) {
  rrd_owner_free(o);
  assert_int_equal(rrd_owner_new(NULL, &o), 0);
}

/* Parses text into new owners; their records in seen[]. */
static int parse(const char *text) {
  fresh();
  int r = rrd_owner_file_parse(text, strlen(text), o, 0, &c);
  seen_count = 0;
  rrd_owner_each(o, copy, NULL);
  return r;
}

static size_t records(void) { return c.owners + c.marks; }

static struct rrd_owner_record file(const char *cluster, const char *name) {
  return (struct rrd_owner_record){
      .layout = &layout_pve_vm_9_0, .cluster = cluster, .name = name};
}

static void give(const char *cluster, const char *name, const char *host,
                 double interval) {
  struct rrd_owner_record r = file(cluster, name);
  r.interval = interval;
  r.host = host;
  assert_int_equal(rrd_owner_put(o, &r, 0), 0);
}

static void mark(const char *cluster, const char *name, const char *host,
                 long long since) {
  struct rrd_owner_record r = file(cluster, name);
  r.host = host;
  r.since = since;
  r.collision = true;
  assert_int_equal(rrd_owner_put(o, &r, 0), 0);
}

static void assert_text(const char *want) {
  char *text;
  size_t len;
  assert_int_equal(rrd_owner_file_text(o, &text, &len), 0);
  assert_string_equal(text, want);
  assert_int_equal(len, strlen(want));
  free(text);
}

static const char good[] = "pvecg-owners 2\n"
                           "owner pve-vm-9.0 . 196 10 nodea\n"
                           "collision pve-vm-9.0 . 196 1764934800 nodeb\n"
                           "owner pve-vm-9.0 prod 100 0.5 node 1\n"
                           "collision pve-vm-9.0 prod 100 0 x%y\n"
                           "end 4\n";

/* Records that cannot be a line are left out, and not counted. */
static void test_written_exactly(void **state) {
  (void)state;
  fresh();
  give("prod", "100", "node 1", 0.5);
  give("", "7", "node\n7", 1);
  give("", "1 2", "nodea", 1);
  mark("prod", "100", "x%y", 0);
  mark("", "196", "nodeb", 1764934800);
  give("", "196", "nodea", 10);
  assert_text(good);
}

static void test_read_exactly(void **state) {
  (void)state;
  assert_int_equal(parse(good), 0);
  assert_int_equal(c.owners, 2);
  assert_int_equal(c.marks, 2);
  assert_false(c.cut);
  assert_int_equal(c.bad_lines, 0);
  assert_int_equal(seen_count, 4);
  assert_false(seen[0].collision);
  assert_ptr_equal(seen[0].layout, &layout_pve_vm_9_0);
  assert_string_equal(seen[0].cluster, "");
  assert_string_equal(seen[0].name, "196");
  assert_string_equal(seen[0].host, "nodea");
  assert_true(seen[0].interval == 10.0);
  assert_true(seen[1].collision);
  assert_string_equal(seen[1].host, "nodeb");
  assert_int_equal(seen[1].since, 1764934800);
  assert_string_equal(seen[2].cluster, "prod");
  assert_string_equal(seen[2].host, "node 1");
  assert_true(seen[2].interval == 0.5);
  assert_string_equal(seen[3].host, "x%y");
  assert_int_equal(seen[3].since, 0);
  assert_text(good);
}

/* A host seen colliding is never the owner, whichever line comes first. */
static void test_marked_owner_is_none(void **state) {
  (void)state;
  assert_int_equal(parse("pvecg-owners 2\nowner pve-vm-9.0 . 1 1 a\n"
                         "collision pve-vm-9.0 . 1 5 a\nend 2\n"),
                   0);
  assert_int_equal(seen_count, 1);
  assert_true(seen[0].collision);
  assert_int_equal(parse("pvecg-owners 2\ncollision pve-vm-9.0 . 1 5 a\n"
                         "owner pve-vm-9.0 . 1 1 a\nend 2\n"),
                   0);
  assert_int_equal(seen_count, 1);
  assert_false(seen[0].collision);
}

static void test_other_version(void **state) {
  (void)state;
  assert_int_equal(parse("pvecg-owners 1\nowner pve-vm-9.0 . 1 a 1\nend 1\n"),
                   -EPROTO);
  assert_int_equal(records(), 0);
  assert_int_equal(seen_count, 0);
  assert_int_equal(parse(""), -EPROTO);
  assert_int_equal(parse("pvecg-owners 2"), -EPROTO);
}

static void test_cut_short(void **state) {
  (void)state;
  /* cut in the middle of the third record */
  char text[sizeof(good)];
  memcpy(text, good, sizeof(good));
  text[strstr(good, "owner pve-vm-9.0 prod") - good + 20] = '\0';
  assert_int_equal(parse(text), 0);
  assert_int_equal(records(), 2);
  assert_int_equal(seen_count, 2);
  assert_true(c.cut);
  assert_int_equal(c.bad_lines, 0);
  /* an end line that counts other records */
  assert_int_equal(parse("pvecg-owners 2\nowner pve-vm-9.0 . 1 1 a\nend 2\n"),
                   0);
  assert_int_equal(records(), 1);
  assert_true(c.cut);
  /* it ends the file all the same: what follows is no record */
  assert_int_equal(parse("pvecg-owners 2\nend 1\nowner pve-vm-9.0 . 1 1 a\n"
                         "end 1\n"),
                   0);
  assert_int_equal(records(), 0);
  assert_true(c.cut);
  assert_int_equal(c.bad_lines, 2);
}

static void test_bad_lines(void **state) {
  (void)state;
  static const char *const bad[] = {
      "owner pve-vm-9.0 . 196 1",                /* no host */
      "owner pve-vm-9.0 . 196 1 ",               /* an empty host */
      "owner pve-vm-9.0 . 196 0 nodea",          /* interval 0 */
      "owner pve-vm-9.0 . 196 1e9 nodea",        /* too long */
      "owner pve-node-9.0 . n1 1 nodea",         /* not a guest's layout */
      "owner pve-vm-9.0 . 19/6 1 nodea",         /* not a file name */
      "owner pve-vm-9.0 pve-vm-9.0 196 1 nodea", /* not a cluster name */
      "owner pve-vm-9.0 . 196 1 node\ta",        /* a control character */
      "owner pve-vm-9.0 . 196  1 nodea",         /* an empty field */
      "owner pve-vm-9.0 . 196 nodea 1",          /* version 1's order */
      "collision pve-vm-9.0 . 196 -1 nodeb",     /* before the epoch */
      "collision pve-vm-9.0 . 196 1.5 nodeb",    /* not whole */
      "give pve-vm-9.0 . 196 1 nodeb",           /* no such kind */
      "owns pve-vm-9.0 . 196 1 nodea",           /* no such kind */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    char text[512];
    snprintf(text, sizeof(text),
             "pvecg-owners 2\nowner pve-vm-9.0 . 7 1 a\n%s\nend 1\n", bad[i]);
    assert_int_equal(parse(text), 0);
    if (records() != 1 || c.bad_lines != 1 || seen_count != 1)
      fail_msg("taken as a record: %s", bad[i]);
    assert_false(c.cut);
  }
}

/* ---- on disk ----------------------------------------------------------- */

static void test_saved_and_read(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("owner-file");
  fresh();
  give("", "7", "nodeb", 1);
  give("", "196", "nodea", 1);
  char path[PATH_MAX];
  assert_int_equal(rrd_owner_file_save(dir, o), 0);
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  static const char want[] = "pvecg-owners 2\nowner pve-vm-9.0 . 196 1 nodea\n"
                             "owner pve-vm-9.0 . 7 1 nodeb\nend 2\n";
  assert_true(fixture_same(path, want, strlen(want)));
  snprintf(path, sizeof(path), "%s/.pvecg-owners.tmp", dir);
  assert_int_not_equal(access(path, F_OK), 0);
  struct rrd_owner *back;
  assert_int_equal(rrd_owner_new(NULL, &back), 0);
  assert_int_equal(rrd_owner_file_load(dir, back, 0, &c), 0);
  assert_int_equal(c.owners, 2);
  rrd_owner_free(back);
  /* not a regular file */
  snprintf(path, sizeof(path), "%s/pvecg-owners", dir);
  unlink(path);
  fresh();
  assert_int_equal(rrd_owner_file_load(dir, o, 0, &c), -ENOENT);
  mkdir(path, 0700);
  assert_int_equal(rrd_owner_file_load(dir, o, 0, &c), -EPROTO);
  assert_int_equal(rrd_owner_file_save(dir, o), -EISDIR);
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
static void test_give_and_forget(void **state) {
  (void)state;
  struct rrd_owner_record q = file("", "196");
  fresh();
  assert_int_equal(rrd_owner_forget(o, &q), 0);
  q.host = "nodec";
  assert_int_equal(rrd_owner_put(o, &q, 0), 0);
  assert_text("pvecg-owners 2\nowner pve-vm-9.0 . 196 10 nodec\nend 1\n");
  assert_int_equal(parse(good), 0);
  q.host = "nodeb";
  assert_int_equal(rrd_owner_put(o, &q, 0), 0);
  assert_text("pvecg-owners 2\n"
              "owner pve-vm-9.0 . 196 10 nodeb\n"
              "owner pve-vm-9.0 prod 100 0.5 node 1\n"
              "collision pve-vm-9.0 prod 100 0 x%y\n"
              "end 3\n");
  q = file("prod", "100");
  assert_int_equal(rrd_owner_forget(o, &q), 1);
  assert_int_equal(rrd_owner_forget(o, &q), 0);
  assert_text("pvecg-owners 2\n"
              "owner pve-vm-9.0 . 196 10 nodeb\n"
              "owner pve-vm-9.0 prod 100 0.5 node 1\n"
              "end 2\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_written_exactly),
      cmocka_unit_test(test_read_exactly),
      cmocka_unit_test(test_marked_owner_is_none),
      cmocka_unit_test(test_other_version),
      cmocka_unit_test(test_cut_short),
      cmocka_unit_test(test_bad_lines),
      cmocka_unit_test(test_saved_and_read),
      cmocka_unit_test(test_lock_exclusive),
      cmocka_unit_test(test_give_and_forget),
  };
  int r = cmocka_run_group_tests(tests, NULL, NULL);
  rrd_owner_free(o);
  return r;
}
