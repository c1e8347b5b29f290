/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/log_line.c: lines of two processes written at once
 * to one unbuffered pipe (stderr's kind) are each read back whole; a
 * buffered stream gets the same bytes; a line longer
 * than LOG_LINE_MAX is cut to exactly that and ends in "...\n", also
 * when the prefix alone is too long.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/log_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pipe_end {
  int rd;
  FILE *wr;
};

static struct pipe_end unbuffered_pipe(void) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  FILE *wr = fdopen(fd[1], "w");
  assert_non_null(wr);
  assert_int_equal(setvbuf(wr, NULL, _IONBF, 0), 0);
  return (struct pipe_end){fd[0], wr};
}

/* One read of the pipe: everything written to it so far. */
static size_t read_once(int fd, char *buf, size_t size) {
  ssize_t n = read(fd, buf, size);
  assert_true(n >= 0);
  return (size_t)n;
}

static void test_line_composed(void **state) {
  (void)state;
  struct pipe_end p = unbuffered_pipe();
  char buf[LOG_LINE_MAX * 2];
  log_line(p.wr, "pvecg ship: ", "--pve-metric-server %s: %s; %s", "badtoken",
           "its token cannot be read", "set it again");
  /* a second line after it: the two lines' bytes, in order */
  log_line(p.wr, "pvecg ship: ", "second");
  static const char want[] = "pvecg ship: --pve-metric-server badtoken: its "
                             "token cannot be read; set it again\n"
                             "pvecg ship: second\n";
  size_t got = 0;
  while (got < strlen(want))
    got += read_once(p.rd, buf + got, sizeof(buf) - got);
  assert_int_equal(got, strlen(want));
  assert_memory_equal(buf, want, got);
  fclose(p.wr);
  close(p.rd);
}

/* Two processes writing lines to one pipe at once, as the shipper's
 * children do to their parent's stderr: every line read back is one of
 * theirs, whole.  A line written in parts (prefix, message, newline)
 * gets cut by the other's within a few hundred lines on two CPUs. */
#define WRITERS 2
#define LINES 3000

static void write_lines(FILE *wr, int who) {
  for (int i = 0; i < LINES; i++)
    log_line(wr, "pvecg ship: ", "writer %d: line %d of %d", who, i, LINES);
}

static void test_lines_never_cut(void **state) {
  (void)state;
  struct pipe_end p = unbuffered_pipe();
  pid_t pid[WRITERS];
  for (int w = 0; w < WRITERS; w++) {
    pid[w] = fork();
    assert_true(pid[w] >= 0);
    if (pid[w] == 0) {
      close(p.rd);
      write_lines(p.wr, w);
      _exit(0);
    }
  }
  fclose(p.wr);
  FILE *rd = fdopen(p.rd, "r");
  assert_non_null(rd);
  char line[256];
  int next[WRITERS] = {0};
  while (fgets(line, sizeof(line), rd) != NULL) {
    int who = -1, i = -1, of = -1, end = 0;
    int n = sscanf(line, "pvecg ship: writer %d: line %d of %d\n%n", &who, &i,
                   &of, &end);
    if (n != 3 || end != (int)strlen(line) || who < 0 || who >= WRITERS)
      fail_msg("a line cut by another: '%s'", line);
    assert_int_equal(of, LINES);
    assert_int_equal(i, next[who]); /* each writer's lines in its order */
    next[who]++;
  }
  fclose(rd);
  for (int w = 0; w < WRITERS; w++) {
    int st;
    assert_int_equal(waitpid(pid[w], &st, 0), pid[w]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(next[w], LINES);
  }
}

static void test_buffered_stream(void **state) {
  (void)state;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  log_line(f, "", "%d %s", 42, "x");
  log_line(f, "p: ", "%s", "");
  fclose(f);
  assert_string_equal(text, "42 x\np: \n");
  free(text);
}

static void assert_cut(const char *prefix, const char *msg) {
  struct pipe_end p = unbuffered_pipe();
  char buf[LOG_LINE_MAX * 2];
  log_line(p.wr, prefix, "%s", msg);
  size_t got = read_once(p.rd, buf, sizeof(buf));
  assert_int_equal(got, LOG_LINE_MAX);
  assert_memory_equal(buf + LOG_LINE_MAX - 4, "...\n", 4);
  assert_int_equal(buf[0], prefix[0] ? prefix[0] : msg[0]);
  fclose(p.wr);
  close(p.rd);
}

static void test_long_lines_cut(void **state) {
  (void)state;
  char *big = malloc(LOG_LINE_MAX * 3);
  assert_non_null(big);
  memset(big, 'x', LOG_LINE_MAX * 3 - 1);
  big[LOG_LINE_MAX * 3 - 1] = '\0';
  assert_cut("p: ", big); /* the message too long */
  assert_cut(big, "");    /* the prefix alone too long */
  assert_cut(big, "m");
  /* exactly at the limit: LOG_LINE_MAX - 1 characters and the newline */
  big[LOG_LINE_MAX - 1] = '\0';
  struct pipe_end p = unbuffered_pipe();
  char buf[LOG_LINE_MAX * 2];
  log_line(p.wr, "", "%s", big);
  size_t got = read_once(p.rd, buf, sizeof(buf));
  assert_int_equal(got, LOG_LINE_MAX);
  assert_int_equal(buf[LOG_LINE_MAX - 2], 'x');
  assert_int_equal(buf[LOG_LINE_MAX - 1], '\n');
  fclose(p.wr);
  close(p.rd);
  free(big);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_line_composed),
      cmocka_unit_test(test_lines_never_cut),
      cmocka_unit_test(test_buffered_stream),
      cmocka_unit_test(test_long_lines_cut),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
