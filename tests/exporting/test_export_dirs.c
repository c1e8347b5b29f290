/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_dirs.c: a directory noted before a scan
 * reads it is "unchanged" until an entry is added, removed or renamed in
 * it, or it is replaced, and never while it was changed within a second
 * of the scan's beginning (the kernel stamps directories from a coarse
 * clock); rows written into a file in it change nothing.  One test waits
 * a second and a half for its directories to settle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/export_dirs.h"

#include "fixture_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root[256];

static void path_of(char *buf, const char *rel) {
  assert_true(snprintf(buf, PATH_MAX, "%s/%s", root, rel) < PATH_MAX);
}

/* A scan noting a, b (opened, as export_files.c notes a layout's
 * directory) and c, which is not there. */
static void scan(struct export_dirs *dirs) {
  char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
  path_of(a, "a");
  path_of(b, "a/b");
  path_of(c, "a/c");
  export_dirs_begin(dirs);
  export_dirs_note(dirs, a, -1);
  DIR *d = opendir(b);
  assert_non_null(d);
  export_dirs_note(dirs, b, dirfd(d));
  closedir(d);
  export_dirs_note(dirs, c, -1);
}

static void settle(void) {
  struct timespec ts = {1, 500000000};
  nanosleep(&ts, NULL);
}

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "export-dirs");
  fixture_mkdir(root, "a/b");
  fixture_write(root, "a/b/100", "rows");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void test_changes(void **state) {
  (void)state;
  struct export_dirs dirs = {0};
  assert_false(export_dirs_unchanged(&dirs)); /* nothing scanned yet */
  scan(&dirs);
  assert_int_equal(dirs.count, 3);
  assert_true(dirs.mark[0].stamp.present && dirs.mark[1].stamp.present);
  assert_false(dirs.mark[2].stamp.present);
  /* just made: not trusted, even untouched */
  assert_false(dirs.settled);
  assert_false(export_dirs_unchanged(&dirs));
  settle();
  scan(&dirs);
  assert_true(dirs.settled);
  assert_true(export_dirs_unchanged(&dirs));
  assert_true(export_dirs_unchanged(&dirs));
  char p[PATH_MAX], q[PATH_MAX];
  path_of(p, "a/b/100"); /* rows written into a file: no change */
  int fd = open(p, O_WRONLY | O_APPEND);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "more", 4), 4);
  close(fd);
  assert_true(export_dirs_unchanged(&dirs));
  fixture_write(root, "a/b/101", "new"); /* an entry added */
  assert_false(export_dirs_unchanged(&dirs));
  settle();
  scan(&dirs);
  assert_true(export_dirs_unchanged(&dirs));
  path_of(q, "a/b/102"); /* renamed */
  path_of(p, "a/b/101");
  assert_int_equal(rename(p, q), 0);
  assert_false(export_dirs_unchanged(&dirs));
  settle();
  scan(&dirs);
  assert_true(export_dirs_unchanged(&dirs));
  assert_int_equal(unlink(q), 0); /* removed */
  assert_false(export_dirs_unchanged(&dirs));
  settle();
  scan(&dirs);
  fixture_mkdir(root, "a/c"); /* one that was not there */
  assert_false(export_dirs_unchanged(&dirs));
  export_dirs_free(&dirs);
}

/* A directory replaced by another of the same name. */
static void test_replaced(void **state) {
  (void)state;
  struct export_dirs dirs = {0};
  settle();
  scan(&dirs);
  assert_true(export_dirs_unchanged(&dirs));
  char b[PATH_MAX], old[PATH_MAX];
  path_of(b, "a/b");
  path_of(old, "b.old");
  assert_int_equal(rename(b, old), 0);
  assert_false(export_dirs_unchanged(&dirs)); /* gone */
  fixture_mkdir(root, "a/b");
  assert_false(export_dirs_unchanged(&dirs)); /* another one */
  export_dirs_free(&dirs);
}

/* Stamped in the future (a clock stepped back): never trusted. */
static void test_future(void **state) {
  (void)state;
  char b[PATH_MAX];
  path_of(b, "a/b");
  struct timespec times[2] = {{0, UTIME_OMIT}, {time(NULL) + 3600, 0}};
  assert_int_equal(utimensat(AT_FDCWD, b, times, 0), 0);
  settle(); /* the ctime the change set settles; the mtime stays ahead */
  struct export_dirs dirs = {0};
  scan(&dirs);
  assert_false(dirs.settled);
  assert_false(export_dirs_unchanged(&dirs));
  export_dirs_free(&dirs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_changes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_replaced, setup, teardown),
      cmocka_unit_test_setup_teardown(test_future, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
