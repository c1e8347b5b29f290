/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wall clock stepping back an hour, as the store sees it: rows every
 * 10 s whose times (and the store's now) are suddenly an hour behind the
 * file.  Every such row is dropped without touching the file, the log gets
 * the back-off's lines only (6 in the hour, not 360), and the first row
 * newer than the file's last update is written with one line saying so.
 * (The same through the real collectd, with a smaller step:
 * tests/integration/test_fault_clock.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOW 1800000000
#define STEP 10 /* seconds between rows */
#define BACK 3600

static enum rrd_store_outcome write_row(struct rrd_store *store, time_t t,
                                        struct rrd_store_result *res) {
  double v[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < layout_pve_vm_9_0.ds_count; i++)
    v[i] = (double)(t % 1000);
  assert_int_equal(rrd_store_write(store, &layout_pve_vm_9_0, NULL, "100", t, v,
                                   layout_pve_vm_9_0.ds_count, t, res),
                   0);
  return res->outcome;
}

static void test_hour_back(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("rrd-clock");
  char data_dir[300], path[400];
  fixture_path(data_dir, "%s/db", dir);
  fixture_path(path, "%s/pve-vm-9.0/100", data_dir);
  struct rrd_store_options o = {.data_dir = data_dir, .recheck_seconds = 3600};
  struct rrd_store *store = NULL;
  assert_int_equal(rrd_store_new(&o, &store), 0);
  struct rrd_store_result res;
  for (time_t t = NOW - 60; t <= NOW; t += STEP)
    assert_true(write_row(store, t, &res) <= RRD_STORE_CREATED);
  size_t len = 0;
  char *before = fixture_read(path, &len);
  assert_non_null(before);

  /* An hour of rows from a clock an hour behind: from NOW - BACK + STEP up
   * to NOW - STEP, all older than the file's last update (NOW). */
  const time_t want[] = {0, 60, 180, 420, 900, 1860}; /* the back-off */
  size_t reported = 0;
  for (time_t s = STEP; s < BACK; s += STEP) {
    assert_int_equal(write_row(store, NOW - BACK + s, &res), RRD_STORE_STALE);
    if (!res.report)
      continue;
    assert_true(reported < sizeof(want) / sizeof(want[0]));
    assert_int_equal(s - STEP, want[reported]);
    assert_non_null(strstr(res.message, "not newer than the file's last "
                                        "update at 1800000000"));
    reported++;
  }
  assert_int_equal(reported, sizeof(want) / sizeof(want[0]));
  assert_true(fixture_same(path, before, len));

  /* The clock passes the last update: written, and the end is logged. */
  assert_int_equal(write_row(store, NOW + STEP, &res), RRD_STORE_RECOVERED);
  assert_true(res.report);
  assert_non_null(strstr(res.message, "after 359 rows that could not be"));
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(path, &last, NULL, 0), 0);
  assert_int_equal(last, NOW + STEP);
  assert_int_equal(write_row(store, NOW + 2 * STEP, &res), RRD_STORE_WRITTEN);
  assert_false(res.report);

  free(before);
  rrd_store_free(store);
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hour_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
