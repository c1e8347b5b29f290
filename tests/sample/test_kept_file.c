/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sample/kept_file.c on files in a temp dir and on real procfs: a
 * kept descriptor sees new contents, the buffer grows until a whole file
 * fits (and refuses one beyond READ_BUFFER_MAX), a failed read closes the
 * descriptor so that the next open starts afresh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kept_file.h"

#include "fixture_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[256];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-kept-file");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void path_of(char *buf, const char *rel) {
  snprintf(buf, PATH_MAX, "%s/%s", root, rel);
}

/* Writes n bytes of a repeating pattern, ending in a newline. */
static void write_pattern(const char *rel, size_t n) {
  char path[PATH_MAX];
  FILE *f;

  path_of(path, rel);
  f = fopen(path, "w");
  assert_non_null(f);
  for (size_t i = 0; i + 1 < n; i++)
    fputc('a' + (int)(i % 26), f);
  fputc('\n', f);
  assert_int_equal(fclose(f), 0);
}

static void test_kept_descriptor_sees_new_contents(void **state) {
  struct kept_file f = KEPT_FILE_INIT;
  struct read_buffer buf = {0};
  char path[PATH_MAX];
  size_t len;
  int fd;

  (void)state;
  fixture_write(root, "value", "42\n");
  path_of(path, "value");
  assert_int_equal(kept_file_read(&f, &buf, &len), -EBADF);
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), 0);
  fd = f.fd;
  assert_int_equal(kept_file_read(&f, &buf, &len), 0);
  assert_int_equal(len, 3);
  assert_memory_equal(buf.data, "42\n", 3);
  fixture_write(root, "value", "7\n"); /* truncated in place: same file */
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), 0);
  assert_int_equal(f.fd, fd); /* not reopened */
  assert_int_equal(kept_file_read(&f, &buf, &len), 0);
  assert_int_equal(len, 2);
  assert_memory_equal(buf.data, "7\n", 2);
  fixture_write(root, "value", "");
  assert_int_equal(kept_file_read(&f, &buf, &len), 0);
  assert_int_equal(len, 0);
  kept_file_close(&f);
  assert_int_equal(f.fd, -1);
  kept_file_close(&f); /* twice is harmless */
  read_buffer_free(&buf);
}

/* Files of exactly the buffer size, one byte more, and far larger. */
static void test_buffer_grows_to_whole_file(void **state) {
  static const size_t sizes[] = {
      1, 4095, 4096, 4097, 8192, 100000, READ_BUFFER_MAX - 1};
  struct read_buffer buf = {0};
  char path[PATH_MAX];

  (void)state;
  path_of(path, "big");
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    struct kept_file f = KEPT_FILE_INIT;
    size_t len;

    write_pattern("big", sizes[i]);
    assert_int_equal(kept_file_open(&f, AT_FDCWD, path), 0);
    assert_int_equal(kept_file_read(&f, &buf, &len), 0);
    assert_int_equal(len, sizes[i]);
    assert_true(buf.size > len);
    assert_int_equal(buf.data[len - 1], '\n');
    if (len > 1)
      assert_int_equal(buf.data[len - 2], 'a' + (int)((len - 2) % 26));
    kept_file_close(&f);
  }
  read_buffer_free(&buf);
}

static void test_too_big_is_refused(void **state) {
  struct kept_file f = KEPT_FILE_INIT;
  struct read_buffer buf = {0};
  char path[PATH_MAX];
  size_t len = 12345;

  (void)state;
  write_pattern("huge", READ_BUFFER_MAX);
  path_of(path, "huge");
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), 0);
  assert_int_equal(kept_file_read(&f, &buf, &len), -EFBIG);
  assert_int_equal(len, 12345);
  assert_int_equal(f.fd, -1);
  read_buffer_free(&buf);
}

static void test_open_errors(void **state) {
  struct kept_file f = KEPT_FILE_INIT;
  char path[PATH_MAX], target[PATH_MAX];
  int dirfd;

  (void)state;
  path_of(path, "missing");
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), -ENOENT);
  assert_int_equal(f.fd, -1);
  /* A symlink is never followed. */
  fixture_write(root, "real", "1\n");
  path_of(target, "real");
  path_of(path, "link");
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), -ELOOP);
  /* Relative to a directory descriptor. */
  dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  assert_true(dirfd >= 0);
  assert_int_equal(kept_file_open(&f, dirfd, "real"), 0);
  assert_true(f.fd >= 0);
  kept_file_close(&f);
  close(dirfd);
}

/* A read error closes the descriptor; the next open is a fresh one. */
static void test_failed_read_closes(void **state) {
  struct kept_file f = KEPT_FILE_INIT;
  struct read_buffer buf = {0};
  char path[PATH_MAX];
  size_t len;

  (void)state;
  fixture_mkdir(root, "adir");
  path_of(path, "adir");
  assert_int_equal(kept_file_open(&f, AT_FDCWD, path), 0);
  assert_int_equal(kept_file_read(&f, &buf, &len), -EISDIR);
  assert_int_equal(f.fd, -1);
  read_buffer_free(&buf);
}

/* procfs regenerates a kept file on a read at offset 0: rchar in
 * /proc/self/io counts the bytes this process read, including the previous
 * read of the file itself, so it must have grown. */
static unsigned long long rchar_of(struct kept_file *f,
                                   struct read_buffer *buf) {
  unsigned long long rchar = 0;
  size_t len;

  assert_int_equal(kept_file_read(f, buf, &len), 0);
  assert_true(len < buf->size);
  buf->data[len] = '\0';
  assert_int_equal(sscanf(buf->data, "rchar: %llu", &rchar), 1);
  return rchar;
}

static void test_procfs_rereads(void **state) {
  struct kept_file f = KEPT_FILE_INIT;
  struct read_buffer buf = {0};
  unsigned long long first, second;

  (void)state;
  if (kept_file_open(&f, AT_FDCWD, "/proc/self/io") < 0)
    skip(); /* no task I/O accounting */
  first = rchar_of(&f, &buf);
  second = rchar_of(&f, &buf);
  assert_true(second > first);
  kept_file_close(&f);
  read_buffer_free(&buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kept_descriptor_sees_new_contents),
      cmocka_unit_test(test_buffer_grows_to_whole_file),
      cmocka_unit_test(test_too_big_is_refused),
      cmocka_unit_test(test_open_errors),
      cmocka_unit_test(test_failed_read_closes),
      cmocka_unit_test(test_procfs_rereads),
  };

  return cmocka_run_group_tests(tests, setup, teardown);
}
