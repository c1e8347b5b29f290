/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the io.stat, cpu.max and memory.max parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/cgroup_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int io(const char *text, struct io_totals *t) {
  size_t len = strlen(text);
  char *buf = calloc(1, len ? len : 1);
  memcpy(buf, text, len);
  int r = io_stat_parse(buf, len, t);
  free(buf);
  return r;
}

static void test_io_stat(void **state) {
  (void)state;
  struct io_totals t;
  assert_int_equal(
      io("8:0 rbytes=1482752 wbytes=8192 rios=35 wios=2 dbytes=0 dios=0\n"
         "253:0 rbytes=1000 wbytes=24 rios=1 wios=1 dbytes=0 dios=0\n",
         &t),
      0);
  assert_int_equal(t.rbytes, 1483752);
  assert_int_equal(t.wbytes, 8216);
  assert_int_equal(io("", &t), 0); /* no I/O yet */
  assert_int_equal(t.rbytes, 0);
  assert_int_equal(io("8:16 wbytes=5 rbytes=7", &t), 0); /* any order, no \n */
  assert_int_equal(t.rbytes, 7);
  assert_int_equal(t.wbytes, 5);
}

static void test_io_stat_malformed(void **state) {
  (void)state;
  struct io_totals t = {11, 22};
  const char *bad[] = {"8:0 rbytes=1\n",
                       "8:0 rbytes=1 wbytes=x\n",
                       "8 rbytes=1 wbytes=2\n",
                       "x:0 rbytes=1 wbytes=2\n",
                       "8:0  rbytes=1 wbytes=2\n",
                       "8:0 rbytes=1 rbytes=1 wbytes=2\n",
                       "8:0 rbytes=1 wbytes=2 =3\n",
                       "\n"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_int_equal(io(bad[i], &t), -EBADMSG);
  assert_int_equal(io("8:0 rbytes=18446744073709551616 wbytes=0\n", &t),
                   -ERANGE);
  assert_int_equal(io("8:0 rbytes=18446744073709551615 wbytes=0\n"
                      "8:1 rbytes=1 wbytes=0\n",
                      &t),
                   -ERANGE); /* the sum overflows */
  assert_int_equal(t.rbytes, 11);
}

static void test_cpu_max(void **state) {
  (void)state;
  unsigned cpus = 99;
  assert_int_equal(cpu_max_parse("max 100000\n", 11, &cpus), 0);
  assert_int_equal(cpus, 0);
  assert_int_equal(cpu_max_parse("200000 100000\n", 14, &cpus), 0);
  assert_int_equal(cpus, 2);
  assert_int_equal(cpu_max_parse("150000 100000", 13, &cpus), 0);
  assert_int_equal(cpus, 2); /* 1.5 CPUs round up */
  cpus = 99;
  assert_int_equal(cpu_max_parse("max\n", 4, &cpus), -EBADMSG);
  assert_int_equal(cpu_max_parse("100 0\n", 6, &cpus), -EBADMSG);
  assert_int_equal(cpu_max_parse("maxi 100\n", 9, &cpus), -EBADMSG);
  assert_int_equal(cpu_max_parse("1 2 3\n", 6, &cpus), -EBADMSG);
  assert_int_equal(cpus, 99);
}

static void test_memory_max(void **state) {
  (void)state;
  uint64_t b = 7;
  assert_int_equal(memory_max_parse("max\n", 4, &b), 0);
  assert_int_equal(b, 0);
  assert_int_equal(memory_max_parse("4294967296\n", 11, &b), 0);
  assert_int_equal(b, 4294967296u);
  b = 7;
  assert_int_equal(memory_max_parse("maximum\n", 8, &b), -EBADMSG);
  assert_int_equal(memory_max_parse("12k\n", 4, &b), -EBADMSG);
  assert_int_equal(memory_max_parse("", 0, &b), -EBADMSG);
  assert_int_equal(b, 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_stat),
      cmocka_unit_test(test_io_stat_malformed),
      cmocka_unit_test(test_cpu_max),
      cmocka_unit_test(test_memory_max),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
