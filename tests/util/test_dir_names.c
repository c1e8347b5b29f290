/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/dir_names.c on a mkdtemp directory: the listing that
 * finds the data directory's files and /etc/pve's guests, where entries
 * are often symbolic links.  Files and directories are told apart, links
 * are followed to what they point at (a dangling link and a FIFO are
 * neither), the caller's filter decides which names count, at most max
 * names are listed, and a directory that cannot be read lists nothing.
 * Directory order is unspecified, so names are compared sorted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/dir_names.h"

#include "fixture_tree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void path_of(char *buf, const char *rel) {
  assert_true(snprintf(buf, PATH_MAX, "%s/%s", root, rel) < PATH_MAX);
}

static void make_link(const char *target, const char *rel) {
  char path[PATH_MAX];
  path_of(path, rel);
  assert_int_equal(symlink(target, path), 0);
}

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-dir-names");
  fixture_write(root, "a.conf", "a\n");
  fixture_write(root, "b.conf", "");
  fixture_write(root, "c.txt", "c\n");
  fixture_write(root, ".hidden.conf", "h\n");
  fixture_mkdir(root, "sub.conf");
  fixture_mkdir(root, "dir2");
  make_link("a.conf", "link.conf");      /* to a file */
  make_link("sub.conf", "dlink.conf");   /* to a directory */
  make_link("nowhere", "dangling.conf"); /* to nothing */
  char fifo[PATH_MAX];
  path_of(fifo, "fifo.conf");
  assert_int_equal(mkfifo(fifo, 0600), 0); /* neither */
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static bool is_conf(const char *name) {
  size_t len = strlen(name);
  return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".conf") == 0;
}

static bool not_dot(const char *name) { return name[0] != '.'; }

static bool everything(const char *name) {
  (void)name;
  return true;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists dir (root when NULL) and compares the sorted names with the
 * NULL-terminated expected ones. */
static void check_list(const char *dir, enum dir_entry_kind kind,
                       bool (*accept)(const char *), size_t max,
                       const char *const *expected) {
  struct dir_names names;
  memset(&names, 0x5a, sizeof(names));
  dir_names_read(dir != NULL ? dir : root, kind, accept, max, &names);
  size_t n = 0;
  while (expected[n] != NULL)
    n++;
  assert_int_equal(names.count, n);
  if (n > 1)
    qsort(names.name, n, sizeof(*names.name), by_name);
  for (size_t i = 0; i < n; i++)
    assert_string_equal(names.name[i], expected[i]);
  dir_names_free(&names);
  assert_null(names.name);
  assert_int_equal(names.count, 0);
  assert_int_equal(names.size, 0);
}

static void test_files(void **state) {
  (void)state;
  check_list(NULL, DIR_ENTRY_FILE, is_conf, 100,
             (const char *const[]){"a.conf", "b.conf", "link.conf", NULL});
  check_list(NULL, DIR_ENTRY_FILE, everything, 100,
             (const char *const[]){".hidden.conf", "a.conf", "b.conf", "c.txt",
                                   "link.conf", NULL});
}

static void test_directories(void **state) {
  (void)state;
  check_list(NULL, DIR_ENTRY_DIR, is_conf, 100,
             (const char *const[]){"dlink.conf", "sub.conf", NULL});
  check_list(NULL, DIR_ENTRY_DIR, not_dot, 100,
             (const char *const[]){"dir2", "dlink.conf", "sub.conf", NULL});
  /* The subdirectory through its link, and an empty one. */
  char dir[PATH_MAX];
  path_of(dir, "dlink.conf");
  check_list(dir, DIR_ENTRY_FILE, everything, 100, (const char *const[]){NULL});
  check_list(dir, DIR_ENTRY_DIR, not_dot, 100, (const char *const[]){NULL});
}

/* At most max names: some max of the accepted ones, each once. */
static void test_max(void **state) {
  (void)state;
  const char *const accepted[] = {"a.conf", "b.conf", "link.conf"};
  for (size_t max = 0; max <= 4; max++) {
    struct dir_names names;
    dir_names_read(root, DIR_ENTRY_FILE, is_conf, max, &names);
    size_t want = max < 3 ? max : 3;
    assert_int_equal(names.count, want);
    for (size_t i = 0; i < names.count; i++) {
      size_t hits = 0;
      for (size_t k = 0; k < 3; k++)
        hits += strcmp(names.name[i], accepted[k]) == 0;
      assert_int_equal(hits, 1);
      for (size_t j = 0; j < i; j++)
        assert_string_not_equal(names.name[i], names.name[j]);
    }
    dir_names_free(&names);
  }
}

/* What cannot be read as a directory lists nothing. */
static void test_missing(void **state) {
  (void)state;
  char path[PATH_MAX];
  path_of(path, "no-such-dir");
  check_list(path, DIR_ENTRY_FILE, everything, 100,
             (const char *const[]){NULL});
  check_list(path, DIR_ENTRY_DIR, everything, 100, (const char *const[]){NULL});
  path_of(path, "a.conf"); /* a file */
  check_list(path, DIR_ENTRY_FILE, everything, 100,
             (const char *const[]){NULL});
  path_of(path, "dangling.conf");
  check_list(path, DIR_ENTRY_DIR, everything, 100, (const char *const[]){NULL});
  /* An empty list is freed as well. */
  struct dir_names names;
  dir_names_read(path, DIR_ENTRY_FILE, everything, 100, &names);
  assert_null(names.name);
  dir_names_free(&names);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_directories),
      cmocka_unit_test(test_max),
      cmocka_unit_test(test_missing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
