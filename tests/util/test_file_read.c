/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/file_read.c on files in a mkdtemp directory: a file is
 * read whole from offset 0 or not at all (a fixed buffer it fills is
 * -EFBIG, never a silent truncation); the growing reader doubles from
 * 4 KiB until the file fits, and refuses a file that does not fit its
 * limit; file_read_regular refuses what is not a regular file (a FIFO
 * without waiting for a writer, a directory, a device, a symlink), passes
 * on open()'s and pread()'s errno, and leaks no descriptor.  The link is
 * made with --wrap=realloc (CMakeLists.txt) so that -ENOMEM can be forced.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/file_read.h"

#include "fixture_tree.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROW_MIN 4096

static char root[256];

/* ---- realloc, failing on demand (-Wl,--wrap=realloc) --------------------- */

void *__real_realloc(void *ptr, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static int realloc_calls;
static bool realloc_fails;

void *__wrap_realloc(void *ptr, size_t size) {
  realloc_calls++;
  if (realloc_fails)
    return NULL;
  return __real_realloc(ptr, size);
}

/* ---- fixtures ------------------------------------------------------------ */

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-file-read");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void path_of(char *buf, const char *rel) {
  assert_true(snprintf(buf, PATH_MAX, "%s/%s", root, rel) < PATH_MAX);
}

/* The i-th byte of every test file: no period a misplaced read would hide
 * behind in these sizes. */
static char pattern_byte(size_t i) {
  return (char)(' ' + (i * 31 + i / 97) % 95);
}

/* Writes root/rel with n pattern bytes, replacing what was there. */
static void write_pattern(const char *rel, size_t n) {
  char path[PATH_MAX];
  FILE *f;

  path_of(path, rel);
  f = fopen(path, "w");
  assert_non_null(f);
  for (size_t i = 0; i < n; i++)
    assert_int_not_equal(fputc(pattern_byte(i), f), EOF);
  assert_int_equal(fclose(f), 0);
}

static void assert_pattern(const char *buf, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (buf[i] != pattern_byte(i))
      fail_msg("byte %zu of %zu is 0x%02x, want 0x%02x", i, n,
               (unsigned char)buf[i], (unsigned char)pattern_byte(i));
}

static int open_rel(const char *rel, int flags) {
  char path[PATH_MAX];
  int fd;

  path_of(path, rel);
  fd = open(path, flags | O_CLOEXEC);
  assert_true(fd >= 0);
  return fd;
}

/* The descriptor the next open() gets: unchanged across a call that
 * closes all it opens. */
static int lowest_free_fd(void) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

  assert_true(fd >= 0);
  close(fd);
  return fd;
}

/* ---- file_pread_all ------------------------------------------------------ */

static void test_all_reads_whole_file(void **state) {
  char buf[64];
  size_t len = 12345;
  int fd;

  (void)state;
  write_pattern("small", 10);
  fd = open_rel("small", O_RDONLY);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 10);
  assert_pattern(buf, 10);
  close(fd);
}

static void test_all_empty_file(void **state) {
  char buf[16];
  size_t len = 12345;
  int fd;

  (void)state;
  write_pattern("empty", 0);
  fd = open_rel("empty", O_RDONLY);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 0);
  assert_int_equal(file_pread_all(fd, buf, 1, &len), 0);
  assert_int_equal(len, 0);
  close(fd);
}

/* A file one byte shorter than the buffer is read; one that fills it, or
 * would overflow it, may have more than was read: -EFBIG. */
static void check_all_fill(size_t size) {
  char *buf = malloc(size);
  size_t len;
  int fd;

  assert_non_null(buf);
  write_pattern("fill", size - 1);
  fd = open_rel("fill", O_RDONLY);
  len = 12345;
  assert_int_equal(file_pread_all(fd, buf, size, &len), 0);
  assert_int_equal(len, size - 1);
  assert_pattern(buf, size - 1);
  close(fd);

  write_pattern("fill", size);
  fd = open_rel("fill", O_RDONLY);
  assert_int_equal(file_pread_all(fd, buf, size, &len), -EFBIG);
  close(fd);

  write_pattern("fill", size + 1);
  fd = open_rel("fill", O_RDONLY);
  assert_int_equal(file_pread_all(fd, buf, size, &len), -EFBIG);
  close(fd);

  write_pattern("fill", 3 * size);
  fd = open_rel("fill", O_RDONLY);
  assert_int_equal(file_pread_all(fd, buf, size, &len), -EFBIG);
  close(fd);
  free(buf);
}

static void test_all_full_buffer_is_efbig(void **state) {
  (void)state;
  check_all_fill(1);
  check_all_fill(2);
  check_all_fill(64);
  check_all_fill(4096);
  check_all_fill(65536);
}

/* Always from offset 0, whatever the descriptor's offset, which it leaves
 * alone; a kept descriptor sees the file's current length. */
static void test_all_reads_from_offset_zero(void **state) {
  char buf[256];
  size_t len;
  int fd;

  (void)state;
  write_pattern("offset", 100);
  fd = open_rel("offset", O_RDWR);
  assert_int_equal(read(fd, buf, 30), 30);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 100);
  assert_pattern(buf, 100);
  assert_int_equal(lseek(fd, 0, SEEK_CUR), 30);

  assert_int_equal(lseek(fd, 0, SEEK_END), 100);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 100);
  assert_pattern(buf, 100);

  assert_int_equal(ftruncate(fd, 40), 0);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 40);
  assert_pattern(buf, 40);
  close(fd);
}

static void test_all_read_errors(void **state) {
  char buf[64];
  size_t len = 12345;
  int fds[2], fd;

  (void)state;
  write_pattern("closed", 10);
  fd = open_rel("closed", O_RDONLY);
  close(fd);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), -EBADF);
  assert_int_equal(file_pread_all(-1, buf, sizeof(buf), &len), -EBADF);

  write_pattern("write-only", 10);
  fd = open_rel("write-only", O_WRONLY);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), -EBADF);
  close(fd);

  fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(file_pread_all(fd, buf, sizeof(buf), &len), -EISDIR);
  close(fd);

  assert_int_equal(pipe(fds), 0);
  assert_int_equal(write(fds[1], "data", 4), 4);
  assert_int_equal(file_pread_all(fds[0], buf, sizeof(buf), &len), -ESPIPE);
  close(fds[0]);
  close(fds[1]);
}

/* ---- file_pread_grow ----------------------------------------------------- */

/* Reads an n-byte file into buf with limit max; on success checks the
 * length, the contents and that buf has size want_size. */
static void check_grow(struct read_buffer *buf, size_t n, size_t max,
                       int want_r, size_t want_size) {
  size_t len = 12345;
  int fd, r;

  write_pattern("grow", n);
  fd = open_rel("grow", O_RDONLY);
  r = file_pread_grow(fd, buf, max, &len);
  close(fd);
  if (r != want_r)
    fail_msg("%zu-byte file, max %zu: %d, want %d", n, max, r, want_r);
  if (r == 0) {
    assert_int_equal(len, n);
    assert_non_null(buf->data);
    assert_pattern(buf->data, n);
    assert_int_equal(buf->size, want_size);
  }
  assert_true(buf->size <= max);
}

/* From an empty buffer: 4 KiB, doubled while the file fills it. */
static void test_grow_from_4k_doubling(void **state) {
  static const struct {
    size_t n, size;
  } cases[] = {
      {0, GROW_MIN},
      {1, GROW_MIN},
      {100, GROW_MIN},
      {GROW_MIN - 1, GROW_MIN},
      {GROW_MIN, 2 * GROW_MIN},
      {GROW_MIN + 1, 2 * GROW_MIN},
      {8191, 8192},
      {8192, 16384},
      {10000, 16384},
      {100000, 131072},
      {(1u << 20) - 1, 1u << 20},
  };

  (void)state;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct read_buffer buf = {0};

    check_grow(&buf, cases[i].n, 64u << 20, 0, cases[i].size);
    read_buffer_free(&buf);
  }
}

/* A buffer that has grown stays: a smaller file is read into the same
 * memory, a larger one grows it further. */
static void test_grow_keeps_buffer(void **state) {
  struct read_buffer buf = {0};
  char *data;

  (void)state;
  check_grow(&buf, 10000, 1u << 20, 0, 16384);
  data = buf.data;
  check_grow(&buf, 100, 1u << 20, 0, 16384);
  assert_ptr_equal(buf.data, data);
  check_grow(&buf, 0, 1u << 20, 0, 16384);
  assert_ptr_equal(buf.data, data);
  check_grow(&buf, 16383, 1u << 20, 0, 16384);
  assert_ptr_equal(buf.data, data);
  check_grow(&buf, 20000, 1u << 20, 0, 32768);
  read_buffer_free(&buf);
}

/* Up to max: the largest file that fits is max - 1 bytes (a read that
 * fills the buffer proves nothing), anything larger is -EFBIG, and the
 * buffer never outgrows max. */
static void test_grow_up_to_max(void **state) {
  static const size_t maxes[] = {GROW_MIN, 16384, 1u << 20};

  (void)state;
  for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
    size_t max = maxes[i];
    struct read_buffer buf = {0};

    check_grow(&buf, max - 1, max, 0, max);
    read_buffer_free(&buf);
    check_grow(&buf, max, max, -EFBIG, 0);
    read_buffer_free(&buf);
    check_grow(&buf, max + 1, max, -EFBIG, 0);
    read_buffer_free(&buf);
    check_grow(&buf, 2 * max, max, -EFBIG, 0);
    /* The same buffer still reads a file that fits. */
    check_grow(&buf, max / 2, max, 0, max);
    read_buffer_free(&buf);
  }
}

/* A limit between two doublings: a file that fits max bytes (9000 of
 * 10000, 10 of 100) is not -EFBIG. */
static void test_grow_max_between_doublings(void **state) {
  struct read_buffer buf = {0};
  size_t len;
  int fd, r;

  (void)state;
  write_pattern("between", 9000);
  fd = open_rel("between", O_RDONLY);
  r = file_pread_grow(fd, &buf, 10000, &len);
  close(fd);
  read_buffer_free(&buf);
  if (r != 0)
    fail_msg("9000-byte file, max 10000: %d, want 0", r);
  assert_int_equal(len, 9000);

  write_pattern("between", 10);
  fd = open_rel("between", O_RDONLY);
  r = file_pread_grow(fd, &buf, 100, &len);
  close(fd);
  read_buffer_free(&buf);
  if (r != 0)
    fail_msg("10-byte file, max 100: %d, want 0", r);
  assert_int_equal(len, 10);
}

static void test_grow_read_errors(void **state) {
  struct read_buffer buf = {0};
  size_t len = 12345;
  int fds[2], fd;

  (void)state;
  assert_int_equal(file_pread_grow(-1, &buf, 1u << 20, &len), -EBADF);
  read_buffer_free(&buf);

  fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(file_pread_grow(fd, &buf, 1u << 20, &len), -EISDIR);
  close(fd);
  read_buffer_free(&buf);

  assert_int_equal(pipe(fds), 0);
  assert_int_equal(file_pread_grow(fds[0], &buf, 1u << 20, &len), -ESPIPE);
  close(fds[0]);
  close(fds[1]);
  read_buffer_free(&buf);
}

/* An allocation that fails is -ENOMEM, and leaves the buffer as it was:
 * still owned by the caller, to be freed. */
static void test_grow_out_of_memory(void **state) {
  struct read_buffer buf = {0};
  size_t len;
  char *data;
  int fd;

  (void)state;
  write_pattern("nomem", 100);
  fd = open_rel("nomem", O_RDONLY);
  realloc_calls = 0;
  realloc_fails = true;
  assert_int_equal(file_pread_grow(fd, &buf, 1u << 20, &len), -ENOMEM);
  realloc_fails = false;
  assert_int_equal(realloc_calls, 1);
  assert_null(buf.data);
  assert_int_equal(buf.size, 0);
  close(fd);

  /* Grown to 4 KiB, then a file that needs 8 KiB. */
  check_grow(&buf, 100, 1u << 20, 0, GROW_MIN);
  data = buf.data;
  write_pattern("nomem", 5000);
  fd = open_rel("nomem", O_RDONLY);
  realloc_calls = 0;
  realloc_fails = true;
  assert_int_equal(file_pread_grow(fd, &buf, 1u << 20, &len), -ENOMEM);
  realloc_fails = false;
  assert_int_equal(realloc_calls, 1);
  assert_ptr_equal(buf.data, data);
  assert_int_equal(buf.size, GROW_MIN);
  /* The memory is still there and the buffer still usable. */
  assert_int_equal(file_pread_grow(fd, &buf, 1u << 20, &len), 0);
  assert_int_equal(len, 5000);
  assert_pattern(buf.data, 5000);
  assert_int_equal(buf.size, 2 * GROW_MIN);
  close(fd);
  read_buffer_free(&buf);
}

static void test_read_buffer_free(void **state) {
  struct read_buffer buf = {0};

  (void)state;
  read_buffer_free(&buf);
  assert_null(buf.data);
  assert_int_equal(buf.size, 0);
  check_grow(&buf, 5000, 1u << 20, 0, 2 * GROW_MIN);
  read_buffer_free(&buf);
  assert_null(buf.data);
  assert_int_equal(buf.size, 0);
  read_buffer_free(&buf);
  assert_null(buf.data);
  /* Freed, it grows again from the start. */
  check_grow(&buf, 100, 1u << 20, 0, GROW_MIN);
  read_buffer_free(&buf);
}

/* ---- file_read_regular --------------------------------------------------- */

static void test_regular_reads_whole_file(void **state) {
  char path[PATH_MAX], buf[256];
  size_t len = 12345;
  int dirfd;

  (void)state;
  write_pattern("regular", 200);
  path_of(path, "regular");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   0);
  assert_int_equal(len, 200);
  assert_pattern(buf, 200);

  fixture_mkdir(root, "sub");
  write_pattern("sub/nested", 150);
  dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(dirfd >= 0);
  len = 12345;
  assert_int_equal(file_read_regular(dirfd, "regular", buf, sizeof(buf), &len),
                   0);
  assert_int_equal(len, 200);
  assert_pattern(buf, 200);
  len = 12345;
  assert_int_equal(
      file_read_regular(dirfd, "sub/nested", buf, sizeof(buf), &len), 0);
  assert_int_equal(len, 150);
  assert_pattern(buf, 150);
  close(dirfd);

  write_pattern("regular-empty", 0);
  path_of(path, "regular-empty");
  len = 12345;
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   0);
  assert_int_equal(len, 0);
}

static void test_regular_full_buffer_is_efbig(void **state) {
  char path[PATH_MAX], buf[128];
  size_t len;

  (void)state;
  path_of(path, "regular-fill");
  write_pattern("regular-fill", 127);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, 128, &len), 0);
  assert_int_equal(len, 127);
  assert_pattern(buf, 127);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, 127, &len), -EFBIG);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, 100, &len), -EFBIG);
  write_pattern("regular-fill", 128);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, 128, &len), -EFBIG);
  write_pattern("regular-fill", 129);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, 128, &len), -EFBIG);
}

/* A FIFO without a writer must neither block open() nor read as an empty
 * file; SIGALRM ends the test if it blocks. */
static void test_regular_refuses_fifo(void **state) {
  char path[PATH_MAX], buf[64];
  size_t len = 12345;
  int wfd;

  (void)state;
  path_of(path, "fifo");
  assert_int_equal(mkfifo(path, 0600), 0);
  alarm(10);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ESPIPE);

  /* Nor with a writer that has written. */
  wfd = open(path, O_RDWR | O_CLOEXEC);
  assert_true(wfd >= 0);
  assert_int_equal(write(wfd, "name: x\n", 8), 8);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ESPIPE);
  close(wfd);
  alarm(0);
}

static void test_regular_refuses_directory_and_device(void **state) {
  char path[PATH_MAX], buf[64];
  size_t len = 12345;
  int dirfd;

  (void)state;
  fixture_mkdir(root, "dir");
  path_of(path, "dir");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ESPIPE);
  assert_int_equal(file_read_regular(AT_FDCWD, root, buf, sizeof(buf), &len),
                   -ESPIPE);
  dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(dirfd >= 0);
  assert_int_equal(file_read_regular(dirfd, ".", buf, sizeof(buf), &len),
                   -ESPIPE);
  assert_int_equal(file_read_regular(dirfd, "dir", buf, sizeof(buf), &len),
                   -ESPIPE);
  close(dirfd);

  /* /dev/null reads as empty and /dev/zero fills any buffer: neither is a
   * file. */
  assert_int_equal(
      file_read_regular(AT_FDCWD, "/dev/null", buf, sizeof(buf), &len),
      -ESPIPE);
  assert_int_equal(
      file_read_regular(AT_FDCWD, "/dev/zero", buf, sizeof(buf), &len),
      -ESPIPE);
}

/* O_NOFOLLOW: a symlink as the last component is refused (ELOOP), whether
 * it points at a regular file or nowhere. */
static void test_regular_refuses_symlink(void **state) {
  char path[PATH_MAX], target[PATH_MAX], buf[64];
  size_t len = 12345;

  (void)state;
  write_pattern("link-target", 10);
  path_of(target, "link-target");
  path_of(path, "link");
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ELOOP);
  path_of(path, "dangling");
  assert_int_equal(symlink("no-such-target", path), 0);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ELOOP);
  path_of(path, "link-to-device");
  assert_int_equal(symlink("/dev/null", path), 0);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ELOOP);
}

static void test_regular_open_errors(void **state) {
  char path[PATH_MAX], buf[64];
  size_t len = 12345;

  (void)state;
  path_of(path, "no-such-file");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ENOENT);
  path_of(path, "no-such-dir/file");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ENOENT);
  write_pattern("plain", 10);
  path_of(path, "plain/file");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ENOTDIR);
  assert_int_equal(file_read_regular(AT_FDCWD, "", buf, sizeof(buf), &len),
                   -ENOENT);
  /* A relative path needs a valid dirfd. */
  assert_int_equal(file_read_regular(-1, "plain", buf, sizeof(buf), &len),
                   -EBADF);
}

/* Skipped as root, who may read a file of mode 000. */
static void test_regular_unreadable(void **state) {
  char path[PATH_MAX], buf[64];
  size_t len = 12345;

  (void)state;
  if (geteuid() == 0)
    skip();
  write_pattern("unreadable", 10);
  path_of(path, "unreadable");
  assert_int_equal(chmod(path, 0), 0);
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -EACCES);
}

/* Every return closes what it opened. */
static void test_regular_closes_descriptor(void **state) {
  char path[PATH_MAX], buf[64];
  size_t len;
  int lowest;

  (void)state;
  lowest = lowest_free_fd();
  write_pattern("fd-small", 10);
  path_of(path, "fd-small");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   0);
  assert_int_equal(lowest_free_fd(), lowest);
  write_pattern("fd-big", 100);
  path_of(path, "fd-big");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -EFBIG);
  assert_int_equal(lowest_free_fd(), lowest);
  assert_int_equal(file_read_regular(AT_FDCWD, root, buf, sizeof(buf), &len),
                   -ESPIPE);
  assert_int_equal(lowest_free_fd(), lowest);
  path_of(path, "fd-missing");
  assert_int_equal(file_read_regular(AT_FDCWD, path, buf, sizeof(buf), &len),
                   -ENOENT);
  assert_int_equal(lowest_free_fd(), lowest);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_reads_whole_file),
      cmocka_unit_test(test_all_empty_file),
      cmocka_unit_test(test_all_full_buffer_is_efbig),
      cmocka_unit_test(test_all_reads_from_offset_zero),
      cmocka_unit_test(test_all_read_errors),
      cmocka_unit_test(test_grow_from_4k_doubling),
      cmocka_unit_test(test_grow_keeps_buffer),
      cmocka_unit_test(test_grow_up_to_max),
      cmocka_unit_test(test_grow_max_between_doublings),
      cmocka_unit_test(test_grow_read_errors),
      cmocka_unit_test(test_grow_out_of_memory),
      cmocka_unit_test(test_read_buffer_free),
      cmocka_unit_test(test_regular_reads_whole_file),
      cmocka_unit_test(test_regular_full_buffer_is_efbig),
      cmocka_unit_test(test_regular_refuses_fifo),
      cmocka_unit_test(test_regular_refuses_directory_and_device),
      cmocka_unit_test(test_regular_refuses_symlink),
      cmocka_unit_test(test_regular_open_errors),
      cmocka_unit_test(test_regular_unreadable),
      cmocka_unit_test(test_regular_closes_descriptor),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
