/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/store/rrd_store_dirs.c on a mkdtemp directory: a file's
 * directory found by its path; one look per second of the rows' clock; a
 * directory changed less than a second ago moves its epoch at every look,
 * a settled one keeps it until an entry is added, removed or renamed
 * over, its mode changed, or it is replaced; a directory that is not
 * there has epoch 0.  (Waits of 1.1 s let a directory settle: its ctime
 * cannot be set back.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_store_dirs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fixture {
  char root[64];
  char dir[128];  /* root/pve-vm-9.0 */
  char file[160]; /* dir/100 */
  struct store_dirs dirs;
};

static void settle(void) {
  struct timespec t = {.tv_sec = 1, .tv_nsec = 100000000};
  nanosleep(&t, NULL);
}

static void touch(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  close(fd);
}

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  if (f == NULL)
    return -1;
  strcpy(f->root, "/tmp/test_rrd_store_dirs.XXXXXX");
  if (mkdtemp(f->root) == NULL)
    return -1;
  snprintf(f->dir, sizeof(f->dir), "%s/pve-vm-9.0", f->root);
  snprintf(f->file, sizeof(f->file), "%s/100", f->dir);
  if (mkdir(f->dir, 0750) != 0)
    return -1;
  touch(f->file);
  store_dirs_init(&f->dirs);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  store_dirs_destroy(&f->dirs);
  char cmd[200];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
  if (system(cmd) != 0)
    return -1;
  free(f);
  return 0;
}

static void test_dir_of_path(void **state) {
  struct fixture *f = *state;
  char other[200];
  snprintf(other, sizeof(other), "%s/101", f->dir);
  struct store_dir *d = store_dirs_of(&f->dirs, f->file);
  assert_non_null(d);
  assert_ptr_equal(store_dirs_of(&f->dirs, other), d);
  assert_ptr_not_equal(store_dirs_of(&f->dirs, f->dir), d); /* root's */
  struct store_dir *root = store_dirs_of(&f->dirs, "/x");
  assert_ptr_equal(store_dirs_of(&f->dirs, "/y"), root);
  struct store_dir *here = store_dirs_of(&f->dirs, "x");
  assert_ptr_not_equal(here, root);
  assert_ptr_equal(store_dirs_of(&f->dirs, "y"), here);
  assert_true(store_dirs_epoch(&f->dirs, root, 1) != 0);
  assert_true(store_dirs_epoch(&f->dirs, here, 1) != 0);
}

/* Just made: not settled, a new epoch at every second's look, the same
 * within one second. */
static void test_unsettled_moves(void **state) {
  struct fixture *f = *state;
  struct store_dir *d = store_dirs_of(&f->dirs, f->file);
  uint64_t e1 = store_dirs_epoch(&f->dirs, d, 1);
  assert_true(e1 != 0);
  assert_int_equal(store_dirs_epoch(&f->dirs, d, 1), e1);
  uint64_t e2 = store_dirs_epoch(&f->dirs, d, 2);
  assert_true(e2 != e1 && e2 != 0);
  assert_int_equal(store_dirs_epoch(&f->dirs, d, 2), e2);
}

/* Settled: the epoch stays until the directory changes; after a change
 * it moves at every look until it settled again. */
static void test_settled_until_changed(void **state) {
  struct fixture *f = *state;
  struct store_dir *d = store_dirs_of(&f->dirs, f->file);
  settle();
  uint64_t e = store_dirs_epoch(&f->dirs, d, 10);
  for (time_t now = 11; now < 20; now++)
    assert_int_equal(store_dirs_epoch(&f->dirs, d, now), e);
  /* rows written into a file: no change */
  int fd = open(f->file, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "row\n", 4), 4);
  close(fd);
  assert_int_equal(store_dirs_epoch(&f->dirs, d, 20), e);

  char other[200], moved[200];
  snprintf(other, sizeof(other), "%s/101", f->dir);
  snprintf(moved, sizeof(moved), "%s/100.new", f->dir);
  const char *what[] = {"added", "renamed over", "removed", "chmod"};
  time_t now = 30;
  for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++, now += 10) {
    if (i == 0)
      touch(other);
    else if (i == 1) {
      touch(moved);
      assert_int_equal(rename(moved, f->file), 0);
    } else if (i == 2)
      assert_int_equal(unlink(other), 0);
    else
      assert_int_equal(chmod(f->dir, 0700), 0);
    uint64_t changed = store_dirs_epoch(&f->dirs, d, now);
    if (changed == e)
      fail_msg("%s: the epoch did not move", what[i]);
    /* changed just now: not settled, moves again at the next look */
    uint64_t again = store_dirs_epoch(&f->dirs, d, now + 1);
    assert_true(again != changed);
    settle();
    e = store_dirs_epoch(&f->dirs, d, now + 2);
    assert_int_equal(store_dirs_epoch(&f->dirs, d, now + 3), e);
  }
}

/* Removed: 0; made again: a new epoch, never the old one. */
static void test_replaced_or_gone(void **state) {
  struct fixture *f = *state;
  struct store_dir *d = store_dirs_of(&f->dirs, f->file);
  settle();
  uint64_t e = store_dirs_epoch(&f->dirs, d, 1);
  assert_int_equal(unlink(f->file), 0);
  assert_int_equal(rmdir(f->dir), 0);
  assert_int_equal(store_dirs_epoch(&f->dirs, d, 2), 0);
  assert_int_equal(mkdir(f->dir, 0750), 0);
  settle();
  uint64_t e3 = store_dirs_epoch(&f->dirs, d, 3);
  assert_true(e3 != 0 && e3 != e);
  assert_int_equal(store_dirs_epoch(&f->dirs, d, 4), e3);
  /* replaced by another directory under the same name */
  char aside[200];
  snprintf(aside, sizeof(aside), "%s/aside", f->root);
  assert_int_equal(rename(f->dir, aside), 0);
  assert_int_equal(mkdir(f->dir, 0750), 0);
  uint64_t e5 = store_dirs_epoch(&f->dirs, d, 5);
  assert_true(e5 != 0 && e5 != e3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dir_of_path, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsettled_moves, setup, teardown),
      cmocka_unit_test_setup_teardown(test_settled_until_changed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replaced_or_gone, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
