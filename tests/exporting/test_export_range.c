/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_range.c: which rows of which archive `pvecg
 * export` reads, for exact last-update times and ranges (values worked out by
 * hand from the archive table: resolution, rows, and the newest row at
 * the last update rounded down), and the parsing of --since/--until.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/export_range.h"

#include <errno.h>
#include <time.h>

/* Not a multiple of any resolution: 1700006400 is (of 60, 1800, 21600). */
#define LAST 1700006430

static void check_fetch(const struct export_fetch *f, unsigned long reso,
                        time_t start, time_t end) {
  assert_int_equal(f->resolution, reso);
  assert_int_equal(f->start, start);
  assert_int_equal(f->end, end);
}

/* Everything: each archive gives what the finer ones do not hold. */
static void test_whole_file(void **state) {
  (void)state;
  for (int cf = RRD_CF_AVERAGE; cf <= RRD_CF_MAX; cf++) {
    struct export_plan p;
    assert_int_equal(export_range_plan(&layout_pve_vm_9_0, (enum rrd_cf)cf,
                                       LAST, 0, LAST + 1000, false, &p),
                     0);
    assert_int_equal(p.count, 4);
    /* weeks: newest 1699488000, 570 rows; up to the 6 h archive's start */
    check_fetch(&p.fetch[0], 604800, 1354752000, 1668643200);
    /* 6 h: newest 1700006400, 1440 rows; up to the 30 min archive's start */
    check_fetch(&p.fetch[1], 21600, 1668902400, 1697414400);
    /* 30 min: up to the minute archive's start */
    check_fetch(&p.fetch[2], 1800, 1697414400, 1699920000);
    /* minutes: the newest 1440 */
    check_fetch(&p.fetch[3], 60, 1699920000, 1700006400);
    assert_int_equal(export_fetch_rows(&p.fetch[3]), 1440);
    assert_int_equal(export_fetch_rows(&p.fetch[2]), 1392);
    assert_int_equal(export_fetch_rows(&p.fetch[1]), 1320);
    assert_int_equal(export_fetch_rows(&p.fetch[0]), 519);
  }
}

/* A range inside the finest archive reads only it; its ends are rounded
 * inward to whole rows. */
static void test_recent_range(void **state) {
  (void)state;
  struct export_plan p;
  assert_int_equal(export_range_plan(&layout_pve_node_9_0, RRD_CF_AVERAGE, LAST,
                                     LAST - 3600, LAST - 600, false, &p),
                   0);
  assert_int_equal(p.count, 1);
  check_fetch(&p.fetch[0], 60, 1700002800, 1700005800);
  assert_int_equal(export_fetch_rows(&p.fetch[0]), 50);
  /* since exactly on a row's time includes that row */
  assert_int_equal(export_range_plan(&layout_pve_node_9_0, RRD_CF_AVERAGE, LAST,
                                     1700002860, 1700002860, false, &p),
                   0);
  assert_int_equal(p.count, 1);
  check_fetch(&p.fetch[0], 60, 1700002800, 1700002860);
  /* no row time inside (1700002861 .. 1700002919) */
  assert_int_equal(export_range_plan(&layout_pve_node_9_0, RRD_CF_AVERAGE, LAST,
                                     1700002861, 1700002919, false, &p),
                   0);
  assert_int_equal(p.count, 0);
}

/* A range reaching two days back: the older day from the 30 min rows. */
static void test_two_archives(void **state) {
  (void)state;
  struct export_plan p;
  assert_int_equal(export_range_plan(&layout_pve_vm_9_0, RRD_CF_MAX, LAST,
                                     LAST - 2 * 86400, LAST, false, &p),
                   0);
  assert_int_equal(p.count, 2);
  /* since 1699833630 -> first 30 min row ending 1699835400 */
  check_fetch(&p.fetch[0], 1800, 1699833600, 1699920000);
  check_fetch(&p.fetch[1], 60, 1699920000, 1700006400);
  /* A daemon over TCP only gives the finest rows. */
  assert_int_equal(export_range_plan(&layout_pve_vm_9_0, RRD_CF_MAX, LAST,
                                     LAST - 2 * 86400, LAST, true, &p),
                   0);
  assert_int_equal(p.count, 1);
  check_fetch(&p.fetch[0], 60, 1699920000, 1700006400);
}

/* The legacy layout's 70-row archives leave room between them. */
static void test_legacy_layout(void **state) {
  (void)state;
  struct export_plan p;
  assert_int_equal(export_range_plan(&layout_pve2_vm, RRD_CF_AVERAGE, LAST, 0,
                                     LAST, false, &p),
                   0);
  assert_int_equal(p.count, 5);
  /* Each 70 rows, each ending where the finer one's rows begin. */
  check_fetch(&p.fetch[0], 604800, 1657152000, 1696464000);
  check_fetch(&p.fetch[1], 43200, 1696982400, 1699228800);
  check_fetch(&p.fetch[2], 10800, 1699250400, 1699876800);
  check_fetch(&p.fetch[3], 1800, 1699880400, 1700001000);
  check_fetch(&p.fetch[4], 60, 1700002200, 1700006400);
  assert_int_equal(export_fetch_rows(&p.fetch[0]), 65);
  assert_int_equal(export_fetch_rows(&p.fetch[1]), 52);
  assert_int_equal(export_fetch_rows(&p.fetch[2]), 58);
  assert_int_equal(export_fetch_rows(&p.fetch[3]), 67);
  assert_int_equal(export_fetch_rows(&p.fetch[4]), 70);
}

static void test_nothing_stored_there(void **state) {
  (void)state;
  struct export_plan p = {.count = 7};
  /* Before the coarsest archive's oldest row. */
  assert_int_equal(export_range_plan(&layout_pve_vm_9_0, RRD_CF_AVERAGE, LAST,
                                     0, 1300000000, false, &p),
                   0);
  assert_int_equal(p.count, 0);
  /* After the last update. */
  assert_int_equal(export_range_plan(&layout_pve_vm_9_0, RRD_CF_AVERAGE, LAST,
                                     LAST + 60, LAST + 600, false, &p),
                   0);
  assert_int_equal(p.count, 0);
  p.count = 7;
  assert_int_equal(export_range_plan(&layout_pve_vm_9_0, RRD_CF_AVERAGE, LAST,
                                     LAST, LAST - 1, false, &p),
                   -EINVAL);
  assert_int_equal(p.count, 7);
}

/* The table's order does not matter: finest first is worked out. */
static void test_unordered_table(void **state) {
  (void)state;
  static const struct rrd_rra_def rra[] = {
      {RRD_CF_AVERAGE, 10, 6}, {RRD_CF_MAX, 1, 100}, {RRD_CF_AVERAGE, 1, 10}};
  static const struct rrd_ds_def ds[] = {{"x", RRD_DS_GAUGE, false}};
  const struct rrd_layout l = {.name = "t",
                               .step = 10,
                               .ds = ds,
                               .ds_count = 1,
                               .rra = rra,
                               .rra_count = 3};
  struct export_plan p;
  assert_int_equal(
      export_range_plan(&l, RRD_CF_AVERAGE, 1005, 0, 2000, false, &p), 0);
  assert_int_equal(p.count, 2);
  /* 100 s rows: 6 ending 500..1000; those up to 900 */
  check_fetch(&p.fetch[0], 100, 400, 900);
  /* 10 s rows: newest 1000, 10 rows ending 910..1000 */
  check_fetch(&p.fetch[1], 10, 900, 1000);
}

static void test_time_parse(void **state) {
  (void)state;
  const time_t now = 1700000000;
  time_t t = 0;
  assert_int_equal(export_time_parse("now", now, &t), 0);
  assert_int_equal(t, now);
  assert_int_equal(export_time_parse("1600000000", now, &t), 0);
  assert_int_equal(t, 1600000000);
  assert_int_equal(export_time_parse("0", now, &t), 0);
  assert_int_equal(t, 0);
  assert_int_equal(export_time_parse("-45s", now, &t), 0);
  assert_int_equal(t, now - 45);
  assert_int_equal(export_time_parse("-30m", now, &t), 0);
  assert_int_equal(t, now - 1800);
  assert_int_equal(export_time_parse("-2h", now, &t), 0);
  assert_int_equal(t, now - 7200);
  assert_int_equal(export_time_parse("-1d", now, &t), 0);
  assert_int_equal(t, now - 86400);
  assert_int_equal(export_time_parse("-3w", now, &t), 0);
  assert_int_equal(t, now - 3 * 604800);
  static const char *const bad[] = {
      "",
      "-",
      "-d",
      "1d",
      "+5",
      "-5x",
      " 5",
      "5 ",
      "-1.5h",
      "Now",
      "-0x1d",
      "99999999999999999999",
      "-99999999999999999999s",
      "-15250284452472w", /* more seconds than int64 holds */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    t = 42;
    assert_int_equal(export_time_parse(bad[i], now, &t), -EINVAL);
    assert_int_equal(t, 42);
  }
  assert_int_equal(export_time_parse(NULL, now, &t), -EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_whole_file),
      cmocka_unit_test(test_recent_range),
      cmocka_unit_test(test_two_archives),
      cmocka_unit_test(test_legacy_layout),
      cmocka_unit_test(test_nothing_stored_there),
      cmocka_unit_test(test_unordered_table),
      cmocka_unit_test(test_time_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
