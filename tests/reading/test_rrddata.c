/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/reading/rrddata.c: the windows of every timeframe at a fixed
 * now, when and how the legacy file is read, which legacy rows are joined in
 * front, the legacy file's path, and the JSON rows (unknown values left
 * out, an empty newest row dropped, memfree given as memavailable).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrddata.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Thu Nov 14 22:13:20 UTC 2023: not a multiple of any resolution. */
#define NOW 1700000000

static void test_timeframe_parse(void **state) {
  (void)state;
  enum rrddata_timeframe t = RRDDATA_HOUR;
  assert_int_equal(rrddata_timeframe_parse("decade", &t), 0);
  assert_int_equal(t, RRDDATA_DECADE);
  assert_int_equal(rrddata_timeframe_parse("week", &t), 0);
  assert_int_equal(t, RRDDATA_WEEK);
  assert_int_equal(rrddata_timeframe_parse("Week", &t), -EINVAL);
  assert_int_equal(rrddata_timeframe_parse("", &t), -EINVAL);
  assert_int_equal(rrddata_timeframe_parse("days", &t), -EINVAL);
  assert_int_equal(rrddata_timeframe_parse(NULL, &t), -EINVAL);
  assert_int_equal(t, RRDDATA_WEEK);
}

static void check_window(enum rrddata_timeframe tf, bool legacy,
                         unsigned long reso, time_t start, time_t end) {
  struct rrddata_window w;
  rrddata_window(tf, legacy, NOW, &w);
  assert_int_equal(w.resolution, reso);
  assert_int_equal(w.start, start);
  assert_int_equal(w.end, end);
}

static void test_windows_9_0(void **state) {
  (void)state;
  /* CTIME = RESO*floor(NOW/RESO); -s CTIME-RESO*ROWS -e CTIME-1 */
  check_window(RRDDATA_HOUR, false, 60, 1699996380, 1699999979);
  check_window(RRDDATA_DAY, false, 60, 1699913580, 1699999979);
  check_window(RRDDATA_WEEK, false, 1800, 1699394400, 1699999199);
  check_window(RRDDATA_MONTH, false, 1800, 1697407200, 1699999199);
  check_window(RRDDATA_YEAR, false, 21600, 1668880800, 1699984799);
  check_window(RRDDATA_DECADE, false, 604800, 1354752000, 1699487999);
}

static void test_windows_legacy(void **state) {
  (void)state;
  check_window(RRDDATA_HOUR, true, 60, 1699996380, 1699999979);
  check_window(RRDDATA_DAY, true, 1800, 1699873200, 1699999199);
  check_window(RRDDATA_WEEK, true, 10800, 1699239600, 1699995599);
  check_window(RRDDATA_MONTH, true, 43200, 1696939200, 1699963199);
  /* decade reads the legacy file as year */
  check_window(RRDDATA_YEAR, true, 604800, 1657152000, 1699487999);
  check_window(RRDDATA_DECADE, true, 604800, 1657152000, 1699487999);
}

static void test_window_at_boundary(void **state) {
  (void)state;
  struct rrddata_window w;
  rrddata_window(RRDDATA_HOUR, false, 1700002800, &w);
  assert_int_equal(w.start, 1700002800 - 3600);
  assert_int_equal(w.end, 1700002799);
}

static void test_plan_without_legacy(void **state) {
  (void)state;
  struct rrddata_plan p;
  rrddata_plan(RRDDATA_DAY, NOW, NULL, &p);
  assert_false(p.use_legacy);
  assert_int_equal(p.current.resolution, 60);
  assert_int_equal(p.current.start, 1699913580);
  assert_int_equal(p.current.end, 1699999979);

  /* a legacy file last updated at (or before) the start is not read */
  time_t last = 1699913580;
  rrddata_plan(RRDDATA_DAY, NOW, &last, &p);
  assert_false(p.use_legacy);
  assert_int_equal(p.current.start, 1699913580);
}

static void test_plan_with_legacy(void **state) {
  (void)state;
  struct rrddata_plan p;
  time_t last = 1699950000;
  rrddata_plan(RRDDATA_DAY, NOW, &last, &p);
  assert_true(p.use_legacy);
  /* legacy: its own table's start, up to its last update */
  assert_int_equal(p.legacy.resolution, 1800);
  assert_int_equal(p.legacy.start, 1699873200);
  assert_int_equal(p.legacy.end, 1699950000);
  /* 9.0: from the legacy file's last update */
  assert_int_equal(p.current.resolution, 60);
  assert_int_equal(p.current.start, 1699950000);
  assert_int_equal(p.current.end, 1699999979);

  /* decade: the legacy file read as for year */
  last = 1699000000;
  rrddata_plan(RRDDATA_DECADE, NOW, &last, &p);
  assert_true(p.use_legacy);
  assert_int_equal(p.legacy.resolution, 604800);
  assert_int_equal(p.legacy.start, 1657152000);
  assert_int_equal(p.legacy.end, 1699000000);
  assert_int_equal(p.current.resolution, 604800);
  assert_int_equal(p.current.start, 1699000000);
  assert_int_equal(p.current.end, 1699487999);
}

static void test_paths(void **state) {
  (void)state;
  char buf[64];
  assert_ptr_equal(rrddata_path_layout("/d/pve-vm-9.0/100"),
                   &layout_pve_vm_9_0);
  assert_ptr_equal(rrddata_path_layout("pve-node-9.0/n1"),
                   &layout_pve_node_9_0);
  assert_ptr_equal(rrddata_path_layout("/x/pve2-vm/100"), &layout_pve2_vm);
  assert_null(rrddata_path_layout("/x/other/100"));
  assert_null(rrddata_path_layout("100"));
  assert_null(rrddata_path_layout("/100"));
  assert_null(rrddata_path_layout("/x/apve-vm-9.0/100"));

  assert_int_equal(rrddata_legacy_path("/d/pve-vm-9.0/100", "", buf, 64), 0);
  assert_string_equal(buf, "/d/pve2-vm/100");
  assert_int_equal(rrddata_legacy_path("/d/e/pve-node-9.0/n1", ".old", buf, 64),
                   0);
  assert_string_equal(buf, "/d/e/pve2-node/n1.old");
  assert_int_equal(rrddata_legacy_path("pve-vm-9.0/100", "", buf, 64), 0);
  assert_string_equal(buf, "pve2-vm/100");
  assert_int_equal(rrddata_legacy_path("/d/pve2-vm/100", "", buf, 64), -EINVAL);
  assert_int_equal(rrddata_legacy_path("/d/x/100", "", buf, 64), -EINVAL);
  assert_int_equal(rrddata_legacy_path("/d/pve-vm-9.0/100", ".old", buf, 14),
                   -ENAMETOOLONG);
}

/* ---- rows --------------------------------------------------------------- */

static char *names_vm[] = {"cpu", "mem"};
static char *names_node[] = {"memfree", "loadavg"};

static struct rrd_series series(time_t start, unsigned long step, size_t rows,
                                double *values, char **names) {
  return (struct rrd_series){.start = start,
                             .step = step,
                             .ds_count = 2,
                             .ds_names = names,
                             .row_count = rows,
                             .values = values};
}

static char *written(const struct rrd_series *legacy,
                     const struct rrd_series *current, bool node) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  assert_non_null(out);
  struct json_writer w;
  json_writer_init(&w, out);
  rrddata_write(&w, legacy, current, node);
  assert_int_equal(fclose(out), 0);
  return text;
}

static void test_rows(void **state) {
  (void)state;
  double v[] = {0.25, 1024, NAN, 2048, NAN, NAN, 0.5, NAN, NAN, NAN};
  struct rrd_series s = series(600, 60, 5, v, names_vm);
  assert_false(rrddata_row_empty(&s, 0));
  assert_true(rrddata_row_empty(&s, 2));
  char *text = written(NULL, &s, false);
  /* each row is labelled with its interval's end (the series starts at
   * 600, so the first row covers (600, 660]); the empty row in the middle
   * stays (as "time" only); the newest goes */
  assert_string_equal(text,
                      "{\"data\":[{\"time\":660,\"cpu\":0.25,\"mem\":1024},"
                      "{\"time\":720,\"mem\":2048},{\"time\":780},"
                      "{\"time\":840,\"cpu\":0.5}]}");
  free(text);

  struct rrd_series none = series(600, 60, 0, v, names_vm);
  text = written(NULL, &none, false);
  assert_string_equal(text, "{\"data\":[]}");
  free(text);
}

static void test_join(void **state) {
  (void)state;
  double old[] = {1, NAN, 2, NAN, 3, 30, NAN, NAN};
  double cur[] = {NAN, 5, 0.1, NAN, NAN, NAN};
  /* legacy rows over (0, 1800], ... (5400, 7200]; 9.0 rows from 3600:
   * the legacy rows that begin before 3600 are kept, each row labelled
   * with its end */
  struct rrd_series l = series(0, 1800, 4, old, names_vm);
  struct rrd_series c = series(3600, 60, 3, cur, names_vm);
  assert_int_equal(rrddata_legacy_rows(&l, &c), 2);
  char *text = written(&l, &c, false);
  assert_string_equal(text, "{\"data\":[{\"time\":1800,\"cpu\":1},"
                            "{\"time\":3600,\"cpu\":2},"
                            "{\"time\":3660,\"mem\":5},"
                            "{\"time\":3720,\"cpu\":0.1}]}");
  free(text);

  /* 9.0 rows beginning inside a legacy row: that legacy row stays, though
   * its label (5400) is after the first 9.0 row's (3661), as in Proxmox */
  c.start = 3601;
  assert_int_equal(rrddata_legacy_rows(&l, &c), 3);
  /* the same minute in both files (hour view): the legacy row goes, so no
   * time is given twice */
  struct rrd_series lm = series(3540, 60, 4, old, names_vm);
  c.start = 3600;
  assert_int_equal(rrddata_legacy_rows(&lm, &c), 1);
  /* no 9.0 rows: every legacy row, the newest dropped when empty */
  c.row_count = 0;
  assert_int_equal(rrddata_legacy_rows(&l, &c), 4);
  text = written(&l, &c, false);
  assert_string_equal(text, "{\"data\":[{\"time\":1800,\"cpu\":1},"
                            "{\"time\":3600,\"cpu\":2},"
                            "{\"time\":5400,\"cpu\":3,\"mem\":30}]}");
  free(text);
}

static void test_node_memfree(void **state) {
  (void)state;
  double v[] = {4096, 0.5, NAN, 0.75};
  struct rrd_series s = series(60, 60, 2, v, names_node);
  char *text = written(NULL, &s, true);
  assert_string_equal(text, "{\"data\":[{\"time\":120,\"memfree\":4096,"
                            "\"memavailable\":4096,\"loadavg\":0.5},"
                            "{\"time\":180,\"loadavg\":0.75}]}");
  free(text);
  text = written(NULL, &s, false);
  assert_string_equal(text, "{\"data\":[{\"time\":120,\"memfree\":4096,"
                            "\"loadavg\":0.5},"
                            "{\"time\":180,\"loadavg\":0.75}]}");
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timeframe_parse),
      cmocka_unit_test(test_windows_9_0),
      cmocka_unit_test(test_windows_legacy),
      cmocka_unit_test(test_window_at_boundary),
      cmocka_unit_test(test_plan_without_legacy),
      cmocka_unit_test(test_plan_with_legacy),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_join),
      cmocka_unit_test(test_rows),
      cmocka_unit_test(test_node_memfree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
