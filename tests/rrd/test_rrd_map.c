/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/rrd_map.c: a mapping reads the file's bytes, also those
 * another descriptor writes after it was made; a read past the mapping
 * is refused; a file truncated under the mapping gives -EPROTO where the
 * read reaches a page past its new end (the SIGBUS caught), zeros past the
 * end within its last page, then its new bytes once it is long again.  A SIGBUS
 * that is not a read's (raised, or a fault of another mapping) goes where it
 * went before: the program's own handler, or the default action, which ends the
 * process (in a child).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_map.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGES 3
#define PAGE 4096
#define LEN (PAGES * PAGE)

struct fixture {
  char path[64];
  int fd;
};

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + 3); }

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  if (f == NULL)
    return -1;
  strcpy(f->path, "/tmp/test_rrd_map.XXXXXX");
  f->fd = mkstemp(f->path);
  unsigned char buf[LEN];
  for (size_t i = 0; i < LEN; i++)
    buf[i] = pattern(i);
  if (f->fd < 0 || pwrite(f->fd, buf, LEN, 0) != LEN)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  close(f->fd);
  unlink(f->path);
  free(f);
  return 0;
}

static void assert_pattern(const unsigned char *got, size_t offset,
                           size_t len) {
  for (size_t i = 0; i < len; i++)
    assert_int_equal(got[i], pattern(offset + i));
}

static void test_reads_the_file(void **state) {
  struct fixture *f = *state;
  struct rrd_map m;
  unsigned char got[LEN];
  assert_int_equal(rrd_map_open(&m, f->fd, LEN), 0);
  const size_t at[][2] = {
      {0, 16}, {PAGE - 8, 16}, {LEN - 136, 136}, {0, LEN}, {LEN, 0}};
  for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
    assert_int_equal(rrd_map_read(&m, got, at[i][1], at[i][0]), 0);
    assert_pattern(got, at[i][0], at[i][1]);
  }
  /* a write through another descriptor, as a writer's: seen at once */
  int other = open(f->path, O_WRONLY);
  assert_true(other >= 0);
  assert_int_equal(pwrite(other, "new bytes", 9, PAGE + 5), 9);
  close(other);
  assert_int_equal(rrd_map_read(&m, got, 9, PAGE + 5), 0);
  assert_memory_equal(got, "new bytes", 9);
  rrd_map_close(&m);
  assert_null(m.bytes);
}

static void test_bounds(void **state) {
  struct fixture *f = *state;
  struct rrd_map m;
  unsigned char got[32];
  assert_int_equal(rrd_map_open(&m, f->fd, LEN - PAGE), 0);
  assert_int_equal(rrd_map_read(&m, got, 1, LEN - PAGE), -EPROTO);
  assert_int_equal(rrd_map_read(&m, got, 16, LEN - PAGE - 8), -EPROTO);
  assert_int_equal(rrd_map_read(&m, got, 1, UINT64_MAX), -EPROTO);
  assert_int_equal(rrd_map_read(&m, got, 8, LEN - PAGE - 8), 0);
  assert_pattern(got, LEN - PAGE - 8, 8);
  rrd_map_close(&m);
  assert_int_equal(rrd_map_open(&m, f->fd, 0), -EINVAL);
  assert_int_equal(rrd_map_open(&m, -1, LEN), -EBADF);
  assert_null(m.bytes);
}

/* cp over the file in place: truncated to nothing, then written again. */
static void test_truncated_under(void **state) {
  struct fixture *f = *state;
  struct rrd_map m;
  unsigned char got[LEN];
  assert_int_equal(rrd_map_open(&m, f->fd, LEN), 0);
  assert_int_equal(ftruncate(f->fd, 100), 0);
  assert_int_equal(rrd_map_read(&m, got, 16, 2 * PAGE), -EPROTO);
  /* within the last page: the kernel's zeros past the end, no fault */
  assert_int_equal(rrd_map_read(&m, got, 200, 0), 0);
  assert_pattern(got, 0, 100);
  for (size_t i = 100; i < 200; i++)
    assert_int_equal(got[i], 0);
  for (int i = 0; i < 100; i++) /* the same again: nothing left blocked */
    assert_int_equal(rrd_map_read(&m, got, LEN, 0), -EPROTO);
  assert_int_equal(rrd_map_read(&m, got, 100, 0), 0);
  assert_pattern(got, 0, 100);
  /* long again, other bytes: read as they are now */
  unsigned char fill[LEN];
  memset(fill, 0xab, sizeof(fill));
  assert_int_equal(pwrite(f->fd, fill, LEN, 0), LEN);
  assert_int_equal(rrd_map_read(&m, got, LEN, 0), 0);
  assert_memory_equal(got, fill, LEN);
  rrd_map_close(&m);
}

/* The child's end: a signal, or an exit status. */
static int child_end(pid_t pid) {
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

/* A fault of a mapping of the child's own (of a file of its own, the
 * fixture's left as it is), outside any read of rrd_map. */
static void fault_elsewhere(void) {
  char path[] = "/tmp/test_rrd_map_other.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || unlink(path) != 0 || ftruncate(fd, LEN) != 0)
    _exit(3);
  volatile unsigned char *p = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
    _exit(3);
  (void)p[2 * PAGE];
  _exit(4); /* not reached: the fault is taken */
}

static void own_handler(int sig) { _exit(sig == SIGBUS ? 42 : 5); }

/* In a child, SIGBUS set to `action` before the first mapping, then a
 * mapping made and a SIGBUS (raised, or a fault) not of a read. */
static int child_with(struct fixture *f, void (*action)(int), bool fault) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct sigaction sa = {.sa_handler = action};
    sigemptyset(&sa.sa_mask);
    struct rrd_map m;
    unsigned char got[16];
    if (sigaction(SIGBUS, &sa, NULL) != 0 ||
        rrd_map_open(&m, f->fd, LEN) != 0 || rrd_map_read(&m, got, 16, 0) != 0)
      _exit(2);
    if (fault)
      fault_elsewhere();
    raise(SIGBUS);
    _exit(0);
  }
  return child_end(pid);
}

static void test_other_sigbus_goes_on(void **state) {
  struct fixture *f = *state;
  assert_int_equal(child_with(f, SIG_DFL, false), -SIGBUS);
  assert_int_equal(child_with(f, own_handler, false), 42);
  assert_int_equal(child_with(f, SIG_IGN, false), 0);
  assert_int_equal(child_with(f, SIG_DFL, true), -SIGBUS);
  assert_int_equal(child_with(f, own_handler, true), 42);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_reads_the_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated_under, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_sigbus_goes_on, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
