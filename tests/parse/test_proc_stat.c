/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/proc_stat.c on the development host's /proc/stat, the
 * field counts of older and future kernels, a 4096-CPU file, every prefix
 * of a real file, and every way the strict parser must refuse one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "node_samples.h"
#include "pvecg/proc_stat.h"

#define TAIL "intr 1 0\nctxt 5\n"

static int parse_len(const char *s, size_t len, struct proc_stat *out) {
  char *buf = exact_copy(s, len);
  int r;

  memset(out, 0xa5, sizeof(*out));
  r = proc_stat_parse(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, struct proc_stat *out) {
  return parse_len(s, strlen(s), out);
}

/* An error leaves *ret exactly as it was. */
static void check_error(const char *s, int want_r) {
  struct proc_stat st, untouched;

  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(parse(s, &st), want_r);
  assert_memory_equal(&st, &untouched, sizeof(st));
}

static void check_cpu(const struct proc_stat_cpu *c, const uint64_t want[10]) {
  const uint64_t got[10] = {c->user,   c->nice,      c->system,  c->idle,
                            c->iowait, c->irq,       c->softirq, c->steal,
                            c->guest,  c->guest_nice};

  for (int i = 0; i < 10; i++)
    assert_int_equal(got[i], want[i]);
}

static void test_host_sample(void **state) {
  static const uint64_t want[10] = {114004, 0,   11937, 369217, 807,
                                    0,      137, 61,    0,      0};
  struct proc_stat st;

  (void)state;
  assert_int_equal(parse(proc_stat_sample, &st), 0);
  check_cpu(&st.total, want);
  assert_int_equal(st.cpus, 2);
}

/* Linux 2.6.11 .. 2.6.23 printed 8 fields, 2.6.24 .. 2.6.32 nine. */
static void test_older_kernels(void **state) {
  static const uint64_t eight[10] = {1, 2, 3, 4, 5, 6, 7, 8, 0, 0};
  static const uint64_t nine[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0};
  struct proc_stat st;

  (void)state;
  assert_int_equal(
      parse("cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n" TAIL, &st), 0);
  check_cpu(&st.total, eight);
  assert_int_equal(st.cpus, 1);
  assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8 9\ncpu0 x\n" TAIL, &st), 0);
  check_cpu(&st.total, nine);
}

/* A field a future kernel appends is parsed as a decimal and ignored. */
static void test_future_fields(void **state) {
  static const uint64_t want[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  struct proc_stat st;

  (void)state;
  assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8 9 10 11 12\ncpu0 1\n" TAIL, &st),
                   0);
  check_cpu(&st.total, want);
  check_error("cpu  1 2 3 4 5 6 7 8 9 10 x\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8 9 10 99999999999999999999\ncpu0 1\n" TAIL,
              -ERANGE);
}

/* The label may be followed by one space or more (the kernel prints two);
 * per-CPU lines are counted without parsing their fields. */
static void test_label_spacing_and_cpu_lines(void **state) {
  struct proc_stat st;

  (void)state;
  assert_int_equal(parse("cpu 1 2 3 4 5 6 7 8\ncpu0\ncpu17 z\n" TAIL, &st), 0);
  assert_int_equal(st.cpus, 2);
  assert_int_equal(parse("cpu     1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, &st), 0);
  assert_int_equal(st.total.user, 1);
}

/* Nothing after the first non-CPU line is looked at. */
static void test_rest_ignored(void **state) {
  struct proc_stat st;

  (void)state;
  assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8\ncpu0 1\nintr\n"
                         "cpu  junk\ncpu1 9\n\x01\xff garbage",
                         &st),
                   0);
  assert_int_equal(st.cpus, 1);
  assert_int_equal(st.total.steal, 8);
  /* A "cpu" line after the block ends it like any other line. */
  assert_int_equal(
      parse("cpu  1 2 3 4 5 6 7 8\ncpu0 1\ncpu  1 2 3\ncpu1 1\n", &st), 0);
  assert_int_equal(st.cpus, 1);
  /* So does a label that is not cpu<digits>. */
  assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8\ncpu0 1\ncpu0x 1\n", &st), 0);
  assert_int_equal(st.cpus, 1);
}

static void test_structure(void **state) {
  (void)state;
  check_error("", -EBADMSG);
  check_error("\n", -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8", -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8\n", -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8\n" TAIL, -EBADMSG); /* no cpuN line */
  check_error("cpu  1 2 3 4 5 6 7 8\ncpu0 1\n", -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8\ncpu0 1\ncpu1 1", -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8\ncpu0 1\nintr", -EBADMSG);
  check_error("intr 1\ncpu  1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu0 1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpux 1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("CPU  1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu\ncpu0 1\n" TAIL, -EBADMSG);
  check_error(" cpu  1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
}

static void test_malformed_fields(void **state) {
  (void)state;
  check_error("cpu  1 2 3 4 5 6 7\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8 \ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3  4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3\t4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu\t1 2 3 4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8\r\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 -4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 +4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 0x4 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 4.5 5 6 7 8\ncpu0 1\n" TAIL, -EBADMSG);
  check_error("cpu  1 2 3 4 5 6 7 8x\ncpu0 1\n" TAIL, -EBADMSG);
}

static void test_ranges(void **state) {
  struct proc_stat st;

  (void)state;
  assert_int_equal(parse("cpu  18446744073709551615 0 0 0 0 0 0 "
                         "18446744073709551615\ncpu0 1\n" TAIL,
                         &st),
                   0);
  assert_int_equal(st.total.user, UINT64_MAX);
  assert_int_equal(st.total.steal, UINT64_MAX);
  check_error("cpu  18446744073709551616 0 0 0 0 0 0 0\ncpu0 1\n" TAIL,
              -ERANGE);
  check_error("cpu  0 0 0 0 0 0 0 99999999999999999999999\ncpu0 1\n" TAIL,
              -ERANGE);
}

/* 4096 CPUs and an intr line of 40,000 sources. */
static void test_huge_file(void **state) {
  size_t size = 4096 * 64 + 40000 * 2 + 256, len = 0;
  char *text = malloc(size);
  struct proc_stat st;

  (void)state;
  assert_non_null(text);
  len += (size_t)sprintf(text, "cpu  1 2 3 4 5 6 7 8 9 10\n");
  for (int i = 0; i < 4096; i++)
    len += (size_t)sprintf(text + len, "cpu%d 1 2 3 4 5 6 7 8 9 10\n", i);
  len += (size_t)sprintf(text + len, "intr 1");
  for (int i = 0; i < 40000; i++)
    len += (size_t)sprintf(text + len, " 0");
  len += (size_t)sprintf(text + len, "\nctxt 1\n");
  assert_true(len < size);
  assert_int_equal(parse_len(text, len, &st), 0);
  assert_int_equal(st.cpus, 4096);
  assert_int_equal(st.total.guest_nice, 10);
  /* One cpuN line missing its end: refused, not a count of 4095. */
  assert_int_equal(
      parse_len(text, (size_t)(strstr(text, "intr") - text) - 1, &st),
      -EBADMSG);
  free(text);
}

/*
 * A read cut short anywhere before the end of the first line after the CPU
 * lines is refused; from there on every prefix gives the full result.
 */
static void test_every_prefix(void **state) {
  const char *s = proc_stat_sample;
  const char *after_block = strchr(strstr(s, "intr "), '\n') + 1;
  size_t complete = (size_t)(after_block - s);
  struct proc_stat st;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    int r = parse_len(s, len, &st);

    if (len < complete) {
      assert_int_equal(r, -EBADMSG);
      continue;
    }
    assert_int_equal(r, 0);
    assert_int_equal(st.cpus, 2);
    assert_int_equal(st.total.idle, 369217);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_sample),
      cmocka_unit_test(test_older_kernels),
      cmocka_unit_test(test_future_fields),
      cmocka_unit_test(test_label_spacing_and_cpu_lines),
      cmocka_unit_test(test_rest_ignored),
      cmocka_unit_test(test_structure),
      cmocka_unit_test(test_malformed_fields),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_huge_file),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
